package redfish

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/stmcginnis/gofish/schemas"
)

// raidLevel is one of Ironic's redfish RAID_LEVELS.
type raidLevel struct {
	minDisks, maxDisks, overhead int
	spanned                      bool
	raidType, spanType           string
}

// raidLevelOrder is RAID_LEVELS' order (Ironic's messages list it).
var raidLevelOrder = []string{"0", "1", "5", "6", "1+0", "5+0", "6+0"}

var raidLevels = map[string]raidLevel{
	"0":   {minDisks: 1, maxDisks: 1000, raidType: "RAID0"},
	"1":   {minDisks: 2, maxDisks: 2, raidType: "RAID1", overhead: 1},
	"5":   {minDisks: 3, maxDisks: 1000, raidType: "RAID5", overhead: 1},
	"6":   {minDisks: 4, maxDisks: 1000, raidType: "RAID6", overhead: 2},
	"1+0": {spanned: true, raidType: "RAID10", spanType: "1"},
	"5+0": {spanned: true, raidType: "RAID50", spanType: "5"},
	"6+0": {spanned: true, raidType: "RAID60", spanType: "6"},
}

// The RAID types sushy 4.3 maps (store_cons.RAIDType).
var raidTypes = []string{"RAID0", "RAID1", "RAID3", "RAID4", "RAID5", "RAID6", "RAID10", "RAID01", "RAID6TP",
	"RAID1E", "RAID50", "RAID60", "RAID00", "RAID10E", "RAID1Triple", "RAID10Triple", "None"}

// protocols are sushy's Protocol values; Ironic maps SAS and SATA.
var protocols = []string{"PCIe", "AHCI", "UHCI", "SAS", "SATA", "USB", "NVMe", "FC", "iSCSI", "FCoE", "FCP",
	"FICON", "NVMeOverFabrics", "SMB", "NFSv3", "NFSv4", "HTTP", "HTTPS", "FTP", "SFTP", "iWARP", "RoCE",
	"RoCEv2", "OEM", "TCP", "UDP", "TFTP", "I2C", "UPI", "QPI", "eMMC"}

// RAID is the "redfish" RAID interface: volumes created and deleted
// through the system's Storage, as clean and deploy steps.
type RAID struct {
	drivers.RAIDBase
	c *core
}

var _ drivers.Stepper = (*RAID)(nil)

// GetProperties returns the Redfish driver_info keys.
func (*RAID) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's target_raid_config, if any.
func (r *RAID) Validate(ctx context.Context, task drivers.Task) error {
	cfg := task.TargetRAIDConfig()
	if cfg.Len() == 0 {
		return nil
	}
	return r.ValidateRAIDConfig(ctx, task, cfg)
}

// ValidateRAIDConfig checks config against Ironic's RAID schema and refuses
// scsi disks.
func (*RAID) ValidateRAIDConfig(_ context.Context, _ drivers.Task, config *pyjson.Dict) error {
	if err := drivers.ValidateRAIDConfig(config); err != nil {
		return err
	}
	disks, _ := config.Get("logical_disks").([]any)
	for _, d := range disks {
		if m, ok := pyjson.AsDict(d); ok && m.Get("interface_type") == "scsi" {
			return drivers.InvalidParameter("interface type `scsi` not supported by Redfish RAID")
		}
	}
	return nil
}

// Steps declares create_configuration and delete_configuration (clean)
// and apply_configuration and delete_configuration (deploy), priority 0.
func (*RAID) Steps() []drivers.Step {
	return []drivers.Step{
		{Phase: drivers.CleanStep, Interface: drivers.RAID, Name: "create_configuration", RequiresRamdisk: true, ArgsInfo: []drivers.StepArg{
			{Name: "create_root_volume", Description: "This specifies whether to create the root volume. Defaults to `True`."},
			{Name: "create_nonroot_volumes", Description: "This specifies whether to create the non-root volumes. Defaults to `True`."},
			{Name: "delete_existing", Description: "Setting this to `True` indicates to delete existing RAID configuration prior to creating the new configuration. Default value is `False`."},
		}},
		{Phase: drivers.CleanStep, Interface: drivers.RAID, Name: "delete_configuration", RequiresRamdisk: true},
		{Phase: drivers.DeployStep, Interface: drivers.RAID, Name: "apply_configuration", ArgsInfo: []drivers.StepArg{
			{Name: "raid_config", Description: "The RAID configuration to apply.", Required: true},
			{Name: "create_root_volume", Description: "Setting this to 'False' indicates not to create root volume that is specified in 'raid_config'. Default value is 'True'."},
			{Name: "create_nonroot_volumes", Description: "Setting this to 'False' indicates not to create non-root volumes (all except the root volume) in 'raid_config'. Default value is 'True'."},
			{Name: "delete_existing", Description: "Setting this to 'True' indicates to delete existing RAID configuration prior to creating the new configuration. Default value is 'True'."},
		}},
		{Phase: drivers.DeployStep, Interface: drivers.RAID, Name: "delete_configuration"},
	}
}

// boolArg reads an optional boolean step argument.
func boolArg(args *pyjson.Dict, name string, dflt bool) bool {
	if args == nil {
		return dflt
	}
	v, ok := args.Lookup(name)
	if !ok {
		return dflt
	}
	return pyjson.Truthy(v)
}

