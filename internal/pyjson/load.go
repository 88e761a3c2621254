package pyjson

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Load decodes one JSON document as Python's json.loads does: objects
// become *Dict with their keys in the document's order (a repeated key
// keeps its first position and its last value), arrays []any, numbers
// json.Number (kept as written), and NaN, Infinity and -Infinity are
// accepted (as json.Number). It is several times faster than
// encoding/json: the JSON columns of a 1000-node list are decoded on every
// request.
func Load(b []byte) (any, error) {
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
	// scratch holds the members of the objects being decoded (an inner
	// object's above its parent's). An object at its bottom keeps its
	// members where they are (the rest of the array serves the next
	// objects); an inner one is copied out to a slice of its size.
	scratch []Member
}

var errJSONDepth = errors.New("JSON nested too deeply")

// scratchSize is the room for members the first object of a document
// gets: most of Ironic's dicts have fewer keys.
const scratchSize = 8

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
		d.ws()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return &Dict{}, nil
		}
		if cap(d.scratch) == 0 {
			d.scratch = make([]Member, 0, scratchSize)
		}
		base := len(d.scratch)
		var index map[string]int // from indexThreshold keys on
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
			d.member(base, &index, k, v)
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
				obj := &Dict{}
				if n := len(d.scratch); base == 0 {
					// Capped: a Set that appends must not write into
					// the next object's members.
					obj.members = d.scratch[:n:n]
					d.scratch = d.scratch[n:n]
				} else {
					obj.members = slices.Clone(d.scratch[base:])
					clear(d.scratch[base:]) // let the values go
					d.scratch = d.scratch[:base]
				}
				if len(obj.members) >= indexThreshold {
					obj.index = index
				}
				return obj, nil
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

// member adds k: v to the object whose members start at scratch[base]:
// a repeated key keeps its first position and takes the new value.
func (d *jsonDecoder) member(base int, index *map[string]int, k string, v any) {
	obj := d.scratch[base:]
	if *index != nil {
		if i, ok := (*index)[k]; ok {
			obj[i].Value = v
			return
		}
	} else {
		for i := range obj {
			if obj[i].Key == k {
				obj[i].Value = v
				return
			}
		}
	}
	d.scratch = append(d.scratch, Member{Key: k, Value: v})
	n := len(d.scratch) - base
	switch {
	case *index != nil:
		(*index)[k] = n - 1
	case n >= indexThreshold:
		*index = make(map[string]int, 2*n)
		for i, m := range d.scratch[base:] {
			(*index)[m.Key] = i
		}
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
