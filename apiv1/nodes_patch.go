package apiv1

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/states"
)

// nodePatchAllowed is PATCH_ALLOWED_FIELDS.
var nodePatchAllowed = []string{"automated_clean", "bios_interface", "boot_interface", "chassis_uuid",
	"conductor_group", "console_interface", "deploy_interface", "description", "driver", "driver_info",
	"extra", "inspect_interface", "instance_info", "instance_uuid", "lessee", "maintenance",
	"management_interface", "name", "network_data", "network_interface", "owner", "power_interface",
	"properties", "protected", "protected_reason", "raid_interface", "rescue_interface", "resource_class",
	"retired", "retired_reason", "shard", "storage_interface", "vendor_interface"}

// nodeDoc is the patchable document of a node: its object fields (as
// Node.as_dict) plus chassis_uuid.
func nodeDoc(n *models.Node, chassisUUID any) map[string]any {
	d := make(map[string]any, 64)
	for _, f := range nodeObjectFields {
		d[f] = deepCopy(nodeFieldValue(n, f))
	}
	d["uuid"] = n.UUID
	d["id"] = n.ID
	d["chassis_uuid"] = chassisUUID
	return d
}

// deepCopy copies decoded JSON so a patch can't touch the node's maps.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	case []string:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = e
		}
		return s
	}
	return v
}

// nodePatchArgs are NodesController.patch's parameters.
var nodePatchArgs = params(req("node_ident", uuidOrNameArg), opt("reset_interfaces", boolArg),
	opt("patch", bodyOf("array"))).takesBody("patch")

// patchNode is NodesController.patch (below a chassis, the arguments are
// checked and the patch refused).
func (a *API) patchNode(rq *Request) (*Response, error) { return a.patchNodeFrom(rq, false) }

func (a *API) patchNodeFrom(rq *Request, fromChassis bool) (*Response, error) {
	b, err := nodePatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, reset := b.ident("node_ident"), b.boolean("reset_interfaces")
	ops, err := a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	v := rq.Ver
	if reset != nil && !v.AtLeast(mv.ResetInterfaces) {
		return nil, notAcceptable()
	}
	if fromChassis {
		return nil, operationNotPermitted()
	}
	// _validate_patch
	if err := checkPatchAllowed(ops, nodePatchAllowed); err != nil {
		return nil, err
	}
	for _, f := range versionedNodeFields {
		if !nodeFieldAllowed(v, f) && len(patchValues(ops, "/"+f)) > 0 {
			return nil, notAcceptable()
		}
	}
	if reset != nil && *reset && len(patchValues(ops, "/driver")) == 0 {
		return nil, ironic.Errorf(ironic.Invalid, "The reset_interfaces parameter can only be used when changing the node's driver.")
	}
	if d := patchValues(ops, "/description"); len(d) > 0 {
		if s, ok := d[0].(string); ok && len([]rune(s)) > 4096 {
			return nil, ironic.Errorf(ironic.Invalid, "Cannot update node with description exceeding 4096 characters")
		}
	}
	for _, nd := range patchValues(ops, "/network_data") {
		if verr := a.schemas.networkData.Validate(nd); verr != nil {
			return nil, ironic.Errorf(ironic.Invalid, "Invalid network_data: %s ", verr.Message)
		}
	}
	policies := nodePatchPolicies(ops)
	n, err := a.nodeForAll(rq, ident, policies)
	if err != nil {
		return nil, err
	}
	defer a.lockNode(n.UUID)()
	// Read again under the lock: another PATCH may have just changed it.
	if n, err = a.nodeForAll(rq, ident, policies); err != nil {
		return nil, err
	}
	removeInstanceOnly := len(ops) == 1 && ops[0].Op == "remove" && ops[0].Path == "/instance_uuid"
	switch {
	case n.Maintenance && removeInstanceOnly:
	case n.TargetProvisionState != nil && n.ProvisionState != nil && !states.UpdateAllowed(*n.ProvisionState):
		return nil, (&ironic.Fault{Class: ironic.Conflict,
			Message: "Node " + ident + " can not be updated while a state transition is in progress."})
	case n.ProvisionState != nil && *n.ProvisionState == states.Inspecting && v.AtLeast(mv.InspectWait):
		return nil, &ironic.Fault{Class: ironic.Conflict,
			Message: "Cannot update node \"" + n.UUID + "\" while it is in state \"inspecting\"."}
	}
	if err := a.checkOwnerChange(rq, n, ops); err != nil {
		return nil, err
	}
	if names := patchValues(ops, "/name"); len(names) > 0 {
		strs := make([]string, 0, len(names))
		for _, x := range names {
			if s, ok := x.(string); ok {
				strs = append(strs, s)
			}
		}
		if err := a.checkNodeNames(v, strs, "Node "+ident+": Cannot change name to invalid name '%s'"); err != nil {
			return nil, err
		}
	}
	ctx := rq.Ctx()
	var chassisUUID any
	if n.ChassisID != nil {
		if c, err := a.d.Store.GetChassisByID(ctx, *n.ChassisID); err == nil {
			chassisUUID = c.UUID
		}
	}
	orig := nodeDoc(n, chassisUUID)
	doc, err := applyPatch(nodeDoc(n, chassisUUID), ops)
	if err != nil {
		return nil, err
	}
	// patched_validate_with_schema: keep only schema fields, then validate.
	patched := map[string]any{}
	for _, f := range append([]string{"uuid"}, nodePatchAllowed...) {
		if val, ok := doc[f]; ok {
			patched[f] = val
		}
	}
	if verr := a.schemas.nodePatch.Validate(patched); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("patch"))
	}
	if err := validateNodeExtra(patched); err != nil {
		return nil, err
	}
	// _update_changed_fields
	var changes []string
	if cu, _ := patched["chassis_uuid"].(string); cu != "" {
		if cu != chassisUUID {
			ch, err := a.d.Store.GetChassisByUUID(ctx, cu)
			if err != nil {
				return nil, as400(err, ironic.ChassisNotFound)
			}
			n.ChassisID = &ch.ID
			changes = append(changes, "chassis_id")
		}
	} else if n.ChassisID != nil {
		if !v.AtLeast(mv.UnsetChassisUUID) {
			return nil, notAcceptable()
		}
		n.ChassisID = nil
		changes = append(changes, "chassis_id")
	}
	if g, ok := patched["conductor_group"].(string); ok {
		patched["conductor_group"] = lower(g)
	} else {
		patched["conductor_group"] = ""
	}
	if patched["protected"] == nil {
		patched["protected"] = false
	}
	for _, f := range nodePatchAllowed {
		if f == "chassis_uuid" {
			continue
		}
		nv := patched[f]
		if reflect.DeepEqual(normalizeEmpty(f, nv), normalizeEmpty(f, orig[f])) {
			continue
		}
		if err := setNodeField(n, f, nv); err != nil {
			return nil, err
		}
		changes = append(changes, f)
	}
	updated, err := a.updateNodeViaConductorChecked(rq, n, changes, reset != nil && *reset, ident)
	if err != nil {
		return nil, err
	}
	o, err := a.newNodeRenderer(rq, nil).render(ctx, updated)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// normalizeEmpty maps the empty value of dict fields to {} so that a
