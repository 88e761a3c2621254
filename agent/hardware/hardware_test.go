package hardware

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/agent/disk"
)

// Regenerate with: go test ./agent/hardware -update
var update = flag.Bool("update", false, "rewrite testdata/inventory.golden.json")

type fakeDisks []disk.BlockDevice

func (f fakeDisks) BlockDevices(context.Context) ([]disk.BlockDevice, error) { return f, nil }

// TestInventoryFromRecordedTree reads testdata/root (this repository's
// CI host's /proc, plus a recorded /sys) and compares the JSON with the
// golden: IPA's keys, in IPA's order.
func TestInventoryFromRecordedTree(t *testing.T) {
	serial := "QM00001"
	r := Reader{
		Root:   filepath.Join("testdata", "root"),
		Disks:  fakeDisks{{Name: "/dev/vda", Model: "", Size: 10737418240, Rotational: true, Serial: &serial}},
		BootIF: "01-02-fc-00-00-00-01",
		Arch:   "x86_64",
		Addrs: func(name string) ([]net.Addr, error) {
			return []net.Addr{
				&net.IPNet{IP: net.ParseIP("fe80::fc:ff:fe00:1"), Mask: net.CIDRMask(64, 128)},
				&net.IPNet{IP: net.ParseIP("192.0.2.10").To4(), Mask: net.CIDRMask(24, 32)},
				&net.IPNet{IP: net.ParseIP("2001:db8::10"), Mask: net.CIDRMask(64, 128)},
			}, nil
		},
	}
	inv, err := r.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(inv, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "inventory.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)+"\n"); d != "" {
		t.Errorf("inventory (-golden +got):\n%s", d)
	}
	// The facts, checked independently of the golden.
	if len(inv.Interfaces) != 1 || inv.Interfaces[0].Name != "eth0" || *inv.Interfaces[0].IPv4Address != "192.0.2.10" ||
		*inv.Interfaces[0].IPv6Address != "2001:db8::10" {
		t.Errorf("interfaces %+v (lo has no device and is left out; link-local IPv6 is skipped)", inv.Interfaces)
	}
	if inv.CPU.Count != 2 || inv.CPU.ModelName != "AMD EPYC" || len(inv.CPU.Flags) == 0 {
		t.Errorf("cpu %+v", inv.CPU)
	}
	if inv.Memory.PhysicalMB == nil || *inv.Memory.PhysicalMB != 1024+40960 || inv.Memory.Total <= 0 {
		t.Errorf("memory %+v", inv.Memory)
	}
	if inv.Boot.CurrentBootMode != "uefi" || inv.Boot.PXEInterface == nil || *inv.Boot.PXEInterface != "01-02-fc-00-00-00-01" {
		t.Errorf("boot %+v", inv.Boot)
	}
	if inv.BMCAddress != "0.0.0.0" || inv.BMCV6Address != "::/0" || inv.Hostname != "agent-host" {
		t.Errorf("bmc %s %s hostname %s", inv.BMCAddress, inv.BMCV6Address, inv.Hostname)
	}
	if got := inv.MACs(); len(got) != 1 || got[0] != "02:fc:00:00:00:01" {
		t.Errorf("MACs %v", got)
	}
}

// TestInventoryMissingTree: a root without /proc is an error naming
// what could not be read, not a panic.
func TestInventoryMissingTree(t *testing.T) {
	_, err := Reader{Root: t.TempDir()}.Inventory(context.Background())
	if err == nil {
		t.Fatal("no error")
	}
}

// TestInventoryBIOS: without /sys/firmware/efi the boot mode is bios and
// no BOOTIF gives a null pxe_interface.
func TestInventoryBIOS(t *testing.T) {
	b := Reader{Root: t.TempDir()}.Boot()
	if b.CurrentBootMode != "bios" || b.PXEInterface != nil {
		t.Errorf("boot %+v", b)
	}
}
