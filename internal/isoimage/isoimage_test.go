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

// TestElTorito reads back what Write puts where El Torito says: the boot
// record's catalogue pointer, the validation entry (checksum, key), the
// default and section entries, and the boot info table.
func TestElTorito(t *testing.T) {
	bootImg := make([]byte, 5000)
	for i := range bootImg {
		bootImg[i] = byte(i * 13)
	}
	esp := bytes.Repeat([]byte{0xE5}, 3*sector+1)
	o := Options{VolumeID: "v", Publisher: "a-publisher-longer-than-23-bytes", Now: time.Unix(0, 0), UpperCase: true,
		Boot: &ElTorito{Catalog: "boot.catalog", ID: "a-publisher-longer-than-23-bytes", Entries: []BootEntry{
			{Platform: PlatformX86, Path: "isolinux/isolinux.bin", LoadSectors: 4, InfoTable: true},
			{Platform: PlatformEFI, Path: "efi.img"},
		}}}
	var buf bytes.Buffer
	if err := Write(context.Background(), &buf, []File{{Path: "isolinux/isolinux.bin", Data: bootImg}, {Path: "efi.img", Data: esp}}, o); err != nil {
		t.Fatal(err)
	}
	img := buf.Bytes()
	le32 := func(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }
	le16 := func(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
	br := img[17*sector:]
	if br[0] != 0 || string(br[1:6]) != "CD001" || string(br[7:30]) != "EL TORITO SPECIFICATION" {
		t.Fatalf("no boot record at sector 17: %q", br[:40])
	}
	cat := img[le32(br[71:])*sector:]
	var sum uint16
	for i := 0; i < 32; i += 2 {
		sum += le16(cat[i:])
	}
	if cat[0] != 1 || cat[1] != 0 || sum != 0 || cat[30] != 0x55 || cat[31] != 0xAA || string(cat[4:28]) != "a-publisher-longer-than\x00" {
		t.Errorf("validation entry %q, word sum %#x", cat[:32], sum)
	}
	def, sec, secEntry := cat[32:64], cat[64:96], cat[96:128]
	if def[0] != 0x88 || def[1] != 0 || le16(def[6:]) != 4 {
		t.Errorf("default entry %x", def)
	}
	if sec[0] != 0x91 || sec[1] != 0xEF || le16(sec[2:]) != 1 || secEntry[0] != 0x88 || le16(secEntry[6:]) != uint16((len(esp)+511)/512) {
		t.Errorf("section %x entry %x", sec, secEntry)
	}
	if got := img[le32(secEntry[8:])*sector:][:len(esp)]; !bytes.Equal(got, esp) {
		t.Error("the EFI entry does not point at efi.img")
	}
	at := le32(def[8:])
	boot := img[at*sector:][:len(bootImg)]
	var csum uint32
	for i := 64; i < len(bootImg); i += 4 {
		csum += le32(append(append([]byte(nil), bootImg[i:min(i+4, len(bootImg))]...), 0, 0, 0))
	}
	if le32(boot[8:]) != 16 || le32(boot[12:]) != at || le32(boot[16:]) != uint32(len(bootImg)) || le32(boot[20:]) != csum {
		t.Errorf("boot info table %x, want pvd 16, file %d, length %d, checksum %#x", boot[8:24], at, len(bootImg), csum)
	}
	if !bytes.Equal(boot[64:], bootImg[64:]) || !bytes.Equal(boot[:8], bootImg[:8]) {
		t.Error("the boot image changed outside its info table")
	}
	if bootImg[8] != 8*13%256 {
		t.Error("the caller's boot image was patched in place")
	}
}
