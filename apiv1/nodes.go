package apiv1

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// nodeStore is the part of the database the node routes read.
type nodeStore interface {
	ListNodes(ctx context.Context, f db.NodeFilter, o db.ListOpts) ([]models.Node, error)
	ListNodeColumns(ctx context.Context, columns []string, f db.NodeFilter, o db.ListOpts) ([]models.Node, error)
	ListNodesShared(ctx context.Context, f db.NodeFilter, o db.ListOpts) ([]models.Node, error)
	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
	GetNodeByName(ctx context.Context, name string) (*models.Node, error)
	GetNodeByID(ctx context.Context, id int64) (*models.Node, error)
	GetChassisByID(ctx context.Context, id int64) (*models.Chassis, error)
	GetChassisByUUID(ctx context.Context, uuid string) (*models.Chassis, error)
	GetAllocationByID(ctx context.Context, id int64) (*models.Allocation, error)
	ListBIOSSettings(ctx context.Context, nodeID int64) ([]models.BIOSSetting, error)
	GetBIOSSetting(ctx context.Context, nodeID int64, name string) (*models.BIOSSetting, error)
	ListNodeHistoryByNode(ctx context.Context, nodeID int64, o db.ListOpts) ([]models.NodeHistory, error)
	GetNodeHistory(ctx context.Context, ref db.Ref) (*models.NodeHistory, error)
	GetNodeInventoryByNodeID(ctx context.Context, nodeID int64) (*models.NodeInventory, error)
	ListShards(ctx context.Context) ([]models.Shard, error)
}

// nodeReservedNames can't be node names: they are the node controller's
// own path words.
var nodeReservedNames = []string{"maintenance", "management", "states", "vendor_passthru", "detail", "validate"}

// defaultNodeFields are the fields of a non-detailed node list.
var defaultNodeFields = []string{"instance_uuid", "maintenance", "power_state", "provision_state", "uuid", "name"}

// nodeSubresourceMin are the sub-resources NodesController._lookup hides
// from older versions (404 in webob's shape).
func nodeSubresourceMin(name string) mv.Version {
	switch name {
	case "portgroups":
		return mv.PortgroupsSubcontrollers
	case "vifs":
		return mv.VIFSSubcontroller
	case "bios":
		return mv.BIOSInterface
	case "allocation":
		return mv.Allocation
	case "history":
		return mv.NodeHistory
	case "inventory":
		return mv.NodeInventory
	}
	return mv.InitialVersion
}

func isNodeSubcontroller(name string) bool {
	switch name {
	case "ports", "portgroups", "vifs", "volume", "traits", "bios", "allocation", "history", "inventory":
		return true
	}
	return false
}

// nodeLookupGate is NodesController._lookup, for any path below /nodes:
// sub-resource names are not node idents, the ident must be a UUID or a
// logical name (args.uuid_or_name, whatever the version), and
// sub-resources newer than the request do not exist.
func (a *API) nodeLookupGate(rq *Request) *ironic.Fault {
	ident := rq.Var("node")
	if isNodeSubcontroller(ident) {
		return ironic.Webob(ironic.NotFound, "")
	}
	if !isName(ident) && !isUUID(ident) {
		return ironic.Webob(ironic.HTTPBadRequest, "Expected UUID or name for node: "+ident)
	}
	sub, _, _ := strings.Cut(rq.below, "/")
	if !rq.Ver.AtLeast(nodeSubresourceMin(sub)) {
		return ironic.Webob(ironic.NotFound, "")
	}
	return nil
}

// findNode is get_rpc_node_with_suffix: a UUID-like ident is looked up by
// UUID, a name by name (from 1.5); with a ".json" suffix stripped from the
// path, a miss is retried with the suffix.
func (a *API) findNode(rq *Request, ident string) (*models.Node, error) {
	n, err := a.findNodeOnce(rq, ident)
	if err != nil && rq.jsonSuffix && ironic.IsClass(err, ironic.NodeNotFound) {
		if n2, err2 := a.findNodeOnce(rq, ident+".json"); err2 == nil {
			return n2, nil
		}
	}
	return n, err
}

// findNodeOnce is get_rpc_node: names from 1.5, hostname-safe ones only
// before 1.10.
func (a *API) findNodeOnce(rq *Request, ident string) (*models.Node, error) {
	ctx := rq.Ctx()
	if isUUID(ident) {
		return a.d.Store.GetNodeByUUID(ctx, ident)
	}
	if rq.Ver.AtLeast(mv.NodeName) {
		if isLogicalName(rq.Ver, ident) {
			return a.d.Store.GetNodeByName(ctx, ident)
		}
		return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received %s.", ident)
	}
	return nil, ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", ident)
}

