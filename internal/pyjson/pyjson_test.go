package pyjson

import (
	"encoding/json"
	"testing"
)

func TestMarshalMatchesPython(t *testing.T) {
	// Expected strings are what Python 3's json.dumps prints for the same value.
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, `null`},
		{"dict sorted", map[string]any{"b": 1, "a": "x"}, `{"a": "x", "b": 1}`},
		{"ordered", Object{{"z", true}, {"a", nil}}, `{"z": true, "a": null}`},
		{"list", []any{1, "a", []any{}}, `[1, "a", []]`},
		{"float", 1.0, `1.0`},
		{"float small", 1e-05, `1e-05`},
		{"float big", 1e16, `1e+16`},
		{"number kept", json.Number("2.50"), `2.50`},
		{"non-ascii", "żółw ☃ 😀", `"\u017c\u00f3\u0142w \u2603 \ud83d\ude00"`},
		{"escapes", "a\"b\\c\n\t\x01</>&", `"a\"b\\c\n\t\u0001</>&"`},
		{"empty map", map[string]any{}, `{}`},
		{"strings", []string{"x", "y"}, `["x", "y"]`},
	}
	for _, c := range cases {
		got, err := Marshal(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestUnmarshalKeepsNumbers(t *testing.T) {
	var v any
	if err := Unmarshal([]byte(`{"a": 1.0, "b": 12345678901234567890}`), &v); err != nil {
		t.Fatal(err)
	}
	got, _ := Marshal(v)
	if string(got) != `{"a": 1.0, "b": 12345678901234567890}` {
		t.Errorf("round trip changed numbers: %s", got)
	}
	if err := Unmarshal([]byte(`{} ]`), &v); err == nil {
		t.Error("stray bracket accepted")
	}
	if err := Unmarshal([]byte(`{} {}`), &v); err == nil {
		t.Error("trailing data accepted")
	}
}
