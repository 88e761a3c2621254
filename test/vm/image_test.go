package vm_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/vm"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// vmRun bounds one boot of the VM under TCG.
const vmRun = 150 * time.Second

// TestDiskImageBootsWithConfigDrive: the image, with a config-2
// partition appended by sfdisk (an ISO made by genisoimage), boots from
// its disk under SeaBIOS (syslinux, Debian's kernel, tinyinit) and
// reports QEMU's -uuid and the config drive's uuid; its qcow2 holds the
// same bytes; without the config drive tinyinit says so.
func TestDiskImageBootsWithConfigDrive(t *testing.T) {
	vm.Require(t)
	diskimage.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	t0 := time.Now()
	img := diskimage.ForTest(ctx, t)
	t.Logf("image built in %s (kernel %s)", time.Since(t0).Round(time.Millisecond), img.KernelVersion)
	if out, err := exec.CommandContext(ctx, "qemu-img", "compare", "-f", "raw", "-F", "qcow2", img.Raw, img.QCOW2).CombinedOutput(); err != nil {
		t.Errorf("qemu-img compare raw qcow2: %v\n%s", err, out)
	}

	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006700"
		cdUUID   = "0c0ffee0-6e8f-4c1a-9d3e-000000006701"
	)
	dir := t.TempDir()
	disk := vm.CopyDisk(t, img.Raw, dir)
	iso, err := diskimage.ConfigDrive(ctx, dir, map[string]any{"uuid": cdUUID, "name": "goironic-vm"})
	if err != nil {
		t.Fatal(err)
	}
	if err := diskimage.AddConfigDrive(ctx, disk, iso); err != nil {
		t.Fatal(err)
	}
	n := vm.Start(t, vm.Options{UUID: nodeUUID, MAC: "52:54:00:67:00:01", Disk: disk, MemoryMiB: 256})
	got := bootDisk(ctx, t, n, "DEPLOYED")
	if got.SystemUUID != nodeUUID || got.ConfigDriveUUID != cdUUID {
		t.Errorf("marker %+v, want system %s, config drive %s", got, nodeUUID, cdUUID)
	}

	// The image as built has no config drive.
	plain := vm.Start(t, vm.Options{UUID: cdUUID, MAC: "52:54:00:67:00:02", Disk: vm.CopyDisk(t, img.Raw, t.TempDir()), MemoryMiB: 256})
	if m := bootDisk(ctx, t, plain, "NO-CONFIGDRIVE"); m.SystemUUID != cdUUID {
		t.Errorf("marker %+v, want system %s", m, cdUUID)
	}
}

// bootDisk powers n on from its disk through the BMC, waits (bounded)
// for tinyinit's marker of kind and for the guest to power off, and
// logs the wall time.
func bootDisk(ctx context.Context, t *testing.T, n *vm.Node, kind string) diskimage.Marker {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, vmRun)
	defer cancel()
	t0 := time.Now()
	if err := n.Machine.PowerOn(ctx, redfishHdd); err != nil {
		t.Fatal(err)
	}
	console, err := n.WaitConsole(ctx, func(c string) bool { _, ok := diskimage.Find(c, kind); return ok })
	if err != nil {
		t.Fatalf("%v; console:\n%s", err, tail(console, 4000))
	}
	booted := time.Since(t0)
	if err := n.WaitOff(ctx); err != nil {
		t.Errorf("%v", err)
	}
	t.Logf("disk boot to %s marker: %s, to power off: %s", kind, booted.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	m, _ := diskimage.Find(console, kind)
	return m
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}
