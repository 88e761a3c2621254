package agent

import (
	"context"
	"syscall"
)

// PowerSyscall powers off and reboots with reboot(2), as init does: the
// Power of the ramdisk's agent running as PID 1.
type PowerSyscall struct{}

// PowerOff is reboot(LINUX_REBOOT_CMD_POWER_OFF).
func (PowerSyscall) PowerOff(context.Context) error {
	syscall.Sync()
	return syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}

// Reboot is reboot(LINUX_REBOOT_CMD_RESTART).
func (PowerSyscall) Reboot(context.Context) error {
	syscall.Sync()
	return syscall.Reboot(syscall.LINUX_REBOOT_CMD_RESTART)
}

// KernelLog reads the kernel ring buffer (klogctl SYSLOG_ACTION_READ_ALL),
// what dmesg(1) prints.
func KernelLog() ([]byte, error) {
	n, err := syscall.Klogctl(10, nil) // SYSLOG_ACTION_SIZE_BUFFER
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	m, err := syscall.Klogctl(3, buf) // SYSLOG_ACTION_READ_ALL
	if err != nil {
		return nil, err
	}
	return buf[:m], nil
}
