package crosscheck

import (
	"encoding/json"
	"testing"
)

// TestDiffSnapshots checks the comparison itself: key order is invisible,
// values, list order, number spelling, status and missing answers are not;
// normalize rewrites only the server's own URL and host.
func TestDiffSnapshots(t *testing.T) {
	parse := func(s string) any {
		v, err := decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	base := snapshot{"/v1/x": {200, parse(`{"a": 1, "b": [1, 2], "c": {"d": null}}`)}}
	for _, tc := range []struct {
		name string
		got  snapshot
		diff bool
	}{
		{"same, keys reordered", snapshot{"/v1/x": {200, parse(`{"c": {"d": null}, "b": [1, 2], "a": 1}`)}}, false},
		{"other value", snapshot{"/v1/x": {200, parse(`{"a": 2, "b": [1, 2], "c": {"d": null}}`)}}, true},
		{"number spelled differently", snapshot{"/v1/x": {200, parse(`{"a": 1.0, "b": [1, 2], "c": {"d": null}}`)}}, true},
		{"list order", snapshot{"/v1/x": {200, parse(`{"a": 1, "b": [2, 1], "c": {"d": null}}`)}}, true},
		{"missing key", snapshot{"/v1/x": {200, parse(`{"a": 1, "b": [1, 2], "c": {}}`)}}, true},
		{"status", snapshot{"/v1/x": {404, parse(`{"a": 1, "b": [1, 2], "c": {"d": null}}`)}}, true},
		{"no answer", snapshot{}, true},
	} {
		if got := len(diffSnapshots(base, tc.got)) > 0; got != tc.diff {
			t.Errorf("%s: differs %v, want %v", tc.name, got, tc.diff)
		}
	}

	s := &server{url: "http://127.0.0.1:1234", host: "me"}
	got := normalize(parse(`{"links": [{"href": "http://127.0.0.1:1234/v1/nodes/u"}], "conductor": "me",
		"other": "them", "http://127.0.0.1:1234": "key", "t": "2024-01-01T00:00:00+00:00"}`), s)
	b, _ := json.Marshal(got)
	want := `{"\u003curl\u003e":"key","conductor":"\u003chost\u003e","links":[{"href":"\u003curl\u003e/v1/nodes/u"}],"other":"them","t":"2024-01-01T00:00:00+00:00"}`
	if string(b) != want {
		t.Errorf("normalize:\n got %s\nwant %s", b, want)
	}
}
