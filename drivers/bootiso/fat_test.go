package bootiso

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFAT16 checks the ESP writer with dosfstools and mtools as the
// oracle: fsck.vfat -n finds nothing to fix, minfo calls it FAT16, mdir
// lists the tree and mtype reads every file back, from one cluster to
// thousands (GRUB's size).
func TestFAT16(t *testing.T) {
	needTools(t, "fsck.vfat", "mdir", "mtype", "minfo")
	big := bytes.Repeat([]byte("0123456789abcdefghij"), 4200000/20+7)
	files := []fatFile{
		{Path: "EFI/BOOT/BOOTX64.EFI", Data: big},
		{Path: "EFI/BOOT/GRUB.CFG", Data: []byte("configfile (cd0)/EFI/BOOT/grub.cfg\n")},
		{Path: "EMPTY", Data: nil},
		{Path: "A/B/C/D.TXT", Data: []byte("deep")},
	}
	for name, fs := range map[string][]fatFile{"grub": files, "small": files[1:]} {
		t.Run(name, func(t *testing.T) {
			img, err := writeFAT16(fs, "ESP", 0x12345678, time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "esp.img")
			if err := os.WriteFile(p, img, 0o644); err != nil {
				t.Fatal(err)
			}
			if o, err := exec.Command("fsck.vfat", "-n", "-v", p).CombinedOutput(); err != nil || !strings.Contains(string(o), "FAT16") {
				t.Errorf("fsck.vfat -n: %v\n%s", err, o)
			}
			env := append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
			mt := func(args ...string) []byte {
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Env = env
				o, err := cmd.Output()
				if err != nil {
					t.Fatalf("%v: %v", args, err)
				}
				return o
			}
			if info := string(mt("minfo", "-i", p, "::")); !strings.Contains(info, "FAT16") && !strings.Contains(info, "fat bits=16") {
				t.Errorf("minfo does not see FAT16:\n%s", info)
			}
			if dir := string(mt("mdir", "-/", "-b", "-i", p, "::")); !strings.Contains(dir, "::/EFI/BOOT/GRUB.CFG") {
				t.Errorf("mdir:\n%s", dir)
			}
			for _, f := range fs {
				if got := mt("mtype", "-i", p, "::"+f.Path); !bytes.Equal(got, f.Data) {
					t.Errorf("mtype %s: %d bytes, want %d", f.Path, len(got), len(f.Data))
				}
			}
		})
	}
	if _, err := writeFAT16([]fatFile{{Path: "EFI/BOOT/bootx64.efi"}}, "ESP", 1, time.Now()); err == nil {
		t.Error("a lower-case name accepted")
	}
	if _, err := writeFAT16([]fatFile{{Path: "LONGFILENAME.EFI"}}, "ESP", 1, time.Now()); err == nil {
		t.Error("a long name accepted")
	}
}
