package boot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// VolumeLabel reads the label of the file system at the start of r the
// way blkid does for the two that carry config drives and virtual media:
// ISO 9660 (the primary volume descriptor's volume identifier, at byte
// 32768+40) and FAT (the boot sector's volume label; FAT32's at 71,
// FAT12/16's at 43). "" when neither is there.
func VolumeLabel(r io.ReaderAt) string {
	var pvd [2048]byte
	if n, _ := r.ReadAt(pvd[:], 16*2048); n == len(pvd) && pvd[0] == 1 && string(pvd[1:6]) == "CD001" {
		return strings.TrimRight(string(pvd[40:72]), " \x00")
	}
	var bs [512]byte
	if n, _ := r.ReadAt(bs[:], 0); n != len(bs) || bs[510] != 0x55 || bs[511] != 0xAA {
		return ""
	}
	var label []byte
	switch {
	case string(bs[82:87]) == "FAT32" && bs[66] == 0x29:
		label = bs[71:82]
	case bytes.HasPrefix(bs[54:62], []byte("FAT")) && bs[38] == 0x29:
		label = bs[43:54]
	default:
		return ""
	}
	l := strings.TrimRight(string(label), " \x00")
	if l == "NO NAME" {
		return ""
	}
	return l
}

// sysMedia is Media over the block devices in /sys/class/block: each
// whole CD-ROM or removable device (and their partitions) is probed for
// the label, compared without case (IPA's _find_vmedia_device_by_labels);
// fixed disks are not, so that a config drive an earlier deploy left on
// a disk never configures the ramdisk. The match is mounted read-only
// (iso9660, else vfat) under /run/goironic, the files read and the file
// system unmounted.
type sysMedia struct {
	log     *slog.Logger
	sysRoot string // /sys/class/block
	devRoot string // /dev
	mntRoot string
}

func newSysMedia(log *slog.Logger) sysMedia {
	return sysMedia{log: log, sysRoot: "/sys/class/block", devRoot: "/dev", mntRoot: "/run/goironic/media"}
}

// mediaDevice reports whether the block device name (or the whole
// device it is a partition of) is a CD-ROM (SCSI type 5) or removable.
func (m sysMedia) mediaDevice(name string) bool {
	dir := filepath.Join(m.sysRoot, name)
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		// A partition: judge its whole device (the parent directory).
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return false
		}
		dir = filepath.Dir(real)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "removable")); err == nil && strings.TrimSpace(string(b)) == "1" {
		return true
	}
	b, err := os.ReadFile(filepath.Join(dir, "device", "type"))
	return err == nil && strings.TrimSpace(string(b)) == "5"
}

func (m sysMedia) ReadLabelled(ctx context.Context, label string, names []string) (map[string][]byte, error) {
	ents, err := os.ReadDir(m.sysRoot)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		name := e.Name()
		if !m.mediaDevice(name) {
			continue
		}
		dev := filepath.Join(m.devRoot, name)
		f, err := os.Open(dev)
		if err != nil {
			continue // no medium in the drive
		}
		got := VolumeLabel(f)
		_ = f.Close()
		if !strings.EqualFold(got, label) {
			continue
		}
		m.log.InfoContext(ctx, "labelled device found", "label", label, "device", dev)
		return m.read(ctx, dev, label, names)
	}
	return nil, ErrNoMedia
}

func (m sysMedia) read(ctx context.Context, dev, label string, names []string) (map[string][]byte, error) {
	dir := filepath.Join(m.mntRoot, label)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var merr error
	for _, fstype := range []string{"iso9660", "vfat"} {
		merr = unix.Mount(dev, dir, fstype, unix.MS_RDONLY, "")
		if merr == nil {
			break
		}
	}
	if merr != nil {
		return nil, fmt.Errorf("mount -o ro %s %s: %w", dev, dir, merr)
	}
	defer func() {
		if err := unix.Unmount(dir, 0); err != nil {
			m.log.WarnContext(ctx, "unmounting", "dir", dir, "err", err)
		}
	}()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", n, dev, err)
		}
		out[n] = b
	}
	return out, nil
}
