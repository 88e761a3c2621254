package pyschema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goironic/ironic/internal/pyjson"
)

// Repr returns Python's repr() of a decoded JSON value, as jsonschema puts
// it in its messages: 'text' strings, True/False/None, ints, floats as
// Python prints them (1.0, 1e+16), [1, 'a'] lists and {'a': 1} dicts in
// insertion order. v may be any value Validate accepts; Go maps are shown
// with sorted keys.
func Repr(v any) string {
	c, err := canonical(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	var b strings.Builder
	writeRepr(&b, c)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case sentinel:
		b.WriteString("<object object>")
	case string:
		b.WriteString(pyStrRepr(x))
	case json.Number:
		b.WriteString(numberRepr(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case pyjson.Object:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyStrRepr(m.Key))
			b.WriteString(": ")
			writeRepr(b, m.Value)
		}
		b.WriteByte('}')
	default:
		b.WriteString(Repr(x))
	}
}

// numberRepr is repr() of the Python int or float a json.Number stands for.
func numberRepr(n json.Number) string {
	num, ok := toNumber(n)
	if !ok {
		return string(n)
	}
	if num.isFloat {
		return pyFloatRepr(num.f)
	}
	return num.i.String()
}

// pyStr is str() of a value; for numbers and strings as used by
// jsonschema's f-strings without !r.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

// pyFloatRepr is Python's float.__repr__: the shortest digits that read
// back as f, in positional notation unless the exponent is below -4 or at
// least 16, always showing a fraction or an exponent.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f != 0 {
		e := strconv.FormatFloat(f, 'e', -1, 64)
		i := strings.IndexByte(e, 'e')
		exp, _ := strconv.Atoi(e[i+1:])
		if exp < -4 || exp >= 16 {
			return e
		}
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

const lowerHex = "0123456789abcdef"

// pyStrRepr is Python 3's repr() of a str.
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(lowerHex[r>>4])
			b.WriteByte(lowerHex[r&0xf])
		case r < 0x7f:
			b.WriteRune(r)
		case pyPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			writeHex(&b, r, 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(&b, r, 4)
		default:
			b.WriteString(`\U`)
			writeHex(&b, r, 8)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, r rune, digits int) {
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		b.WriteByte(lowerHex[(r>>shift)&0xf])
	}
}

// pyPrintable is str.isprintable() for one character under Python 3.11's
// Unicode 14.0 database.
func pyPrintable(r rune) bool {
	return unicode.IsPrint(r) && !unicode.Is(newerThanPython(), r)
}

// newerThanPython lists the characters that Go's Unicode tables (15.0)
// assign but Python 3.11's (14.0) do not. Python treats them as unassigned:
// not printable, not letters, not digits.
func newerThanPython() *unicode.RangeTable {
	return &unicode.RangeTable{
		R16: []unicode.Range16{
			{Lo: 0x0cf3, Hi: 0x0cf3, Stride: 1},
			{Lo: 0x0ece, Hi: 0x0ece, Stride: 1},
		},
		R32: []unicode.Range32{
			{Lo: 0x10efd, Hi: 0x10eff, Stride: 1},
			{Lo: 0x1123f, Hi: 0x11241, Stride: 1},
			{Lo: 0x11b00, Hi: 0x11b09, Stride: 1},
			{Lo: 0x11f00, Hi: 0x11f10, Stride: 1},
			{Lo: 0x11f12, Hi: 0x11f3a, Stride: 1},
			{Lo: 0x11f3e, Hi: 0x11f59, Stride: 1},
			{Lo: 0x1342f, Hi: 0x1342f, Stride: 1},
			{Lo: 0x13440, Hi: 0x13455, Stride: 1},
			{Lo: 0x1b132, Hi: 0x1b132, Stride: 1},
			{Lo: 0x1b155, Hi: 0x1b155, Stride: 1},
			{Lo: 0x1d2c0, Hi: 0x1d2d3, Stride: 1},
			{Lo: 0x1df25, Hi: 0x1df2a, Stride: 1},
			{Lo: 0x1e030, Hi: 0x1e06d, Stride: 1},
			{Lo: 0x1e08f, Hi: 0x1e08f, Stride: 1},
			{Lo: 0x1e4d0, Hi: 0x1e4f9, Stride: 1},
			{Lo: 0x1f6dc, Hi: 0x1f6dc, Stride: 1},
			{Lo: 0x1f774, Hi: 0x1f776, Stride: 1},
			{Lo: 0x1f77b, Hi: 0x1f77f, Stride: 1},
			{Lo: 0x1f7d9, Hi: 0x1f7d9, Stride: 1},
			{Lo: 0x1fa75, Hi: 0x1fa77, Stride: 1},
			{Lo: 0x1fa87, Hi: 0x1fa88, Stride: 1},
			{Lo: 0x1faad, Hi: 0x1faaf, Stride: 1},
			{Lo: 0x1fabb, Hi: 0x1fabd, Stride: 1},
			{Lo: 0x1fabf, Hi: 0x1fabf, Stride: 1},
			{Lo: 0x1face, Hi: 0x1facf, Stride: 1},
			{Lo: 0x1fada, Hi: 0x1fadb, Stride: 1},
			{Lo: 0x1fae8, Hi: 0x1fae8, Stride: 1},
			{Lo: 0x1faf7, Hi: 0x1faf8, Stride: 1},
			{Lo: 0x2b739, Hi: 0x2b739, Stride: 1},
			{Lo: 0x31350, Hi: 0x323af, Stride: 1},
		},
	}
}