// nodeTarget is the policy target of check_owner_policy('node', ...):
// node.owner as Python's str() shows it ("None" when unset, also for no
// node at all), node.lessee only when set and not empty.
func nodeTarget(n *models.Node) map[string]string {
	t := map[string]string{"node.owner": "None"}
	if n == nil {
		return t
	}
	if n.Owner != nil {
		t["node.owner"] = *n.Owner
	}
	if n.Lessee != nil && *n.Lessee != "" {
		t["node.lessee"] = *n.Lessee
	}
	return t
}

// authorizeNode is the policy part of check_node_policy_and_retrieve: a
// caller who may not see the node (baremetal:node:get) learns nothing
// of it (NodeNotFound for ident), then policy decides.
func (a *API) authorizeNode(ctx context.Context, policy, ident string, n *models.Node) error {
	target := nodeTarget(n)
	if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", target); err != nil {
		if ironic.IsClass(err, ironic.HTTPForbidden) {
			return ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", ident)
		}
		return err
	}
	if policy == "baremetal:node:get" {
		return nil
	}
	return a.d.Policy.Authorize(ctx, policy, target)
}

// nodeFor is check_node_policy_and_retrieve: the node ident names (as
// bound and validated), under policy.
func (a *API) nodeFor(rq *Request, policy, ident string) (*models.Node, error) {
	n, err := a.findNode(rq, ident)
	if err != nil {
		return nil, err
	}
	if err := a.authorizeNode(rq.Ctx(), policy, ident, n); err != nil {
		return nil, err
	}
	return n, nil
}

// checkListPolicy is check_list_policy: KIND:list_all, or else KIND:list
// for a project-scoped caller, whose project becomes the filter (an
// owner filter naming another project keeps list_all's refusal). It
// returns the project (or owner) to filter by.
func (a *API) checkListPolicy(ctx context.Context, kind string, owner *string) (*string, error) {
	err := a.d.Policy.Authorize(ctx, "baremetal:"+kind+":list_all", nil)
	if err == nil {
		return owner, nil
	}
	if !ironic.IsClass(err, ironic.HTTPForbidden) && !ironic.IsClass(err, ironic.InvalidScope) {
		return nil, err
	}
	project := ironic.FromContext(ctx).ProjectID
	if project == "" || owner != nil && *owner != "" && *owner != project {
		return nil, err
	}
	if err := a.d.Policy.Authorize(ctx, "baremetal:"+kind+":list", nil); err != nil {
		return nil, err
	}
	return &project, nil
}

// nodeListArgs are NodesController.get_all's parameters.
var nodeListArgs = params(opt("chassis_uuid", uuidArg), opt("instance_uuid", uuidArg),
	opt("associated", boolArg), opt("maintenance", boolArg), opt("retired", boolArg),
	opt("provision_state", strArg)).
	and(paging(uuidArg)...).
	and(opt("driver", strArg), opt("fields", stringListArg), opt("resource_class", strArg),
		opt("fault", strArg), opt("conductor_group", strArg), opt("detail", boolArg),
		opt("conductor", strArg), opt("owner", strArg), opt("description_contains", strArg),
		opt("lessee", strArg), opt("project", strArg), opt("shard", stringListArg), opt("sharded", boolArg))

// nodeDetailArgs are NodesController.detail's: get_all's without fields
// and detail.
var nodeDetailArgs = nodeListArgs.without("fields", "detail")

// nodeListFilters are the filters of a node list that need a version, in
// the order _get_nodes_collection checks them after the fault value.
var nodeListFilters = []struct {
	name string
	min  mv.Version
}{
	{"conductor_group", mv.NodeConductorGroup}, {"conductor", mv.Conductors}, {"owner", mv.NodeOwner},
	{"lessee", mv.NodeLessee}, {"shard", mv.NodeShard}, {"sharded", mv.NodeShard},
}

// nodeList is a node list's validated arguments: the database filter, the
// conductor filter (the API's own) and the fields to show (nil: all).
type nodeList struct {
	filter    db.NodeFilter
	conductor *string
	fields    []string
}

