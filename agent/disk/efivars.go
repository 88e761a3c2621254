package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Mounter mounts and unmounts file systems (mount(2), umount(2)); tests
// give a fake that fills the target directory.
type Mounter interface {
	Mount(source, target, fstype string, flags uintptr, data string) error
	Unmount(target string) error
}

// mountReadOnly is MS_RDONLY.
const mountReadOnly = 1

// WithMounter sets how the EFI system partition and efivarfs are
// mounted (default: the mount(2) system call).
func WithMounter(mt Mounter) Option { return func(m *Manager) { m.mounter = mt } }

// efiGlobalVariable is EFI_GLOBAL_VARIABLE, the vendor GUID of Boot####
// and BootOrder, as efivarfs names files (<Name>-<GUID>).
const efiGlobalVariable = "8be4df61-93ca-11d2-aa0d-00e098032b8c"

// The attributes of Boot#### and BootOrder: EFI_VARIABLE_NON_VOLATILE |
// BOOTSERVICE_ACCESS | RUNTIME_ACCESS.
const bootVarAttrs = 0x7

// loadOptionActive is LOAD_OPTION_ACTIVE.
const loadOptionActive = 0x1

// loadOption is the EFI_LOAD_OPTION (UEFI 2.10 §3.1.3) of a loader on
// the ESP: Attributes (UINT32, active), FilePathListLength (UINT16),
// Description (NUL-terminated UCS-2), then the device path: a
// hard-drive media node (type 4, subtype 1, 42 bytes: partition number,
// start LBA, size in LBAs, 16-byte signature, partition format 2 = GPT
// or 1 = MBR, signature type 2 = GUID or 1 = 32-bit MBR signature), a
// file-path node (type 4, subtype 4: the NUL-terminated UCS-2 path) and
// the end-of-device-path node (7F FF 04 00). No optional data, as
// efibootmgr -c writes it.
func loadOption(label string, p espPartition, path string) []byte {
	le := binary.LittleEndian
	hd := make([]byte, 42)
	hd[0], hd[1] = 0x04, 0x01
	le.PutUint16(hd[2:], 42)
	le.PutUint32(hd[4:], p.Number)
	le.PutUint64(hd[8:], p.Start)
	le.PutUint64(hd[16:], p.Size)
	copy(hd[24:40], p.Signature[:])
	hd[40], hd[41] = 0x01, 0x01
	if p.GPT {
		hd[40], hd[41] = 0x02, 0x02
	}
	name := ucs2(path)
	fp := make([]byte, 4, 4+len(name))
	fp[0], fp[1] = 0x04, 0x04
	le.PutUint16(fp[2:], uint16(4+len(name)))
	fp = append(fp, name...)
	dp := slices.Concat(hd, fp, []byte{0x7f, 0xff, 0x04, 0x00})

	out := le.AppendUint32(nil, loadOptionActive)
	out = le.AppendUint16(out, uint16(len(dp)))
	out = append(out, ucs2(label)...)
	return append(out, dp...)
}

// ucs2 is s as NUL-terminated little-endian UTF-16.
func ucs2(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return append(b, 0, 0)
}

