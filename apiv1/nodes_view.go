package apiv1

import (
	"context"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/states"
)

// nodeFieldVersions is Ironic's VERSIONED_FIELDS for nodes: the version at
// which each field appears. Older clients never see it.
func nodeFieldVersion(field string) mv.Version {
	switch field {
	case "driver_internal_info":
		return mv.DriverInternalInfo
	case "name":
		return mv.NodeName
	case "inspection_finished_at", "inspection_started_at":
		return mv.InspectState
	case "clean_step":
		return mv.NodeClean
	case "raid_config", "target_raid_config":
		return mv.RAIDConfig
	case "network_interface":
		return mv.NetworkInterface
	case "resource_class":
		return mv.ResourceClass
	case "storage_interface":
		return mv.StorageInterface
	case "traits":
		return mv.NodeTraits
	case "rescue_interface":
		return mv.RescueInterface
	case "bios_interface":
		return mv.BIOSInterface
	case "fault":
		return mv.Fault
	case "deploy_step":
		return mv.NodeDeployStep
	case "conductor_group":
		return mv.NodeConductorGroup
	case "automated_clean":
		return mv.NodeAutomatedClean
	case "protected", "protected_reason":
		return mv.NodeProtected
	case "conductor":
		return mv.Conductors
	case "owner":
		return mv.NodeOwner
	case "description":
		return mv.NodeDescription
	case "allocation_uuid":
		return mv.Allocation
	case "events":
		return mv.Events
	case "retired", "retired_reason":
		return mv.NodeRetired
	case "lessee":
		return mv.NodeLessee
	case "network_data":
		return mv.NodeNetworkData
	case "boot_mode", "secure_boot":
		return mv.NodeBootMode
	case "shard":
		return mv.NodeShard
	case "boot_interface", "console_interface", "deploy_interface", "inspect_interface",
		"management_interface", "power_interface", "raid_interface", "vendor_interface":
		return mv.DynamicInterfaces
	}
	return mv.InitialVersion
}

// versionedNodeFields lists the fields of VERSIONED_FIELDS in Ironic's
// (dict) order, for the checks that iterate it.
var versionedNodeFields = [...]string{"driver_internal_info", "name", "inspection_finished_at",
	"inspection_started_at", "clean_step", "raid_config", "target_raid_config", "network_interface",
	"resource_class", "storage_interface", "traits", "rescue_interface", "bios_interface", "fault",
	"deploy_step", "conductor_group", "automated_clean", "protected", "protected_reason", "conductor",
	"owner", "description", "allocation_uuid", "events", "retired", "retired_reason", "lessee",
	"network_data", "boot_mode", "secure_boot", "shard", "boot_interface", "console_interface",
	"deploy_interface", "inspect_interface", "management_interface", "power_interface",
	"raid_interface", "vendor_interface"}

// nodeFieldAllowed reports whether field exists at version v.
func nodeFieldAllowed(v mv.Version, field string) bool { return v.AtLeast(nodeFieldVersion(field)) }

// checkNodeFieldsAllowed is check_allowed_fields: 406 for a field newer
// than the request.
func checkNodeFieldsAllowed(v mv.Version, fields []string) error {
	for _, f := range fields {
		if !nodeFieldAllowed(v, f) {
			return notAcceptable()
		}
	}
	return nil
}

func notAcceptable() error { return ironic.Errorf(ironic.NotAcceptable, "Request not acceptable.") }

// nodeObjectFields are the node object fields the API shows, in the order
// Ironic's _get_fields_for_node_query lists them.
var nodeObjectFields = [...]string{"automated_clean", "bios_interface", "boot_interface", "boot_mode",
	"clean_step", "conductor_group", "console_enabled", "console_interface", "deploy_interface",
	"deploy_step", "description", "driver", "driver_info", "driver_internal_info", "extra", "fault",
	"inspection_finished_at", "inspection_started_at", "inspect_interface", "instance_info",
	"instance_uuid", "last_error", "lessee", "maintenance", "maintenance_reason",
	"management_interface", "name", "network_data", "network_interface", "owner", "power_interface",
	"power_state", "properties", "protected", "protected_reason", "provision_state",
	"provision_updated_at", "raid_config", "raid_interface", "rescue_interface", "reservation",
	"resource_class", "retired", "retired_reason", "secure_boot", "shard", "storage_interface",
	"target_power_state", "target_provision_state", "target_raid_config", "traits", "vendor_interface"}

