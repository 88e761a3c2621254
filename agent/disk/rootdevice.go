package disk

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goironic/ironic/internal/roothints"
)

// minRootSize is IPA's guess_root_disk minimum (4 GiB).
const minRootSize = 4 << 30

// RootDevice is IPA's get_os_install_device: with hints, the first
// device (in listing order) ironic_lib's match_root_device_hints
// accepts; without, guess_root_disk's smallest device of at least 4 GiB
// (by size, then name). The name hint may omit "/dev/" (see
// docs/departures.md).
func (m *Manager) RootDevice(ctx context.Context, hints map[string]any) (BlockDevice, error) {
	devs, err := m.BlockDevices(ctx)
	if err != nil {
		return BlockDevice{}, err
	}
	if len(hints) == 0 {
		slices.SortStableFunc(devs, func(a, b BlockDevice) int {
			return cmp.Or(cmp.Compare(a.Size, b.Size), strings.Compare(a.Name, b.Name))
		})
		for _, d := range devs {
			if d.Size >= minRootSize {
				return d, nil
			}
		}
		return BlockDevice{}, errDeviceNotFound(fmt.Sprintf("No suitable device was found for deployment - root device hints were not provided and all found block devices are smaller than %dB.", minRootSize))
	}
	specs, err := roothints.Validate(withDevPrefix(hints))
	if err != nil {
		return BlockDevice{}, errDeviceNotFound(fmt.Sprintf("No devices could be found using the root device hints %s because they failed to validate. Error: %s", pyDictRepr(hints), err))
	}
	for _, d := range devs {
		if roothints.Matches(hintDevice(d), specs) {
			m.log.InfoContext(ctx, "root device found", "device", d.Name, "hints", hints)
			return d, nil
		}
	}
	return BlockDevice{}, errDeviceNotFound("No suitable device was found for deployment using these hints " + pyDictRepr(hints))
}

// withDevPrefix gives a name hint without an operator the "/dev/" prefix
// device names have.
func withDevPrefix(hints map[string]any) map[string]any {
	name, ok := hints["name"].(string)
	if !ok {
		return hints
	}
	if op, _ := roothints.Split(name); op != "" || strings.HasPrefix(strings.TrimSpace(name), "/") || strings.TrimSpace(name) == "" {
		return hints
	}
	out := make(map[string]any, len(hints))
	for k, v := range hints {
		out[k] = v
	}
	out["name"] = "/dev/" + strings.TrimSpace(name)
	return out
}

// hintDevice is a BlockDevice as IPA's serialize() hands it to
// ironic_lib.
type hintDevice BlockDevice

func (d hintDevice) Attr(name string) any {
	opt := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	switch name {
	case "name":
		return d.Name
	case "model":
		if d.Model == "" {
			return nil
		}
		return d.Model
	case "size":
		return d.Size
	case "rotational":
		return d.Rotational
	case "wwn":
		return opt(d.WWN)
	case "serial":
		return opt(d.Serial)
	case "vendor":
		return opt(d.Vendor)
	case "wwn_with_extension":
		return opt(d.WWNWithExtension)
	case "wwn_vendor_extension":
		return opt(d.WWNVendorExtension)
	case "hctl":
		return opt(d.HCTL)
	case "by_path":
		return opt(d.ByPath)
	}
	return nil
}

// pyDictRepr is Python's repr of a hints dict (sorted keys: the order
// Ironic stored them in is not known here).
func pyDictRepr(h map[string]any) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = pyRepr(k) + ": " + pyRepr(h[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, "'") && !strings.Contains(x, `"`) {
			return `"` + x + `"`
		}
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}
