package disk

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSys writes a sysfs attribute file under root.
func writeSys(t *testing.T, root, rel, val string) {
	t.Helper()
	p := filepath.Join(root, "block", rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(val+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// probe is blkid's low-level probe at an offset: "" when it finds nothing.
func probe(t *testing.T, path, offset string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "blkid", "-p", "-O", offset, "-o", "export", path).Output()
	return strings.TrimSpace(string(out))
}

func TestEraseMetadata(t *testing.T) {
	need(t, "sgdisk", "mkfs.ext4", "blkid", "wipefs")
	sys, dev := t.TempDir(), t.TempDir()
	m := New(Config{SysRoot: sys, DevRoot: dev})
	disk := makeDisk(t, dev, "vdx", 64<<20)
	run(t, "sgdisk", "-n", "1:2048:+16M", "-n", "2:0:+16M", disk)
	run(t, "mkfs.ext4", "-q", "-F", "-E", "offset=1048576", disk, "16M")
	run(t, "mkfs.ext4", "-q", "-F", "-E", "offset=17825792", disk, "16M")
	if !strings.Contains(probe(t, disk, "1048576"), "TYPE=ext4") {
		t.Fatal("no ext4 made in partition 1")
	}
	writeSys(t, sys, "vdx/size", "131072")
	writeSys(t, sys, "vdx/ro", "0")
	writeSys(t, sys, "vdx/vdx1/partition", "1")
	writeSys(t, sys, "vdx/vdx1/start", "2048")
	writeSys(t, sys, "vdx/vdx1/size", "32768")
	writeSys(t, sys, "vdx/vdx2/partition", "2")
	writeSys(t, sys, "vdx/vdx2/start", "34816")
	writeSys(t, sys, "vdx/vdx2/size", "32768")
	// A read-only disk is left alone, as IPA does.
	ro := makeDisk(t, dev, "vdy", 1<<20)
	_ = os.WriteFile(ro, bytes.Repeat([]byte{0x55, 0xaa}, 1<<19), 0o600)
	writeSys(t, sys, "vdy/size", "2048")
	writeSys(t, sys, "vdy/ro", "1")

	devs, err := m.BlockDevices(t.Context())
	if err != nil || len(devs) != 2 {
		t.Fatalf("BlockDevices = %v, %v", devs, err)
	}
	if err := m.EraseMetadata(t.Context(), devs); err != nil {
		t.Fatal(err)
	}
	if out := run(t, "wipefs", "--no-act", disk); strings.TrimSpace(out) != "" {
		t.Errorf("wipefs still finds signatures on the disk:\n%s", out)
	}
	for _, off := range []string{"0", "1048576", "17825792"} {
		if p := probe(t, disk, off); p != "" {
			t.Errorf("blkid at %s still finds %s", off, p)
		}
	}
	if b, _ := os.ReadFile(ro); !bytes.Equal(b[:4], []byte{0x55, 0xaa, 0x55, 0xaa}) {
		t.Error("read-only device written")
	}
	e := ipaError(t, m.EraseMetadata(t.Context(), []BlockDevice{{Name: "/dev/missing"}}))
	if e.Type != "BlockDeviceEraseError" || !strings.HasPrefix(e.Error(), `Error erasing block device: Failed to erase the metadata on the device(s): "/dev/missing": open `) {
		t.Errorf("got %q", e.Error())
	}
}
