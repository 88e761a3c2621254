package disk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
)

// BootMode is IPA's get_boot_info current_boot_mode: "uefi" when the
// kernel was booted by UEFI firmware (EFIRoot, /sys/firmware/efi,
// exists), else "bios".
func (m *Manager) BootMode() string {
	if fi, err := os.Stat(m.cfg.EFIRoot); err == nil && fi.IsDir() {
		return "uefi"
	}
	return "bios"
}

// espType is the GPT partition type of an EFI system partition
// (C12A7328-F81F-11D2-BA4B-00A0C93EC93B, on-disk byte order).
var espType = guidBytes([16]byte{0xc1, 0x2a, 0x73, 0x28, 0xf8, 0x1f, 0x11, 0xd2, 0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b})

// mbrESPType is the DOS partition type parted shows as the "esp" flag.
const mbrESPType = 0xef

// espPartition is the EFI system partition found on a disk: what a
// hard-drive media device path node names.
type espPartition struct {
	Number      uint32
	Start, Size uint64
	// Signature is the GPT partition GUID (on-disk bytes) or, on a DOS
	// table, the 4-byte disk signature; GPT tells which.
	Signature [16]byte
	GPT       bool
}

// findESP is ironic_lib's find_efi_partition, then IPA's fallback to the
// partition whose UUID is efiPartUUID: on a GPT the partition of the
// ESP type, on a DOS table the one of type 0xEF.
func findESP(f *os.File, efiPartUUID string) (espPartition, bool, error) {
	if g, err := readGPT(f); err == nil {
		parts := g.parts()
		for _, p := range parts {
			if p.Type == espType {
				return gptESP(p), true, nil
			}
		}
		for _, p := range parts {
			if efiPartUUID != "" && strings.EqualFold(guidString(p.GUID), efiPartUUID) {
				return gptESP(p), true, nil
			}
		}
		return espPartition{}, false, nil
	} else if !errors.Is(err, errNoGPT) {
		return espPartition{}, false, err
	}
	parts, ok := readMBR(f)
	if !ok {
		return espPartition{}, false, nil
	}
	var sig [4]byte
	if _, err := f.ReadAt(sig[:], 440); err != nil {
		return espPartition{}, false, err
	}
	for _, p := range parts {
		// A DOS partition's PARTUUID is <disk signature>-<number, 2 hex digits>.
		partUUID := fmt.Sprintf("%08x-%02x", binary.LittleEndian.Uint32(sig[:]), p.Index+1)
		if p.Type == mbrESPType || (efiPartUUID != "" && strings.EqualFold(partUUID, efiPartUUID)) {
			e := espPartition{Number: uint32(p.Index + 1), Start: uint64(p.Start), Size: uint64(p.Count)}
			copy(e.Signature[:], sig[:])
			return e, true, nil
		}
	}
	return espPartition{}, false, nil
}

func gptESP(p gptPart) espPartition {
	return espPartition{Number: uint32(p.Index + 1), Start: p.First, Size: p.Last - p.First + 1, Signature: p.GUID, GPT: true}
}

