package pyjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// loadSamples are documents Load must read exactly as DecodeOrdered
// (encoding/json with UseNumber, keeping key order) does.
func loadSamples() []string {
	return []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `12`, `-3.25e-7`, `1E+10`, `""`,
		`{"a": 1, "b": [1, 2, {"c": null}], "d": "x\"y\\z\/w\b\f\n\r\t"}`,
		`{"z": 1, "a": {"y": 2, "b": {"x": [], "c": {}}}, "m": [{"q": 1, "p": 2}]}`,
		`{"unicode": "\u00e9\u4e2d\ud83d\ude00", "raw": "é中😀"}`,
		`{"lone": "\ud800", "lone2": "\udc00x", "pair_bad": "\ud800\u0041"}`,
		` { "spaced" : [ 1 , 2 ] } `,
		`{"dup": 1, "other": 0, "dup": 2}`,
		"{\"bad_utf8\": \"a\xffb\"}",
		`{"deep": [[[[[[[[[[{"k": [1]}]]]]]]]]]]}`,
		`{"ipmi_password": "p\u0022w", "n": 12345678901234567890123}`,
		bigObject(40, true),
	}
}

// bigObject is an object of n keys in descending order (large enough for
// an index), with a repeated key when dup is set.
func bigObject(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := n; i > 0; i-- {
		if i != n {
			b.WriteString(", ")
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `": {"inner": ` + strings.Repeat("1", i%5+1) + `}`)
	}
	if dup {
		b.WriteString(`, "kxxx": "again"`)
	}
	b.WriteString("}")
	return b.String()
}

// sameLoad reports whether Load and DecodeOrdered agree on s, key order
// included (written back, both must give the same bytes) and as values.
func sameLoad(t *testing.T, s string) {
	t.Helper()
	got, err := Load([]byte(s))
	want, werr := DecodeOrdered([]byte(s))
	if (err != nil) != (werr != nil) {
		t.Errorf("%.60s: Load err %v, DecodeOrdered err %v", s, err, werr)
		return
	}
	if err != nil {
		return
	}
	gb, gerr := Marshal(got)
	wb, _ := Marshal(want)
	if gerr != nil || string(gb) != string(wb) {
		t.Errorf("%.60s:\n Load          %s %v\n DecodeOrdered %s", s, gb, gerr, wb)
	}
	var plain any
	if Unmarshal([]byte(s), &plain) == nil && !reflect.DeepEqual(Unordered(got), plain) {
		t.Errorf("%.60s: Load %#v, Unmarshal %#v", s, Unordered(got), plain)
	}
}

func TestLoadMatchesDecodeOrdered(t *testing.T) {
	for _, s := range loadSamples() {
		sameLoad(t, s)
	}
	for _, bad := range []string{`{`, `{"a" 1}`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `"\x"`, "\"a\x01\"", `tru`, `[1] 2`, `"\u12"`, `{1: 2}`} {
		if _, err := Load([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Python's json module writes these for float specials.
	got, err := Load([]byte(`[NaN, Infinity, -Infinity]`))
	if err != nil || !reflect.DeepEqual(got, []any{json.Number("NaN"), json.Number("Infinity"), json.Number("-Infinity")}) {
		t.Errorf("specials = %#v, %v", got, err)
	}
}

func TestLoadKeepsOrderAndIndexes(t *testing.T) {
	v, err := Load([]byte(bigObject(20, true)))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	if d.Len() != 20 || d.index == nil {
		t.Fatalf("len %d, index %v", d.Len(), d.index != nil)
	}
	if d.Keys()[0] != "k"+strings.Repeat("x", 20) || d.Get("kxxx") != "again" || d.Keys()[17] != "kxxx" {
		t.Fatalf("keys %v, kxxx = %v", d.Keys(), d.Get("kxxx"))
	}
	for i, k := range d.Keys() {
		if d.find(k) != i {
			t.Fatalf("find(%q) = %d, want %d", k, d.find(k), i)
		}
	}
	inner, ok := d.Get("kx").(*Dict)
	if !ok || !slices.Equal(inner.Keys(), []string{"inner"}) || inner.index != nil {
		t.Fatalf("nested = %#v", d.Get("kx"))
	}
	e, _ := Load([]byte(`{"e": {}}`))
	if ed, ok := e.(*Dict).Get("e").(*Dict); !ok || ed == nil || ed.Len() != 0 {
		t.Fatalf("empty nested dict = %#v", e.(*Dict).Get("e"))
	}
}

func FuzzLoad(f *testing.F) {
	for _, s := range loadSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// DecodeOrdered (encoding/json) rejects NaN and Infinity, which
		// Load accepts as json.loads does; compare on valid documents.
		if !json.Valid([]byte(s)) {
			return
		}
		sameLoad(t, s)
	})
}

func BenchmarkLoadDict(b *testing.B) {
	src := []byte(`{"cpus": 64, "memory_mb": 262144, "local_gb": 1800, "cpu_arch": "x86_64", "capabilities": "boot_mode:uefi,secure_boot:true"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadDictsAreIndependent: the objects of one document share the
// decoder's member array where they can; growing one (Set appends) must
// not touch another.
func TestLoadDictsAreIndependent(t *testing.T) {
	v, err := Load([]byte(`[{"a": 1}, {"b": 2}, {"x": {"y": 1}, "z": {"w": 2}, "e": {}}]`))
	if err != nil {
		t.Fatal(err)
	}
	l := v.([]any)
	var all []*Dict
	for _, e := range l {
		d := e.(*Dict)
		all = append(all, d)
		for _, m := range d.Members() {
			if inner, ok := m.Value.(*Dict); ok {
				all = append(all, inner)
			}
		}
	}
	for i, d := range all {
		for j := range 20 { // past the index threshold too
			d.Set(fmt.Sprintf("new%d_%d", i, j), j)
		}
	}
	b, _ := Marshal(v)
	for i, d := range all {
		if d.Len() < 20 || d.Keys()[d.Len()-1] != fmt.Sprintf("new%d_19", i) {
			t.Fatalf("dict %d: %v", i, d.Keys())
		}
		for _, k := range d.Keys() {
			if strings.HasPrefix(k, "new") && !strings.HasPrefix(k, fmt.Sprintf("new%d_", i)) {
				t.Fatalf("dict %d got another's key %s: %s", i, k, b)
			}
		}
	}
	if got := all[0].Keys()[0] + all[1].Keys()[0] + all[2].Keys()[0] + all[2].Keys()[1]; got != "abxz" {
		t.Fatalf("first keys %q: %s", got, b)
	}
}
