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

func TestAppendStringAllBytes(t *testing.T) {
	// Every byte value at every offset of an 8-byte block, against the
	// byte-at-a-time rule.
	slow := func(s string) string {
		out := []byte{'"'}
		for _, r := range s {
			switch {
			case r == '"':
				out = append(out, '\\', '"')
			case r == '\\':
				out = append(out, '\\', '\\')
			case r == '\n':
				out = append(out, '\\', 'n')
			case r == '\r':
				out = append(out, '\\', 'r')
			case r == '\t':
				out = append(out, '\\', 't')
			case r == '\b':
				out = append(out, '\\', 'b')
			case r == '\f':
				out = append(out, '\\', 'f')
			case r < 0x20 || (r >= 0x7f && r < 0x10000):
				out = appendU(out, r)
			case r >= 0x10000:
				r -= 0x10000
				out = appendU(out, 0xd800+(r>>10))
				out = appendU(out, 0xdc00+(r&0x3ff))
			default:
				out = append(out, byte(r))
			}
		}
		return string(append(out, '"'))
	}
	for c := 0; c < 128; c++ {
		for pos := 0; pos < 8; pos++ {
			b := []byte("abcdefghijklmnop")
			b[pos] = byte(c)
			if got, want := string(AppendString(nil, string(b))), slow(string(b)); got != want {
				t.Fatalf("byte %#x at %d: got %s want %s", c, pos, got, want)
			}
		}
	}
	for _, s := range []string{"żółwżółwżółw", "12345678\u00e9abcdefgh", "aaaaaaa\x7f", "aaaaaaaaaaaaaaa😀"} {
		if got, want := string(AppendString(nil, s)), slow(s); got != want {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}
