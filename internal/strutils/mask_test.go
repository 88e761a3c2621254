package strutils

import (
	"reflect"
	"testing"

	"github.com/goironic/ironic/internal/pyjson"
)

func TestMaskDict(t *testing.T) {
	m := NewMasker()
	// Expected values printed by oslo_utils.strutils.mask_dict_password.
	in := map[string]any{
		"ipmi_password": "x", "ipmi_username": "admin", "IPMI_Secret_thing": 1,
		"nested": map[string]any{"password": "p", "user": "u"},
		"cmd":    "--password abc rest", "plain": "hello",
	}
	got := m.MaskDict(in, "******")
	want := map[string]any{
		"ipmi_password": "******", "ipmi_username": "admin", "IPMI_Secret_thing": "******",
		"nested": map[string]any{"password": "******", "user": "u"},
		"cmd":    "--password ****** rest", "plain": "hello",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if in["ipmi_password"] != "x" {
		t.Error("input modified")
	}
	// Lists inside nested dicts (a deploy step's RAID config) must not
	// trip the "changed?" check.
	withLists := map[string]any{"raid_config": map[string]any{"logical_disks": []any{map[string]any{"size_gb": 100}}}}
	if got := m.MaskDict(withLists, "***"); !reflect.DeepEqual(got, withLists) {
		t.Errorf("nested lists changed: %v", got)
	}
	secretNextToList := map[string]any{"n": map[string]any{"l": []any{1}, "password": "x"}}
	if got := m.MaskDict(secretNextToList, "***"); got["n"].(map[string]any)["password"] != "***" {
		t.Errorf("secret beside a list not masked: %v", got)
	}
	clean := map[string]any{"a": "b"}
	if got := m.MaskDict(clean, "***"); !reflect.DeepEqual(got, clean) {
		t.Error("clean dict changed")
	}
}

func TestMaskPassword(t *testing.T) {
	m := NewMasker()
	cases := map[string]string{
		`'adminPass' : 'aaaaa'`:    `'adminPass' : '***'`,
		`"password" : "aaaaa"`:     `"password" : "***"`,
		`user=a password=secret x`: `user=a password=*** x`,
		`nothing here`:             `nothing here`,
	}
	for in, want := range cases {
		if got := m.MaskPassword(in, "***"); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

func TestAppendMaskedDictEqualsMaskThenEncode(t *testing.T) {
	m := NewMasker()
	for _, d := range []map[string]any{
		{"ipmi_password": "x", "ipmi_username": "admin", "n": map[string]any{"token": 5, "l": []any{1, "password=abc"}}, "cmd": "--password abc"},
		{},
		{"plain": "hello", "num": 1},
	} {
		want, _ := pyjson.Marshal(m.MaskDict(d, "******"))
		got, err := m.AppendMaskedDict(nil, d, "******")
		if err != nil || string(got) != string(want) {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
}