// pyTuple is Python's repr of a tuple of two or more strings.
func pyTuple[S ~string](ss []S) string {
	items := make([]any, len(ss))
	for i, s := range ss {
		items[i] = string(s)
	}
	list := pyschema.Repr(items)
	return "(" + list[1:len(list)-1] + ")"
}

// checkNodeList makes get_all's (detail's with detailPath) checks of the
// bound arguments, in Ironic's order, and builds the filter. below is a
// detail reached below a node (/nodes/<x>/detail), which is no collection.
func checkNodeList(v mv.Version, b args, detailPath, below bool) (*nodeList, error) {
	sortKey := b.strOr("sort_key", "id")
	fields, detail := b.list("fields"), b.boolean("detail")
	if !detailPath {
		if err := checkFieldsVersion(v, fields); err != nil {
			return nil, err
		}
		if err := checkNodeFieldsAllowed(v, fields); err != nil {
			return nil, err
		}
		if err := checkNodeFieldsAllowed(v, []string{sortKey}); err != nil {
			return nil, err
		}
	}
	minVersion := func(name string, min mv.Version) error {
		if b.value(name) != nil && !v.AtLeast(min) {
			return ironic.Errorf(ironic.NotAcceptable, "Request not acceptable. The minimal required API version should be %s", min)
		}
		return nil
	}
	if ps := strAs[states.Provision](b, "provision_state"); ps != nil {
		if !v.AtLeast(mv.ProvisionStateFilter) {
			return nil, notAcceptable()
		}
		if !states.IsState(*ps) {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Provision state \"%s\" is not valid", *ps)
		}
	}
	for _, f := range []struct {
		name string
		min  mv.Version
	}{{"driver", mv.DriverFilter}, {"resource_class", mv.ResourceClass}, {"fault", mv.Fault}} {
		if err := minVersion(f.name, f.min); err != nil {
			return nil, err
		}
	}
	if fault := strAs[states.Fault](b, "fault"); fault != nil && !slices.Contains(states.Faults(), *fault) {
		return nil, ironic.Errorf(ironic.ClientSideError,
			"Unrecognized fault \"%s\" is specified, allowed faults are %s", *fault, pyTuple(states.Faults()))
	}
	if detailPath {
		// detail() checks owner and lessee before sort_key, conductor after.
		if err := checkNodeFieldsAllowed(v, []string{sortKey}); err != nil {
			return nil, err
		}
		if below {
			// "/detail should only work against collections"
			return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
		}
	}
	for _, f := range nodeListFilters {
		if err := minVersion(f.name, f.min); err != nil {
			return nil, err
		}
	}
	l := &nodeList{conductor: b.str("conductor")}
	if !detailPath {
		var err error
		if l.fields, err = returnFields(v, fields, detail, defaultNodeFields); err != nil {
			return nil, err
		}
		if bad := slices.DeleteFunc(slices.Clone(l.fields), isNodeQueryField); len(bad) > 0 {
			// Ironic fails with a 500 here (an unknown column reaches the
			// database); we answer as its other lists do.
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Field(s) \"%s\" are not valid", strings.Join(bad, ", "))
		}
	}
	l.filter = db.NodeFilter{
		ChassisUUID: b.str("chassis_uuid"), InstanceUUID: b.str("instance_uuid"),
		Associated: b.boolean("associated"), Maintenance: b.boolean("maintenance"), Retired: b.boolean("retired"),
		ProvisionState: strAs[states.Provision](b, "provision_state"), Driver: b.str("driver"),
		ResourceClass: b.str("resource_class"), Fault: strAs[states.Fault](b, "fault"), ConductorGroup: b.str("conductor_group"), Owner: b.str("owner"),
		Lessee: b.str("lessee"), Project: b.str("project"), DescriptionContains: b.str("description_contains"),
		Sharded: b.boolean("sharded"), ShardIn: b.list("shard"),
	}
	return l, nil
}

func (a *API) listNodes(rq *Request) (*Response, error) { return a.nodeCollection(rq, false, false) }

func (a *API) listNodesDetail(rq *Request) (*Response, error) {
	return a.nodeCollection(rq, true, false)
}

