// Package py reproduces the few Python behaviours that driver messages and
// checks depend on: truthiness, str() and repr() of JSON-decoded values.
// Values are decoded JSON: nil, bool, string, json.Number, float64, []any
// and *pyjson.Dict (in its order) or map[string]any (in sorted order), plus
// plain Go ints, for tests.
package py

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/goironic/ironic/internal/pyjson"
)

// Truthy reports whether Python would treat v as true in a boolean context
// (`if v:`): None, False, zero, "" and empty containers are false.
func Truthy(v any) bool { return pyjson.Truthy(v) }

// Str is Python's str(v).
func Str(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return x
	case json.Number:
		return numberStr(x)
	case float64:
		return floatRepr(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return Repr(v)
}

// Repr is Python's repr(v).
func Repr(v any) string {
	switch x := v.(type) {
	case string:
		return quote(x)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *pyjson.Dict:
		parts := make([]string, 0, x.Len())
		for k, e := range x.All() {
			parts = append(parts, quote(k)+": "+Repr(e))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quote(k) + ": " + Repr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return Repr(m)
	case nil, bool, json.Number, float64, int, int64:
		return Str(v)
	}
	return fmt.Sprint(v)
}

// Int is Python's int(v) for the values a JSON document can hold: integers,
// floats (truncated), booleans and strings holding a decimal integer
// (surrounding whitespace allowed). ok is false where Python raises.
func Int(v any) (n int64, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return int64(f), true
		}
		return 0, false
	case string:
		s := strings.TrimSpace(strings.ReplaceAll(x, "_", ""))
		if s == "" || strings.HasPrefix(x, "_") {
			return 0, false
		}
		b, okb := new(big.Int).SetString(s, 10)
		if !okb || !b.IsInt64() {
			return 0, false
		}
		return b.Int64(), true
	}
	return 0, false
}

func numberStr(n json.Number) string {
	s := string(n)
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s
	}
	if strings.ContainsAny(s, ".eE") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatRepr(f)
		}
	}
	return s
}

// floatRepr is Python's repr of a float: the shortest round-tripping digits,
// always with a fraction or an exponent.
func floatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		return mant + "e" + fmt.Sprintf("%+03d", exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// BytesRepr is Python's repr of a bytes value: b'...', every byte
// outside printable ASCII escaped.
func BytesRepr(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return "b" + quoteWith(string(r), true)
}

// quote renders s as Python's repr of a str.
func quote(s string) string { return quoteWith(s, false) }

// quoteWith is quote, or with asciiOnly the quoting of bytes (s holds
// one rune per byte).
func quoteWith(s string, asciiOnly bool) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80 || (!asciiOnly && unicode.IsPrint(r)):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
