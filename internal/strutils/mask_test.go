package strutils

import (
	"testing"

	"github.com/goironic/ironic/internal/pyjson"
)

func TestMaskDict(t *testing.T) {
	m := NewMasker()
	// Expected values printed by oslo_utils.strutils.mask_dict_password,
	// keys in the input's order.
	in := pyjson.DictOf(
		"ipmi_password", "x", "ipmi_username", "admin", "IPMI_Secret_thing", 1,
		"nested", pyjson.DictOf("user", "u", "password", "p"),
		"cmd", "--password abc rest", "plain", "hello",
	)
	got := m.MaskDict(in, "******")
	want := pyjson.DictOf(
		"ipmi_password", "******", "ipmi_username", "admin", "IPMI_Secret_thing", "******",
		"nested", pyjson.DictOf("user", "u", "password", "******"),
		"cmd", "--password ****** rest", "plain", "hello",
	)
	if !got.Equal(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if in.Get("ipmi_password") != "x" || in.Get("nested").(*pyjson.Dict).Get("password") != "p" {
		t.Error("input modified")
	}
	// Lists inside nested dicts (a deploy step's RAID config) must not
	// trip the "changed?" check.
	withLists := pyjson.DictOf("raid_config", pyjson.DictOf("logical_disks", []any{pyjson.DictOf("size_gb", 100)}))
	if got := m.MaskDict(withLists, "***"); got != withLists {
		t.Errorf("nested lists changed: %v", got)
	}
	secretNextToList := pyjson.DictOf("n", pyjson.DictOf("l", []any{1}, "password", "x"))
	if got := m.MaskDict(secretNextToList, "***"); got.Get("n").(*pyjson.Dict).Get("password") != "***" {
		t.Errorf("secret beside a list not masked: %v", got)
	}
	clean := pyjson.DictOf("a", "b")
	if got := m.MaskDict(clean, "***"); got != clean {
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
	for _, d := range []*pyjson.Dict{
		pyjson.DictOf("ipmi_username", "admin", "ipmi_password", "x", "n", pyjson.DictOf("token", 5, "l", []any{1, "password=abc"}), "cmd", "--password abc"),
		pyjson.NewDict(0),
		nil,
		pyjson.DictOf("plain", "hello", "num", 1),
	} {
		want, _ := pyjson.Marshal(m.MaskDict(d, "******"))
		got, err := m.AppendMaskedDict(nil, d, "******")
		if err != nil || string(got) != string(want) {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
}