// nodeCollection is get_all and detail with _get_nodes_collection;
// fromChassis is NodesController below a chassis, whose UUID is the first
// positional argument.
func (a *API) nodeCollection(rq *Request, detailPath, fromChassis bool) (*Response, error) {
	// The list policy comes first (the project argument is its input).
	requested, err := strArg("project", rq.keywords(false)["project"])
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	project, err := a.checkListPolicy(ctx, "node", optString(requested))
	if err != nil {
		return nil, err
	}
	spec := nodeListArgs
	if detailPath {
		spec = nodeDetailArgs
	}
	positional := rq.positional()
	b, err := spec.bind(rq, positional...)
	if err != nil {
		return nil, err
	}
	parents := 0
	if fromChassis {
		parents = 1
	}
	l, err := checkNodeList(rq.Ver, b, detailPath, len(positional) > parents)
	if err != nil {
		return nil, err
	}
	l.filter.Project = project
	pg, err := a.page(b)
	if err != nil {
		return nil, err
	}
	opts, err := pg.listOpts(sortKeyFirst, nodeUnsortable, func(marker string) (int64, error) {
		mk, err := a.d.Store.GetNodeByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return mk.ID, nil
	})
	if err != nil {
		return nil, err
	}
	var nodes []models.Node
	if cols := nodeColumnsFor(l.fields, detailPath); cols != nil {
		// A subset of fields (Nova's sync asks for a few): read only
		// those columns, as Ironic's get_node_list(fields=...) does.
		nodes, err = a.d.Store.ListNodeColumns(ctx, cols, l.filter, opts)
	} else {
		// The views only read the rows: cached ones may be shared.
		nodes, err = a.d.Store.ListNodesShared(ctx, l.filter, opts)
	}
	if err != nil {
		return nil, badSortKey(err, pg.sortKey)
	}
	if l.conductor != nil {
		kept := nodes[:0]
		for i := range nodes {
			host, err := a.d.Conductor.ConductorFor(ctx, &nodes[i])
			if err == nil && host == *l.conductor {
				kept = append(kept, nodes[i])
			}
		}
		nodes = kept
	}
	nr := a.newNodeRenderer(rq, l.fields)
	items := make([]any, 0, len(nodes))
	for i := range nodes {
		o, err := nr.render(ctx, &nodes[i])
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	args := pg.nextArgs(nil)
	for _, k := range []string{"associated", "maintenance", "retired"} {
		if v := b.boolean(k); v != nil && *v {
			args = append(args, nextArg{k, true})
		}
	}
	if d := b.boolean("detail"); d != nil {
		args = append(args, nextArg{"detail", *d})
	}
	limit := pg.limit
	if b.given("instance_uuid") && b.value("instance_uuid") != nil {
		limit = 0
	}
	resource := "nodes"
	if detailPath {
		resource = "nodes/detail"
	}
	var marker string
	if len(nodes) > 0 {
		marker = nodes[len(nodes)-1].UUID
	}
	return OK(collection("nodes", items, nextLink(rq, resource, len(nodes), limit, marker, args, l.fields))), nil
}

// nodeUnsortable are the node fields a list cannot be sorted by.
var nodeUnsortable = []string{"properties", "driver_info", "extra", "instance_info", "driver_internal_info",
	"clean_step", "deploy_step", "raid_config", "target_raid_config", "traits", "network_data"}

// nodeColumnsFor is the columns a list must read to show fields (nil:
// all of them): the fields themselves plus what the view always needs
// (uuid, the policy's owner and lessee, the ring's driver and group, the
// ids behind chassis_uuid and allocation_uuid).
func nodeColumnsFor(fields []string, detailPath bool) []string {
	if detailPath || fields == nil {
		return nil
	}
	cols := []string{"uuid", "owner", "lessee", "driver", "conductor_group", "chassis_id", "allocation_id",
		"created_at", "updated_at"}
	for _, f := range fields {
		switch f {
		case "uuid", "chassis_uuid", "allocation_uuid", "conductor":
			continue
		}
		if !slices.Contains(cols, f) {
			cols = append(cols, f)
		}
	}
	return cols
}

// nodeGetArgs are NodesController.get_one's parameters.
var nodeGetArgs = params(req("node_ident", uuidOrNameArg), opt("fields", stringListArg))

// getNode is get_one (get_one below a chassis refuses to serve a node);
// GET /nodes/{node}/<x> passes x as fields.
func (a *API) getNode(rq *Request) (*Response, error) {
	return a.getNodeFrom(rq, rq.positional(), false)
}

func (a *API) getNodeFrom(rq *Request, positional []string, fromChassis bool) (*Response, error) {
	b, err := nodeGetArgs.bind(rq, positional...)
	if err != nil {
		return nil, err
	}
	if fromChassis {
		return nil, operationNotPermitted()
	}
	fields := b.list("fields")
	n, err := a.nodeFor(rq, "baremetal:node:get", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	if err := checkFieldsVersion(rq.Ver, fields); err != nil {
		return nil, err
	}
	if err := checkNodeFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !isNodeQueryField(f) {
			return nil, ironic.Errorf(ironic.Invalid, "Field %s is not a valid field.", f)
		}
	}
	o, err := a.newNodeRenderer(rq, fields).render(rq.Ctx(), n)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// nodeBoolArg is args.boolean on a body value (strings allowed).
func nodeBoolArg(name string, v any) (*bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return &x, nil
	case string:
		b, err := parseBool(name, x)
		if err != nil {
			return nil, err
		}
		return &b, nil
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid %s: %s", name, pyschema.Repr(v))
}

// validateNodeExtra is NODE_VALIDATE_EXTRA: booleans and UUIDs.
func validateNodeExtra(body map[string]any) error {
	for _, k := range []string{"automated_clean", "chassis_uuid", "console_enabled", "instance_uuid",
		"protected", "maintenance", "retired", "uuid"} {
		v, ok := body[k]
		if !ok || v == nil {
			continue
		}
		switch k {
		case "chassis_uuid", "instance_uuid", "uuid":
			s, _ := v.(string)
			if _, err := uuidArg(k, s); err != nil {
				return err
			}
		default:
			b, err := nodeBoolArg(k, v)
			if err != nil {
				return err
			}
			body[k] = *b
		}
	}
	return nil
}

// nodeCreateArgs are NodesController.post's parameters.
var nodeCreateArgs = params(req("node", bodyOf("object"))).takesBody("node")

// createNode is NodesController.post (POST /nodes/<x> binds x to the
// body parameter, which refuses it).
func (a *API) createNode(rq *Request) (*Response, error) {
	b, err := nodeCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	doc := b.body
	if verr := a.schemas.node.Validate(doc); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("node"))
	}
	body := plain(doc).(map[string]any)
	if err := validateNodeExtra(body); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	owned := a.cfg.ProjectAdminCanManageOwnNodes && a.d.Policy.Check(ctx, "baremetal:node:create:self_owned_node", nil)
	if !owned {
		if err := a.d.Policy.Authorize(ctx, "baremetal:node:create", nil); err != nil {
			return nil, err
		}
	}
	v := rq.Ver
	for _, f := range versionedNodeFields {
		if nodeFieldAllowed(v, f) {
			continue
		}
		val, present := body[f]
		if !present {
			continue
		}
		if f == "name" && val == nil {
			continue
		}
		empty := any(nil)
		if f == "conductor_group" {
			empty = ""
		}
		if val != empty {
			return nil, notAcceptable()
		}
	}
	n := &models.Node{}
	if u, _ := body["uuid"].(string); u != "" {
		n.UUID = u
	} else {
		n.UUID = a.d.UUIDs.NewUUID()
	}
	if g, _ := body["conductor_group"].(string); g != "" {
		n.ConductorGroup = g
	}
	if name, ok := body["name"].(string); ok {
		if err := a.checkNodeNames(v, []string{name}, "Cannot create node with invalid name '%s'"); err != nil {
			return nil, err
		}
		n.Name = &name
	}
	initial := states.Enroll
	if !v.AtLeast(mv.EnrollState) {
		initial = states.Available
	}
	n.ProvisionState = &initial
	if rc, _ := body["resource_class"].(string); rc != "" {
		n.ResourceClass = &rc
	} else if a.cfg.DefaultResourceClass != "" {
		n.ResourceClass = &a.cfg.DefaultResourceClass
	}
	if rc := ironic.FromContext(ctx); rc.SystemScope != "all" && owned {
		// A project-scoped creator owns what it creates.
		requested, _ := body["owner"].(string)
		if requested != "" && requested != rc.ProjectID {
			return nil, ironic.Errorf(ironic.Invalid,
				"Cannot create a node as a project scoped admin with an owner other than your own project.")
		}
		if rc.ProjectID != "" {
			body["owner"] = rc.ProjectID
		} else {
			delete(body, "owner")
		}
	}
	if cu, _ := body["chassis_uuid"].(string); cu != "" {
		ch, err := a.d.Store.GetChassisByUUID(ctx, cu)
		if err != nil {
			if f := ironic.AsFault(err); f.Class == ironic.ChassisNotFound {
				return nil, f.WithStatus(http.StatusBadRequest)
			}
			return nil, err
		}
		n.ChassisID = &ch.ID
	}
	n.Driver, _ = body["driver"].(string)
	applyNodeBody(n, body)
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, as400(err, ironic.NoValidHost)
	}
	created, err := a.d.Conductor.CreateNode(ctx, topic, n)
	if err != nil {
		return nil, err
	}
	o, err := a.newNodeRenderer(rq, nil).render(ctx, created)
	if err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusCreated, Body: o, Location: rq.BaseURL() + "/v1/nodes/" + created.UUID}, nil
}

