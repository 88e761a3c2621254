// Package hardware reads the machine's hardware inventory from /proc and
// /sys (under an injectable root, so a recorded tree tests it), shaped as
// the Ironic Python Agent 9.4's list_hardware_info: interfaces, cpu,
// disks, memory, bmc_address, bmc_v6address, system_vendor, boot and
// hostname, keys in IPA's order.
package hardware

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/goironic/ironic/agent/disk"
)

// Inventory is IPA's hardware_info.
type Inventory struct {
	Interfaces   []NetworkInterface `json:"interfaces"`
	CPU          CPU                `json:"cpu"`
	Disks        []disk.BlockDevice `json:"disks"`
	Memory       Memory             `json:"memory"`
	BMCAddress   string             `json:"bmc_address"`
	BMCV6Address string             `json:"bmc_v6address"`
	SystemVendor SystemVendor       `json:"system_vendor"`
	Boot         Boot               `json:"boot"`
	Hostname     string             `json:"hostname"`
}

// NetworkInterface is IPA's NetworkInterface.
type NetworkInterface struct {
	Name        string  `json:"name"`
	MACAddress  string  `json:"mac_address"`
	IPv4Address *string `json:"ipv4_address"`
	IPv6Address *string `json:"ipv6_address"`
	HasCarrier  bool    `json:"has_carrier"`
	LLDP        any     `json:"lldp"`
	Vendor      *string `json:"vendor"`
	Product     *string `json:"product"`
	ClientID    *string `json:"client_id"`
	BIOSDevName *string `json:"biosdevname"`
}

// CPU is IPA's CPU.
type CPU struct {
	ModelName    string   `json:"model_name"`
	Frequency    string   `json:"frequency"`
	Count        int      `json:"count"`
	Architecture string   `json:"architecture"`
	Flags        []string `json:"flags"`
}

// Memory is IPA's Memory: total in bytes (the kernel's view),
// physical_mb the installed DIMMs (SMBIOS), null when unknown.
type Memory struct {
	Total      int64  `json:"total"`
	PhysicalMB *int64 `json:"physical_mb"`
}

// SystemVendor is IPA 9.4's SystemVendorInfo.
type SystemVendor struct {
	ProductName  string `json:"product_name"`
	SerialNumber string `json:"serial_number"`
	Manufacturer string `json:"manufacturer"`
}

// Boot is IPA's BootInfo.
type Boot struct {
	CurrentBootMode string  `json:"current_boot_mode"`
	PXEInterface    *string `json:"pxe_interface"`
}

// BlockDevicer lists the disks (agent/disk.Manager).
type BlockDevicer interface {
	BlockDevices(ctx context.Context) ([]disk.BlockDevice, error)
}

// Reader reads the inventory.
type Reader struct {
	// Root is the file system root /proc and /sys are read under
	// (default "/").
	Root string
	// Disks lists the block devices; nil gives an empty list.
	Disks BlockDevicer
	// BootIF is the BOOTIF kernel parameter (pxe_interface), as given.
	BootIF string
	// Addrs returns an interface's addresses (default the kernel's, by
	// name).
	Addrs func(name string) ([]net.Addr, error)
	// Arch is the machine (uname -m; default from the Go runtime).
	Arch string
}

func (r Reader) path(p ...string) string {
	root := r.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(append([]string{root}, p...)...)
}