// patch to null and an untouched {} compare equal, as the object fields
// coerce them.
func normalizeEmpty(f string, v any) any {
	switch f {
	case "driver_info", "extra", "instance_info", "properties", "network_data":
		if v == nil {
			return map[string]any{}
		}
	}
	return v
}

// updateNodeViaConductorChecked sends the update, refusing a driver change
// while the console is enabled.
func (a *API) updateNodeViaConductorChecked(rq *Request, n *models.Node, changes []string, reset bool, ident string) (*models.Node, error) {
	for _, c := range changes {
		if c == "driver" && n.ConsoleEnabled {
			return nil, &ironic.Fault{Class: ironic.ClientSideError, Status: http.StatusConflict,
				Message: "Node " + ident + " can not update the driver while the console is enabled. Please stop the console first."}
		}
	}
	return a.updateNodeViaConductor(rq.Ctx(), n, changes, reset)
}

// setNodeField writes a validated patch value onto the node.
func setNodeField(n *models.Node, f string, v any) error {
	str := func() *string {
		if s, ok := v.(string); ok {
			return &s
		}
		return nil
	}
	dict := func() models.JSONDict {
		if d, ok := v.(map[string]any); ok {
			return d
		}
		return models.JSONDict{}
	}
	boolp := func() *bool {
		if b, ok := v.(bool); ok {
			return &b
		}
		return nil
	}
	switch f {
	case "automated_clean":
		n.AutomatedClean = boolp()
	case "conductor_group":
		n.ConductorGroup, _ = v.(string)
	case "description":
		n.Description = str()
	case "driver":
		n.Driver, _ = v.(string)
	case "driver_info":
		n.DriverInfo = dict()
	case "extra":
		n.Extra = dict()
	case "instance_info":
		n.InstanceInfo = dict()
	case "instance_uuid":
		n.InstanceUUID = str()
	case "lessee":
		n.Lessee = str()
	case "maintenance":
		b := boolp()
		n.Maintenance = b != nil && *b
	case "name":
		n.Name = str()
	case "network_data":
		n.NetworkData = dict()
	case "owner":
		n.Owner = str()
	case "properties":
		n.Properties = dict()
	case "protected":
		b := boolp()
		n.Protected = b != nil && *b
	case "protected_reason":
		n.ProtectedReason = str()
	case "resource_class":
		n.ResourceClass = str()
	case "retired":
		n.Retired = boolp()
	case "retired_reason":
		n.RetiredReason = str()
	case "shard":
		n.Shard = str()
	default:
		for _, k := range interfaceKinds {
			if f == k+"_interface" {
				setNodeInterface(n, k, str())
				return nil
			}
		}
		return ironic.Errorf(ironic.Invalid, "Cannot patch /%s", f)
	}
	return nil
}

