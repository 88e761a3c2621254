package redfish

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/stmcginnis/gofish/schemas"
)

// cpuArchMap is Ironic's redfish inspect CPU_ARCH_MAP (Power is not in
// it: Ironic logs it as unknown).
var cpuArchMap = map[string]string{"x86": "x86_64", "IA-64": "ia64", "ARM": "arm", "MIPS": "mips", "OEM": "oem"}

const gib = 1 << 30

// Inspect is the "redfish" inspect interface: out-of-band inspection of
// the system's memory, processors, storage and NICs.
type Inspect struct {
	drivers.InspectBase
	base
}

// processorSummary is sushy's ProcessorCollection.summary: the sum of the
// processors' TotalThreads and the first architecture reported.
func (s *system) processorSummary(ctx context.Context) (int64, string, error) {
	p, err := subPath(s.path, s.raw, "Processors")
	if err != nil {
		return 0, "", err
	}
	r, err := s.b.get(ctx, p)
	if err != nil {
		return 0, "", err
	}
	var count int64
	arch := ""
	for _, m := range members(r.dict()) {
		d, err := load[schemas.Processor](ctx, s.b, m, "Id")
		if err != nil {
			return 0, "", err
		}
		n, err := intOrNone(d.path, "TotalThreads", d.raw.Get("TotalThreads"))
		if err != nil {
			return 0, "", err
		}
		if v, ok := n.(int64); ok {
			count += v
		}
		if a := mapped(d.raw.Get("ProcessorArchitecture"), []string{"x86", "IA-64", "ARM", "MIPS", "Power", "OEM"}); arch == "" && a != "" {
			arch = a
		}
	}
	return count, arch, nil
}

