// Package pyjson reads and writes JSON the way Python's json module does with
// its default options: ", " and ": " separators, non-ASCII escaped as \uXXXX,
// numbers kept as written. Ironic stores JSON columns with json.dumps and
// answers API requests with it, so both the database bytes and the response
// bytes depend on this format.
package pyjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Member is one key of an ordered object.
type Member struct {
	Key   string
	Value any
}

// Object is a JSON object whose keys are written in order, as a Python dict
// built in that order would be.
type Object []Member

// Get returns the value of key k.
func (o Object) Get(k string) (any, bool) {
	for _, m := range o {
		if m.Key == k {
			return m.Value, true
		}
	}
	return nil, false
}

// Marshaler is implemented by types that write themselves in Python's format.
type Marshaler interface {
	AppendPyJSON(dst []byte) ([]byte, error)
}

// Marshal encodes v in Python's json.dumps format. Maps are written with
// sorted keys (Go maps have no order); use Object where order matters.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, 256), v)
}

// Append appends the encoding of v to dst.
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return AppendString(dst, x), nil
	case json.Number:
		if x == "" {
			return append(dst, '0'), nil
		}
		return append(dst, x...), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case float64:
		return appendFloat(dst, x)
	case *string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return AppendString(dst, *x), nil
	case *bool:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return Append(dst, *x)
	case *int:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return strconv.AppendInt(dst, int64(*x), 10), nil
	case *int64:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return strconv.AppendInt(dst, *x, 10), nil
	case Object:
		return appendObject(dst, x)
	case Marshaler:
		return x.AppendPyJSON(dst)
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendMap(dst, x)
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendString(dst, k)
			dst = append(dst, ": "...)
			dst = AppendString(dst, x[k])
		}
		return append(dst, '}'), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = Append(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']'), nil
	case []Object:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = appendObject(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case json.RawMessage:
		var tmp any
		if err := Unmarshal(x, &tmp); err != nil {
			return dst, err
		}
		return Append(dst, tmp)
	}
	return appendReflect(dst, v)
}

func appendObject(dst []byte, o Object) ([]byte, error) {
	if o == nil {
		return append(dst, "{}"...), nil
	}
	dst = append(dst, '{')
	var err error
	for i, m := range o {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendString(dst, m.Key)
		dst = append(dst, ": "...)
		if dst, err = Append(dst, m.Value); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendMap(dst []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendString(dst, k)
		dst = append(dst, ": "...)
		if dst, err = Append(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendReflect handles the remaining kinds (typed slices and maps, structs)
// by a round trip through encoding/json.
func appendReflect(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return append(dst, "null"...), nil
		}
		return Append(dst, rv.Elem().Interface())
	case reflect.Slice:
		if rv.IsNil() {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		var err error
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = Append(dst, rv.Index(i).Interface()); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case reflect.String:
		return AppendString(dst, rv.String()), nil
	case reflect.Bool:
		return Append(dst, rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(dst, rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return appendFloat(dst, rv.Float())
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	var tmp any
	if err := Unmarshal(raw, &tmp); err != nil {
		return dst, err
	}
	return Append(dst, tmp)
}

// appendFloat writes a float as Python's repr does: always with a fraction
// or an exponent, "Infinity"/"NaN" for the special values.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...), nil
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...), nil
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...), nil
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes 1e+16 and 1e-05: at least two exponent digits.
		if i := bytes.IndexByte([]byte(s), 'e'); i >= 0 {
			mant, exp := s[:i], s[i+1:]
			sign := exp[0]
			digits := exp[1:]
			if len(digits) < 2 {
				digits = "0" + digits
			}
			s = mant + "e" + string(sign) + digits
		}
		return append(dst, s...), nil
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	dst = append(dst, s...)
	if !bytes.ContainsAny([]byte(s), ".") {
		dst = append(dst, ".0"...)
	}
	return dst, nil
}

const hex = "0123456789abcdef"

// swarSafe reports whether none of the 8 bytes of w needs escaping: no
// control character, no '"', no '\\', nothing at or above 0x7f.
func swarSafe(w uint64) bool {
	const lo = 0x0101010101010101
	const hi = 0x8080808080808080
	ctl := (w - lo*0x20) &^ w  // bytes < 0x20
	quote := (w ^ lo*'"') - lo // zero byte where '"'
	quote &^= w ^ lo*'"'
	bslash := (w ^ lo*'\\') - lo
	bslash &^= w ^ lo*'\\'
	del := (w + lo*0x01) | w // bytes >= 0x7f set their high bit
	return (ctl|quote|bslash|del)&hi == 0
}

// AppendString writes s quoted with ensure_ascii escaping.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped writes s's characters with ensure_ascii escaping but no
// quotes, for building one JSON string from several pieces.
func AppendEscaped(dst []byte, s string) []byte { return appendEscaped(dst, s) }

// appendEscaped writes s's characters with ensure_ascii escaping.
func appendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && swarSafe(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
			continue
		}
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = 0xfffd
		}
		if r >= 0x10000 {
			r -= 0x10000
			dst = appendU(dst, 0xd800+(r>>10))
			dst = appendU(dst, 0xdc00+(r&0x3ff))
		} else {
			dst = appendU(dst, r)
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hex[(r>>12)&0xf], hex[(r>>8)&0xf], hex[(r>>4)&0xf], hex[r&0xf])
}

// Unmarshal decodes JSON keeping numbers as json.Number, so that integers and
// floats survive a round trip exactly as written.
func Unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// Only whitespace may follow the value (Decoder.More would accept a
	// stray closing bracket).
	for _, c := range data[dec.InputOffset():] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return fmt.Errorf("extra data after JSON value")
		}
	}
	return nil
}
