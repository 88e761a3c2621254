package disk

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata (blockdevices.golden.json, uefi/)")

// TestBlockDevicesGolden lists the recorded sysfs tree (vda, loop0 and
// zram0 recorded from a QEMU guest; sda, sdb, sdc, sr0, ram0 and fd0
// written as Linux shows QEMU's AHCI disk, scsi-hd, a card reader
// without medium, ide-cd, a RAM disk and a floppy). Regenerate with
// go test ./agent/disk -run TestBlockDevicesGolden -update.
func TestBlockDevicesGolden(t *testing.T) {
	m := New(Config{SysRoot: "testdata/sys", DevRoot: "testdata/dev"})
	devs, err := m.BlockDevices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(devs, "", "  ")
	got = append(got, '\n')
	const golden = "testdata/blockdevices.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("BlockDevices (-golden +got):\n%s", d)
	}
	var names []string
	for _, d := range devs {
		names = append(names, d.Name)
	}
	if d := cmp.Diff([]string{"/dev/sda", "/dev/sdb", "/dev/vda"}, names); d != "" {
		t.Errorf("devices (-want +got):\n%s", d)
	}
}

// TestBlockDevicesMatchLsblk compares the listing of this machine's
// /sys with lsblk's, the tool IPA reads: the same disks, sizes,
// rotational flags, models and serials.
func TestBlockDevicesMatchLsblk(t *testing.T) {
	need(t, "lsblk")
	out, err := exec.CommandContext(t.Context(), "lsblk", "-bdJ", "-oKNAME,TYPE,SIZE,ROTA,SERIAL,MODEL").Output()
	if err != nil {
		t.Skipf("lsblk: %v", err)
	}
	var report struct {
		Blockdevices []struct {
			Kname, Type   string
			Size          int64
			Rota          bool
			Serial, Model *string
		}
	}
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&report); err != nil {
		t.Fatal(err)
	}
	want := map[string]BlockDevice{}
	for _, d := range report.Blockdevices {
		if d.Type != "disk" || d.Size == 0 || strings.HasPrefix(d.Kname, "ram") || strings.HasPrefix(d.Kname, "zram") || strings.HasPrefix(d.Kname, "fd") {
			continue
		}
		model := ""
		if d.Model != nil {
			model = strings.TrimSpace(*d.Model)
		}
		want["/dev/"+d.Kname] = BlockDevice{Name: "/dev/" + d.Kname, Size: d.Size, Rotational: d.Rota, Serial: d.Serial, Model: model}
	}
	devs, err := New(Config{}).BlockDevices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]BlockDevice{}
	for _, d := range devs {
		g := BlockDevice{Name: d.Name, Size: d.Size, Rotational: d.Rotational, Serial: d.Serial, Model: d.Model}
		// Without udev (a container) lsblk knows no virtio serial; IPA
		// reads udev's ID_SERIAL, which is the one sysfs shows.
		if w, ok := want[d.Name]; ok && w.Serial == nil {
			g.Serial = nil
		}
		got[d.Name] = g
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BlockDevices differs from lsblk (-lsblk +ours):\n%s", d)
	}
	t.Logf("%d disks on this machine", len(got))
}

func TestRootDevice(t *testing.T) {
	m := New(Config{SysRoot: "testdata/sys", DevRoot: "testdata/dev"})
	tests := []struct {
		hints map[string]any
		want  string
		err   string
	}{
		// No hints: the smallest disk of at least 4 GiB (sdb, 4 GiB).
		{hints: nil, want: "/dev/sdb"},
		{hints: map[string]any{"name": "/dev/sda"}, want: "/dev/sda"},
		{hints: map[string]any{"name": "sda"}, want: "/dev/sda"},
		{hints: map[string]any{"name": "<or> /dev/vda <or> /dev/sdb"}, want: "/dev/sdb"},
		{hints: map[string]any{"size": float64(10)}, want: "/dev/sda"},
		{hints: map[string]any{"size": "<= 4"}, want: "/dev/sdb"},
		{hints: map[string]any{"size": ">= 5", "rotational": true}, want: "/dev/sda"},
		{hints: map[string]any{"rotational": "1", "vendor": "0x1af4"}, want: "/dev/vda"},
		{hints: map[string]any{"rotational": false}, want: "/dev/sdb"},
		{hints: map[string]any{"serial": "QM00001"}, want: "/dev/sda"},
		{hints: map[string]any{"model": "<in> harddisk", "vendor": "s== qemu"}, want: "/dev/sdb"},
		{hints: map[string]any{"wwn": "0x5000c500a0b1c2d3"}, want: "/dev/sdb"},
		{hints: map[string]any{"wwn_with_extension": "0x5000c500a0b1c2d3"}, want: "/dev/sdb"},
		{hints: map[string]any{"hctl": "2:0:0:1"}, want: "/dev/sdb"},
		{hints: map[string]any{"by_path": "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"}, want: "/dev/sda"},
		{hints: map[string]any{"serial": "1556638713968547"}, want: "/dev/vda"},
		{hints: map[string]any{"size": float64(100)}, err: "Error finding the disk or partition device to deploy the image onto: No suitable device was found for deployment using these hints {'size': 100}"},
		{hints: map[string]any{"name": "/dev/sdz", "rotational": "yes"}, err: "Error finding the disk or partition device to deploy the image onto: No suitable device was found for deployment using these hints {'name': '/dev/sdz', 'rotational': 'yes'}"},
		{hints: map[string]any{"size": "big"}, err: "Error finding the disk or partition device to deploy the image onto: No devices could be found using the root device hints {'size': 'big'} because they failed to validate. Error: Root device hint \"size\" is not an integer value. Current value: big"},
	}
	for _, tt := range tests {
		d, err := m.RootDevice(t.Context(), tt.hints)
		if tt.err != "" {
			e := ipaError(t, err)
			if e.Type != "DeviceNotFound" || e.Code != 404 || e.Error() != tt.err {
				t.Errorf("%v: got %s %q\nwant %q", tt.hints, e.Type, e.Error(), tt.err)
			}
			continue
		}
		if err != nil || d.Name != tt.want {
			t.Errorf("%v: got %q, %v; want %s", tt.hints, d.Name, err, tt.want)
		}
	}
	small := New(Config{SysRoot: t.TempDir()})
	if err := os.MkdirAll(small.sysBlock(), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := small.RootDevice(t.Context(), nil)
	if want := "Error finding the disk or partition device to deploy the image onto: No suitable device was found for deployment - root device hints were not provided and all found block devices are smaller than 4294967296B."; err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
}
