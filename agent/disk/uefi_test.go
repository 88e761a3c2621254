package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf16"
)

// fakeMounter fills the ESP's mount point with files and records the
// mounts; efivarfs mounts are recorded only.
type fakeMounter struct {
	files   fstest.MapFS
	mounts  []string
	unmount []string
	fail    error
}

func (f *fakeMounter) Mount(source, target, fstype string, flags uintptr, _ string) error {
	f.mounts = append(f.mounts, strings.Join([]string{filepath.Base(source), fstype, map[bool]string{true: "ro", false: "rw"}[flags&mountReadOnly != 0]}, " "))
	if f.fail != nil {
		return f.fail
	}
	if fstype != "vfat" {
		return nil
	}
	return os.CopyFS(target, f.files)
}

func (f *fakeMounter) Unmount(target string) error {
	f.unmount = append(f.unmount, target)
	ents, _ := os.ReadDir(target)
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(target, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// The partitions of the test disks, as sfdisk lays them out.
const (
	espGUID   = "5a1b2c3d-4e5f-4a6b-8c7d-0123456789ab"
	rootGUID  = "0fc63daf-0000-4000-8000-00000000abcd"
	gptScript = "label: gpt\nlabel-id: 11111111-2222-4333-8444-555555555555\n" +
		"start=2048, size=4096, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=" + rootGUID + "\n"
	gptESPLine = "start=6144, size=8192, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=" + espGUID + "\n"
)

// uefiDisk writes a partition table (an sfdisk script) on a 16 MiB
// /dev/vda of the test Manager's tree.
func uefiDisk(t *testing.T, devDir, script string) {
	t.Helper()
	need(t, "sfdisk")
	p := makeDisk(t, devDir, "vda", 16<<20)
	cmd := exec.CommandContext(t.Context(), "sfdisk", "--no-reread", "--no-tell-kernel", p)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v\n%s", err, out)
	}
}

// efivarfs is a fake /sys/firmware/efi with OVMF's first variables:
// Boot0000 (UiApp), Boot0001 (a stale "ironic1" entry) and BootOrder.
func efivarfs(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "efivars"), 0o755); err != nil {
		t.Fatal(err)
	}
	v := efiVars{dir: filepath.Join(root, "efivars")}
	stale := loadOption("ironic1", espPartition{Number: 9, Start: 1, Size: 1, GPT: true}, `\old.efi`)
	for name, data := range map[string][]byte{
		"Boot0000":  loadOption("UiApp", espPartition{}, `\UiApp`),
		"Boot0001":  stale,
		"BootOrder": {0, 0, 1, 0},
	} {
		if err := v.write(name, bootVarAttrs, data); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readVar(t *testing.T, efiRoot, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(efiRoot, "efivars", name+"-"+efiGlobalVariable))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func utf16File(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// TestManageUEFI is efi_utils.manage_uefi against a disk image with a
// partition table, a fake ESP and a fake efivarfs.
func TestManageUEFI(t *testing.T) {
	loader := &fstest.MapFile{Data: []byte("MZ"), Mode: 0o755}
	for _, tc := range []struct {
		name, script, efiPart string
		files                 fstest.MapFS
		wantOK                bool
		wantErr               string
		wantMount             string
		// wantDesc are the descriptions of Boot0000.. after the call,
		// wantOrder the BootOrder.
		wantDesc  []string
		wantOrder []uint16
		golden    string
	}{
		{name: "gpt-removable", script: gptScript + gptESPLine,
			files:  fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": loader, "EFI/BOOT/grub.cfg": {Data: []byte("x"), Mode: 0o755}},
			wantOK: true, wantMount: "vda2 vfat ro", wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{1, 0},
			golden: "boot-gpt.golden"},
		{name: "gpt-shim-csv", script: gptScript + gptESPLine,
			files: fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": loader, "EFI/debian/shimx64.efi": loader,
				"EFI/debian/BOOTX64.CSV": {Data: utf16File("shimx64.efi,debian,,This is the boot entry for debian\n"), Mode: 0o644}},
			wantOK: true, wantMount: "vda2 vfat ro", wantDesc: []string{"UiApp", "ironic1", "debian"}, wantOrder: []uint16{2, 0, 1}},
		{name: "two-loaders", script: gptScript + gptESPLine,
			files:  fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": loader, "EFI/BOOT/BOOTAA64.EFI": loader, "EFI/BOOT/bootia32.efi": {Data: []byte("MZ"), Mode: 0o644}},
			wantOK: true, wantMount: "vda2 vfat ro", wantDesc: []string{"UiApp", "ironic1", "ironic2"}, wantOrder: []uint16{2, 1, 0}},
		{name: "empty-esp", script: gptScript + gptESPLine, files: fstest.MapFS{"EFI/ubuntu/grub.cfg": {Data: []byte("x")}},
			wantMount: "vda2 vfat ro", wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{0, 1}},
		{name: "no-esp", script: gptScript,
			wantErr:  "Error finding the disk or partition device to deploy the image onto: No EFI partition could be detected on device /dev/vda and EFI partition UUID has not been recorded during deployment (which is often the case for whole disk images). Are you using a UEFI-compatible image?",
			wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{0, 1}},
		{name: "esp-by-uuid", script: gptScript, efiPart: strings.ToUpper(rootGUID), files: fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": loader},
			wantOK: true, wantMount: "vda1 vfat ro", wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{1, 0}},
		{name: "mbr-esp", script: "label: dos\nlabel-id: 0x1234abcd\nstart=2048, size=4096, type=83\nstart=6144, size=8192, type=ef, bootable\n",
			files:  fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": loader},
			wantOK: true, wantMount: "vda2 vfat ro", wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{1, 0}, golden: "boot-mbr.golden"},
		{name: "mbr-active-is-not-esp", script: "label: dos\nstart=2048, size=8192, type=6, bootable\n",
			wantErr:  "No EFI partition could be detected on device /dev/vda",
			wantDesc: []string{"UiApp", "ironic1"}, wantOrder: []uint16{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			efiRoot := efivarfs(t)
			mt := &fakeMounter{files: tc.files}
			m, dev := testManager(t, WithMounter(mt))
			m.cfg.EFIRoot = efiRoot
			uefiDisk(t, dev, tc.script)
			if got := m.BootMode(); got != "uefi" {
				t.Errorf("BootMode %q", got)
			}
			ok, err := m.ManageUEFI(t.Context(), "/dev/vda", tc.efiPart)
			if tc.wantErr != "" {
				var de *Error
				if !errors.As(err, &de) || de.Type != "DeviceNotFound" || de.Code != 404 || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want DeviceNotFound %q", err, tc.wantErr)
				}
			} else if err != nil || ok != tc.wantOK {
				t.Fatalf("ManageUEFI = %t, %v; want %t", ok, err, tc.wantOK)
			}
			if got := strings.Join(mt.mounts, ", "); got != tc.wantMount {
				t.Errorf("mounts %q, want %q", got, tc.wantMount)
			}
			if len(mt.unmount) != len(mt.mounts) {
				t.Errorf("unmounted %v after mounting %v", mt.unmount, mt.mounts)
			}
			v := efiVars{dir: filepath.Join(efiRoot, "efivars")}
			nums, _ := v.bootEntries()
			var descs []string
			for i, n := range nums {
				if int(n) != i {
					t.Errorf("boot entries %v are not Boot0000..", nums)
				}
				data, _, _ := v.read(bootName(n))
				descs = append(descs, loadOptionDescription(data))
				if attrs := binary.LittleEndian.Uint32(readVar(t, efiRoot, bootName(n))); attrs != bootVarAttrs {
					t.Errorf("%s attributes %#x", bootName(n), attrs)
				}
			}
			if !slices.Equal(descs, tc.wantDesc) {
				t.Errorf("boot entries %q, want %q", descs, tc.wantDesc)
			}
			order, _, _ := v.read("BootOrder")
			var got []uint16
			for i := 0; i+1 < len(order); i += 2 {
				got = append(got, binary.LittleEndian.Uint16(order[i:]))
			}
			if !slices.Equal(got, tc.wantOrder) {
				t.Errorf("BootOrder %04X, want %04X", got, tc.wantOrder)
			}
			if tc.golden != "" {
				checkVarGolden(t, tc.golden, readVar(t, efiRoot, "Boot0001"))
			}
		})
	}
}