// ExecuteStep runs a RAID step.
func (r *RAID) ExecuteStep(ctx context.Context, task drivers.Task, name string, args *pyjson.Dict) (states.Provision, error) {
	switch name {
	case "create_configuration":
		return r.CreateConfiguration(ctx, task, drivers.RAIDCreateOptions{
			CreateRootVolume:     boolArg(args, "create_root_volume", true),
			CreateNonRootVolumes: boolArg(args, "create_nonroot_volumes", true),
			DeleteExisting:       boolArg(args, "delete_existing", false),
		})
	case "apply_configuration":
		cfg, ok := pyjson.AsDict(args.Get("raid_config"))
		if !ok {
			return "", drivers.InvalidParameter("RAID config is not a dictionary: %s", py.Repr(args.Get("raid_config")))
		}
		if err := r.ValidateRAIDConfig(ctx, task, cfg); err != nil {
			return "", err
		}
		target := task.TargetRAIDConfig()
		target.Clear()
		target.Update(cfg.DeepClone())
		if err := task.Save(ctx); err != nil {
			return "", err
		}
		return r.CreateConfiguration(ctx, task, drivers.RAIDCreateOptions{
			CreateRootVolume:     boolArg(args, "create_root_volume", true),
			CreateNonRootVolumes: boolArg(args, "create_nonroot_volumes", false),
			DeleteExisting:       boolArg(args, "delete_existing", false),
		})
	case "delete_configuration":
		return r.DeleteConfiguration(ctx, task)
	}
	return "", drivers.InvalidParameter("Step %s is not supported by this interface.", name)
}

// physDisk is one drive that may hold a volume.
type physDisk struct {
	id, path  string
	capacity  int64
	mediaType any
	protocol  string
	storage   *doc
}

// diskType groups drives as Ironic does: media type, protocol, capacity.
type diskType struct {
	mediaType any
	protocol  string
	capacity  int64
}

type diskGroup struct {
	typ   diskType
	disks []*physDisk
}

// storageView is what the RAID operations read of system.storage: its
// members and, per member, its drives (each read once, as sushy caches
// them).
type storageView struct {
	b       *bmc
	members []*doc
	drives  map[string][]*physDisk
}

func (s *system) storageView(ctx context.Context) (*storageView, error) {
	p, err := subPath(s.path, s.raw, "Storage")
	if err != nil {
		return nil, err
	}
	r, err := s.b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	v := &storageView{b: s.b, drives: map[string][]*physDisk{}}
	for _, m := range members(r.dict()) {
		d, err := load[schemas.Storage](ctx, s.b, m, "Id")
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, d)
	}
	return v, nil
}

// drivesOf reads a storage's drives once.
func (v *storageView) drivesOf(ctx context.Context, st *doc) ([]*physDisk, error) {
	if d, ok := v.drives[st.path]; ok {
		return d, nil
	}
	docs, err := drivesOfStorage(ctx, v.b, st)
	if err != nil {
		return nil, err
	}
	out := make([]*physDisk, 0, len(docs))
	for _, d := range docs {
		c, err := intOrNone(d.path, "CapacityBytes", d.raw.Get("CapacityBytes"))
		if err != nil {
			return nil, err
		}
		capacity, _ := c.(int64)
		out = append(out, &physDisk{id: str(d.raw, "Id"), path: d.path, capacity: capacity,
			mediaType: d.raw.Get("MediaType"), protocol: mapped(d.raw.Get("Protocol"), protocols), storage: st})
	}
	v.drives[st.path] = out
	return out, nil
}

// controllerRAIDTypesEmpty is Ironic's "controller and controller.raid_types
// == []": the storage's first StorageControllers entry lists no RAID
// type sushy knows.
func controllerRAIDTypesEmpty(st *doc) bool {
	list, _ := st.raw.Get("StorageControllers").([]any)
	if len(list) == 0 {
		return false
	}
	c, ok := pyjson.AsDict(list[0])
	if !ok {
		return false
	}
	v, ok := c.Lookup("SupportedRAIDTypes")
	if !ok || v == nil {
		return false
	}
	types, _ := v.([]any)
	for _, t := range types {
		if mapped(t, raidTypes) != "" {
			return false
		}
	}
	return true
}

func hasController(st *doc) bool {
	list, _ := st.raw.Get("StorageControllers").([]any)
	return len(list) > 0
}

// physicalDisks is raid.get_physical_disks: the drives of every storage
// whose controller can do RAID.
func (r *RAID) physicalDisks(ctx context.Context, task drivers.Task) ([]*physDisk, error) {
	sys, done, err := r.c.getSystem(ctx, task)
	if err != nil {
		return nil, err
	}
	defer done()
	var out []*physDisk
	err = func() error {
		view, err := sys.storageView(ctx)
		if err != nil {
			return err
		}
		for _, st := range view.members {
			if controllerRAIDTypesEmpty(st) {
				continue
			}
			d, err := view.drivesOf(ctx, st)
			if err != nil {
				return err
			}
			out = append(out, d...)
		}
		return nil
	}()
	if err != nil {
		if !isSushy(err) {
			return nil, err
		}
		r.c.log.ErrorContext(ctx, fmt.Sprintf("Cannot get the list of physical disks for node %s. Reason: %s.", task.NodeUUID(), err))
		return nil, redfishError("%s", err)
	}
	return out, nil
}

// raidError is the RedfishError of the configuration search.
type raidError struct{ msg string }

func (e *raidError) Error() string { return "Redfish exception occurred. Error: " + e.msg }

func notSupportedLevel(level string) error {
	return &raidError{fmt.Sprintf("RAID level %s is not supported by the driver. Supported RAID levels: %s",
		level, strings.Join(raidLevelOrder, ", "))}
}

