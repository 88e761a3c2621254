package disk

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// BlockDevices is IPA's list_all_block_devices(block_type='disk') read
// from sysfs instead of lsblk and udev (the ramdisk has neither): the
// whole disks and RAID devices of SysRoot/block, without loop, ram/zram,
// floppy, device-mapper or CD-ROM devices (lsblk's "rom" type), nor
// devices of size 0 (a removable drive without medium). Attributes are
// those lsblk and udev give IPA: the model and vendor of the device, the
// serial (the virtio serial, else VPD page 0x80), the WWN from the
// device's wwid, the SCSI address (HCTL) and the /dev/disk/by-path link.
func (m *Manager) BlockDevices(ctx context.Context) ([]BlockDevice, error) {
	entries, err := os.ReadDir(m.sysBlock())
	if err != nil {
		return nil, errCommandExecution(fmt.Sprintf("Unable to list block devices: %v", err))
	}
	byPath := m.byPathLinks()
	var devs []BlockDevice
	for _, e := range entries {
		name := e.Name()
		if skip := skippedDevice(name); skip != "" {
			m.log.DebugContext(ctx, "skipping block device", "device", name, "reason", skip)
			continue
		}
		if m.sysString(name, "device", "type") == "5" {
			m.log.DebugContext(ctx, "skipping block device", "device", name, "reason", "rom")
			continue
		}
		sectors, err := strconv.ParseInt(m.sysString(name, "size"), 10, 64)
		if err != nil || sectors == 0 {
			m.log.DebugContext(ctx, "skipping block device with zero size", "device", name)
			continue
		}
		d := BlockDevice{
			Name:       "/dev/" + name,
			Model:      m.sysString(name, "device", "model"),
			Size:       sectors * 512,
			Rotational: m.sysString(name, "queue", "rotational") == "1",
			Vendor:     m.sysOptional(name, "device", "vendor"),
			Serial:     m.serial(name),
			HCTL:       m.hctl(name),
		}
		if p, ok := byPath[name]; ok {
			d.ByPath = &p
		}
		d.WWN, d.WWNWithExtension, d.WWNVendorExtension = m.wwn(name)
		devs = append(devs, d)
	}
	return devs, nil
}

// skippedDevice is why IPA's listing leaves a device out by its kernel
// name ("" to keep it).
func skippedDevice(name string) string {
	for _, p := range []struct{ prefix, why string }{
		{"loop", "loop"}, {"ram", "ram"}, {"zram", "ram"}, {"fd", "floppy"}, {"dm-", "device-mapper"}, {"sr", "rom"},
		{"nbd", "network block device"},
	} {
		if strings.HasPrefix(name, p.prefix) {
			return p.why
		}
	}
	return ""
}

// sysString is a sysfs attribute of block device name, trimmed ("" if
// it is absent).
func (m *Manager) sysString(name string, elem ...string) string {
	b, err := os.ReadFile(m.sysBlock(append([]string{name}, elem...)...))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sysOptional is sysString as IPA's null when absent or empty.
func (m *Manager) sysOptional(name string, elem ...string) *string {
	s := m.sysString(name, elem...)
	if s == "" {
		return nil
	}
	return &s
}

// serial is lsblk's SERIAL: virtio's and NVMe's serial attribute, else
// the unit serial number of SCSI VPD page 0x80.
func (m *Manager) serial(name string) *string {
	if s := m.sysOptional(name, "serial"); s != nil {
		return s
	}
	if s := m.sysOptional(name, "device", "serial"); s != nil {
		return s
	}
	b, err := os.ReadFile(m.sysBlock(name, "device", "vpd_pg80"))
	if err != nil || len(b) < 4 {
		return nil
	}
	n := min(int(b[2])<<8|int(b[3]), len(b)-4)
	s := strings.TrimSpace(string(b[4 : 4+n]))
	if s == "" {
		return nil
	}
	return &s
}

// wwn is udev's ID_WWN, ID_WWN_WITH_EXTENSION and ID_WWN_VENDOR_EXTENSION
// from the device's wwid: for an NAA identifier "0x" and its first 16
// hex digits, the whole identifier, and the rest of a 32-digit one.
func (m *Manager) wwn(name string) (wwn, withExt, vendorExt *string) {
	id := m.sysString(name, "device", "wwid")
	if id == "" {
		id = m.sysString(name, "wwid")
	}
	hexID, ok := strings.CutPrefix(id, "naa.")
	if !ok {
		return nil, nil, nil
	}
	if _, err := hex.DecodeString(hexID); err != nil || len(hexID) < 16 {
		return nil, nil, nil
	}
	hexID = strings.ToLower(hexID)
	w, x := "0x"+hexID[:16], "0x"+hexID
	if len(hexID) > 16 {
		v := "0x" + hexID[16:]
		return &w, &x, &v
	}
	return &w, &x, nil
}

// hctl is the one entry of device/scsi_device, as IPA reads it.
func (m *Manager) hctl(name string) *string {
	entries, err := os.ReadDir(m.sysBlock(name, "device", "scsi_device"))
	if err != nil || len(entries) == 0 {
		return nil
	}
	s := entries[0].Name()
	return &s
}

// byPathLinks maps kernel names to their /dev/disk/by-path links.
func (m *Manager) byPathLinks() map[string]string {
	dir := filepath.Join(m.cfg.DevRoot, "disk", "by-path")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out[filepath.Base(target)] = "/dev/disk/by-path/" + e.Name()
	}
	return out
}

// partitions are the kernel names of dev's partitions, in order.
func (m *Manager) partitions(name string) []string {
	entries, err := os.ReadDir(m.sysBlock(name))
	if err != nil {
		return nil
	}
	var parts []string
	for _, e := range entries {
		if _, err := os.Stat(m.sysBlock(name, e.Name(), "partition")); err == nil {
			parts = append(parts, e.Name())
		} else if !errors.Is(err, fs.ErrNotExist) {
			continue
		}
	}
	slices.Sort(parts)
	return parts
}
