package agent

import "syscall"

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