// nodePatchPolicies is _authorize_patch_and_get_node's choice of rules:
// one per patch operation, by the path it changes, with
// baremetal:node:update for any other field (and when there is none).
func nodePatchPolicies(ops []patchOp) []string {
	var rules []string
	generic := false
	for _, op := range ops {
		p := op.Path
		has := func(prefix string) bool { return strings.HasPrefix(p, prefix) }
		switch {
		case has("/instance_info"):
			rules = append(rules, "baremetal:node:update_instance_info")
		case has("/extra"):
			rules = append(rules, "baremetal:node:update_extra")
		case has("/automated_clean") && disablesCleaning(op):
			rules = append(rules, "baremetal:node:disable_cleaning")
		case has("/driver_info"):
			rules = append(rules, "baremetal:node:update:driver_info")
		case has("/properties"):
			rules = append(rules, "baremetal:node:update:properties")
		case has("/chassis_uuid"):
			rules = append(rules, "baremetal:node:update:chassis_uuid")
		case has("/instance_uuid"):
			rules = append(rules, "baremetal:node:update:instance_uuid")
		case has("/lessee"):
			rules = append(rules, "baremetal:node:update:lessee")
		case has("/owner"):
			rules = append(rules, "baremetal:node:update:owner")
		case has("/driver"), isInterfaceField(p):
			rules = append(rules, "baremetal:node:update:driver_interfaces")
		case has("/network_data"):
			rules = append(rules, "baremetal:node:update:network_data")
		case has("/conductor_group"):
			rules = append(rules, "baremetal:node:update:conductor_group")
		case has("/name"):
			rules = append(rules, "baremetal:node:update:name")
		case has("/retired"):
			rules = append(rules, "baremetal:node:update:retired")
		case has("/shard"):
			rules = append(rules, "baremetal:node:update:shard")
		case has("/maintenance"):
			rules = append(rules, "baremetal:node:set_maintenance")
		default:
			generic = true
		}
	}
	if generic || len(rules) == 0 {
		rules = append(rules, "baremetal:node:update")
	}
	return rules
}

// disablesCleaning is bool_from_string(value, default=None) is False.
func disablesCleaning(op patchOp) bool {
	switch v := op.Value.(type) {
	case bool:
		return !v
	case string:
		b, err := parseBool("automated_clean", v)
		return err == nil && !b
	}
	return false
}

// isInterfaceField reports whether path is "/<interface>_interface" for
// one of Ironic's hardware interfaces (driver_base.ALL_INTERFACES).
func isInterfaceField(path string) bool {
	i := strings.LastIndexByte(path, '_')
	if i < 0 || path[i+1:] != "interface" {
		return false
	}
	switch strings.TrimLeft(path[:i], "/") {
	case "bios", "boot", "console", "deploy", "inspect", "management", "network",
		"power", "raid", "rescue", "storage", "vendor":
		return true
	}
	return false
}

// nodeForAll is check_multiple_node_policies_and_retrieve: the node,
// checked against the first rule as nodeFor does and against the others
// with its owner and lessee as the target.
func (a *API) nodeForAll(rq *Request, ident string, rules []string) (*models.Node, error) {
	n, err := a.nodeFor(rq, rules[0], ident)
	if err != nil {
		return nil, err
	}
	for _, r := range rules[1:] {
		if err := a.d.Policy.Authorize(rq.Ctx(), r, nodeTarget(n)); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// checkOwnerChange refuses a new owner for an active node unless
// baremetal:node:update_owner_provisioned allows it, and for a node whose
// allocation has an owner (409 both).
func (a *API) checkOwnerChange(rq *Request, n *models.Node, ops []patchOp) error {
	if len(patchValues(ops, "/owner")) == 0 {
		return nil
	}
	if models.Deref(n.ProvisionState) == states.Active {
		err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:node:update_owner_provisioned", nodeTarget(n))
		if ironic.IsClass(err, ironic.HTTPForbidden) {
			return &ironic.Fault{Class: ironic.Conflict,
				Message: "Cannot update owner of node \"" + n.UUID + "\" while it is in state \"active\"."}
		}
		if err != nil {
			return err
		}
	}
	if n.AllocationID != nil {
		al, err := a.d.Store.GetAllocationByID(rq.Ctx(), *n.AllocationID)
		switch {
		case ironic.IsClass(err, ironic.AllocationNotFound):
		case err != nil:
			return err
		case al.Owner != nil:
			return &ironic.Fault{Class: ironic.Conflict,
				Message: "Cannot update owner of node \"" + n.UUID + "\" while it is allocated to an allocation with an  owner."}
		}
	}
	return nil
}
