package isoimage

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestJolietIdent(t *testing.T) {
	for in, want := range map[string]string{
		"meta_data.json": "\x00m\x00e\x00t\x00a\x00_\x00d\x00a\x00t\x00a\x00.\x00j\x00s\x00o\x00n",
		"a:b;c":          "\x00a\x00_\x00b\x00_\x00c",
		"é😀":             "\x00\xe9\x00_",
	} {
		if got := jolietIdent(in); got != want {
			t.Errorf("jolietIdent(%q) = %q, want %q", in, got, want)
		}
	}
	// Descriptor fields: UCS-2 spaces, an odd field ends in a zero byte.
	if got := ucs2Field("ab", 7); string(got) != "\x00a\x00b\x00 \x00" {
		t.Errorf("ucs2Field = %q", got)
	}
	if got := ucs2Field(strings.Repeat("x", 40), 32); len(got) != 32 || got[31] != 'x' {
		t.Errorf("ucs2Field truncated = %q", got)
	}
}

// TestISOIdent: genisoimage -l's names, with -allow-lowercase
// -allow-multidot (config drives) and without (boot ISOs; the names
// isoinfo -l shows for an ISO 21.4 builds).
func TestISOIdent(t *testing.T) {
	for _, c := range []struct {
		name       string
		dir, upper bool
		want       string
	}{
		{"meta_data.json", false, false, "meta_data.json;1"},
		{"user_data", false, false, "user_data.;1"},
		{"2012-08-10", true, false, "2012_08_10"},
		{"network_data.json", false, true, "NETWORK_DATA.JSON;1"},
		{"initrd", false, true, "INITRD.;1"},
		{"boot.catalog", false, true, "BOOT.CATALOG;1"},
		{"a.b.c", false, true, "A_B.C;1"},
		{"a.b.c", false, false, "a.b.c;1"},
		{"EFI", true, true, "EFI"},
	} {
		if got := isoIdent(c.name, c.dir, c.upper); got != c.want {
			t.Errorf("isoIdent(%q, %v, %v) = %q, want %q", c.name, c.dir, c.upper, got, c.want)
		}
	}
}

func TestJolietNameLimit(t *testing.T) {
	ok := strings.Repeat("n", jolietMaxName)
	o := Options{VolumeID: "v", Joliet: true, Now: time.Unix(0, 0)}
	var buf bytes.Buffer
	if err := Write(context.Background(), &buf, []File{{Path: "d/" + ok, Data: []byte("x")}}, o); err != nil {
		t.Errorf("%d characters: %v", jolietMaxName, err)
	}
	if err := Write(context.Background(), &buf, []File{{Path: "d/" + ok + "n", Data: []byte("x")}}, o); err == nil {
		t.Errorf("%d characters accepted", jolietMaxName+1)
	}
}

func TestBadTrees(t *testing.T) {
	o := Options{VolumeID: "v", Now: time.Unix(0, 0)}
	for name, files := range map[string][]File{
		"file then dir": {{Path: "a", Data: []byte("x")}, {Path: "a/b", Data: []byte("y")}},
		"dir then file": {{Path: "a/b", Data: []byte("y")}, {Path: "a", Data: []byte("x")}},
		"dot-dot":       {{Path: "a/../b", Data: []byte("y")}},
		"empty part":    {{Path: "a//b", Data: []byte("y")}},
		"missing file":  {{Path: "a", Source: "/nonexistent/goironic"}},
	} {
		if err := Write(context.Background(), &bytes.Buffer{}, files, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	o.Boot = &ElTorito{Catalog: "boot.catalog", Entries: []BootEntry{{Path: "nothere"}}}
	if err := Write(context.Background(), &bytes.Buffer{}, []File{{Path: "a", Data: []byte("x")}}, o); err == nil {
		t.Error("a boot image outside the tree accepted")
	}
	o.Boot.Entries = []BootEntry{{Path: "a", InfoTable: true}}
	if err := Write(context.Background(), &bytes.Buffer{}, []File{{Path: "a", Data: []byte("x")}}, o); err == nil {
		t.Error("a boot info table in a 1-byte image accepted")
	}
}