// applyNodeBody copies the writable fields of a create body onto n.
func applyNodeBody(n *models.Node, body map[string]any) {
	str := func(k string) *string { return optString(body[k]) }
	dict := func(k string) models.JSONDict {
		if d, ok := body[k].(map[string]any); ok {
			return d
		}
		return models.JSONDict{}
	}
	boolp := func(k string) *bool {
		switch x := body[k].(type) {
		case bool:
			return &x
		case string:
			// oslo's BooleanField coerces with bool(): any non-empty string.
			b := x != ""
			return &b
		}
		return nil
	}
	n.InstanceUUID = str("instance_uuid")
	n.DriverInfo, n.Extra, n.Properties, n.InstanceInfo = dict("driver_info"), dict("extra"), dict("properties"), dict("instance_info")
	n.NetworkData = dict("network_data")
	n.Description, n.Owner, n.Lessee = str("description"), str("owner"), str("lessee")
	n.RetiredReason, n.BootMode, n.Shard = str("retired_reason"), str("boot_mode"), str("shard")
	n.AutomatedClean, n.SecureBoot = boolp("automated_clean"), boolp("secure_boot")
	if b := boolp("maintenance"); b != nil {
		n.Maintenance = *b
	}
	if b := boolp("console_enabled"); b != nil {
		n.ConsoleEnabled = *b
	}
	if b := boolp("retired"); b != nil {
		n.Retired = b
	}
	for _, k := range interfaceKinds {
		if s := str(k + "_interface"); s != nil {
			setNodeInterface(n, k, s)
		}
	}
}

