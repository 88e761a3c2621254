package py

import (
	"encoding/json"
	"testing"

	"github.com/goironic/ironic/internal/pyjson"
)

func TestRepr(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"abc", `'abc'`},
		{"it's", `"it's"`},
		{`a'b"c`, `'a\'b"c'`},
		{"tab\there", `'tab\there'`},
		{"café", `'café'`},
		{[]string{"ipmi_address"}, `['ipmi_address']`},
		{[]any{"a", json.Number("1"), true, nil}, `['a', 1, True, None]`},
		{map[string]any{"b": json.Number("2.50"), "a": "x"}, `{'a': 'x', 'b': 2.5}`},
		{json.Number("1e20"), `1e+20`},
		{json.Number("0.00001"), `1e-05`},
		{json.Number("3.0"), `3.0`},
		{json.Number("-7"), `-7`},
		{false, `False`},
	}
	for _, tt := range tests {
		if got := Repr(tt.in); got != tt.want {
			t.Errorf("Repr(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := Str("x"); got != "x" {
		t.Errorf("Str(x) = %s", got)
	}
	if got := Str(nil); got != "None" {
		t.Errorf("Str(nil) = %s", got)
	}
}

func TestTruthyAndInt(t *testing.T) {
	for _, v := range []any{nil, false, "", json.Number("0"), json.Number("0.0"), []any{}, map[string]any{}} {
		if Truthy(v) {
			t.Errorf("Truthy(%#v)", v)
		}
	}
	for _, v := range []any{true, "0", json.Number("2"), []any{nil}, map[string]any{"a": nil}} {
		if !Truthy(v) {
			t.Errorf("!Truthy(%#v)", v)
		}
	}
	ints := []struct {
		in any
		n  int64
		ok bool
	}{
		{" 623 ", 623, true}, {json.Number("623"), 623, true}, {json.Number("6.9"), 6, true},
		{true, 1, true}, {"6.9", 0, false}, {"abc", 0, false}, {nil, 0, false}, {"", 0, false},
	}
	for _, tt := range ints {
		n, ok := Int(tt.in)
		if n != tt.n || ok != tt.ok {
			t.Errorf("Int(%#v) = %d %v", tt.in, n, ok)
		}
	}
}

func TestReprOfDictKeepsOrder(t *testing.T) {
	d := pyjson.DictOf("b", json.Number("2.50"), "a", pyjson.DictOf("z", nil, "y", []any{"x"}))
	if got := Repr(d); got != `{'b': 2.5, 'a': {'z': None, 'y': ['x']}}` {
		t.Fatalf("Repr = %s", got)
	}
	if !Truthy(d) || Truthy(pyjson.NewDict(0)) {
		t.Fatal("truthiness of dicts")
	}
}

func TestBytesRepr(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "b''",
		"Error: x\r\n":         `b'Error: x\r\n'`,
		"it's":                 `b"it's"`,
		"\x00\xff\xe9 caf\xc3": `b'\x00\xff\xe9 caf\xc3'`,
	} {
		if got := BytesRepr([]byte(in)); got != want {
			t.Errorf("BytesRepr(%q) = %s, want %s", in, got, want)
		}
	}
}