// simpleStorageSizes is SimpleStorageCollection.disks_sizes_bytes: the
// sizes of the enabled devices, sorted.
func (s *system) simpleStorageSizes(ctx context.Context) ([]int64, error) {
	storages, err := s.simpleStorage(ctx)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, st := range storages {
		for _, dev := range listOf(st.raw, "Devices") {
			if _, ok := dev.Lookup("Name"); !ok {
				return nil, missingAttribute("Devices/Name", st.path)
			}
			c, err := intOrNone(st.path, "Devices/CapacityBytes", dev.Get("CapacityBytes"))
			if err != nil {
				return nil, err
			}
			state, _ := stateEnum("", "", mustField(dev, "Status", "State"))
			if v, ok := c.(int64); ok && state == "Enabled" {
				out = append(out, v)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// storages is sushy's system.storage.get_members(), read once per
// inspection.
type storages struct {
	s     *system
	docs  []*doc
	err   error
	ready bool
}

func (st *storages) members(ctx context.Context) ([]*doc, error) {
	if st.ready {
		return st.docs, st.err
	}
	p, err := subPath(st.s.path, st.s.raw, "Storage")
	if err != nil {
		return nil, err
	}
	r, err := st.s.b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	var docs []*doc
	for _, m := range members(r.dict()) {
		d, err := load[schemas.Storage](ctx, st.s.b, m, "Id")
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	st.docs, st.ready = docs, true
	return docs, nil
}

// volumeSizes is StorageCollection.volumes_sizes_bytes.
func (st *storages) volumeSizes(ctx context.Context) ([]int64, error) {
	return st.capacities(ctx, volumesOf)
}

// capacities reads every storage's parts (its volumes or its drives) and
// returns their CapacityBytes, smallest first.
func (st *storages) capacities(ctx context.Context, parts func(context.Context, *bmc, *doc) ([]*doc, error)) ([]int64, error) {
	docs, err := st.members(ctx)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, d := range docs {
		ps, err := parts(ctx, st.s.b, d)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			c, err := intOrNone(p.path, "CapacityBytes", p.raw.Get("CapacityBytes"))
			if err != nil {
				return nil, err
			}
			if n, ok := c.(int64); ok {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// volumesOf reads a storage's Volumes collection and every volume.
func volumesOf(ctx context.Context, b *bmc, storage *doc) ([]*doc, error) {
	p, err := subPath(storage.path, storage.raw, "Volumes")
	if err != nil {
		return nil, err
	}
	r, err := b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []*doc
	for _, m := range members(r.dict()) {
		v, err := load[schemas.Volume](ctx, b, m, "Id")
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// drivesOf reads a storage's drives (its Drives links).
func drivesOfStorage(ctx context.Context, b *bmc, storage *doc) ([]*doc, error) {
	var out []*doc
	for _, id := range linkList(storage.raw.Get("Drives")) {
		d, err := load[schemas.Drive](ctx, b, id, "Id")
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// linkList is sushy's get_members_identities over a list of links.
func linkList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, m := range list {
		if d, ok := pyjson.AsDict(m); ok {
			if id, ok := d.Get("@odata.id").(string); ok && id != "" {
				out = append(out, strings.TrimRight(id, "/"))
			}
		}
	}
	return out
}

// driveSizes is StorageCollection.drives_sizes_bytes.
func (st *storages) driveSizes(ctx context.Context) ([]int64, error) {
	return st.capacities(ctx, drivesOfStorage)
}

// smallestAbove4G is Ironic's choice among sizes: the first (smallest)
// of at least 4 GiB, or 0.
func smallestAbove4G(sizes []int64) int64 {
	for _, s := range sizes {
		if s >= 4*gib {
			return s
		}
	}
	return 0
}

// detectLocalGB is RedfishInspect._detect_local_gb: the smallest disk of
// at least 4 GiB among SimpleStorage devices and Storage volumes (drives
// when there are no volumes), in GiB less one.
func (i *Inspect) detectLocalGB(ctx context.Context, task drivers.Task, sys *system) int64 {
	var simple, storage int64
	if sizes, err := sys.simpleStorageSizes(ctx); err != nil {
		i.c.log.DebugContext(ctx, "No simple storage information discovered", "node", task.NodeUUID(), "error", err)
	} else if len(sizes) > 0 {
		simple = smallestAbove4G(sizes)
	}
	st := &storages{s: sys}
	if sizes, err := st.volumeSizes(ctx); err != nil {
		i.c.log.DebugContext(ctx, "No storage volume information discovered", "node", task.NodeUUID(), "error", err)
	} else if len(sizes) > 0 {
		storage = smallestAbove4G(sizes)
	}
	if storage == 0 {
		if sizes, err := st.driveSizes(ctx); err != nil {
			i.c.log.DebugContext(ctx, "No storage drive information discovered", "node", task.NodeUUID(), "error", err)
		} else if len(sizes) > 0 {
			storage = smallestAbove4G(sizes)
		}
	}
	size := max(simple, storage)
	if simple != 0 && storage != 0 {
		size = min(simple, storage)
	}
	// int(size / units.Gi - 1): a float division, truncated.
	return max(0, int64(float64(size)/gib-1))
}

// InspectHardware sets the node's memory_mb, cpus, cpu_arch, local_gb
// and boot_mode capability from the system, and creates a port for every
// enabled NIC's MAC address.
func (i *Inspect) InspectHardware(ctx context.Context, task drivers.Task) (states.Provision, error) {
	sys, done, err := i.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	// The properties are worked out on a copy: a failed inspection leaves
	// the node's alone, as Ironic saves them only when it succeeds.
	props := task.Properties().DeepClone()
	if ms, ok := pyjson.AsDict(sys.raw.Get("MemorySummary")); ok {
		v, err := intOrNone(sys.path, "MemorySummary/TotalSystemMemoryGiB", ms.Get("TotalSystemMemoryGiB"))
		if err != nil {
			return "", asFault(err)
		}
		if n, ok := v.(int64); ok && n != 0 {
			props.Set("memory_mb", strconv.FormatInt(n*1024, 10))
		}
	}
	cpus, arch, err := sys.processorSummary(ctx)
	if err != nil {
		return "", asFault(err)
	}
	if cpus != 0 {
		props.Set("cpus", cpus)
	}
	if arch != "" {
		if a, ok := cpuArchMap[arch]; ok {
			props.Set("cpu_arch", a)
		} else {
			i.c.log.WarnContext(ctx, fmt.Sprintf("Unknown CPU arch %s discovered for node %s", arch, task.NodeUUID()))
		}
	}
	if gb := i.detectLocalGB(ctx, task, sys); gb != 0 {
		props.Set("local_gb", strconv.FormatInt(gb, 10))
	} else {
		i.c.log.WarnContext(ctx, fmt.Sprintf("Could not provide a valid storage size configured for node %s. Assuming this is a disk-less node", task.NodeUUID()))
		props.Set("local_gb", "0")
	}
	if _, _, mode := sys.boot(); mode != "" && deployutil.NodeCapability(task, "boot_mode") == "" {
		caps, err := updatedCapabilities(capabilitiesOf(props), "boot_mode", bootModeMap[mode])
		if err != nil {
			return "", err
		}
		props.Set("capabilities", caps)
	}
	var missing []string
	for _, k := range []string{"cpu_arch", "cpus", "local_gb", "memory_mb"} {
		if !props.Has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return "", ironic.Errorf(ironic.HardwareInspectionFailure,
			"Failed to inspect hardware. Reason: ('Failed to discover the following properties: %%(missing_keys)s on node %%(node)s', {'missing_keys': '%s', 'node': '%s'})",
			strings.Join(missing, ", "), task.NodeUUID())
	}
	node := task.Properties()
	node.Clear()
	node.Update(props)
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	macs, err := enabledMACs(ctx, func(msg string) { i.c.log.WarnContext(ctx, msg, "node", task.NodeUUID()) }, sys)
	if err != nil {
		return "", asFault(err)
	}
	if len(macs) == 0 {
		i.c.log.WarnContext(ctx, "Not attempting to create any port as no NICs were discovered in 'enabled' state", "node", task.NodeUUID())
	}
	if err := deployutil.CreatePortsIfNotExist(ctx, task, macs, i.c.log); err != nil {
		return "", err
	}
	i.c.log.WarnContext(ctx, fmt.Sprintf("No PXE enabled NIC was found for node %s.", task.NodeUUID()))
	return states.Manageable, nil
}

// updatedCapabilities is utils.get_updated_capabilities for one
// capability: "k1:v1,k2:v2" with key set (its place kept when present).
func updatedCapabilities(current, key, value string) (string, error) {
	type kv struct{ k, v string }
	var caps []kv
	if current != "" {
		for _, x := range strings.Split(current, ",") {
			k, v, ok := strings.Cut(x, ":")
			if !ok {
				return "", drivers.InvalidParameter("dictionary update sequence element has length 1; 2 is required")
			}
			if i := slices.IndexFunc(caps, func(c kv) bool { return c.k == k }); i >= 0 {
				caps[i].v = v
			} else {
				caps = append(caps, kv{k, v})
			}
		}
	}
	if i := slices.IndexFunc(caps, func(c kv) bool { return c.k == key }); i >= 0 {
		caps[i].v = value
	} else {
		caps = append(caps, kv{key, value})
	}
	parts := make([]string, len(caps))
	for i, c := range caps {
		parts[i] = c.k + ":" + c.v
	}
	return strings.Join(parts, ","), nil
}

// capabilitiesOf is properties.get('capabilities', ”): "" when absent.
func capabilitiesOf(props *pyjson.Dict) string {
	v, ok := props.Lookup("capabilities")
	if !ok {
		return ""
	}
	return pyStrOf(v)
}