// interfaceKinds are Ironic 21.4's interface types.
var interfaceKinds = []string{"bios", "boot", "console", "deploy", "inspect", "management", "network",
	"power", "raid", "rescue", "storage", "vendor"}

func nodeInterface(n *models.Node, kind string) **string {
	switch kind {
	case "bios":
		return &n.BIOSInterface
	case "boot":
		return &n.BootInterface
	case "console":
		return &n.ConsoleInterface
	case "deploy":
		return &n.DeployInterface
	case "inspect":
		return &n.InspectInterface
	case "management":
		return &n.ManagementInterface
	case "network":
		return &n.NetworkInterface
	case "power":
		return &n.PowerInterface
	case "raid":
		return &n.RAIDInterface
	case "rescue":
		return &n.RescueInterface
	case "storage":
		return &n.StorageInterface
	case "vendor":
		return &n.VendorInterface
	}
	return nil
}

func setNodeInterface(n *models.Node, kind string, v *string) { *nodeInterface(n, kind) = v }

// checkNodeNames is _check_names_acceptable.
func (a *API) checkNodeNames(v mv.Version, names []string, errFmt string) error {
	if !v.AtLeast(mv.NodeName) {
		return notAcceptable()
	}
	for _, name := range names {
		if !isNodeName(v, name) {
			return ironic.Errorf(ironic.ClientSideError, errFmt, name)
		}
		if slices.Contains(nodeReservedNames, name) {
			return ironic.Errorf(ironic.ClientSideError,
				"The word \"%s\" is reserved and can not be used as a node name. Reserved words are: %s.",
				name, strings.Join(nodeReservedNames, ", "))
		}
	}
	return nil
}

// nodeDeleteArgs are NodesController.delete's parameters: node_ident and
// *args.
var nodeDeleteArgs = params(req("node_ident", uuidOrNameArg)).withVarargs()

// deleteNode is NodesController.delete: extra path segments are
// NotFound (DELETE of traits below an old version), and a node is not
// deleted through a chassis.
func (a *API) deleteNode(rq *Request) (*Response, error) { return a.deleteNodeFrom(rq, false) }

