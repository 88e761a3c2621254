package pyjson

import (
	"encoding/json"
	"testing"
)

// TestDecodeOrderedRoundTrip: Marshal(DecodeOrdered(s)) is Python's
// json.dumps(json.loads(s)) — keys in document order, a repeated key at
// its first position with its last value (expected strings printed by
// /usr/bin/python3).
func TestDecodeOrderedRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		`{"b": 1, "a": {"z": [1.5, {"y": null, "x": true}], "é": "ü"}, "b": 3, "c": "\ud83d\ude00"}`: `{"b": 3, "a": {"z": [1.5, {"y": null, "x": true}], "\u00e9": "\u00fc"}, "c": "\ud83d\ude00"}`,
		` {} `:       `{}`,
		`[{"k":[]}]`: `[{"k": []}]`,
	} {
		v, err := DecodeOrdered([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, err := Marshal(v)
		if err != nil || string(got) != want {
			t.Errorf("%s:\n got %s %v\nwant %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`{} {}`, `{"a" 1}`, `[`, ``} {
		if _, err := DecodeOrdered([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestPythonNumbers: numbers as json.dumps(json.loads(s)) writes them
// (expected string printed by /usr/bin/python3); the input is not changed.
func TestPythonNumbers(t *testing.T) {
	const in = `{"a": [1e5, 1.50, -0, -0.0, 1E2, 1e400, -1e400, 1e-400, 12345678901234567890, 0.1, 1e16, 1.5e-7, 3], "b": {"c": 2.0}, "d": "1e5"}`
	const want = `{"a": [100000.0, 1.5, 0, -0.0, 100.0, Infinity, -Infinity, 0.0, 12345678901234567890, 0.1, 1e+16, 1.5e-07, 3], "b": {"c": 2.0}, "d": "1e5"}`
	v, err := DecodeOrdered([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := Marshal(v)
	got, err := Marshal(PythonNumbers(v))
	if err != nil || string(got) != want {
		t.Errorf("\n got %s %v\nwant %s", got, err, want)
	}
	if after, _ := Marshal(v); string(after) != string(before) {
		t.Errorf("input changed: %s", after)
	}
	l, err := Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Marshal(PythonNumbers(l)); string(got) != want {
		t.Errorf("dict:\n got %s\nwant %s", got, want)
	}
	if after, _ := Marshal(l); string(after) != string(before) {
		t.Errorf("dict input changed: %s", after)
	}
	m := map[string]any{"x": []any{json.Number("1e1")}}
	if got, _ := Marshal(PythonNumbers(m)); string(got) != `{"x": [10.0]}` || m["x"].([]any)[0] != json.Number("1e1") {
		t.Errorf("map: %s, input %v", got, m)
	}
}
