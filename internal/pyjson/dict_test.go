package pyjson

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func TestDictKeepsInsertionOrder(t *testing.T) {
	d := NewDict(0)
	for _, k := range []string{"zeta", "alpha", "mid"} {
		d.Set(k, k)
	}
	d.Set("alpha", "again") // an existing key keeps its place
	if got := d.Keys(); !slices.Equal(got, []string{"zeta", "alpha", "mid"}) {
		t.Fatalf("keys = %v", got)
	}
	if v := d.Get("alpha"); v != "again" {
		t.Fatalf("alpha = %v", v)
	}
	if _, ok := d.Delete("zeta"); !ok {
		t.Fatal("zeta not deleted")
	}
	d.Set("zeta", 1) // re-added at the end, as in Python
	if got := d.Keys(); !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
		t.Fatalf("keys after delete and re-add = %v", got)
	}
	if got := d.SetDefault("mid", "x"); got != "mid" {
		t.Fatalf("setdefault of a present key = %v", got)
	}
	if got := d.SetDefault("new", "x"); got != "x" || d.Keys()[3] != "new" {
		t.Fatalf("setdefault of an absent key = %v, keys %v", got, d.Keys())
	}
}

// The index a large dict keeps must agree with the scan of a small one
// through every kind of change.
func TestDictIndexAgreesWithScan(t *testing.T) {
	d := NewDict(0)
	var model []string
	for i := range 100 {
		k := fmt.Sprintf("k%d", (i*37)%53)
		if i%7 == 3 {
			d.Delete(k)
			model = slices.DeleteFunc(model, func(s string) bool { return s == k })
			continue
		}
		d.Set(k, i)
		if !slices.Contains(model, k) {
			model = append(model, k)
		}
	}
	if got := d.Keys(); !slices.Equal(got, model) {
		t.Fatalf("keys = %v\nwant %v", got, model)
	}
	for i, k := range model {
		if d.find(k) != i {
			t.Fatalf("find(%q) = %d, want %d", k, d.find(k), i)
		}
	}
	if d.index == nil {
		t.Fatal("a 40+ key dict has no index")
	}
}

func TestNilDictReadsAsEmpty(t *testing.T) {
	var d *Dict
	if d.Len() != 0 || d.Has("a") || d.Get("a") != nil || d.Keys() != nil || d.Clone() != nil {
		t.Fatal("nil dict is not empty")
	}
	for range d.All() {
		t.Fatal("nil dict iterates")
	}
	b, err := Marshal(d)
	if err != nil || string(b) != "{}" {
		t.Fatalf("Marshal(nil) = %s, %v", b, err)
	}
}

