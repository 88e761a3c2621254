package models

import (
	"encoding/json"
	"reflect"
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
		{nil, "{}"},
		{JSONDict{}, "{}"},
		{JSONDict{"b": json.Number("1"), "a": []any{"x", true, nil, 1.5}}, `{"a": ["x", true, null, 1.5], "b": 1}`},
		{JSONDict{"é": "ü\n"}, `{"\u00e9": "\u00fc\n"}`},
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
	b, _ := pyjson.Marshal(map[string]any{"d": JSONDict(nil), "l": JSONList(nil), "x": JSONDict{"k": "v"}})
	if string(b) != `{"d": {}, "l": [], "x": {"k": "v"}}` {
		t.Errorf("pyjson of JSON types = %s", b)
	}
}

func TestJSONScan(t *testing.T) {
	var d JSONDict
	for _, src := range []any{nil, "{}", []byte(" {} "), "null"} {
		d = JSONDict{"stale": true}
		if err := d.Scan(src); err != nil || d == nil || len(d) != 0 {
			t.Errorf("Scan(%#v) = %v, %v; want empty dict", src, d, err)
		}
	}
	if err := d.Scan(`{"a": {"b": [1, 2.5e3, "x"]}}`); err != nil {
		t.Fatal(err)
	}
	want := JSONDict{"a": map[string]any{"b": []any{json.Number("1"), json.Number("2.5e3"), "x"}}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %#v", d)
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

// jsonSamples are documents the fast decoder must read exactly as
// pyjson.Unmarshal (encoding/json with UseNumber) does.
func jsonSamples() []string {
	return []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `12`, `-3.25e-7`, `1E+10`, `""`,
		`{"a": 1, "b": [1, 2, {"c": null}], "d": "x\"y\\z\/w\b\f\n\r\t"}`,
		`{"unicode": "\u00e9\u4e2d\ud83d\ude00", "raw": "é中😀"}`,
		`{"lone": "\ud800", "lone2": "\udc00x", "pair_bad": "\ud800\u0041"}`,
		` { "spaced" : [ 1 , 2 ] } `,
		`{"dup": 1, "dup": 2}`,
		"{\"bad_utf8\": \"a\xffb\"}",
		`{"deep": [[[[[[[[[[{"k": [1]}]]]]]]]]]]}`,
		`{"ipmi_password": "p\u0022w", "n": 12345678901234567890123}`,
	}
}

func TestDecodeJSONMatchesPyjson(t *testing.T) {
	for _, s := range jsonSamples() {
		got, err := decodeJSON([]byte(s))
		var want any
		werr := pyjson.Unmarshal([]byte(s), &want)
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: fast err %v, pyjson err %v", s, err, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n fast   %#v\n pyjson %#v", s, got, want)
		}
	}
	for _, bad := range []string{`{`, `{"a" 1}`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `"\x"`, "\"a\x01\"", `tru`, `[1] 2`, `"\u12"`, `{1: 2}`} {
		if _, err := decodeJSON([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Python's json module writes these for float specials.
	got, err := decodeJSON([]byte(`[NaN, Infinity, -Infinity]`))
	if err != nil || !reflect.DeepEqual(got, []any{json.Number("NaN"), json.Number("Infinity"), json.Number("-Infinity")}) {
		t.Errorf("specials = %#v, %v", got, err)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeJSON([]byte(s))
		var want any
		werr := pyjson.Unmarshal([]byte(s), &want)
		// pyjson.Unmarshal tolerates a stray closing bracket after the
		// value (json.Decoder.More); compare on valid documents only.
		if werr == nil && json.Valid([]byte(s)) && (err != nil || !reflect.DeepEqual(got, want)) {
			t.Fatalf("%q: fast %#v %v, pyjson %#v", s, got, err, want)
		}
	})
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