// checkVarGolden compares an efivarfs file (attributes and
// EFI_LOAD_OPTION) with testdata/uefi/<name>, a hex dump checked by
// hand against the UEFI spec's layout (see loadOption). Regenerate:
// go test ./agent/disk -run TestManageUEFI -update.
func checkVarGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "uefi", name)
	dump := []byte(hex.Dump(got))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, dump, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dump, want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", path, dump, want)
	}
}

// TestManageUEFIMountsEfivarfs: an empty efivars directory (the
// ramdisk mounts only sysfs) gets efivarfs mounted before the
// variables are written; a mount failure is IPA's
// CommandExecutionError.
func TestManageUEFIMountsEfivarfs(t *testing.T) {
	efiRoot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(efiRoot, "efivars"), 0o755); err != nil {
		t.Fatal(err)
	}
	mt := &fakeMounter{files: fstest.MapFS{"EFI/BOOT/BOOTX64.EFI": {Data: []byte("MZ"), Mode: 0o755}}}
	m, dev := testManager(t, WithMounter(mt))
	m.cfg.EFIRoot = efiRoot
	uefiDisk(t, dev, gptScript+gptESPLine)
	if ok, err := m.ManageUEFI(context.Background(), "vda", ""); !ok || err != nil {
		t.Fatalf("ManageUEFI = %t, %v", ok, err)
	}
	if got := strings.Join(mt.mounts, ", "); got != "vda2 vfat ro, efivarfs efivarfs rw" {
		t.Errorf("mounts %q", got)
	}
	mt = &fakeMounter{fail: errors.New("no such device")}
	m, dev = testManager(t, WithMounter(mt))
	m.cfg.EFIRoot = efiRoot
	uefiDisk(t, dev, gptScript+gptESPLine)
	_, err := m.ManageUEFI(context.Background(), "/dev/vda", "")
	var de *Error
	if !errors.As(err, &de) || de.Type != "CommandExecutionError" ||
		de.Details != "Could not configure UEFI boot on device /dev/vda: mounting /dev/vda2: no such device" {
		t.Errorf("error %#v", err)
	}
}

func TestBootModeBIOS(t *testing.T) {
	m, _ := testManager(t)
	m.cfg.EFIRoot = filepath.Join(t.TempDir(), "absent")
	if got := m.BootMode(); got != "bios" {
		t.Errorf("BootMode %q, want bios", got)
	}
}

func TestPartitionDevice(t *testing.T) {
	for dev, want := range map[string]string{"/dev/vda": "/dev/vda2", "/dev/nvme0n1": "/dev/nvme0n1p2", "/dev/mmcblk0": "/dev/mmcblk0p2"} {
		if got := partitionDevice(dev, 2); got != want {
			t.Errorf("partitionDevice(%s) = %s, want %s", dev, got, want)
		}
	}
}
