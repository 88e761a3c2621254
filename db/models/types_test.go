package models

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
)

func TestTimeValue(t *testing.T) {
	for _, tc := range []struct {
		in   Time
		want any
	}{
		{Time{}, nil},
		{NewTime(time.Date(2026, 12, 2, 11, 51, 42, 332271000, time.UTC)), "2026-12-02 11:51:42.332271"},
		{NewTime(time.Date(2026, 12, 2, 11, 51, 42, 0, time.UTC)), "2026-12-02 11:51:42.000000"}, // SQLAlchemy always writes 6 digits
		{NewTime(time.Date(2026, 12, 2, 12, 51, 42, 999, time.FixedZone("CET", 3600))), "2026-12-02 11:51:42.000000"},
	} {
		got, err := tc.in.Value()
		if err != nil || got != tc.want {
			t.Errorf("%v.Value() = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestTimeScan(t *testing.T) {
	want := time.Date(2026, 12, 2, 11, 51, 42, 332271000, time.UTC)
	for _, src := range []any{
		"2026-12-02 11:51:42.332271", []byte("2026-12-02 11:51:42.332271"), want,
		want.In(time.FixedZone("X", 7200)), "2026-12-02T11:51:42.332271", "2026-12-02 11:51:42.332271+00:00",
	} {
		var tm Time
		if err := tm.Scan(src); err != nil || !tm.Equal(want) || tm.Location() != time.UTC {
			t.Errorf("Scan(%#v) = %v, %v", src, tm, err)
		}
	}
	for _, src := range []any{"2026-12-02 11:51:42", []byte("2026-12-02 11:51:42")} {
		var tm Time
		if err := tm.Scan(src); err != nil || !tm.Equal(want.Truncate(time.Second)) {
			t.Errorf("Scan(%#v) = %v, %v", src, tm, err)
		}
	}
	for _, src := range []any{nil, "", "0000-00-00 00:00:00", time.Time{}} {
		tm := NewTime(want)
		if err := tm.Scan(src); err != nil || tm.Valid() {
			t.Errorf("Scan(%#v) = %v, %v; want NULL", src, tm, err)
		}
	}
	for _, src := range []any{"yesterday", "2026-02-30 10:00:00", "2026-12-02 25:00:00", 42} {
		var tm Time
		if err := tm.Scan(src); err == nil {
			t.Errorf("Scan(%#v) accepted: %v", src, tm)
		}
	}
}

func TestParseNaiveMatchesTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-12-02 11:51:42", "2026-12-02 11:51:42.5", "2026-12-02 11:51:42.000001", "2026-12-02 11:51:42.123456789",
		"1999-01-31 00:00:00", "2024-02-29 23:59:59.999999", "2026-12-02T01:02:03.04",
	} {
		got, ok := parseNaive(s)
		want, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", s, time.UTC)
		if err != nil {
			want, err = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC)
		}
		if !ok || err != nil || !got.Equal(want) {
			t.Errorf("parseNaive(%q) = %v, %v; time.Parse = %v, %v", s, got, ok, want, err)
		}
	}
}

func TestJSONDictValue(t *testing.T) {
	for _, tc := range []struct {
		in   JSONDict
		want string
	}{
		{JSONDict{}, "{}"},
		{NewJSONDict(), "{}"},
		{DictOf("b", json.Number("1"), "a", []any{"x", true, nil, 1.5}), `{"b": 1, "a": ["x", true, null, 1.5]}`},
		{DictOf("é", "ü\n"), `{"\u00e9": "\u00fc\n"}`},
		{DictOf("z", pyjson.DictOf("y", 1, "b", 2), "a", 0), `{"z": {"y": 1, "b": 2}, "a": 0}`},
	} {
		got, err := tc.in.Value()
		if err != nil || got != tc.want {
			t.Errorf("Value(%v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if got, _ := JSONList(nil).Value(); got != "[]" {
		t.Errorf("nil list = %q", got)
	}
	if got, _ := StringList([]string{"a", "b"}).Value(); got != `["a", "b"]` {
		t.Errorf("string list = %q", got)
	}
	b, _ := pyjson.Marshal(pyjson.DictOf("x", DictOf("k", "v"), "d", JSONDict{}, "l", JSONList(nil)))
	if string(b) != `{"x": {"k": "v"}, "d": {}, "l": []}` {
		t.Errorf("pyjson of JSON types = %s", b)
	}
}

func TestJSONDictEncodingJSON(t *testing.T) {
	var s struct {
		A JSONDict `json:"a"`
		B JSONDict `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"a": {"z": 1, "y": {"x": 2, "w": 3}}, "b": null}`), &s); err != nil {
		t.Fatal(err)
	}
	if !s.B.IsNil() || s.A.IsNil() || !slices.Equal(s.A.Keys(), []string{"z", "y"}) {
		t.Fatalf("decoded %v / %v", s.A, s.B)
	}
	b, err := json.Marshal(s)
	if err != nil || string(b) != `{"a":{"z":1,"y":{"x":2,"w":3}},"b":{}}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
}

func TestJSONScan(t *testing.T) {
	var d JSONDict
	for _, src := range []any{nil, "{}", []byte(" {} "), "null"} {
		d = DictOf("stale", true)
		if err := d.Scan(src); err != nil || d.IsNil() || d.Len() != 0 {
			t.Errorf("Scan(%#v) = %v, %v; want empty dict", src, d, err)
		}
	}
	if err := d.Scan(`{"z": {"b": [1, 2.5e3, "x"], "a": {}}, "a": null}`); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Value(); got != `{"z": {"b": [1, 2.5e3, "x"], "a": {}}, "a": null}` {
		t.Errorf("scanned and written back: %s", got)
	}
	want := map[string]any{"z": map[string]any{"b": []any{json.Number("1"), json.Number("2.5e3"), "x"}, "a": map[string]any{}}, "a": nil}
	if !reflect.DeepEqual(d.Map(), want) {
		t.Errorf("got %#v", d.Map())
	}
	if err := d.Scan(`[1]`); err == nil {
		t.Errorf("a list scanned into a dict")
	}
	if err := d.Scan(`{"a": }`); err == nil {
		t.Errorf("invalid JSON accepted")
	}
	var l JSONList
	if err := l.Scan(nil); err != nil || l == nil || len(l) != 0 {
		t.Errorf("NULL list = %v, %v", l, err)
	}
	if err := l.Scan(`["CUSTOM_A", 1]`); err != nil || !reflect.DeepEqual(l, JSONList{"CUSTOM_A", json.Number("1")}) {
		t.Errorf("list = %#v, %v", l, err)
	}
	if got := l.Strings(); !reflect.DeepEqual(got, []string{"CUSTOM_A", "1"}) {
		t.Errorf("Strings = %v", got)
	}
}

func BenchmarkJSONDictScan(b *testing.B) {
	src := []byte(`{"cpus": 64, "memory_mb": 262144, "local_gb": 1800, "cpu_arch": "x86_64", "capabilities": "boot_mode:uefi,secure_boot:true"}`)
	b.ReportAllocs()
	for b.Loop() {
		var d JSONDict
		if err := d.Scan(src); err != nil {
			b.Fatal(err)
		}
	}
}
