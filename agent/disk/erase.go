package disk

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// gptSizeSectors is ironic_lib's GPT_SIZE_SECTORS: what dd zeroes at
// each end of a device.
const gptSizeSectors = 33

// region is a byte range of a device (the whole disk or a partition).
type region struct {
	f      *os.File
	off, n int64
}

func (r region) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n-off)]
	return r.f.ReadAt(p, r.off+off)
}

func (r region) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.n {
		return 0, syscall.ENOSPC
	}
	return r.f.WriteAt(p, r.off+off)
}

// Zero makes [off, off+n) of the region zeros.
func (r region) Zero(off, n int64) error {
	if off+n > r.n {
		return syscall.ENOSPC
	}
	if zeroRange(r.f, r.off+off, n) {
		return nil
	}
	buf := make([]byte, min(n, 1<<20))
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := r.f.WriteAt(buf[:k], r.off+off); err != nil {
			return err
		}
		off, n = off+k, n-k
	}
	return nil
}

// signature is a magic string wipefs knows, at a fixed offset.
type signature struct {
	off   int64
	magic string
	wipe  int64 // bytes zeroed from off
}

// signatures wipefs -a erases beyond the first and last 33 sectors
// (which ironic_lib's dd zeroes anyway: partition tables, LVM, XFS,
// ext, FAT, swap, LUKS).
func signatures() []signature {
	return []signature{
		{32769, "CD001", 5},         // ISO 9660 primary volume descriptor
		{65536 + 64, "_BHRfS_M", 8}, // btrfs
		{1024 + 56, "\x53\xef", 2},  // ext2/3/4 (also inside the first sectors)
	}
}

// destroyMetadata is ironic_lib's destroy_disk_metadata on one device
// region: wipefs --force --all, dd of the first and last 33 sectors,
// sgdisk -Z.
func destroyMetadata(r region) error {
	buf := make([]byte, 16)
	for _, s := range signatures() {
		if s.off+int64(len(s.magic)) > r.n {
			continue
		}
		n, _ := r.ReadAt(buf[:len(s.magic)], s.off)
		if n == len(s.magic) && bytes.Equal(buf[:n], []byte(s.magic)) {
			if err := r.Zero(s.off, s.wipe); err != nil {
				return err
			}
		}
	}
	sectors := r.n / sectorSize
	if err := r.Zero(0, min(sectors, gptSizeSectors)*sectorSize); err != nil {
		return err
	}
	if sectors > gptSizeSectors {
		if err := r.Zero((sectors-gptSizeSectors)*sectorSize, gptSizeSectors*sectorSize); err != nil {
			return err
		}
	}
	return nil
}

// partRegion is a partition's range on its disk from sysfs.
type partRegion struct {
	name     string
	off, n   int64
	readOnly bool
}

func (m *Manager) sysPartitions(disk string) []partRegion {
	var out []partRegion
	for _, p := range m.partitions(disk) {
		start, err1 := strconv.ParseInt(m.sysString(disk, p, "start"), 10, 64)
		size, err2 := strconv.ParseInt(m.sysString(disk, p, "size"), 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, partRegion{name: p, off: start * 512, n: size * 512, readOnly: m.sysString(disk, p, "ro") == "1"})
	}
	return out
}

// EraseMetadata is IPA's erase_devices_metadata: for every device and
// its partitions (partitions first, by name in reverse), except
// read-only ones, ironic_lib's destroy_disk_metadata. The failures are
// reported together as BlockDeviceEraseError.
func (m *Manager) EraseMetadata(ctx context.Context, devs []BlockDevice) error {
	type target struct {
		name string
		run  func() error
	}
	var targets []target
	for _, d := range devs {
		kname := strings.TrimPrefix(d.Name, "/dev/")
		if m.sysString(kname, "ro") == "1" {
			m.log.InfoContext(ctx, "skipping read-only device", "device", d.Name)
			continue
		}
		path := m.devPath(d.Name)
		for _, p := range m.sysPartitions(kname) {
			if p.readOnly {
				continue
			}
			targets = append(targets, target{"/dev/" + p.name, func() error {
				return withDevice(path, func(f *os.File, _ int64) error {
					return destroyMetadata(region{f: f, off: p.off, n: p.n})
				})
			}})
		}
		targets = append(targets, target{d.Name, func() error {
			return withDevice(path, func(f *os.File, size int64) error {
				if err := destroyMetadata(region{f: f, n: size}); err != nil {
					return err
				}
				rescan(f)
				return nil
			})
		}})
	}
	slices.SortStableFunc(targets, func(a, b target) int { return strings.Compare(b.name, a.name) })
	var failed []string
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.run(); err != nil {
			m.log.ErrorContext(ctx, "failed to erase the metadata", "device", t.name, "error", err)
			failed = append(failed, fmt.Sprintf("%q: %v", t.name, err))
			continue
		}
		m.log.InfoContext(ctx, "disk metadata destroyed", "device", t.name)
	}
	if len(failed) > 0 {
		return errBlockDeviceErase("Failed to erase the metadata on the device(s): " + strings.Join(failed, "; "))
	}
	return nil
}

// withDevice opens a device for reading and writing and passes its size.
func withDevice(path string, fn func(f *os.File, size int64) error) (err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer func() {
		if serr := f.Sync(); err == nil && serr != nil {
			err = serr
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	return fn(f, size)
}