// guidString is the text form of an on-disk GUID.
func guidString(g [16]byte) string {
	u := guidBytes(g) // the swap is its own inverse
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// partitionDevice is the device of partition n of dev: vda1, nvme0n1p1.
func partitionDevice(dev string, n uint32) string {
	if r := []rune(dev); len(r) > 0 && unicode.IsDigit(r[len(r)-1]) {
		return fmt.Sprintf("%sp%d", dev, n)
	}
	return fmt.Sprintf("%s%d", dev, n)
}

// efiLoaderNames are the file names IPA 9.4's efi_utils looks for
// (BOOTLOADERS_EFI), compared without case: the CSV files name the
// real loader (shim's BOOTX64.CSV, rEFInd's BOOT.CSV).
var efiLoaderNames = []string{
	"bootx64.csv", "boot.csv", "bootia32.efi", "bootx64.efi", "bootia64.efi", "bootarm.efi", "bootaa64.efi",
	"bootriscv32.efi", "bootriscv64.efi", "bootriscv128.efi", "grubaa64.efi", "winload.efi",
}

// efiLoader is one boot entry to make: the loader's path on the ESP in
// UEFI form (\EFI\BOOT\BOOTX64.EFI) and the entry's description.
type efiLoader struct {
	Path, Label string
}

// findLoaders is IPA's _get_efi_bootloaders and the labels its
// _run_efibootmgr gives them: walking the ESP top-down (each directory's
// files in name order), the first CSV file wins alone (its first field
// is the loader beside it, its second the label); otherwise every
// executable loader file, labelled ironic1, ironic2, ...
func findLoaders(root string) ([]efiLoader, error) {
	var found []string
	var csv string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !slices.Contains(efiLoaderNames, strings.ToLower(d.Name())) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(strings.ToLower(d.Name()), ".csv") {
			csv = rel
			return fs.SkipAll
		}
		if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o111 != 0 {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if csv != "" {
		b, err := os.ReadFile(filepath.Join(root, csv))
		if err != nil {
			return nil, err
		}
		fields := strings.SplitN(decodeUTF16(b), ",", 4)
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s: no loader and label in %q", csv, fields)
		}
		loader := filepath.Join(filepath.Dir(csv), fields[0])
		return []efiLoader{{Path: uefiPath(loader), Label: fields[1]}}, nil
	}
	out := make([]efiLoader, len(found))
	for i, f := range found {
		out[i] = efiLoader{Path: uefiPath(f), Label: fmt.Sprintf("ironic%d", i+1)}
	}
	return out, nil
}

// uefiPath is a path relative to the ESP's root as a file-path node has
// it: \EFI\BOOT\BOOTX64.EFI.
func uefiPath(rel string) string {
	return `\` + strings.ReplaceAll(filepath.ToSlash(rel), "/", `\`)
}

// decodeUTF16 decodes a UTF-16 file (little-endian unless its byte order
// mark says otherwise; the mark dropped), as IPA reads the CSV files.
func decodeUTF16(b []byte) string {
	order := binary.ByteOrder(binary.LittleEndian)
	if len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff {
		order, b = binary.BigEndian, b[2:]
	} else if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		b = b[2:]
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// ManageUEFI is IPA 9.4's efi_utils.manage_uefi without efibootmgr: it
// finds the EFI system partition of dev (by type, else the partition
// efiPartUUID names), mounts it read-only, looks for its loaders and
// writes a Boot#### variable for each (replacing the entries with the
// same label, as IPA removes them before efibootmgr -c) at the front of
// BootOrder, through efivarfs. ok is false when the ESP holds no loader
// (IPA then tries grub2-install). It fails with DeviceNotFound when dev
// has no ESP, and CommandExecutionError when mounting or the variables
// fail.
func (m *Manager) ManageUEFI(ctx context.Context, dev, efiPartUUID string) (ok bool, err error) {
	m.log.DebugContext(ctx, "attempting UEFI loader autodetection and NVRAM record setup", "device", dev)
	f, err := os.Open(m.devPath(dev))
	if err != nil {
		return false, errDeviceNotFound(fmt.Sprintf("Unable to open %s: %v", dev, err))
	}
	rescan(f)
	esp, found, err := findESP(f, efiPartUUID)
	_ = f.Close()
	if err != nil {
		return false, errCommandExecution(fmt.Sprintf("Could not configure UEFI boot on device %s: %v", dev, err))
	}
	if !found {
		return false, errDeviceNotFound(fmt.Sprintf("No EFI partition could be detected on device %s and EFI partition UUID "+
			"has not been recorded during deployment (which is often the case for whole disk images). "+
			"Are you using a UEFI-compatible image?", dev))
	}
	fail := func(err error) error {
		return errCommandExecution(fmt.Sprintf("Could not configure UEFI boot on device %s: %v", dev, err))
	}
	mnt, err := os.MkdirTemp(m.cfg.TempDir, "efi-")
	if err != nil {
		return false, fail(err)
	}
	defer func() { _ = os.Remove(mnt) }()
	part := partitionDevice(dev, esp.Number)
	if err := m.mounter.Mount(m.devPath(part), mnt, "vfat", mountReadOnly, ""); err != nil {
		return false, fail(fmt.Errorf("mounting %s: %w", part, err))
	}
	loaders, err := findLoaders(mnt)
	if uerr := m.mounter.Unmount(mnt); uerr != nil && err == nil {
		return false, errCommandExecution(fmt.Sprintf("Umounting efi system partition failed. Error: %v", uerr))
	}
	if err != nil {
		return false, fail(err)
	}
	if len(loaders) == 0 {
		m.log.WarnContext(ctx, "empty EFI partition detected", "partition", part)
		return false, nil
	}
	vars := efiVars{dir: filepath.Join(m.cfg.EFIRoot, "efivars"), fs: m.mounter}
	if err := vars.ensureMounted(); err != nil {
		return false, fail(err)
	}
	for _, l := range loaders {
		m.log.InfoContext(ctx, fmt.Sprintf("Adding loader %s on partition %d of device  %s with label %s", l.Path, esp.Number, dev, l.Label))
		num, err := vars.addBootEntry(l.Label, loadOption(l.Label, esp, l.Path))
		if err != nil {
			return false, fail(err)
		}
		m.log.DebugContext(ctx, "UEFI boot entry written", "entry", fmt.Sprintf("Boot%04X", num))
	}
	return true, nil
}
