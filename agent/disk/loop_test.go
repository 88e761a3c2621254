package disk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loopDevice attaches a fresh file of size bytes to a loop device,
// detached when the test ends; the test is skipped unless it runs as
// root with losetup.
func loopDevice(t *testing.T, size int64) (dev, backing string) {
	t.Helper()
	need(t, "losetup")
	if os.Geteuid() != 0 {
		t.Skip("loop devices need root")
	}
	backing = makeDisk(t, t.TempDir(), "backing", size)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "losetup", "-f", "--show", backing).Output()
	if err != nil {
		t.Skipf("losetup: %v", err)
	}
	dev = strings.TrimSpace(string(out))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec.CommandContext(ctx, "losetup", "-d", dev).Run(); err != nil {
			t.Errorf("losetup -d %s: %v", dev, err)
		}
	})
	return dev, backing
}

// TestBlockDeviceEndToEnd writes a qcow2 image, a config drive and then
// erases the metadata on a real block device (a loop device): the
// device's size, BLKZEROOUT and the partition rescan are the block
// device paths regular files don't take.
func TestBlockDeviceEndToEnd(t *testing.T) {
	need(t, "qemu-img", "sgdisk", "blkid")
	dev, backing := loopDevice(t, 96<<20)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.raw")
	rawSource(t, src, 20<<20, 9)
	run(t, "sgdisk", "-n", "1:2048:+4M", src) // a whole-disk image with a GPT
	qc := filepath.Join(dir, "img.qcow2")
	run(t, "qemu-img", "convert", "-c", "-f", "raw", "-O", "qcow2", "-o", "compat=1.1", src, qc)
	data, _ := os.ReadFile(qc)
	srv := newImageServer(t)
	srv.files["/img.qcow2"] = data
	// Old content everywhere: the image's holes must read back as zeros.
	if err := os.WriteFile(backing, bytes.Repeat([]byte{0xee}, 96<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Config{DevRoot: "/dev", TempDir: t.TempDir(), DownloadRetries: -1})
	info := ImageInfo{ID: "loop", URLs: []string{srv.URL + "/img.qcow2"}, DiskFormat: ptr("qcow2"),
		OSHashAlgo: "sha256", OSHashValue: fmt.Sprintf("%x", sha256.Sum256(data))}
	if err := m.WriteImage(t.Context(), dev, info); err != nil {
		t.Fatal(err)
	}
	_, cd := configDriveISO(t, "cccccccc-2222-3333-4444-555555555555")
	if err := m.WriteConfigDrive(t.Context(), dev, cd); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(backing)
	want, _ := os.ReadFile(src)
	// The GPT headers were rewritten (backup moved): compare past them.
	if !bytes.Equal(got[34*512:len(want)-33*512], want[34*512:len(want)-33*512]) {
		t.Fatal("the image on the loop device differs from its source")
	}
	if out := run(t, "sgdisk", "-v", backing); !strings.Contains(out, "No problems found") {
		t.Fatalf("sgdisk -v: %s", out)
	}
	start := int64(96<<20/512-34+1-64<<20/512) / 2048 * 2048
	if l := blkidLabel(t, backing, start*512); l != "config-2" {
		t.Errorf("blkid label %q", l)
	}
	if err := m.EraseMetadata(t.Context(), []BlockDevice{{Name: dev}}); err != nil {
		t.Fatal(err)
	}
	if out := run(t, "wipefs", "--no-act", backing); strings.TrimSpace(out) != "" {
		t.Errorf("signatures left after EraseMetadata:\n%s", out)
	}
}