func (a *API) deleteNodeFrom(rq *Request, fromChassis bool) (*Response, error) {
	b, err := nodeDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if len(b.varargs) > 0 {
		return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
	}
	if fromChassis {
		return nil, operationNotPermitted()
	}
	n, err := a.nodeFor(rq, "baremetal:node:delete", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, as400(err, ironic.NoValidHost)
	}
	if err := a.d.Conductor.DestroyNode(ctx, topic, n.UUID); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// updateNodeViaConductor sends a changed node to its conductor.
func (a *API) updateNodeViaConductor(ctx context.Context, n *models.Node, changes []string, reset bool) (*models.Node, error) {
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, as400(err, ironic.NoValidHost)
	}
	return a.d.Conductor.UpdateNode(ctx, topic, rpc.NodeUpdate{Node: *n, Changes: changes}, reset)
}

// The parameters of NodeMaintenanceController.put and delete.
var (
	maintenanceSetArgs   = params(req("node_ident", uuidOrNameArg), opt("reason", strArg))
	maintenanceClearArgs = params(req("node_ident", uuidOrNameArg))
)

// setMaintenance / clearMaintenance are NodeMaintenanceController.
func (a *API) setMaintenance(rq *Request) (*Response, error) {
	b, err := maintenanceSetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:set_maintenance", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	n.Maintenance = true
	n.MaintenanceReason = b.str("reason")
	if _, err := a.updateNodeViaConductor(rq.Ctx(), n, []string{"maintenance", "maintenance_reason"}, false); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted}, nil
}

func (a *API) clearMaintenance(rq *Request) (*Response, error) {
	b, err := maintenanceClearArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:clear_maintenance", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	n.Maintenance = false
	n.MaintenanceReason = nil
	n.Fault = nil
	if _, err := a.updateNodeViaConductor(rq.Ctx(), n, []string{"maintenance", "maintenance_reason", "fault"}, false); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted}, nil
}

// nodeIdentArgs are the parameters of the node controllers' methods that
// take the node alone.
var nodeIdentArgs = params(req("node_ident", uuidOrNameArg))

// getNodeStates is NodeStatesController.get.
func (a *API) getNodeStates(rq *Request) (*Response, error) { return a.nodeStates(rq, rq.positional()) }

// getNodeStatesOf is GET /nodes/states/<action>: get with the action's
// name for a node ident.
func (a *API) getNodeStatesOf(action string) handlerFunc {
	return func(rq *Request) (*Response, error) { return a.nodeStates(rq, []string{action}) }
}

func (a *API) nodeStates(rq *Request, positional []string) (*Response, error) {
	b, err := nodeIdentArgs.bind(rq, positional...)
	if err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:get_states", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	v := rq.Ver
	o := pyjson.Object{
		{Key: "console_enabled", Value: n.ConsoleEnabled},
		{Key: "last_error", Value: strOrNil(n.LastError)},
		{Key: "power_state", Value: strOrNil(n.PowerState)},
		{Key: "provision_state", Value: legacyProvisionState(v, n.ProvisionState)},
		{Key: "provision_updated_at", Value: isoTime(n.ProvisionUpdatedAt)},
		{Key: "target_power_state", Value: strOrNil(n.TargetPowerState)},
		{Key: "target_provision_state", Value: strOrNil(n.TargetProvisionState)},
	}
	if v.AtLeast(mv.RAIDConfig) {
		o = append(o, pyjson.Member{Key: "raid_config", Value: dictOrEmpty(n.RAIDConfig)},
			pyjson.Member{Key: "target_raid_config", Value: dictOrEmpty(n.TargetRAIDConfig)})
	}
	if v.AtLeast(mv.NodeBootMode) {
		o = append(o, pyjson.Member{Key: "boot_mode", Value: strOrNil(n.BootMode)},
			pyjson.Member{Key: "secure_boot", Value: boolOrNil(n.SecureBoot)})
	}
	return OK(o), nil
}

// powerArgs are NodeStatesController.power's parameters.
var powerArgs = params(req("node_ident", uuidOrNameArg), req("target", strArg), opt("timeout", intArg))

// setPowerState is PUT /states/power; the conductor decides.
func (a *API) setPowerState(rq *Request) (*Response, error) {
	b, err := powerArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	target, timeout := states.Power(b.strOr("target", "None")), b.integer("timeout")
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_power_state", b.ident("node_ident"), func(n *models.Node) error {
		return checkPowerRequest(rq, n, b.ident("node_ident"), target, timeout)
	})
	if err != nil {
		return nil, err
	}
	to := 0
	if timeout != nil {
		to = *timeout
	}
	if err := a.d.Conductor.ChangeNodePowerState(rq.Ctx(), topic, n.UUID, target, to); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted, Location: statesLocation(rq, b, "")}, nil
}