func (r Reader) read(p ...string) (string, bool) {
	b, err := os.ReadFile(r.path(p...))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// Inventory reads it all.
func (r Reader) Inventory(ctx context.Context) (Inventory, error) {
	inv := Inventory{BMCAddress: "0.0.0.0", BMCV6Address: "::/0"}
	var err error
	if inv.Interfaces, err = r.Interfaces(); err != nil {
		return inv, err
	}
	if inv.CPU, err = r.CPU(); err != nil {
		return inv, err
	}
	inv.Disks = []disk.BlockDevice{}
	if r.Disks != nil {
		if inv.Disks, err = r.Disks.BlockDevices(ctx); err != nil {
			return inv, err
		}
	}
	if inv.Memory, err = r.Memory(); err != nil {
		return inv, err
	}
	inv.SystemVendor = r.SystemVendor()
	inv.Boot = r.Boot()
	inv.Hostname, _ = r.read("proc/sys/kernel/hostname")
	return inv, nil
}

// Interfaces is list_network_interfaces: the physical NICs (those with a
// device link under /sys/class/net), by name.
func (r Reader) Interfaces() ([]NetworkInterface, error) {
	entries, err := os.ReadDir(r.path("sys/class/net"))
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	out := []NetworkInterface{}
	for _, e := range entries {
		name := e.Name()
		if _, err := os.Stat(r.path("sys/class/net", name, "device")); err != nil {
			continue
		}
		mac, _ := r.read("sys/class/net", name, "address")
		carrier, _ := r.read("sys/class/net", name, "carrier")
		ni := NetworkInterface{Name: name, MACAddress: mac, HasCarrier: carrier == "1"}
		if v, ok := r.read("sys/class/net", name, "device/vendor"); ok {
			ni.Vendor = &v
		}
		if v, ok := r.read("sys/class/net", name, "device/device"); ok {
			ni.Product = &v
		}
		ni.IPv4Address, ni.IPv6Address = r.addresses(name)
		out = append(out, ni)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (r Reader) addresses(name string) (v4, v6 *string) {
	addrs := r.Addrs
	if addrs == nil {
		addrs = func(name string) ([]net.Addr, error) {
			ifc, err := net.InterfaceByName(name)
			if err != nil {
				return nil, err
			}
			return ifc.Addrs()
		}
	}
	list, err := addrs(name)
	if err != nil {
		return nil, nil
	}
	for _, a := range list {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		s := ipn.IP.String()
		if ipn.IP.To4() != nil {
			if v4 == nil {
				v4 = &s
			}
		} else if v6 == nil && !ipn.IP.IsLinkLocalUnicast() {
			v6 = &s
		}
	}
	return v4, v6
}

// CPU is get_cpus, from /proc/cpuinfo.
func (r Reader) CPU() (CPU, error) {
	f, err := os.Open(r.path("proc/cpuinfo"))
	if err != nil {
		return CPU{}, fmt.Errorf("reading CPU information: %w", err)
	}
	defer f.Close()
	c := CPU{Architecture: r.Arch, Flags: []string{}}
	if c.Architecture == "" {
		c.Architecture = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			c.Count++
		case "model name":
			if c.ModelName == "" {
				c.ModelName = v
			}
		case "cpu MHz":
			if c.Frequency == "" {
				c.Frequency = v
			}
		case "flags":
			if len(c.Flags) == 0 {
				c.Flags = strings.Fields(v)
			}
		}
	}
	return c, sc.Err()
}

// Memory is get_memory: MemTotal, and the SMBIOS memory devices' sizes
// (type 17 entries under /sys/firmware/dmi/entries) as physical_mb.
func (r Reader) Memory() (Memory, error) {
	f, err := os.Open(r.path("proc/meminfo"))
	if err != nil {
		return Memory{}, fmt.Errorf("reading memory information: %w", err)
	}
	defer f.Close()
	var m Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			m.Total = kb * 1024
		}
	}
	entries, _ := filepath.Glob(r.path("sys/firmware/dmi/entries/17-*/raw"))
	var mb int64
	found := false
	for _, e := range entries {
		raw, err := os.ReadFile(e)
		if err != nil || len(raw) < 0x0E {
			continue
		}
		size := binary.LittleEndian.Uint16(raw[0x0C:])
		switch {
		case size == 0 || size == 0xFFFF:
			continue
		case size == 0x7FFF && len(raw) >= 0x20:
			mb += int64(binary.LittleEndian.Uint32(raw[0x1C:]) & 0x7FFFFFFF)
		case size&0x8000 != 0:
			mb += int64(size&0x7FFF) / 1024
		default:
			mb += int64(size)
		}
		found = true
	}
	if found {
		m.PhysicalMB = &mb
	}
	return m, sc.Err()
}

// SystemVendor is get_system_vendor_info, from the DMI identity.
func (r Reader) SystemVendor() SystemVendor {
	var v SystemVendor
	v.ProductName, _ = r.read("sys/class/dmi/id/product_name")
	v.SerialNumber, _ = r.read("sys/class/dmi/id/product_serial")
	v.Manufacturer, _ = r.read("sys/class/dmi/id/sys_vendor")
	return v
}

// Boot is get_boot_info: uefi when /sys/firmware/efi exists, and BOOTIF.
func (r Reader) Boot() Boot {
	b := Boot{CurrentBootMode: "bios"}
	if _, err := os.Stat(r.path("sys/firmware/efi")); err == nil {
		b.CurrentBootMode = "uefi"
	}
	if r.BootIF != "" {
		s := r.BootIF
		b.PXEInterface = &s
	}
	return b
}

// MACs are the interfaces' MAC addresses, as IPA's lookup sends them.
func (inv Inventory) MACs() []string {
	var out []string
	for _, i := range inv.Interfaces {
		if i.MACAddress != "" {
			out = append(out, i.MACAddress)
		}
	}
	return out
}
