package pyjson

import (
	"encoding/json"
	"strconv"
)

// Truthy reports whether Python would treat the decoded JSON value v as
// true in a boolean context (`if v:`): None, False, zero, "" and empty
// lists and dicts are false; anything else is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		// As Python's float(): an underflow is 0.0, an overflow inf.
		f, err := strconv.ParseFloat(string(x), 64)
		return err != nil || f != 0
	case float64:
		return x != 0
	case float32:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case Object:
		return len(x) > 0
	case *Dict:
		return x.Len() > 0
	}
	return true
}
