// Command tinyinit is the /init of the test whole-disk image's
// initramfs (test/internal/diskimage): a static PID 1 that mounts proc,
// sys and devtmpfs, loads the kernel modules listed in
// agent/boot's ModuleList (as agent/ramdisk writes it), reports on the serial console what it was booted
// with and what it finds, and powers the machine off. Its lines start
// with "GOIRONIC-" (see diskimage.Marker):
//
//	GOIRONIC-BOOTED system-uuid=<SMBIOS product UUID> cmdline=<kernel command line>
//	GOIRONIC-DEPLOYED system-uuid=<...> configdrive-uuid=<uuid of meta_data.json>
//	GOIRONIC-NO-CONFIGDRIVE system-uuid=<...> reason=<why>
//
// With goironic.serve=1 on the kernel command line it first brings the
// NIC up as 10.0.2.15/24 (QEMU's user network) and answers one HTTP
// request on port 9999, the agent's, with "GOIRONIC-AGENT
// system-uuid=<...>" (then prints GOIRONIC-SERVED): a test reaches it
// through QEMU's hostfwd as it will reach the agent.
//
// The config drive is the partition (or disk) whose ISO 9660 volume
// label is config-2, found by reading the primary volume descriptor at
// 32 KiB of every block device in /sys/class/block.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/goironic/ironic/agent/boot"
)

// sysFinitModule is finit_module(2) on amd64.
const sysFinitModule = 313

// searchFor bounds the wait for the config drive's device.
const searchFor = 20 * time.Second

func main() {
	out := console()
	say := func(format string, args ...any) {
		fmt.Fprintf(out, "\r\n"+format+"\r\n", args...)
	}
	if err := setup(say); err != nil {
		say("GOIRONIC-ERROR %v", err)
	}
	uuid := readTrim("/sys/class/dmi/id/product_uuid")
	cmdline := readTrim("/proc/cmdline")
	say("GOIRONIC-BOOTED system-uuid=%s cmdline=%s", uuid, cmdline)
	if wantServe(cmdline) {
		if err := serveOnce(uuid); err != nil {
			say("GOIRONIC-ERROR serving port %d: %v", servePort, err)
		} else {
			say("GOIRONIC-SERVED port=%d", servePort)
		}
	}
	if cd, err := findConfigDrive(); err != nil {
		say("GOIRONIC-NO-CONFIGDRIVE system-uuid=%s reason=%s", uuid, strings.ReplaceAll(err.Error(), " ", "_"))
	} else {
		say("GOIRONIC-DEPLOYED system-uuid=%s configdrive-uuid=%s", uuid, cd)
	}
	syscall.Sync()
	time.Sleep(200 * time.Millisecond)
	_ = syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

// console is the serial port, or stdout when it cannot be opened.
func console() *os.File {
	if f, err := os.OpenFile("/dev/ttyS0", os.O_WRONLY|syscall.O_NOCTTY, 0); err == nil {
		return f
	}
	return os.Stdout
}

func setup(say func(string, ...any)) error {
	for _, m := range []struct{ dir, fs string }{{"/proc", "proc"}, {"/sys", "sysfs"}, {"/dev", "devtmpfs"}} {
		_ = os.MkdirAll(m.dir, 0o755)
		if err := syscall.Mount(m.fs, m.dir, m.fs, 0, ""); err != nil && !errors.Is(err, syscall.EBUSY) {
			return fmt.Errorf("mount %s: %w", m.dir, err)
		}
	}
	list, err := os.ReadFile(boot.ModuleList)
	if err != nil {
		return nil // no modules: all built in
	}
	for _, path := range strings.Fields(string(list)) {
		if err := loadModule(path); err != nil {
			say("GOIRONIC-MODULE %s: %v", path, err)
		}
	}
	return nil
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	params, _ := syscall.BytePtrFromString("")
	_, _, errno := syscall.Syscall(sysFinitModule, f.Fd(), uintptrOf(params), 0)
	if errno != 0 && errno != syscall.EEXIST {
		return errno
	}
	return nil
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// findConfigDrive waits (bounded) for a block device labelled config-2
// and returns the uuid of its openstack/latest/meta_data.json.
func findConfigDrive() (string, error) {
	deadline := time.Now().Add(searchFor)
	for {
		dev := scan()
		if dev != "" {
			return readMetaData(dev)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no device labelled config-2 after %s", searchFor)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func scan() string {
	entries, _ := os.ReadDir("/sys/class/block")
	for _, e := range entries {
		if label(filepath.Join("/dev", e.Name())) == "config-2" {
			return filepath.Join("/dev", e.Name())
		}
	}
	return ""
}

// label is the ISO 9660 volume identifier of dev, "" if it has none.
func label(dev string) string {
	f, err := os.Open(dev)
	if err != nil {
		return ""
	}
	defer f.Close()
	pvd := make([]byte, 72)
	if _, err := f.ReadAt(pvd, 32768); err != nil {
		return ""
	}
	if pvd[0] != 1 || string(pvd[1:6]) != "CD001" {
		return ""
	}
	return string(bytes.TrimRight(pvd[40:72], " \x00"))
}

func readMetaData(dev string) (string, error) {
	const mnt = "/mnt/config"
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return "", err
	}
	if err := syscall.Mount(dev, mnt, "iso9660", syscall.MS_RDONLY, ""); err != nil {
		return "", fmt.Errorf("mount %s: %w", dev, err)
	}
	defer func() { _ = syscall.Unmount(mnt, 0) }()
	raw, err := os.ReadFile(filepath.Join(mnt, "openstack", "latest", "meta_data.json"))
	if err != nil {
		return "", err
	}
	var md struct {
		UUID string `json:"uuid"`
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		return "", fmt.Errorf("%s: meta_data.json: %w", dev, err)
	}
	if md.UUID == "" {
		return "", fmt.Errorf("%s: meta_data.json has no uuid", dev)
	}
	return md.UUID, nil
}

func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }
