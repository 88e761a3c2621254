package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goironic/ironic/agent/internal/pyerr"
)

// pciDevice is one entry of IPA's data["pci_devices"].
type pciDevice struct {
	VendorID  string  `json:"vendor_id"`
	ProductID string  `json:"product_id"`
	Class     string  `json:"class"`
	Revision  *string `json:"revision"`
	Bus       string  `json:"bus"`
}

// collectPCIDevices is IPA 9.4's collect_pci_devices_info: one entry per
// directory of <root>/sys/bus/pci/devices holding what follows the first
// "x" of its vendor, device and class files (a device whose files cannot be
// read or hold no "x" is skipped with a warning) and of its revision file
// (null when missing or malformed). An unreadable devices directory is a
// failure "Failed to get list of PCI devices: ..." and posts no key.
// Departure: devices are listed sorted by bus address, not in os.listdir order.
func (a *Agent) collectPCIDevices(ctx context.Context, data *inspectionData, fail *failures) error {
	dir := filepath.Join(a.cfg.Root, "sys", "bus", "pci", "devices")
	entries, err := os.ReadDir(dir)
	if err != nil {
		*fail = append(*fail, fmt.Sprintf("Failed to get list of PCI devices: %s", pyerr.PathError(err)))
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && st.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	devs := []pciDevice{}
	for _, n := range names {
		var vals [3]string
		ok := true
		for i, f := range []string{"vendor", "device", "class"} {
			v, err := readHexID(filepath.Join(dir, n, f))
			if err != nil {
				a.log.WarnContext(ctx, "failed to gather vendor id, product id or pci class", "device", n, "error", err)
				ok = false
				break
			}
			vals[i] = v
		}
		if !ok {
			continue
		}
		d := pciDevice{VendorID: vals[0], ProductID: vals[1], Class: vals[2], Bus: n}
		if v, err := readHexID(filepath.Join(dir, n, "revision")); err == nil {
			d.Revision = &v
		} else if !errors.Is(err, fs.ErrNotExist) {
			a.log.WarnContext(ctx, "failed to gather PCI revision", "device", n, "error", err)
		}
		a.log.DebugContext(ctx, "found a PCI device", "vendor", d.VendorID, "product", d.ProductID, "class", d.Class, "bus", n)
		devs = append(devs, d)
	}
	data.Set("pci_devices", devs)
	return nil
}

// readHexID is Python's f.read().strip().split('x')[1].
func readHexID(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	parts := strings.Split(strings.TrimSpace(string(b)), "x")
	if len(parts) < 2 {
		return "", fmt.Errorf("wrong format in %s: list index out of range", path)
	}
	return parts[1], nil
}