func TestDecodeDictRoundTripsInPythonFormat(t *testing.T) {
	in := `{"z": 1, "a": {"y": [1, {"q": 2, "b": 1.50}], "c": null}, "z2": "é", "a": 3}`
	d, err := DecodeDict([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// A repeated key keeps its first place and its last value, as
	// json.loads builds a dict.
	if got := d.Keys(); !slices.Equal(got, []string{"z", "a", "z2"}) {
		t.Fatalf("keys = %v", got)
	}
	b, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z": 1, "a": 3, "z2": "\u00e9"}`; string(b) != want {
		t.Fatalf("Marshal = %s\nwant    %s", b, want)
	}
	d2, err := DecodeDict([]byte(`{"b": {"y": 1, "x": [{"n": 1, "m": 2}]}, "a": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = Marshal(d2)
	if want := `{"b": {"y": 1, "x": [{"n": 1, "m": 2}]}, "a": 2}`; string(b) != want {
		t.Fatalf("nested Marshal = %s", b)
	}
	if _, err := DecodeDict([]byte(`[1]`)); err == nil {
		t.Fatal("a list decoded as a dict")
	}
}

func TestDictEncodingJSONKeepsOrder(t *testing.T) {
	var d Dict
	if err := json.Unmarshal([]byte(`{"b": 1, "a": {"d": 2, "c": 3}}`), &d); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"b":1,"a":{"d":2,"c":3}}` {
		t.Fatalf("json.Marshal = %s", b)
	}
}

func TestOrderedAndUnordered(t *testing.T) {
	v := Ordered([]any{Object{{Key: "b", Value: 1}, {Key: "a", Value: map[string]any{"y": 1, "x": 2}}}, "s"})
	b, _ := Marshal(v)
	if string(b) != `[{"b": 1, "a": {"x": 2, "y": 1}}, "s"]` {
		t.Fatalf("Ordered = %s", b)
	}
	u := Unordered(v).([]any)
	if _, ok := u[0].(map[string]any)["a"].(map[string]any); !ok {
		t.Fatalf("Unordered left a dict: %#v", u[0])
	}
	plainList := []any{"a", json.Number("1")}
	if got := Ordered(plainList).([]any); &got[0] != &plainList[0] {
		t.Fatal("Ordered copied a list with nothing to change")
	}
}

func TestEqualIgnoresOrder(t *testing.T) {
	a := DictOf("a", 1, "b", []any{DictOf("x", 1, "y", 2)})
	b := map[string]any{"b": []any{map[string]any{"y": json.Number("2"), "x": 1.0}}, "a": json.Number("1")}
	if !Equal(a, b) || !Equal(b, a) {
		t.Fatal("equal dicts differ")
	}
	if Equal(a, DictOf("a", 1)) || Equal(DictOf("a", "1"), DictOf("a", 1)) || Equal([]any{}, DictOf()) {
		t.Fatal("different values are equal")
	}
}

func TestDeepCloneIsIndependent(t *testing.T) {
	inner := DictOf("x", 1)
	d := DictOf("in", inner, "l", []any{DictOf("y", 2)})
	c := d.DeepClone()
	inner.Set("x", 2)
	d.Get("l").([]any)[0].(*Dict).Set("y", 3)
	b, _ := Marshal(c)
	if string(b) != `{"in": {"x": 1}, "l": [{"y": 2}]}` {
		t.Fatalf("clone changed with the original: %s", b)
	}
	s := d.Clone()
	s.Set("new", 1)
	if d.Has("new") {
		t.Fatal("shallow clone shares its keys")
	}
}

func BenchmarkDictSetGet8(b *testing.B) {
	keys := []string{"deploy_kernel", "deploy_ramdisk", "ipmi_address", "ipmi_username", "ipmi_password", "ipmi_port", "ipmi_priv_level", "redfish_address"}
	for b.Loop() {
		d := NewDict(len(keys))
		for _, k := range keys {
			d.Set(k, k)
		}
		for _, k := range keys {
			_ = d.Get(k)
		}
	}
}

func BenchmarkMapSetGet8(b *testing.B) {
	keys := []string{"deploy_kernel", "deploy_ramdisk", "ipmi_address", "ipmi_username", "ipmi_password", "ipmi_port", "ipmi_priv_level", "redfish_address"}
	for b.Loop() {
		m := make(map[string]any, len(keys))
		for _, k := range keys {
			m[k] = k
		}
		for _, k := range keys {
			_ = m[k]
		}
	}
}

func TestDictEqualSeesOrder(t *testing.T) {
	a := DictOf("a", 1, "b", DictOf("x", []any{DictOf("p", 1, "q", 2)}))
	if !a.Equal(a.DeepClone()) {
		t.Fatal("a dict differs from its copy")
	}
	reordered := []*Dict{
		DictOf("b", DictOf("x", []any{DictOf("p", 1, "q", 2)}), "a", 1),
		DictOf("a", 1, "b", DictOf("x", []any{DictOf("q", 2, "p", 1)})),
	}
	for _, b := range append(reordered, DictOf("a", json.Number("1"), "b", a.Get("b")), DictOf("a", 1), nil) {
		if a.Equal(b) || b.Equal(a) {
			t.Errorf("%v equals %v", a, b)
		}
	}
	for _, b := range reordered {
		if !Equal(a, b) {
			t.Errorf("Python's == sees order: %v", b)
		}
	}
	var n *Dict
	if !n.Equal(nil) || n.Equal(NewDict(0)) {
		t.Fatal("nil dict compares wrongly")
	}
}
