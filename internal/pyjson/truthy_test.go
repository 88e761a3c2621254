package pyjson

import (
	"encoding/json"
	"testing"
)

func TestTruthy(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{nil, false}, {false, false}, {true, true}, {"", false}, {"0", true},
		{json.Number("0"), false}, {json.Number("0.0"), false}, {json.Number("-0e5"), false}, {json.Number("1e-400"), false}, {json.Number("1e400"), true},
		{json.Number("2"), true}, {0.0, false}, {1.5, true}, {0, false}, {int64(3), true},
		{[]any{}, false}, {[]any{nil}, true}, {[]string{}, false}, {map[string]any{}, false},
		{map[string]any{"a": nil}, true}, {Object{}, false}, {Object{{Key: "a"}}, true}, {struct{}{}, true},
	} {
		if got := Truthy(tc.v); got != tc.want {
			t.Errorf("Truthy(%#v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
