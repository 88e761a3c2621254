package diskimage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/agent/boot"
)

// sfdiskTable is sfdisk --json's partition table.
type sfdiskTable struct {
	PartitionTable struct {
		Label      string `json:"label"`
		Partitions []struct {
			Start    int64  `json:"start"`
			Size     int64  `json:"size"`
			Type     string `json:"type"`
			Bootable bool   `json:"bootable"`
		} `json:"partitions"`
	} `json:"partitiontable"`
}

func readTable(t *testing.T, disk string) sfdiskTable {
	t.Helper()
	out, err := exec.Command("sfdisk", "--json", disk).Output()
	if err != nil {
		t.Fatalf("sfdisk --json %s: %v", disk, err)
	}
	var tab sfdiskTable
	if err := json.Unmarshal(out, &tab); err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestBuildAndConfigDrive checks the image without booting it (test/vm
// boots it): syslinux's MBR code and the boot signature, one active
// FAT16 partition of type 0xEF (the ESP) at 1 MiB holding SYSLINUX, the kernel and the
// initramfs with tinyinit and the modules (checkInitramfs); the qcow2 converts back to
// the same bytes; AddConfigDrive appends a partition whose ISO 9660
// label is config-2.
func TestBuildAndConfigDrive(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	img := ForTest(ctx, t)
	raw, err := os.ReadFile(img.Raw)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []string{}
	for _, f := range []string{img.Kernel, img.Initrd, img.Raw, img.QCOW2} {
		if st, err := os.Stat(f); err == nil {
			sizes = append(sizes, fmt.Sprintf("%s %d KiB", filepath.Base(f), st.Size()>>10))
		}
	}
	t.Logf("sizes: %s", strings.Join(sizes, ", "))
	mbr, err := os.ReadFile(MBR)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != DiskSize || string(raw[:len(mbr)]) != string(mbr) || raw[510] != 0x55 || raw[511] != 0xAA {
		t.Errorf("disk: %d bytes, MBR code %v, signature % x", len(raw), string(raw[:len(mbr)]) == string(mbr), raw[510:512])
	}
	tab := readTable(t, img.Raw)
	if p := tab.PartitionTable.Partitions; tab.PartitionTable.Label != "dos" || len(p) != 1 || p[0].Start != 2048 || !p[0].Bootable || p[0].Type != "ef" {
		t.Errorf("partition table %+v", tab.PartitionTable)
	}
	out, err := exec.Command("mdir", "-a", "-b", "-i", img.Raw+"@@1M", "::").CombinedOutput()
	if err != nil {
		t.Fatalf("mdir: %v\n%s", err, out)
	}
	for _, f := range []string{"::/ldlinux.sys", "::/ldlinux.c32", "::/vmlinuz", "::/initrd", "::/syslinux.cfg"} {
		if !strings.Contains(string(out), f) {
			t.Errorf("boot partition lacks %s: %s", f, out)
		}
	}
	checkInitramfs(t, img)
	if out, err := exec.Command("qemu-img", "compare", "-f", "raw", "-F", "qcow2", img.Raw, img.QCOW2).CombinedOutput(); err != nil {
		t.Errorf("qemu-img compare: %v\n%s", err, out)
	}

	iso, err := ConfigDrive(ctx, t.TempDir(), map[string]any{"uuid": "0c0ffee0-0000-4000-8000-000000000001"})
	if err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(t.TempDir(), "disk.raw")
	if err := os.WriteFile(disk, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddConfigDrive(ctx, disk, iso); err != nil {
		t.Fatal(err)
	}
	p := readTable(t, disk).PartitionTable.Partitions
	if len(p) != 2 || p[1].Start*512 != DiskSize || p[1].Type != "83" {
		t.Fatalf("partitions after AddConfigDrive: %+v", p)
	}
	withCD, err := os.ReadFile(disk)
	if err != nil {
		t.Fatal(err)
	}
	pvd := withCD[p[1].Start*512+32768:]
	if got := strings.TrimRight(string(pvd[40:72]), " "); string(pvd[1:6]) != "CD001" || got != "config-2" {
		t.Errorf("config drive partition: volume label %q", got)
	}
}

// checkInitramfs reads the initramfs back with Debian's cpio: /init,
// agent/boot's module list naming, dependencies first, modules that are
// all in the archive, among them the disk's, the config drive's and the
// NIC's.
func checkInitramfs(t *testing.T, img *Image) {
	t.Helper()
	list, err := exec.Command("sh", "-c", `zcat "$0" | cpio -t --quiet`, img.Initrd).Output()
	if err != nil {
		t.Fatal(err)
	}
	inArchive := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		inArchive["/"+l] = true
	}
	if !inArchive["/init"] || !inArchive[boot.ModuleList] {
		t.Fatalf("initramfs lacks /init or %s:\n%s", boot.ModuleList, list)
	}
	loadList, err := exec.Command("sh", "-c", `zcat "$0" | cpio -i --quiet --to-stdout "$1"`, img.Initrd, strings.TrimPrefix(boot.ModuleList, "/")).Output()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, p := range strings.Fields(string(loadList)) {
		if !inArchive[p] || !strings.HasPrefix(p, "/lib/modules/"+img.KernelVersion+"/") {
			t.Errorf("module list names %s, not a module of the archive", p)
		}
		at[strings.TrimSuffix(filepath.Base(p), ".ko")] = i + 1
	}
	for _, m := range []string{"isofs", "ata_piix", "libata", "e1000", "virtio_blk"} {
		if at[m] == 0 {
			t.Errorf("module list lacks %s:\n%s", m, loadList)
		}
	}
	if at["libata"] > at["ata_piix"] {
		t.Errorf("libata listed after ata_piix, which depends on it:\n%s", loadList)
	}
	if len(img.Modules) != len(at) {
		t.Errorf("Image.Modules %v, module list:\n%s", img.Modules, loadList)
	}
}
