package pyjson

import "testing"

// TestDecodeOrderedRoundTrip: Marshal(DecodeOrdered(s)) is Python's
// json.dumps(json.loads(s)) — keys in document order, a repeated key at
// its first position with its last value (expected strings printed by
// /usr/bin/python3).
func TestDecodeOrderedRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		`{"b": 1, "a": {"z": [1.5, {"y": null, "x": true}], "é": "ü"}, "b": 3, "c": "\ud83d\ude00"}`: `{"b": 3, "a": {"z": [1.5, {"y": null, "x": true}], "\u00e9": "\u00fc"}, "c": "\ud83d\ude00"}`,
		` {} `:        `{}`,
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
