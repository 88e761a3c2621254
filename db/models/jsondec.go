package models

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSON decodes one JSON document into the values pyjson.Unmarshal
// produces (map[string]any, []any, string, json.Number, bool, nil), several
// times faster than encoding/json: the JSON columns of a 1000-node list are
// decoded on every request. Like Python's json module it also accepts NaN,
// Infinity and -Infinity, kept as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := jsonDecoder{b: b}
	d.ws()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.b) {
		return nil, d.fail("extra data after JSON value")
	}
	return v, nil
}

type jsonDecoder struct {
	b []byte
	i int
}

var errJSONDepth = errors.New("JSON nested too deeply")

func (d *jsonDecoder) fail(msg string) error {
	return errors.New("invalid JSON at offset " + strconv.Itoa(d.i) + ": " + msg)
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() (any, error) { return d.valueDepth(0) }

func (d *jsonDecoder) valueDepth(depth int) (any, error) {
	if depth > 10000 {
		return nil, errJSONDepth
	}
	if d.i >= len(d.b) {
		return nil, d.fail("unexpected end of input")
	}
	switch c := d.b[d.i]; c {
	case '{':
		d.i++
		m := map[string]any{}
		d.ws()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return m, nil
		}
		for {
			d.ws()
			if d.i >= len(d.b) || d.b[d.i] != '"' {
				return nil, d.fail("expected object key")
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.ws()
			if d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, d.fail("expected ':'")
			}
			d.i++
			d.ws()
			v, err := d.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			d.ws()
			if d.i >= len(d.b) {
				return nil, d.fail("unexpected end of object")
			}
			if d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.b[d.i] == '}' {
				d.i++
				return m, nil
			}
			return nil, d.fail("expected ',' or '}'")
		}
	case '[':
		d.i++
		l := []any{}
		d.ws()
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return l, nil
		}
		for {
			d.ws()
			v, err := d.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			d.ws()
			if d.i >= len(d.b) {
				return nil, d.fail("unexpected end of array")
			}
			if d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.b[d.i] == ']' {
				d.i++
				return l, nil
			}
			return nil, d.fail("expected ',' or ']'")
		}
	case '"':
		return d.str()
	case 't':
		return true, d.lit("true")
	case 'f':
		return false, d.lit("false")
	case 'n':
		return nil, d.lit("null")
	case 'N':
		return json.Number("NaN"), d.lit("NaN")
	case 'I':
		return json.Number("Infinity"), d.lit("Infinity")
	default:
		if c == '-' && d.i+1 < len(d.b) && d.b[d.i+1] == 'I' {
			d.i++
			return json.Number("-Infinity"), d.lit("Infinity")
		}
		if c == '-' || ('0' <= c && c <= '9') {
			return d.num()
		}
		return nil, d.fail("unexpected character")
	}
}

func (d *jsonDecoder) lit(s string) error {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return d.fail("invalid literal")
	}
	d.i += len(s)
	return nil
}

// num scans a number with JSON's grammar.
func (d *jsonDecoder) num() (any, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, d.fail("invalid number")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.fail("invalid number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.fail("invalid number")
		}
	}
	return json.Number(d.b[start:d.i]), nil
}

// str scans a string, d.b[d.i] being the opening quote.
func (d *jsonDecoder) str() (string, error) {
	d.i++
	start := d.i
	// Fast path: no escapes, ASCII or valid UTF-8.
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			return string([]rune(string(s))), nil // invalid bytes become U+FFFD, as encoding/json
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", d.fail("control character in string")
		}
		d.i++
	}
	buf := make([]byte, 0, d.i-start+16)
	buf = append(buf, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if utf8.Valid(buf) {
				return string(buf), nil
			}
			return string([]rune(string(buf))), nil
		case c < 0x20:
			return "", d.fail("control character in string")
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.b) {
			break
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.fail("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					r2, ok2 := d.hex4()
					if !ok2 {
						return "", d.fail("invalid \\u escape")
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					d.i = save
				}
				buf = utf8.AppendRune(buf, utf8.RuneError)
				continue
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.fail("invalid escape")
		}
	}
	return "", d.fail("unterminated string")
}

func (d *jsonDecoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}