func levelInfo(level string, spans int) (raidLevel, error) {
	info, ok := raidLevels[level]
	if !ok {
		return raidLevel{}, notSupportedLevel(level)
	}
	if info.spanned {
		if spans <= 1 {
			return raidLevel{}, &raidError{"Spanned RAID volumes cannot contain a single span"}
		}
		info = raidLevels[info.spanType]
	}
	return info, nil
}

func levelOverhead(level string, spans int) (int, error) {
	info, err := levelInfo(level, spans)
	return info.overhead * spans, err
}

func calculateSpans(level string, disks int) (int, error) {
	switch level {
	case "0", "1", "5", "6":
		return 1, nil
	case "5+0", "6+0":
		return 2, nil
	case "1+0":
		return disks >> 1, nil
	}
	return 0, &raidError{fmt.Sprintf("Cannot calculate spans for RAID level \"%s\"", level)}
}

const stripeKB = 64 * 1024

func maxVolumeSize(level string, disks []*physDisk, free map[*physDisk]int64, spans int) (int64, error) {
	minFree := int64(math.MaxInt64)
	for _, d := range disks {
		minFree = min(minFree, free[d])
	}
	sizeKB := minFree / 1024
	stripesPerDisk := int64(math.Floor(float64(sizeKB) / stripeKB))
	overhead, err := levelOverhead(level, spans)
	if err != nil {
		return 0, err
	}
	if len(disks) <= overhead {
		return 0, &raidError{fmt.Sprintf("The number of physical drives (%d) is too few for the required number of overhead drives (%d)", len(disks), overhead)}
	}
	return stripesPerDisk * stripeKB * int64(len(disks)-overhead) * 1024, nil
}

func usagePerDisk(level string, sizeBytes int64, disks, spans int) (int64, error) {
	overhead, err := levelOverhead(level, spans)
	if err != nil {
		return 0, err
	}
	sizeKB := sizeBytes / 1024
	stripesPerVolume := math.Ceil(float64(sizeKB) / stripeKB)
	stripesPerDisk := math.Ceil(stripesPerVolume / float64(disks-overhead))
	return int64(stripesPerDisk * stripeKB * 1024), nil
}

// ldisk is a logical disk being planned (a copy of the target's).
type ldisk = pyjson.Dict

func ldLevel(ld *ldisk) string { return py.Str(ld.Get("raid_level")) }

func ldDiskIDs(ld *ldisk) []string {
	list, _ := ld.Get("physical_disks").([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, py.Str(v))
	}
	return out
}

func isMax(v any) bool { return v == "MAX" }

// calculateVolumeProps is _calculate_volume_props.
func calculateVolumeProps(ld *ldisk, disks []*physDisk, free map[*physDisk]int64) error {
	ids := ldDiskIDs(ld)
	var selected []*physDisk
	for _, d := range disks {
		if slices.Contains(ids, d.id) {
			selected = append(selected, d)
		}
	}
	level := ldLevel(ld)
	spans, err := calculateSpans(level, len(selected))
	if err != nil {
		return err
	}
	if spans == 0 || len(selected)%spans != 0 {
		return &raidError{fmt.Sprintf("For RAID level %s, the number of physical disks provided (%d) must be a multiple of the spans count (%d)",
			level, len(selected), spans)}
	}
	ld.Set("span_depth", nil)
	ld.Set("span_length", nil)
	if level != "1+0" {
		ld.Set("span_depth", spans)
		ld.Set("span_length", float64(len(selected))/float64(spans))
	}
	maxSize, err := maxVolumeSize(level, selected, free, spans)
	if err != nil {
		return err
	}
	size := ld.Get("size_bytes")
	if isMax(size) {
		if maxSize == 0 {
			return &raidError{"size set to 'MAX' but could not allocate physical disk space"}
		}
		ld.Set("size_bytes", maxSize)
		size = maxSize
	}
	sizeBytes, _ := size.(int64)
	if !isMax(ld.Get("size_bytes")) && maxSize < sizeBytes {
		return &raidError{fmt.Sprintf("The physical disk space (%d bytes) is not enough for the size of the logical disk (%d bytes)", maxSize, sizeBytes)}
	}
	usage, err := usagePerDisk(level, sizeBytes, len(selected), spans)
	if err != nil {
		return err
	}
	for _, d := range selected {
		if free[d] < usage {
			return &raidError{fmt.Sprintf("The free space of a disk (%d bytes) is not enough for the per-disk size of the logical disk (%d bytes)", free[d], usage)}
		}
		free[d] -= usage
	}
	if !ld.Has("controller") && len(selected) > 0 && selected[0].storage != nil {
		ld.Set("controller", str(selected[0].storage.raw, "Id"))
	}
	return nil
}