// loadOptionDescription is the Description of an EFI_LOAD_OPTION ("" if
// it is too short to have one).
func loadOptionDescription(b []byte) string {
	if len(b) < 6 {
		return ""
	}
	var u []uint16
	for i := 6; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// efiVars is the UEFI variable store as efivarfs shows it: a file per
// variable, its content the 4-byte attributes then the data. The kernel
// marks the files of existing variables immutable; they must be made
// mutable before they are rewritten or removed.
type efiVars struct {
	dir string
	fs  Mounter
}

func (v efiVars) path(name string) string { return filepath.Join(v.dir, name+"-"+efiGlobalVariable) }

// ensureMounted mounts efivarfs on dir when it shows no variable (the
// ramdisk mounts only sysfs; UEFI firmware always has some variables).
func (v efiVars) ensureMounted() error {
	ents, err := os.ReadDir(v.dir)
	if err != nil {
		return fmt.Errorf("reading the UEFI variables: %w", err)
	}
	if len(ents) > 0 {
		return nil
	}
	if err := v.fs.Mount("efivarfs", v.dir, "efivarfs", 0, ""); err != nil {
		return fmt.Errorf("mounting efivarfs on %s: %w", v.dir, err)
	}
	return nil
}

// read returns a variable's data (without the attributes); ok is false
// when it does not exist.
func (v efiVars) read(name string) (data []byte, ok bool, err error) {
	b, err := os.ReadFile(v.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(b) < 4 {
		return nil, false, fmt.Errorf("UEFI variable %s: %d bytes, no attributes", name, len(b))
	}
	return b[4:], true, nil
}

// write sets a variable in one write(2), as efivarfs requires.
func (v efiVars) write(name string, attrs uint32, data []byte) error {
	p := v.path(name)
	if err := clearImmutable(p); err != nil {
		return fmt.Errorf("UEFI variable %s: %w", name, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("UEFI variable %s: %w", name, err)
	}
	buf := binary.LittleEndian.AppendUint32(nil, attrs)
	buf = append(buf, data...)
	_, err = f.Write(buf)
	if err == nil {
		// efivarfs sizes the file itself; a plain file (tests) may be
		// longer from an earlier value.
		if fi, serr := f.Stat(); serr == nil && fi.Size() > int64(len(buf)) {
			err = f.Truncate(int64(len(buf)))
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing UEFI variable %s: %w", name, err)
	}
	return nil
}

func (v efiVars) remove(name string) error {
	p := v.path(name)
	if err := clearImmutable(p); err != nil {
		return fmt.Errorf("UEFI variable %s: %w", name, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// bootEntries are the numbers of the Boot#### variables, ascending.
func (v efiVars) bootEntries() ([]uint16, error) {
	ents, err := os.ReadDir(v.dir)
	if err != nil {
		return nil, err
	}
	var nums []uint16
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), "-"+efiGlobalVariable)
		if !ok || len(name) != 8 || !strings.HasPrefix(name, "Boot") {
			continue
		}
		if n, err := strconv.ParseUint(name[4:], 16, 16); err == nil && strings.ToUpper(name[4:]) == name[4:] {
			nums = append(nums, uint16(n))
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// addBootEntry writes option as the boot entry labelled label and puts
// it first in BootOrder. An existing entry whose description contains
// the label (IPA removes those with efibootmgr -B before adding) is
// reused: the first keeps its number, the others are removed (and
// leave BootOrder). A new entry takes the lowest free number, as
// efibootmgr -c does.
func (v efiVars) addBootEntry(label string, option []byte) (uint16, error) {
	nums, err := v.bootEntries()
	if err != nil {
		return 0, err
	}
	var matching []uint16
	for _, n := range nums {
		data, ok, err := v.read(bootName(n))
		if err != nil {
			return 0, err
		}
		if ok && strings.Contains(loadOptionDescription(data), label) {
			matching = append(matching, n)
		}
	}
	var num uint16
	if len(matching) > 0 {
		num = matching[0]
	} else {
		for slices.Contains(nums, num) {
			num++
		}
	}
	for _, n := range matching[min(1, len(matching)):] {
		if err := v.remove(bootName(n)); err != nil {
			return 0, err
		}
	}
	if err := v.write(bootName(num), bootVarAttrs, option); err != nil {
		return 0, err
	}
	order, _, err := v.read("BootOrder")
	if err != nil {
		return 0, err
	}
	newOrder := binary.LittleEndian.AppendUint16(nil, num)
	for i := 0; i+1 < len(order); i += 2 {
		n := binary.LittleEndian.Uint16(order[i:])
		if n != num && !slices.Contains(matching, n) {
			newOrder = binary.LittleEndian.AppendUint16(newOrder, n)
		}
	}
	if err := v.write("BootOrder", bootVarAttrs, newOrder); err != nil {
		return 0, err
	}
	return num, nil
}

func bootName(n uint16) string { return fmt.Sprintf("Boot%04X", n) }
