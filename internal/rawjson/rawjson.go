// Package rawjson splits JSON texts into their members without decoding
// the values, and decodes the scalars, lists and dicts of what it split:
// the lazy scanner of the oslo.messaging codec (rpc/oslo) and of Ironic's
// object primitives (objects). Errors keep the "oslo:" prefix they have
// always had: they reach RPC callers in failure replies.
package rawjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/goironic/ironic/internal/pyjson"
)

// Member is one key of a JSON object with its undecoded value.
type Member struct {
	Key string
	Raw []byte
}

// Object is a JSON object split into its members, in order.
type Object []Member

// Get returns the raw value of key k, or nil.
func (o Object) Get(k string) []byte {
	for _, m := range o {
		if m.Key == k {
			return m.Raw
		}
	}
	return nil
}

// Has reports whether key k is present.
func (o Object) Has(k string) bool { return o.Get(k) != nil }

// ErrSyntax is the error for a malformed JSON text.
var ErrSyntax = errors.New("oslo: malformed JSON")

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// SplitObject splits a JSON object into its members without decoding the
// values. Anything but an object is an error.
func SplitObject(b []byte) (Object, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("oslo: expected a JSON object")
	}
	i++
	out := make(Object, 0, 16)
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		if skipSpace(b, i+1) != len(b) {
			return nil, ErrSyntax
		}
		return out, nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil, ErrSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		key, err := DecodeString(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, ErrSyntax
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Raw: b[i:vend]})
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, ErrSyntax
		}
		if b[i] == '}' {
			if skipSpace(b, i+1) != len(b) {
				return nil, ErrSyntax
			}
			return out, nil
		}
		if b[i] != ',' {
			return nil, ErrSyntax
		}
		i++
	}
}

// SplitArray splits a JSON array into its raw elements.
func SplitArray(b []byte) ([][]byte, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, fmt.Errorf("oslo: expected a JSON array")
	}
	i = skipSpace(b, i+1)
	var out [][]byte
	if i < len(b) && b[i] == ']' {
		return out, nil
	}
	for {
		i = skipSpace(b, i)
		end, err := skipValue(b, i, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, ErrSyntax
		}
		if b[i] == ']' {
			return out, nil
		}
		if b[i] != ',' {
			return nil, ErrSyntax
		}
		i++
	}
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, ErrSyntax
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, errors.New("oslo: JSON nested too deeply")
	}
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		j := skipSpace(b, i+1)
		if j < len(b) && b[j] == closer {
			return j + 1, nil
		}
		for {
			j = skipSpace(b, j)
			if c == '{' {
				if j >= len(b) || b[j] != '"' {
					return 0, ErrSyntax
				}
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = skipSpace(b, end)
				if j >= len(b) || b[j] != ':' {
					return 0, ErrSyntax
				}
				j = skipSpace(b, j+1)
			}
			end, err := skipValue(b, j, depth+1)
			if err != nil {
				return 0, err
			}
			j = skipSpace(b, end)
			if j >= len(b) {
				return 0, ErrSyntax
			}
			if b[j] == closer {
				return j + 1, nil
			}
			if b[j] != ',' {
				return 0, ErrSyntax
			}
			j++
		}
	case c == 't':
		return lit(b, i, "true")
	case c == 'f':
		return lit(b, i, "false")
	case c == 'n':
		return lit(b, i, "null")
	case c == 'N':
		return lit(b, i, "NaN")
	case c == 'I':
		return lit(b, i, "Infinity")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		if c == '-' && j < len(b) && b[j] == 'I' {
			return lit(b, j, "Infinity")
		}
		for j < len(b) {
			d := b[j]
			if (d >= '0' && d <= '9') || d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				j++
				continue
			}
			break
		}
		return j, nil
	}
	return 0, ErrSyntax
}

func lit(b []byte, i int, s string) (int, error) {
	if len(b)-i < len(s) || string(b[i:i+len(s)]) != s {
		return 0, ErrSyntax
	}
	return i + len(s), nil
}

// IsNull reports whether raw is the literal null.
func IsNull(raw []byte) bool { return len(raw) == 4 && string(raw) == "null" }

// DecodeString decodes a JSON string literal.
func DecodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", fmt.Errorf("oslo: expected a string, got %.40s", raw)
	}
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("oslo: bad string: %w", err)
	}
	return s, nil
}

// DecodeOptString decodes a string or null.
func DecodeOptString(raw []byte) (*string, error) {
	if IsNull(raw) {
		return nil, nil
	}
	s, err := DecodeString(raw)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// DecodeBool decodes true or false.
func DecodeBool(raw []byte) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("oslo: expected a boolean, got %.40s", raw)
}

// DecodeOptBool decodes a boolean or null.
func DecodeOptBool(raw []byte) (*bool, error) {
	if IsNull(raw) {
		return nil, nil
	}
	v, err := DecodeBool(raw)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// DecodeInt decodes an integer.
func DecodeInt(raw []byte) (int64, error) {
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("oslo: expected an integer, got %.40s", raw)
	}
	return v, nil
}

// DecodeOptInt decodes an integer or null.
func DecodeOptInt(raw []byte) (*int64, error) {
	if IsNull(raw) {
		return nil, nil
	}
	v, err := DecodeInt(raw)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// DecodeAny decodes any JSON value into the values pyjson writes back
// unchanged: *pyjson.Dict (keys in the sender's order), []any, string,
// json.Number, bool, nil.
func DecodeAny(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, ErrSyntax
	}
	switch raw[0] {
	case '{', '[':
		return pyjson.Load(raw)
	case '"':
		return DecodeString(raw)
	case 't', 'f':
		return DecodeBool(raw)
	case 'n':
		if IsNull(raw) {
			return nil, nil
		}
	default:
		if _, err := skipValue(raw, 0, 0); err == nil {
			return json.Number(string(raw)), nil
		}
	}
	return nil, ErrSyntax
}

// DecodeDict decodes an object or null (nil) into a dict, keys in the
// sender's order.
func DecodeDict(raw []byte) (*pyjson.Dict, error) {
	if IsNull(raw) {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("oslo: expected a dict, got %.40s", raw)
	}
	return pyjson.DecodeDict(raw)
}

// DecodeList decodes an array or null (nil) into a list.
func DecodeList(raw []byte) ([]any, error) {
	if IsNull(raw) {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("oslo: expected a list, got %.40s", raw)
	}
	v, err := pyjson.Load(raw)
	if err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, ErrSyntax
	}
	return l, nil
}

// DecodeStrings decodes a list of strings or null.
func DecodeStrings(raw []byte) ([]string, error) {
	if IsNull(raw) {
		return nil, nil
	}
	elems, err := SplitArray(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if out[i], err = DecodeString(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