func copyFree(m map[*physDisk]int64) map[*physDisk]int64 {
	out := make(map[*physDisk]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// assignDisks is _assign_disks_to_volume: the first logical disk of the
// queue gets drives of one type, recursively for the rest.
func assignDisks(lds *[]*ldisk, groups []*diskGroup, free map[*physDisk]int64) (bool, map[*physDisk]int64, error) {
	ld := (*lds)[0]
	*lds = (*lds)[1:]
	level := ldLevel(ld)
	for _, g := range groups {
		if dt, ok := ld.Lookup("disk_type"); ok {
			mt, _ := g.typ.mediaType.(string)
			if !strings.EqualFold(py.Str(dt), mt) {
				continue
			}
		}
		if it, ok := ld.Lookup("interface_type"); ok {
			p := map[string]string{"SAS": "sas", "SATA": "sata"}[g.typ.protocol]
			if p == "" {
				return false, nil, &sushyError{kind: kindKey, msg: "<Protocol." + g.typ.protocol + ">"}
			}
			if !strings.EqualFold(py.Str(it), p) {
				continue
			}
		}
		var disks []*physDisk
		for _, d := range g.disks {
			if free[d] > 0 {
				disks = append(disks, d)
			}
		}
		sort.SliceStable(disks, func(i, j int) bool { return free[disks[i]] < free[disks[j]] })
		if !pyjson.Truthy(ld.Get("share_physical_disks")) {
			var unused []*physDisk
			for _, d := range disks {
				if d.capacity == free[d] {
					unused = append(unused, d)
				}
			}
			disks = unused
		}
		maxSpans, err := calculateSpans(level, len(disks))
		if err != nil {
			return false, nil, err
		}
		minSpans := min(2, maxSpans)
		minInfo, err := levelInfo(level, minSpans)
		if err != nil {
			return false, nil, err
		}
		maxInfo, err := levelInfo(level, maxSpans)
		if err != nil {
			return false, nil, err
		}
		minDisks, maxDisks := minInfo.minDisks*minSpans, maxInfo.maxDisks*maxSpans
		for count := minDisks; count <= min(maxDisks, len(disks)); count++ {
			if n, ok := ld.Lookup("number_of_physical_disks"); ok {
				if x, _ := py.Int(n); x != int64(count) {
					continue
				}
			}
			if usable := usableDisks(level, count); usable != count {
				continue
			}
			selected := disks[:count]
			cand := ld.Clone()
			candFree := copyFree(free)
			ids := make([]any, len(selected))
			for i, d := range selected {
				ids[i] = d.id
			}
			cand.Set("physical_disks", ids)
			if err := calculateVolumeProps(cand, selected, candFree); err != nil {
				if isRaidError(err) {
					continue
				}
				return false, nil, err
			}
			if len(*lds) > 0 {
				ok, f, err := assignDisks(lds, groups, candFree)
				if err != nil {
					if isRaidError(err) {
						continue
					}
					return false, nil, err
				}
				if ok {
					*lds = append(*lds, cand)
					return true, f, nil
				}
			} else {
				*lds = append(*lds, cand)
				return true, candFree, nil
			}
		}
	}
	*lds = append([]*ldisk{ld}, *lds...)
	return false, free, nil
}

func isRaidError(err error) bool {
	var re *raidError
	return errors.As(err, &re)
}

func usableDisks(level string, count int) int {
	switch level {
	case "5+0", "6+0", "1+0":
		return (count >> 1) << 1
	}
	return count
}

// findConfiguration is _find_configuration: drives assigned to the
// logical disks that name none, volume properties worked out for all.
func findConfiguration(lds []*ldisk, disks []*physDisk) ([]*ldisk, error) {
	sharedMax := func(ld *ldisk) bool {
		return ld.Has("physical_disks") && isMax(ld.Get("size_bytes")) && pyjson.Truthy(ld.Get("share_physical_disks"))
	}
	reserved := map[*physDisk]bool{}
	for _, d := range disks {
		for _, ld := range lds {
			if sharedMax(ld) && slices.Contains(ldDiskIDs(ld), d.id) {
				reserved[d] = true
			}
		}
	}
	var groups, reservedGroups []*diskGroup
	free := map[*physDisk]int64{}
	groupOf := func(list *[]*diskGroup, t diskType) *diskGroup {
		for _, g := range *list {
			if g.typ == t {
				return g
			}
		}
		g := &diskGroup{typ: t}
		*list = append(*list, g)
		return g
	}
	for _, d := range disks {
		free[d] = d.capacity
		t := diskType{mediaType: d.mediaType, protocol: d.protocol, capacity: d.capacity}
		g, rg := groupOf(&groups, t), groupOf(&reservedGroups, t)
		if reserved[d] {
			rg.disks = append(rg.disks, d)
		} else {
			g.disks = append(g.disks, d)
		}
	}
	for _, ld := range lds {
		if ld.Has("physical_disks") && !pyjson.Truthy(ld.Get("share_physical_disks")) {
			ids := ldDiskIDs(ld)
			for _, d := range disks {
				if slices.Contains(ids, d.id) {
					g := groupOf(&groups, diskType{mediaType: d.mediaType, protocol: d.protocol, capacity: d.capacity})
					if i := slices.Index(g.disks, d); i >= 0 {
						g.disks = slices.Delete(g.disks, i, i+1)
					}
				}
			}
		}
	}
	var processed []*ldisk
	for _, ld := range lds {
		if ld.Has("physical_disks") && !isMax(ld.Get("size_bytes")) {
			if err := calculateVolumeProps(ld, disks, free); err != nil {
				return nil, err
			}
			processed = append(processed, ld)
		}
	}
	var without []*ldisk
	for _, ld := range lds {
		if !ld.Has("physical_disks") {
			without = append(without, ld)
		}
	}
	if len(without) > 0 {
		ok, f, err := assignDisks(&without, groups, free)
		if err != nil {
			return nil, err
		}
		if !ok {
			for i, g := range groups {
				g.disks = append(g.disks, reservedGroups[i].disks...)
			}
			ok, f, err = assignDisks(&without, groups, free)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, &raidError{"failed to find matching physical disks for all logical disks"}
			}
		}
		free = f
	}
	processed = append(processed, without...)
	for _, ld := range lds {
		if ld.Has("physical_disks") && isMax(ld.Get("size_bytes")) {
			if err := calculateVolumeProps(ld, disks, free); err != nil {
				return nil, err
			}
			processed = append(processed, ld)
		}
	}
	return processed, nil
}

// CreateConfiguration builds the node's target_raid_config: drives are
// chosen for the logical disks, the volumes created one by one on their
// storage; when a BMC creates them at the next reset, the node reboots
// (the RAID configuration status periodic, which would resume the step,
// is not implemented: see docs/departures.md).
func (r *RAID) CreateConfiguration(ctx context.Context, task drivers.Task, opts drivers.RAIDCreateOptions) (states.Provision, error) {
	target := task.TargetRAIDConfig().DeepClone()
	list, _ := target.Get("logical_disks").([]any)
	var lds []*ldisk
	for _, v := range list {
		d, ok := pyjson.AsDict(v)
		if !ok {
			return "", drivers.InvalidParameter("logical disk %s is not a dictionary", py.Repr(v))
		}
		lds = append(lds, d)
	}
	for _, d := range lds {
		size, ok := d.Lookup("size_gb")
		if !ok {
			return "", ironic.Errorf(ironic.IronicException, "'size_gb'")
		}
		if isMax(size) && !d.Has("physical_disks") {
			return "", drivers.InvalidParameter("create_configuration called with invalid target_raid_configuration for node %s. 'physical_disks' is missing from logical_disk while 'size_gb'='MAX' was requested: %s",
				task.NodeUUID(), py.Repr(d))
		}
		if isMax(size) {
			d.Set("size_bytes", "MAX")
		} else {
			n, _ := pyNumber(size)
			d.Set("size_bytes", int64(n)*gib)
		}
		d.Delete("size_gb")
	}
	disks, err := r.physicalDisks(ctx, task)
	if err != nil {
		return "", err
	}
	lds, err = findConfiguration(lds, disks)
	if err != nil {
		if re := (*raidError)(nil); errors.As(err, &re) {
			r.c.log.ErrorContext(ctx, "Redfish driver failed to create RAID configuration", "node", task.NodeUUID(), "error", re.msg)
			return "", redfishError("%s", re.msg)
		}
		return "", asFault(err)
	}
	var create []*ldisk
	for _, ld := range lds {
		root := pyjson.Truthy(ld.Get("is_root_volume"))
		if opts.CreateRootVolume && root {
			create = append(create, ld)
		}
		if opts.CreateNonRootVolumes && !root {
			create = append(create, ld)
		}
	}
	groups, err := groupByController(create)
	if err != nil {
		return "", err
	}
	reboot, err := r.submitCreate(ctx, task, groups)
	if err != nil {
		return "", err
	}
	return r.finish(ctx, task, reboot)
}

// finish sets the step's flags and either reboots the node (the BMC
// applies the change at reset) or records the volumes now there as the
// node's raid_config.
func (r *RAID) finish(ctx context.Context, task drivers.Task, reboot bool) (states.Provision, error) {
	rb := deployutil.False
	if reboot {
		rb = deployutil.True
	}
	if err := deployutil.SetAsyncStepFlags(ctx, task, rb, deployutil.True, deployutil.True); err != nil {
		return "", err
	}
	if reboot {
		return deployutil.RebootToFinishStep(ctx, task)
	}
	return "", r.updateRAIDConfig(ctx, task)
}

type controllerGroup struct {
	controller any
	disks      []*ldisk
}

// groupByController is itertools.groupby over the logical disks sorted by
// controller.
func groupByController(lds []*ldisk) ([]controllerGroup, error) {
	sorted := slices.Clone(lds)
	var bad error
	sort.SliceStable(sorted, func(i, j int) bool {
		a, aok := sorted[i].Get("controller").(string)
		b, bok := sorted[j].Get("controller").(string)
		if aok != bok {
			bad = ironic.Errorf(ironic.IronicException, "'<' not supported between instances of 'NoneType' and 'str'")
		}
		return a < b
	})
	if bad != nil {
		return nil, bad
	}
	var out []controllerGroup
	for _, ld := range sorted {
		c := ld.Get("controller")
		if len(out) > 0 && out[len(out)-1].controller == c {
			out[len(out)-1].disks = append(out[len(out)-1].disks, ld)
			continue
		}
		out = append(out, controllerGroup{controller: c, disks: []*ldisk{ld}})
	}
	// ld_grouped is a dict: a controller seen again joins its first group.
	var merged []controllerGroup
	for _, g := range out {
		if i := slices.IndexFunc(merged, func(m controllerGroup) bool { return m.controller == g.controller }); i >= 0 {
			merged[i].disks = g.disks
			continue
		}
		merged = append(merged, g)
	}
	return merged, nil
}

// applyTime is _get_apply_time over a collection's
// @Redfish.OperationApplyTimeSupport.
func applyTime(coll *pyjson.Dict) string {
	vals, _ := mustField(coll, "@Redfish.OperationApplyTimeSupport", "SupportedValues").([]any)
	switch {
	case slices.Contains(vals, any("Immediate")):
		return "Immediate"
	case slices.Contains(vals, any("OnReset")):
		return "OnReset"
	}
	return ""
}

// submitCreate is _submit_create_configuration: the volumes created one
// by one; a controller whose first volume is created asynchronously (a
// task monitor) gets no more now, the rest are pending.
func (r *RAID) submitCreate(ctx context.Context, task drivers.Task, groups []controllerGroup) (bool, error) {
	reboot := false
	configs := pyjson.DictOf("operation", "create", "pending", pyjson.NewDict(0))
	for _, g := range groups {
		i := 0
		for ; i < len(g.disks); i++ {
			ld := g.disks[i]
			monitor, err := r.createVirtualDisk(ctx, task, ld)
			if err != nil {
				return false, err
			}
			if monitor != "" {
				uris, _ := configs.Get("task_monitor_uri").([]any)
				configs.Set("task_monitor_uri", append(uris, monitor))
				reboot = true
				i++
				break
			}
		}
		for ; i < len(g.disks); i++ {
			pending, _ := pyjson.AsDict(configs.Get("pending"))
			key := py.Str(g.controller)
			list, _ := pending.Get(key).([]any)
			pending.Set(key, append(list, g.disks[i]))
		}
	}
	if reboot {
		task.DriverInternalInfo().Set("raid_configs", configs)
	}
	return reboot, nil
}

// createVirtualDisk is raid.create_virtual_disk: the volume POSTed to the
// Volumes of the storage holding its drives. It returns the task monitor
// of an asynchronous creation, "" when the volume exists.
func (r *RAID) createVirtualDisk(ctx context.Context, task drivers.Task, ld *ldisk) (string, error) {
	sys, done, err := r.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	ids := ldDiskIDs(ld)
	var monitor string
	err = func() error {
		view, err := sys.storageView(ctx)
		if err != nil {
			return err
		}
		var storage *doc
		var drives []*physDisk
		for _, st := range view.members {
			if controllerRAIDTypesEmpty(st) {
				continue
			}
			d, err := view.drivesOf(ctx, st)
			if err != nil {
				return err
			}
			if slices.ContainsFunc(d, func(x *physDisk) bool { return slices.Contains(ids, x.id) }) {
				storage, drives = st, d
				break
			}
		}
		if storage == nil {
			return &raidError{fmt.Sprintf("No storage controller found for node %s", task.NodeUUID())}
		}
		vp, err := subPath(storage.path, storage.raw, "Volumes")
		if err != nil {
			return err
		}
		vr, err := sys.b.get(ctx, vp)
		if err != nil {
			return err
		}
		level := ldLevel(ld)
		payload := pyjson.DictOf("RAIDType", raidLevels[level].raidType, "CapacityBytes", ld.Get("size_bytes"))
		if len(ids) > 0 {
			links := make([]any, 0, len(ids))
			for _, id := range ids {
				var p any
				for _, d := range drives {
					if d.id == id {
						p = d.path
						break
					}
				}
				links = append(links, pyjson.DictOf("@odata.id", p))
			}
			payload.Set("Links", pyjson.DictOf("Drives", links))
		}
		at := applyTime(vr.dict())
		if at != "" {
			payload.Set("@Redfish.OperationApplyTime", at)
		}
		resp, err := sys.b.blocking(ctx, "POST", vp, payload, at == "Immediate")
		if err != nil {
			return err
		}
		switch {
		case resp.status == 201 && resp.header.Get("Location") != "":
			if _, err := sys.b.get(ctx, vp); err != nil {
				return err
			}
			_, err := sys.b.get(ctx, resp.header.Get("Location"))
			return err
		case resp.status == 202:
			m, err := taskMonitorURI(resp, vp)
			monitor = m
			return err
		}
		return nil
	}()
	if err != nil {
		if re := (*raidError)(nil); errors.As(err, &re) {
			return "", redfishError("%s", re.msg)
		}
		if !isSushy(err) {
			return "", err
		}
		r.c.log.ErrorContext(ctx, fmt.Sprintf("Redfish driver failed to create virtual disk for node %s. Reason: %s.", task.NodeUUID(), err))
		return "", redfishError("%s", err)
	}
	return monitor, nil
}

// taskMonitorURI is TaskMonitor.from_response's URI: the Location,
// joined with the body's @odata.id when it has one.
func taskMonitorURI(resp *response, target string) (string, error) {
	loc := resp.header.Get("Location")
	if id, ok := resp.dict().Get("@odata.id").(string); ok && id != "" {
		loc = urlJoin(loc, id)
	}
	if loc == "" {
		return "", missingHeader(target, "Location")
	}
	return loc, nil
}

// DeleteConfiguration deletes every RAID volume (one per controller at a
// time when the BMC deletes them at the next reset) and records what is
// left as the node's raid_config.
func (r *RAID) DeleteConfiguration(ctx context.Context, task drivers.Task) (states.Provision, error) {
	reboot, err := r.submitDelete(ctx, task)
	if err != nil {
		return "", err
	}
	return r.finish(ctx, task, reboot)
}

type volumeDeletion struct {
	applyTime string
	vol       *doc
}

// submitDelete is _submit_delete_configuration.
func (r *RAID) submitDelete(ctx context.Context, task drivers.Task) (bool, error) {
	sys, done, err := r.c.getSystem(ctx, task)
	if err != nil {
		return false, err
	}
	defer done()
	type group struct {
		controller any
		vols       []volumeDeletion
	}
	var groups []*group
	anyLeft := false
	err = func() error {
		view, err := sys.storageView(ctx)
		if err != nil {
			return err
		}
		for _, st := range view.members {
			var controller any
			if hasController(st) {
				controller = str(st.raw, "Id")
			}
			vp, err := subPath(st.path, st.raw, "Volumes")
			if err != nil {
				return err
			}
			vr, err := sys.b.get(ctx, vp)
			if err != nil {
				return err
			}
			coll := vr.dict()
			var vols []*doc
			for _, m := range members(coll) {
				v, err := load[schemas.Volume](ctx, sys.b, m, "Id")
				if err != nil {
					return err
				}
				vols = append(vols, v)
			}
			i := 0
			for ; i < len(vols); i++ {
				v := vols[i]
				if mapped(v.raw.Get("RAIDType"), raidTypes) == "" {
					continue
				}
				gi := slices.IndexFunc(groups, func(g *group) bool { return g.controller == controller })
				if gi < 0 {
					groups = append(groups, &group{controller: controller})
					gi = len(groups) - 1
				}
				at := applyTime(coll)
				groups[gi].vols = append(groups[gi].vols, volumeDeletion{applyTime: at, vol: v})
				if at == "OnReset" {
					i++
					break
				}
			}
			anyLeft = i < len(vols)
		}
		return nil
	}()
	if err != nil {
		if !isSushy(err) {
			return false, err
		}
		r.c.log.ErrorContext(ctx, fmt.Sprintf("Cannot get the list of volumes to delete for node %s. Reason: %s.", task.NodeUUID(), err))
		return false, redfishError("%s", err)
	}
	reboot := false
	configs := pyjson.DictOf("operation", "delete", "pending", anyLeft)
	for _, g := range groups {
		for _, d := range g.vols {
			var payload *pyjson.Dict
			if d.applyTime != "" {
				payload = pyjson.DictOf("@Redfish.OperationApplyTime", d.applyTime)
			}
			resp, err := sys.b.blocking(ctx, "DELETE", d.vol.path, payload, d.applyTime == "Immediate")
			if err != nil {
				return false, asFault(err)
			}
			if resp.status == 202 {
				m, err := taskMonitorURI(resp, d.vol.path)
				if err != nil {
					return false, asFault(err)
				}
				uris, _ := configs.Get("task_monitor_uri").([]any)
				configs.Set("task_monitor_uri", append(uris, m))
				reboot = true
			}
		}
	}
	if reboot {
		task.DriverInternalInfo().Set("raid_configs", configs)
	}
	return reboot, nil
}

// updateRAIDConfig is raid.update_raid_config: the volumes that have a
// RAID type become the node's raid_config (raid.update_raid_info).
func (r *RAID) updateRAIDConfig(ctx context.Context, task drivers.Task) error {
	sys, done, err := r.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	view, err := sys.storageView(ctx)
	if err != nil {
		return asFault(err)
	}
	var lds []any
	var noType []string
	for _, st := range view.members {
		vols, err := volumesOf(ctx, sys.b, st)
		if err != nil {
			return asFault(err)
		}
		for _, v := range vols {
			rt := mapped(v.raw.Get("RAIDType"), raidTypes)
			if rt == "" {
				noType = append(noType, str(v.raw, "Id"))
				continue
			}
			level := ""
			for _, k := range raidLevelOrder {
				if raidLevels[k].raidType == rt {
					level = k
					break
				}
			}
			if level == "" {
				return ironic.Errorf(ironic.IronicException, "StopIteration")
			}
			c, err := intOrNone(v.path, "CapacityBytes", v.raw.Get("CapacityBytes"))
			if err != nil {
				return asFault(err)
			}
			capacity, _ := c.(int64)
			lds = append(lds, pyjson.DictOf(
				"id", v.raw.Get("Id"),
				"name", v.raw.Get("Name"),
				"controller", st.raw.Get("Id"),
				"size_gb", int64(float64(capacity)/gib),
				"raid_level", level,
			))
		}
	}
	if len(noType) > 0 {
		r.c.log.WarnContext(ctx, "Unable to update raid_config for volumes missing RAID type: "+strings.Join(noType, ", "))
	}
	if lds == nil {
		lds = []any{}
	}
	return r.c.updateRAIDInfo(ctx, task, pyjson.DictOf("logical_disks", lds))
}

// updateRAIDInfo is ironic.common.raid.update_raid_info.
func (c *core) updateRAIDInfo(ctx context.Context, task drivers.Task, cfg *pyjson.Dict) error {
	current := cfg.Clone()
	current.Set("last_updated", pyDatetime(c.now().UTC()))
	rc := task.RAIDConfig()
	rc.Clear()
	rc.Update(current)
	var root *pyjson.Dict
	list, _ := cfg.Get("logical_disks").([]any)
	roots := 0
	for _, v := range list {
		if d, ok := pyjson.AsDict(v); ok && pyjson.Truthy(d.Get("is_root_volume")) {
			roots++
			root = d
		}
	}
	if roots > 1 {
		return drivers.InvalidParameter("Raid config cannot have more than one root volume. %d root volumes were specified", roots)
	}
	if root != nil {
		props := task.Properties()
		if !isMax(root.Get("size_gb")) {
			props.Set("local_gb", root.Get("size_gb"))
		}
		if h, ok := root.Lookup("root_device_hint"); ok {
			props.Set("root_device", h)
		}
		caps, err := updatedCapabilities(capabilitiesOf(props), "raid_level", py.Str(root.Get("raid_level")))
		if err != nil {
			return err
		}
		props.Set("capabilities", caps)
	}
	return task.Save(ctx)
}

// NodePeriodics are _query_raid_config_status (nodes waiting for RAID
// changes a BMC applies at reset) and _query_raid_config_failed (nodes
// whose step failed meanwhile).
func (r *RAID) NodePeriodics() []drivers.NodePeriodic {
	hasConfigs := func(dii *pyjson.Dict) bool { return pyjson.Truthy(dii.Get("raid_configs")) }
	yes := true
	return []drivers.NodePeriodic{
		{Name: "checking async RAID config tasks", Interval: r.c.cfg.RAIDConfigStatusInterval,
			ProvisionStates: []states.Provision{states.CleanWait, states.DeployWait}, Predicate: hasConfigs,
			Run: r.checkRAIDConfig},
		{Name: "checking async RAID config failed", Interval: r.c.cfg.RAIDConfigFailInterval,
			ProvisionStates: []states.Provision{states.CleanFailed, states.DeployFailed}, Maintenance: &yes,
			Predicate: hasConfigs, Run: r.raidConfigFailed},
	}
}

// raidConfigFailed is _query_raid_config_failed: the remaining RAID work
// is forgotten, so that it doesn't go on when the node leaves
// maintenance, and the volumes there recorded.
func (r *RAID) raidConfigFailed(ctx context.Context, task drivers.Task) error {
	r.c.log.WarnContext(ctx, "RAID configuration failed; discarding remaining RAID configurations", "node", task.NodeUUID())
	if err := task.UpgradeLock(ctx); err != nil {
		return err
	}
	task.DriverInternalInfo().Delete("raid_configs")
	if err := task.Save(ctx); err != nil {
		return err
	}
	return r.updateRAIDConfig(ctx, task)
}

// inProgress is _raid_config_in_progress: whether the task monitor still
// answers 202. A monitor that can't be read is taken as done.
func (r *RAID) inProgress(ctx context.Context, task drivers.Task, uri, operation string) bool {
	info, err := ParseDriverInfo(task, r.c.cfg)
	if err != nil {
		return false
	}
	var resp *response
	var b *bmc
	cn, err := r.c.withConnection(ctx, task, info, func(bm *bmc) error {
		resp, err = bm.get(ctx, uri)
		b = bm
		return err
	})
	if err != nil {
		r.c.log.InfoContext(ctx, fmt.Sprintf("Unable to get status of RAID %s task %s to node %s; assuming task completed successfully",
			operation, uri, task.NodeUUID()), "error", err)
		return false
	}
	defer cn.release()
	if resp.status == http.StatusAccepted {
		r.c.log.DebugContext(ctx, "RAID task still in progress", "operation", operation, "task", uri, "node", task.NodeUUID())
		return true
	}
	t, err := b.get(ctx, uri)
	if err != nil {
		r.c.log.WarnContext(ctx, "reading the RAID task", "task", uri, "node", task.NodeUUID(), "error", err)
		return false
	}
	d := t.dict()
	var msgs []string
	list, _ := d.Get("Messages").([]any)
	for _, m := range list {
		if md, ok := pyjson.AsDict(m); ok {
			msgs = append(msgs, pyStrOf(md.Get("Message")))
		}
	}
	st, status := d.Get("TaskState"), d.Get("TaskStatus")
	if st == "Completed" && (status == "OK" || status == "Warning") {
		r.c.log.InfoContext(ctx, fmt.Sprintf("RAID %s task %s to node %s completed.", operation, uri, task.NodeUUID()))
	} else {
		r.c.log.ErrorContext(ctx, fmt.Sprintf("RAID %s task %s to node %s failed; messages: %s", operation, uri, task.NodeUUID(), strings.Join(msgs, ", ")))
	}
	return false
}

// checkRAIDConfig is _check_node_raid_config: once the BMC's tasks are
// done, the pending volumes are submitted (another reboot when the BMC
// wants one) or, with none left, the volumes are recorded and the clean
// or deploy steps resume.
func (r *RAID) checkRAIDConfig(ctx context.Context, task drivers.Task) error {
	if err := task.UpgradeLock(ctx); err != nil {
		return err
	}
	dii := task.DriverInternalInfo()
	configs, ok := pyjson.AsDict(dii.Get("raid_configs"))
	if !ok {
		return nil
	}
	operation := pyStrOf(configs.Get("operation"))
	uris, _ := configs.Get("task_monitor_uri").([]any)
	var still []any
	for _, u := range uris {
		if r.inProgress(ctx, task, pyStrOf(u), operation) {
			still = append(still, u)
		}
	}
	if still == nil {
		still = []any{}
	}
	configs.Set("task_monitor_uri", still)
	dii.Set("raid_configs", configs)
	if err := task.Save(ctx); err != nil {
		return err
	}
	if len(still) > 0 {
		return nil
	}
	if pending := configs.Get("pending"); pyjson.Truthy(pending) {
		var reboot bool
		var err error
		if operation == "create" {
			reboot, err = r.submitCreate(ctx, task, pendingGroups(pending))
		} else {
			reboot, err = r.submitDelete(ctx, task)
		}
		if err != nil {
			return err
		}
		if reboot {
			_, err := deployutil.RebootToFinishStep(ctx, task)
			return err
		}
		// Ironic leaves raid_configs as it was here and submits the
		// same volumes again on its next pass; all are submitted now.
	}
	dii.Delete("raid_configs")
	if err := task.Save(ctx); err != nil {
		return err
	}
	r.c.log.InfoContext(ctx, "RAID configuration completed for node "+task.NodeUUID())
	if err := r.updateRAIDConfig(ctx, task); err != nil {
		return err
	}
	return task.ContinueSteps(ctx, deployutil.StepPhase(task))
}

// pendingGroups reads raid_configs' pending logical disks, by controller.
func pendingGroups(v any) []controllerGroup {
	d, _ := pyjson.AsDict(v)
	var out []controllerGroup
	for k, list := range d.All() {
		g := controllerGroup{controller: k}
		items, _ := list.([]any)
		for _, it := range items {
			if ld, ok := pyjson.AsDict(it); ok {
				g.disks = append(g.disks, ld)
			}
		}
		out = append(out, g)
	}
	return out
}
