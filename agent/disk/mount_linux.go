package disk

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// sysMounter is mount(2) and umount(2).
type sysMounter struct{}

func (sysMounter) Mount(source, target, fstype string, flags uintptr, data string) error {
	return unix.Mount(source, target, fstype, flags, data)
}

func (sysMounter) Unmount(target string) error { return unix.Unmount(target, 0) }

// clearImmutable removes the immutable flag (FS_IMMUTABLE_FL) efivarfs
// sets on the file of an existing variable; a missing file, or a file
// system without the flags (the tests' directories), has nothing to do.
func clearImmutable(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EINVAL) {
		return nil
	}
	if err != nil {
		return err
	}
	if flags&fsImmutableFL == 0 {
		return nil
	}
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags&^fsImmutableFL))
}

// fsImmutableFL is FS_IMMUTABLE_FL (linux/fs.h).
const fsImmutableFL = 0x10