// checkPowerRequest is PUT /states/power's checks of the target and
// timeout against the request's version and the node.
func checkPowerRequest(rq *Request, n *models.Node, ident string, target states.Power, timeout *int) error {
	soft := target == states.SoftRebooting || target == states.SoftPowerOff
	if (soft || (timeout != nil && *timeout != 0)) && !rq.Ver.AtLeast(mv.SoftPowerOff) {
		return notAcceptable()
	}
	if timeout != nil && *timeout < 1 {
		return ironic.Errorf(ironic.ClientSideError, "timeout has to be positive integer")
	}
	switch target {
	case states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff:
	default:
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".",
			target, ident, optStr(n.PowerState))
	}
	if ps := models.Deref(n.ProvisionState); ps == states.Cleaning || ps == states.CleanWait {
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".",
			target, ident, ps)
	}
	return nil
}

// nodeValidateArgs are NodesController.validate's parameters.
var nodeValidateArgs = params(opt("node", uuidOrNameArg), opt("node_uuid", uuidArg))

// validateNode is NodesController.validate: GET /nodes/validate?node=,
// or the custom action below a node (/nodes/{node}/validate).
func (a *API) validateNode(rq *Request) (*Response, error) {
	b, err := nodeValidateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	node, nodeUUID := b.str("node"), b.str("node_uuid")
	if node != nil && !rq.Ver.AtLeast(mv.NodeName) && !isUUID(*node) {
		return nil, notAcceptable()
	}
	switch {
	case nodeUUID != nil:
		return a.validateIdent(rq, *nodeUUID)
	case node != nil:
		return a.validateIdent(rq, *node)
	}
	return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received None.")
}

func (a *API) validateIdent(rq *Request, ident string) (*Response, error) {
	n, err := a.findNode(rq, ident)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := a.authorizeNode(ctx, "baremetal:node:validate", ident, n); err != nil {
		return nil, err
	}
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, err
	}
	res, err := a.d.Conductor.ValidateDriverInterfaces(ctx, topic, n.UUID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(res))
	for k, r := range res {
		o := pyjson.Object{{Key: "result", Value: r.Result}}
		if !r.Result || r.Reason != "" {
			o = append(o, pyjson.Member{Key: "reason", Value: r.Reason})
		}
		out[k] = o
	}
	return OK(out), nil
}

// nodeVendorMethods is NodeVendorPassthruController.methods.
func (a *API) nodeVendorMethods(rq *Request, positional []string) (*Response, error) {
	ms, err := nodeRead(a, rq, positional, "baremetal:node:vendor_passthru", a.d.Conductor.GetNodeVendorPassthruMethods)
	if err != nil {
		return nil, err
	}
	return OK(vendorMethodsBody(ms)), nil
}

// vendorMethodsBody renders vendor method metadata.
func vendorMethodsBody(ms map[string]rpc.VendorMethod) map[string]any {
	out := make(map[string]any, len(ms))
	for name, m := range ms {
		out[name] = pyjson.Object{
			{Key: "http_methods", Value: m.HTTPMethods},
			{Key: "async", Value: m.Async},
			{Key: "description", Value: m.Description},
			{Key: "attach", Value: m.Attach},
			{Key: "require_exclusive_lock", Value: m.RequireExclusiveLock},
		}
	}
	return out
}

// listShards is ShardController.get_all (its _route is a gate).
func (a *API) listShards(rq *Request) (*Response, error) {
	if _, err := params().bind(rq); err != nil {
		return nil, err
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:shards:get", nil); err != nil {
		return nil, err
	}
	sh, err := a.d.Store.ListShards(rq.Ctx())
	if err != nil {
		return nil, err
	}
	items := make([]any, 0, len(sh))
	for _, s := range sh {
		items = append(items, pyjson.Object{{Key: "name", Value: s.Name}, {Key: "count", Value: s.Count}})
	}
	return OK(pyjson.Object{{Key: "shards", Value: items}}), nil
}

// shardsNotAllowed is any verb but GET on /shards: ShardController has
// no other methods, but answers 405 without an Allow header.
func (a *API) shardsNotAllowed(*Request) (*Response, error) {
	return nil, ironic.Webob(ironic.MethodNotAllowed, "")
}