// isNodeQueryField reports whether ?fields= may name f.
func isNodeQueryField(f string) bool {
	switch f {
	case "uuid", "traits", "allocation_uuid", "chassis_uuid", "conductor":
		return true
	}
	return slices.Contains(nodeObjectFields[:], f)
}

// isoTime renders a timestamp as Python's isoformat() of an aware UTC
// datetime.
func isoTime(t models.Time) any {
	if !t.Valid() {
		return nil
	}
	u := t.UTC()
	if u.Nanosecond()/1000 == 0 {
		return u.Format("2006-01-02T15:04:05+00:00")
	}
	return u.Format("2006-01-02T15:04:05.000000+00:00")
}

func strOrNil[S ~string](p *S) any {
	if p == nil {
		return nil
	}
	return string(*p)
}

func boolOrNil(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func dictOrEmpty(d models.JSONDict) any {
	if d.IsNil() {
		return pyjson.NewDict(0)
	}
	return d.Dict
}

// nodeFieldValue is the API value of one node object field.
func nodeFieldValue(n *models.Node, f string) any {
	switch f {
	case "uuid":
		return n.UUID
	case "created_at":
		return isoTime(n.CreatedAt)
	case "updated_at":
		return isoTime(n.UpdatedAt)
	case "automated_clean":
		return boolOrNil(n.AutomatedClean)
	case "bios_interface":
		return strOrNil(n.BIOSInterface)
	case "boot_interface":
		return strOrNil(n.BootInterface)
	case "boot_mode":
		return strOrNil(n.BootMode)
	case "clean_step":
		return dictOrEmpty(n.CleanStep)
	case "conductor_group":
		return n.ConductorGroup
	case "console_enabled":
		return n.ConsoleEnabled
	case "console_interface":
		return strOrNil(n.ConsoleInterface)
	case "deploy_interface":
		return strOrNil(n.DeployInterface)
	case "deploy_step":
		return dictOrEmpty(n.DeployStep)
	case "description":
		return strOrNil(n.Description)
	case "driver":
		return n.Driver
	case "driver_info":
		return dictOrEmpty(n.DriverInfo)
	case "driver_internal_info":
		return dictOrEmpty(n.DriverInternalInfo)
	case "extra":
		return dictOrEmpty(n.Extra)
	case "fault":
		return strOrNil(n.Fault)
	case "inspection_finished_at":
		return isoTime(n.InspectionFinishedAt)
	case "inspection_started_at":
		return isoTime(n.InspectionStartedAt)
	case "inspect_interface":
		return strOrNil(n.InspectInterface)
	case "instance_info":
		return dictOrEmpty(n.InstanceInfo)
	case "instance_uuid":
		return strOrNil(n.InstanceUUID)
	case "last_error":
		return strOrNil(n.LastError)
	case "lessee":
		return strOrNil(n.Lessee)
	case "maintenance":
		return n.Maintenance
	case "maintenance_reason":
		return strOrNil(n.MaintenanceReason)
	case "management_interface":
		return strOrNil(n.ManagementInterface)
	case "name":
		return strOrNil(n.Name)
	case "network_data":
		return dictOrEmpty(n.NetworkData)
	case "network_interface":
		return strOrNil(n.NetworkInterface)
	case "owner":
		return strOrNil(n.Owner)
	case "power_interface":
		return strOrNil(n.PowerInterface)
	case "power_state":
		return strOrNil(n.PowerState)
	case "properties":
		return dictOrEmpty(n.Properties)
	case "protected":
		return n.Protected
	case "protected_reason":
		return strOrNil(n.ProtectedReason)
	case "provision_state":
		return strOrNil(n.ProvisionState)
	case "provision_updated_at":
		return isoTime(n.ProvisionUpdatedAt)
	case "raid_config":
		return dictOrEmpty(n.RAIDConfig)
	case "raid_interface":
		return strOrNil(n.RAIDInterface)
	case "rescue_interface":
		return strOrNil(n.RescueInterface)
	case "reservation":
		return strOrNil(n.Reservation)
	case "resource_class":
		return strOrNil(n.ResourceClass)
	case "retired":
		return boolOrNil(n.Retired)
	case "retired_reason":
		return strOrNil(n.RetiredReason)
	case "secure_boot":
		return boolOrNil(n.SecureBoot)
	case "shard":
		return strOrNil(n.Shard)
	case "storage_interface":
		return strOrNil(n.StorageInterface)
	case "target_power_state":
		return strOrNil(n.TargetPowerState)
	case "target_provision_state":
		return strOrNil(n.TargetProvisionState)
	case "target_raid_config":
		return dictOrEmpty(n.TargetRAIDConfig)
	case "traits":
		return n.TraitNames()
	case "vendor_interface":
		return strOrNil(n.VendorInterface)
	}
	return nil
}

// nodeRenderer renders nodes for one request: the policy answers, the
// field order and the key prefixes are worked out once per request, not
// once per node.
type nodeRenderer struct {
	a      *API
	rq     *Request
	base   string
	fields []string // nil: every field
	// showDriverSecrets/showInstanceSecrets are the show_password and
	// show_instance_secrets policies.
	showDriverSecrets   bool
	showInstanceSecrets bool
	chassis             map[int64]string
	allocations         map[int64]string
	// order is the object fields to write, in Ironic's order, already
	// filtered by the request's fields and version.
	order                               []string
	conductor, allocation, chassisField bool
	subLinks                            []string
}

func (a *API) newNodeRenderer(rq *Request, fields []string) *nodeRenderer {
	ctx := rq.Ctx()
	nr := &nodeRenderer{
		a: a, rq: rq, base: rq.BaseURL(), fields: fields,
		showDriverSecrets:   a.d.Policy.Check(ctx, "show_password", nil),
		showInstanceSecrets: a.d.Policy.Check(ctx, "show_instance_secrets", nil),
		chassis:             map[int64]string{},
		allocations:         map[int64]string{},
	}
	v := rq.Ver
	var order []string
	if fields == nil {
		order = append([]string{"uuid", "created_at", "updated_at"}, nodeObjectFields[:]...)
	} else {
		order = []string{"uuid", "created_at", "updated_at"}
		for _, f := range fields {
			switch f {
			case "allocation_uuid", "chassis_uuid", "conductor", "uuid", "created_at", "updated_at":
				continue
			}
			if !slices.Contains(order, f) {
				order = append(order, f)
			}
		}
	}
	// sanitize_dict keeps only requested fields; hide_fields_in_newer_versions
	// drops fields newer than the request.
	for _, f := range order {
		if nr.wants(f) && nodeFieldAllowed(v, f) {
			nr.order = append(nr.order, f)
		}
	}
	nr.conductor = v.AtLeast(mv.Conductors) && nr.wants("conductor")
	nr.allocation = v.AtLeast(mv.Allocation) && nr.wants("allocation_uuid")
	nr.chassisField = nr.wants("chassis_uuid")
	if fields == nil {
		nr.subLinks = []string{"ports"}
		if v.AtLeast(mv.LinksNodestatesDriverproperties) {
			nr.subLinks = append(nr.subLinks, "states")
		}
		if v.AtLeast(mv.PortgroupsSubcontrollers) {
			nr.subLinks = append(nr.subLinks, "portgroups")
		}
		if v.AtLeast(mv.Volume) {
			nr.subLinks = append(nr.subLinks, "volume")
		}
	}
	return nr
}

func (nr *nodeRenderer) wants(f string) bool {
	return nr.fields == nil || slices.Contains(nr.fields, f)
}

// nodeJSON is one node as the API shows it (node_convert_with_links plus
// node_sanitize); it writes itself straight into the response buffer.
type nodeJSON struct {
	nr                               *nodeRenderer
	n                                *models.Node
	conductor, allocation, chassisID any
}

// render resolves what a node's view needs from elsewhere (its conductor,
// allocation and chassis) and returns the view.
func (nr *nodeRenderer) render(ctx context.Context, n *models.Node) (any, error) {
	nv := &nodeJSON{nr: nr, n: n}
	if nr.conductor {
		host, err := nr.a.d.Conductor.ConductorFor(ctx, n)
		switch {
		case err == nil:
			nv.conductor = host
		case ironic.IsClass(err, ironic.NoValidHost) || ironic.IsClass(err, ironic.TemporaryFailure):
		default:
			return nil, err
		}
	}
	if nr.allocation && n.AllocationID != nil {
		u, err := nr.allocationUUID(ctx, *n.AllocationID)
		if err != nil {
			return nil, err
		}
		if u != "" {
			nv.allocation = u
		}
	}
	if nr.chassisField && n.ChassisID != nil {
		u, err := nr.chassisUUID(ctx, *n.ChassisID)
		if err != nil {
			return nil, err
		}
		if u != "" {
			nv.chassisID = u
		}
	}
	return nv, nil
}

// value is the shown value of object field f: masked, renamed for old
// clients.
func (nv *nodeJSON) value(f string) any {
	n, nr := nv.n, nv.nr
	switch f {
	case "driver_info":
		if !nr.showDriverSecrets {
			if m := nr.a.masker.MaskDict(n.DriverInfo.Dict, "******"); m != nil {
				return m
			}
			return pyjson.NewDict(0)
		}
	case "instance_info":
		if !nr.showInstanceSecrets {
			ii := nr.a.masker.MaskDict(n.InstanceInfo.Dict, "******")
			if pyjson.Truthy(ii.Get("configdrive")) || pyjson.Truthy(ii.Get("image_url")) {
				ii = ii.Clone()
				if pyjson.Truthy(ii.Get("configdrive")) {
					ii.Set("configdrive", "******")
				}
				if pyjson.Truthy(ii.Get("image_url")) {
					ii.Set("image_url", "******")
				}
			}
			if ii == nil {
				return pyjson.NewDict(0)
			}
			return ii
		}
	case "driver_internal_info":
		if pyjson.Truthy(n.DriverInternalInfo.Get("agent_secret_token")) {
			d := n.DriverInternalInfo.Dict.Clone()
			d.Set("agent_secret_token", "******")
			return d
		}
	case "provision_state":
		return legacyProvisionState(nr.rq.Ver, n.ProvisionState)
	}
	return nodeFieldValue(n, f)
}

func appendKey(dst []byte, first bool, k string) []byte {
	if !first {
		dst = append(dst, ", "...)
	}
	dst = pyjson.AppendString(dst, k)
	return append(dst, ": "...)
}

// appendLinkPair writes [self, bookmark] links to base/<path...>.
func appendLinkPair(dst []byte, base string, path ...string) []byte {
	dst = append(dst, `[{"href": "`...)
	dst = appendURL(dst, base, "/v1/", path)
	dst = append(dst, `", "rel": "self"}, {"href": "`...)
	dst = appendURL(dst, base, "/", path)
	return append(dst, `", "rel": "bookmark"}]`...)
}

func appendURL(dst []byte, base, sep string, path []string) []byte {
	dst = pyjson.AppendEscaped(dst, base)
	dst = append(dst, sep...)
	for _, p := range path {
		dst = pyjson.AppendEscaped(dst, p)
	}
	return dst
}

// AppendPyJSON writes the node in Ironic's key order. Scalar fields are
// written straight from the row (no boxing); dicts and the masked or
// renamed fields go through value.
func (nv *nodeJSON) AppendPyJSON(dst []byte) ([]byte, error) {
	n, nr := nv.n, nv.nr
	dst = append(dst, '{')
	var err error
	for i, f := range nr.order {
		dst = appendKey(dst, i == 0, f)
		switch f {
		case "uuid":
			dst = pyjson.AppendString(dst, n.UUID)
		case "driver":
			dst = pyjson.AppendString(dst, n.Driver)
		case "conductor_group":
			dst = pyjson.AppendString(dst, n.ConductorGroup)
		case "created_at":
			dst = appendTime(dst, n.CreatedAt)
		case "updated_at":
			dst = appendTime(dst, n.UpdatedAt)
		case "provision_updated_at":
			dst = appendTime(dst, n.ProvisionUpdatedAt)
		case "inspection_started_at":
			dst = appendTime(dst, n.InspectionStartedAt)
		case "inspection_finished_at":
			dst = appendTime(dst, n.InspectionFinishedAt)
		case "maintenance":
			dst = appendBool(dst, n.Maintenance)
		case "console_enabled":
			dst = appendBool(dst, n.ConsoleEnabled)
		case "protected":
			dst = appendBool(dst, n.Protected)
		case "automated_clean":
			dst = appendBoolPtr(dst, n.AutomatedClean)
		case "retired":
			dst = appendBoolPtr(dst, n.Retired)
		case "secure_boot":
			dst = appendBoolPtr(dst, n.SecureBoot)
		case "driver_info":
			if nr.showDriverSecrets {
				dst, err = n.DriverInfo.AppendPyJSON(dst)
			} else {
				dst, err = nr.a.masker.AppendMaskedDict(dst, n.DriverInfo.Dict, "******")
			}
		case "properties":
			dst, err = n.Properties.AppendPyJSON(dst)
		case "extra":
			dst, err = n.Extra.AppendPyJSON(dst)
		case "clean_step":
			dst, err = n.CleanStep.AppendPyJSON(dst)
		case "deploy_step":
			dst, err = n.DeployStep.AppendPyJSON(dst)
		case "raid_config":
			dst, err = n.RAIDConfig.AppendPyJSON(dst)
		case "target_raid_config":
			dst, err = n.TargetRAIDConfig.AppendPyJSON(dst)
		case "network_data":
			dst, err = n.NetworkData.AppendPyJSON(dst)
		case "name", "instance_uuid", "power_state", "target_power_state", "target_provision_state",
			"last_error", "maintenance_reason", "reservation", "resource_class", "owner", "lessee",
			"description", "fault", "shard", "boot_mode", "protected_reason", "retired_reason":
			dst = appendStrPtr(dst, nodeStrField(n, f))
		default:
			if strings.HasSuffix(f, "_interface") {
				if p := nodeInterfaceField(n, f); p != nil {
					dst = appendStrPtr(dst, *p)
					continue
				}
			}
			dst, err = pyjson.Append(dst, nv.value(f))
		}
		if err != nil {
			return dst, err
		}
	}
	first := len(nr.order) == 0
	dst = appendKey(dst, first, "links")
	dst = appendLinkPair(dst, nr.base, "nodes/", n.UUID)
	if nr.conductor {
		dst = appendKey(dst, false, "conductor")
		dst, _ = pyjson.Append(dst, nv.conductor)
	}
	if nr.allocation {
		dst = appendKey(dst, false, "allocation_uuid")
		dst, _ = pyjson.Append(dst, nv.allocation)
	}
	if nr.chassisField {
		dst = appendKey(dst, false, "chassis_uuid")
		dst, _ = pyjson.Append(dst, nv.chassisID)
	}
	for _, sub := range nr.subLinks {
		dst = appendKey(dst, false, sub)
		dst = appendLinkPair(dst, nr.base, "nodes/", n.UUID, "/", sub)
	}
	return append(dst, '}'), nil
}

// nodeInterfaceField is the column behind "<kind>_interface", nil for
// another field.
func nodeInterfaceField(n *models.Node, f string) **string {
	k, ok := strings.CutSuffix(f, "_interface")
	if !ok || !slices.Contains(interfaceKinds, k) {
		return nil
	}
	return nodeInterface(n, k)
}

// appendTime writes a timestamp as isoTime does, without allocating.
func appendTime(dst []byte, t models.Time) []byte {
	if !t.Valid() {
		return append(dst, "null"...)
	}
	u := t.UTC()
	dst = append(dst, '"')
	if u.Nanosecond()/1000 == 0 {
		dst = u.AppendFormat(dst, "2006-01-02T15:04:05+00:00")
	} else {
		dst = u.AppendFormat(dst, "2006-01-02T15:04:05.000000+00:00")
	}
	return append(dst, '"')
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

func appendBoolPtr(dst []byte, b *bool) []byte {
	if b == nil {
		return append(dst, "null"...)
	}
	return appendBool(dst, *b)
}

func appendStrPtr(dst []byte, p *string) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return pyjson.AppendString(dst, *p)
}

// nodeStrField is the nullable string column behind field f.
func nodeStrField(n *models.Node, f string) *string {
	switch f {
	case "name":
		return n.Name
	case "instance_uuid":
		return n.InstanceUUID
	case "power_state":
		return (*string)(n.PowerState)
	case "target_power_state":
		return (*string)(n.TargetPowerState)
	case "target_provision_state":
		return (*string)(n.TargetProvisionState)
	case "last_error":
		return n.LastError
	case "maintenance_reason":
		return n.MaintenanceReason
	case "reservation":
		return n.Reservation
	case "resource_class":
		return n.ResourceClass
	case "owner":
		return n.Owner
	case "lessee":
		return n.Lessee
	case "description":
		return n.Description
	case "fault":
		return (*string)(n.Fault)
	case "shard":
		return n.Shard
	case "boot_mode":
		return n.BootMode
	case "protected_reason":
		return n.ProtectedReason
	case "retired_reason":
		return n.RetiredReason
	}
	return nil
}

// chassisUUID and allocationUUID look a related row's UUID up once per
// request; a row that is gone reads as "" (shown as null), as in Ironic.
func (nr *nodeRenderer) chassisUUID(ctx context.Context, id int64) (string, error) {
	return lookupUUID(nr.chassis, id, ironic.ChassisNotFound, func() (string, error) {
		c, err := nr.a.d.Store.GetChassisByID(ctx, id)
		if err != nil {
			return "", err
		}
		return c.UUID, nil
	})
}

func (nr *nodeRenderer) allocationUUID(ctx context.Context, id int64) (string, error) {
	return lookupUUID(nr.allocations, id, ironic.AllocationNotFound, func() (string, error) {
		al, err := nr.a.d.Store.GetAllocationByID(ctx, id)
		if err != nil {
			return "", err
		}
		return al.UUID, nil
	})
}

func lookupUUID(seen map[int64]string, id int64, notFound ironic.Class, get func() (string, error)) (string, error) {
	if u, ok := seen[id]; ok {
		return u, nil
	}
	u, err := get()
	if err != nil {
		if !ironic.IsClass(err, notFound) {
			return "", err
		}
		u = ""
	}
	seen[id] = u
	return u, nil
}

// legacyProvisionState renames states for old clients: "available" is
// null before 1.2, "inspect wait" is "inspecting" before 1.39.
func legacyProvisionState(v mv.Version, s *states.Provision) any {
	if s == nil {
		return nil
	}
	switch {
	case *s == states.Available && !v.AtLeast(mv.AvailableState):
		return nil
	case *s == states.InspectWait && !v.AtLeast(mv.InspectWait):
		return string(states.Inspecting)
	}
	return string(*s)
}
