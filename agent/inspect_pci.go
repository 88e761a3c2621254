package agent

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// pciDevice is one entry of IPA's data["pci_devices"].
type pciDevice struct {
	VendorID  string `json:"vendor_id"`
	ProductID string `json:"product_id"`
	Class     string `json:"class"`
	Revision  string `json:"revision"`
	Bus       string `json:"bus"`
}

// collectPCIDevices is IPA's collect_pci_devices_info: one entry per
// directory of <root>/sys/bus/pci/devices with the "0x" of its vendor,
// device, class and revision files dropped; a device whose files cannot
// be read is skipped with a warning; no sysfs directory posts nothing.
func (a *Agent) collectPCIDevices(ctx context.Context, data *inspectionData, _ *failures) error {
	dir := filepath.Join(a.cfg.Root, "sys", "bus", "pci", "devices")
	entries, err := os.ReadDir(dir)
	if err != nil {
		a.log.WarnContext(ctx, "cannot collect PCI devices info", "dir", dir, "error", err)
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	devs := []pciDevice{}
	for _, n := range names {
		var vals [4]string
		ok := true
		for i, f := range []string{"vendor", "device", "class", "revision"} {
			b, err := os.ReadFile(filepath.Join(dir, n, f))
			if err != nil {
				a.log.WarnContext(ctx, "failed to read PCI device file", "device", n, "file", f, "error", err)
				ok = false
				break
			}
			vals[i] = strings.TrimPrefix(strings.TrimSpace(string(b)), "0x")
		}
		if ok {
			devs = append(devs, pciDevice{VendorID: vals[0], ProductID: vals[1], Class: vals[2], Revision: vals[3], Bus: n})
		}
	}
	data.Set("pci_devices", devs)
	return nil
}
