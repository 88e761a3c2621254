package disk

import (
	"os"
	"syscall"
	"unsafe"
)

// blkZeroOut is Linux's BLKZEROOUT ioctl, _IO(0x12, 127).
const blkZeroOut = 0x127f

// zeroRange makes [off, off+n) of f read as zeros without writing them
// where the kernel can: BLKZEROOUT on a block device, a punched hole in
// a regular file. ok is false when neither applies.
func zeroRange(f *os.File, off, n int64) (ok bool) {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeDevice != 0 {
		r := [2]uint64{uint64(off), uint64(n)}
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), blkZeroOut, uintptr(unsafe.Pointer(&r)))
		return errno == 0
	}
	const punchHole, keepSize = 0x02, 0x01
	return syscall.Fallocate(int(f.Fd()), punchHole|keepSize, off, n) == nil
}

// blkRRPart is Linux's BLKRRPART ioctl, _IO(0x12, 95).
const blkRRPart = 0x125f

// rescan asks the kernel to re-read a block device's partition table
// (partprobe); it does nothing for regular files.
func rescan(f *os.File) {
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeDevice != 0 {
		_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), blkRRPart, 0)
	}
}
