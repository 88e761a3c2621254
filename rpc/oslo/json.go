package oslo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/goironic/ironic/db/models"
)

// member is one key of a JSON object with its undecoded value.
type member struct {
	Key string
	Raw []byte
}

// rawObject is a JSON object split into its members, in order.
type rawObject []member

// get returns the raw value of key k, or nil.
func (o rawObject) get(k string) []byte {
	for _, m := range o {
		if m.Key == k {
			return m.Raw
		}
	}
	return nil
}

// has reports whether key k is present.
func (o rawObject) has(k string) bool { return o.get(k) != nil }

var errSyntax = errors.New("oslo: malformed JSON")

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// splitObject splits a JSON object into its members without decoding the
// values. Anything but an object is an error.
func splitObject(b []byte) (rawObject, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("oslo: expected a JSON object")
	}
	i++
	out := make(rawObject, 0, 16)
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		if skipSpace(b, i+1) != len(b) {
			return nil, errSyntax
		}
		return out, nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return nil, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		key, err := decodeString(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errSyntax
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, member{Key: key, Raw: b[i:vend]})
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, errSyntax
		}
		if b[i] == '}' {
			if skipSpace(b, i+1) != len(b) {
				return nil, errSyntax
			}
			return out, nil
		}
		if b[i] != ',' {
			return nil, errSyntax
		}
		i++
	}
}

// splitArray splits a JSON array into its raw elements.
func splitArray(b []byte) ([][]byte, error) {
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
			return nil, errSyntax
		}
		if b[i] == ']' {
			return out, nil
		}
		if b[i] != ',' {
			return nil, errSyntax
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
	return 0, errSyntax
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, errors.New("oslo: JSON nested too deeply")
	}
	if i >= len(b) {
		return 0, errSyntax
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
					return 0, errSyntax
				}
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = skipSpace(b, end)
				if j >= len(b) || b[j] != ':' {
					return 0, errSyntax
				}
				j = skipSpace(b, j+1)
			}
			end, err := skipValue(b, j, depth+1)
			if err != nil {
				return 0, err
			}
			j = skipSpace(b, end)
			if j >= len(b) {
				return 0, errSyntax
			}
			if b[j] == closer {
				return j + 1, nil
			}
			if b[j] != ',' {
				return 0, errSyntax
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
	return 0, errSyntax
}

func lit(b []byte, i int, s string) (int, error) {
	if len(b)-i < len(s) || string(b[i:i+len(s)]) != s {
		return 0, errSyntax
	}
	return i + len(s), nil
}

func isNull(raw []byte) bool { return len(raw) == 4 && string(raw) == "null" }

// decodeString decodes a JSON string literal.
func decodeString(raw []byte) (string, error) {
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

// decodeOptString decodes a string or null.
func decodeOptString(raw []byte) (*string, error) {
	if isNull(raw) {
		return nil, nil
	}
	s, err := decodeString(raw)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func decodeBool(raw []byte) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("oslo: expected a boolean, got %.40s", raw)
}

func decodeOptBool(raw []byte) (*bool, error) {
	if isNull(raw) {
		return nil, nil
	}
	v, err := decodeBool(raw)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func decodeInt(raw []byte) (int64, error) {
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("oslo: expected an integer, got %.40s", raw)
	}
	return v, nil
}

func decodeOptInt(raw []byte) (*int64, error) {
	if isNull(raw) {
		return nil, nil
	}
	v, err := decodeInt(raw)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// decodeAny decodes any JSON value into the values pyjson writes back
// unchanged: map[string]any, []any, string, json.Number, bool, nil.
func decodeAny(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, errSyntax
	}
	switch raw[0] {
	case '{':
		var d models.JSONDict
		if err := d.Scan(raw); err != nil {
			return nil, err
		}
		return map[string]any(d), nil
	case '[':
		var l models.JSONList
		if err := l.Scan(raw); err != nil {
			return nil, err
		}
		return []any(l), nil
	case '"':
		return decodeString(raw)
	case 't', 'f':
		return decodeBool(raw)
	case 'n':
		if isNull(raw) {
			return nil, nil
		}
	default:
		if _, err := skipValue(raw, 0, 0); err == nil {
			return json.Number(string(raw)), nil
		}
	}
	return nil, errSyntax
}

// decodeDict decodes an object or null (nil) into a dict.
func decodeDict(raw []byte) (map[string]any, error) {
	if isNull(raw) {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("oslo: expected a dict, got %.40s", raw)
	}
	v, err := decodeAny(raw)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// decodeList decodes an array or null (nil) into a list.
func decodeList(raw []byte) ([]any, error) {
	if isNull(raw) {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("oslo: expected a list, got %.40s", raw)
	}
	v, err := decodeAny(raw)
	if err != nil {
		return nil, err
	}
	return v.([]any), nil
}

// decodeStrings decodes a list of strings or null.
func decodeStrings(raw []byte) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	elems, err := splitArray(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if out[i], err = decodeString(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
