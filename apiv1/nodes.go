package apiv1

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

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

func (a *API) routesNodes(m *mux.Router) {
	missingIdent := func(*Request) (*Response, error) {
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: node_ident")
	}
	a.handle(m, "/nodes", methods{"GET": a.listNodes, "POST": a.createNode,
		"PATCH": missingIdent, "DELETE": missingIdent}, "DELETE, GET, PATCH, POST")
	a.handle(m, "/nodes/detail", methods{"GET": a.listNodesDetail})
	a.handle(m, "/nodes/validate", methods{"GET": a.validateNodeQuery})
	// Every /nodes/{node}/... path first goes through NodesController's
	// _lookup: the ident is checked and version-gated sub-resources hidden.
	sub := func(path, name string, ms methods, allow ...string) {
		wrapped := methods{}
		for verb, h := range ms {
			wrapped[verb] = a.nodeLookup(name, h)
		}
		a.handle(m, path, wrapped, allow...)
	}
	sub("/nodes/{node}", "", methods{"GET": a.getNode, "PATCH": a.patchNode, "DELETE": a.deleteNode,
		"POST": a.postNodeItem}, "DELETE, GET, PATCH, POST")
	sub("/nodes/{node}/validate", "", methods{"GET": a.validateNode, "DELETE": a.deleteNodeExtraPath,
		"POST": a.postNodeItem})
	sub("/nodes/{node}/maintenance", "", methods{"PUT": a.setMaintenance, "DELETE": a.clearMaintenance})
	sub("/nodes/{node}/states", "", methods{"GET": a.getNodeStates})
	sub("/nodes/{node}/states/power", "", methods{"PUT": a.setPowerState})
	sub("/nodes/{node}/states/provision", "", methods{"PUT": a.setProvisionState})
	sub("/nodes/{node}/traits", "traits", methods{"GET": a.listTraits, "PUT": a.setTraits, "DELETE": a.deleteTraits})
	sub("/nodes/{node}/traits/{trait}", "traits", methods{"PUT": a.addTrait, "DELETE": a.deleteTrait})
	sub("/nodes/{node}/vifs", "vifs", methods{"GET": a.listVIFs, "POST": a.attachVIF})
	sub("/nodes/{node}/vifs/{vif}", "vifs", methods{"DELETE": a.detachVIF})
	sub("/nodes/{node}/bios", "bios", methods{"GET": a.listBIOS})
	sub("/nodes/{node}/bios/{setting}", "bios", methods{"GET": a.getBIOS})
	sub("/nodes/{node}/history", "history", methods{"GET": a.listHistory})
	sub("/nodes/{node}/history/{event}", "history", methods{"GET": a.getHistory})
	sub("/nodes/{node}/inventory", "inventory", methods{"GET": a.getInventory})
	sub("/nodes/{node}/vendor_passthru/methods", "", methods{"GET": a.nodeVendorMethods})
	sub("/nodes/{node}/allocation", "allocation", methods{"GET": a.nodeAllocation, "DELETE": a.deleteNodeAllocation})
	sub("/nodes/{node}/states/console", "", methods{"GET": a.getConsole, "PUT": a.setConsole})
	sub("/nodes/{node}/states/raid", "", methods{"PUT": a.setRAIDConfig})
	sub("/nodes/{node}/states/boot_mode", "", methods{"PUT": a.setBootMode})
	sub("/nodes/{node}/states/secure_boot", "", methods{"PUT": a.setSecureBoot})
	sub("/nodes/{node}/management/boot_device", "", methods{"GET": a.getBootDevice, "PUT": a.setBootDevice})
	sub("/nodes/{node}/management/boot_device/supported", "", methods{"GET": a.supportedBootDevices})
	sub("/nodes/{node}/management/inject_nmi", "", methods{"PUT": a.injectNMI})
	vendor := a.nodeVendorPassthru
	sub("/nodes/{node}/vendor_passthru", "", methods{"GET": vendor, "POST": vendor, "PUT": vendor, "PATCH": vendor, "DELETE": vendor})
	sub("/nodes/{node}/vendor_passthru/{method}", "", methods{"GET": vendor, "POST": vendor, "PUT": vendor, "PATCH": vendor, "DELETE": vendor})
	sub("/nodes/{node}/management/indicators", "", methods{"GET": a.listIndicators})
	sub("/nodes/{node}/management/indicators/{indicator}", "", methods{"GET": a.getIndicator, "PUT": a.setIndicator})
	shardsGate := func(rq *Request) (*Response, error) {
		if !rq.Ver.AtLeast(mv.NodeShard) {
			return nil, ironic.Webob(ironic.MethodNotAllowed, "The API version does not allow shards")
		}
		return nil, ironic.Webob(ironic.MethodNotAllowed, "")
	}
	a.handle(m, "/shards", methods{"GET": a.listShards, "POST": shardsGate, "PUT": shardsGate,
		"PATCH": shardsGate, "DELETE": shardsGate}, "GET")
}

// routesNodesFallback registers what pecan does with a /nodes/{node}/<x>
// path that names no sub-resource: the extra segment becomes a positional
// argument of the node item's handler (fields for GET). It must be added
// after every other route.
func (a *API) routesNodesFallback(m *mux.Router) {
	h := methods{
		"GET":    a.nodeLookup("", a.getNodeExtraPath),
		"DELETE": a.nodeLookup("", a.deleteNodeExtraPath),
		"POST":   a.nodeLookup("", a.postNodeItem),
	}
	a.handle(m, "/nodes/{node}/{rest:.+}", h, "DELETE, GET, PATCH, POST")
}

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

// nodeLookup runs NodesController._lookup before h: sub-resource names are
// not node idents, the ident must be a UUID or a name, and sub-resources
// newer than the request do not exist. These answers are webob's, without
// version headers.
func (a *API) nodeLookup(sub string, h handlerFunc) handlerFunc {
	return func(rq *Request) (*Response, error) {
		ident := rq.Var("node")
		if isNodeSubcontroller(ident) {
			return nil, ironic.Webob(ironic.NotFound, "")
		}
		if !isLogicalName(rq.Ver, ident) && !isUUID(ident) {
			return nil, ironic.Webob(ironic.HTTPBadRequest, "Expected UUID or name for node: "+ident)
		}
		if sub != "" && !rq.Ver.AtLeast(nodeSubresourceMin(sub)) {
			return nil, ironic.Webob(ironic.NotFound, "")
		}
		return h(rq)
	}
}

// getNodeExtraPath: GET /nodes/{node}/<x> is get_one with fields=<x>.
func (a *API) getNodeExtraPath(rq *Request) (*Response, error) {
	rest := rq.Var("rest")
	if rest == "detail" {
		return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
	}
	if strings.Contains(rest, "/") {
		return nil, ironic.Webob(ironic.NotFound, "")
	}
	q := rq.HTTP.URL.Query()
	if !q.Has("fields") {
		q.Set("fields", rest)
		rq.query = q
	}
	return a.getNode(rq)
}

// deleteNodeExtraPath: DELETE with extra path segments is NotFound.
func (a *API) deleteNodeExtraPath(*Request) (*Response, error) {
	return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
}

// postNodeItem: pecan hands the path segment to post() as its body.
func (a *API) postNodeItem(rq *Request) (*Response, error) {
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Schema error for node: %s is not of type 'object'",
		pyschema.Repr(rq.Var("node")))
}

// findNode is get_rpc_node: a UUID-like ident is looked up by UUID, a name
// by name (from 1.5); with a ".json" suffix stripped from the path, a miss
// is retried with the suffix.
func (a *API) findNode(rq *Request, ident string) (*models.Node, error) {
	n, err := a.findNodeOnce(rq, ident)
	if err != nil && rq.jsonSuffix && ironic.IsClass(err, ironic.NodeNotFound) {
		if n2, err2 := a.findNodeOnce(rq, ident+".json"); err2 == nil {
			return n2, nil
		}
	}
	return n, err
}

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

// nodeFor validates the {node} path variable, authorizes policy and
// returns the node (check_node_policy_and_retrieve).
func (a *API) nodeFor(rq *Request, policy string) (*models.Node, error) {
	ident := rq.Var("node")
	if err := checkUUIDOrName(rq.Ver, "node_ident", ident); err != nil {
		return nil, err
	}
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

// nodeListParams are the parsed filters of a node list.
type nodeListParams struct {
	filter      db.NodeFilter
	conductor   *string
	associated  *bool
	maintenance *bool
	retired     *bool
	detail      *bool
	fields      []string
	limit       *int
	marker      *string
	sortKey     string
	sortDir     string
	instance    *string
}

// parseNodeListParams reads the list arguments in the order Ironic's
// args.validate checks them.
func (a *API) parseNodeListParams(rq *Request, detailPath bool) (*nodeListParams, error) {
	allowed := []string{"chassis_uuid", "instance_uuid", "associated", "maintenance", "retired",
		"provision_state", "marker", "limit", "sort_key", "sort_dir", "driver", "resource_class",
		"fault", "conductor_group", "conductor", "owner", "description_contains", "lessee",
		"project", "shard", "sharded"}
	if !detailPath {
		allowed = append(allowed, "fields", "detail")
	}
	if err := rq.CheckArgs(allowed...); err != nil {
		return nil, err
	}
	p := &nodeListParams{sortKey: "id", sortDir: "asc"}
	var err error
	var chassis *string
	if chassis, err = uuidArg(rq, "chassis_uuid"); err != nil {
		return nil, err
	}
	if p.instance, err = uuidArg(rq, "instance_uuid"); err != nil {
		return nil, err
	}
	if p.associated, err = rq.Bool("associated"); err != nil {
		return nil, err
	}
	if p.maintenance, err = rq.Bool("maintenance"); err != nil {
		return nil, err
	}
	if p.retired, err = rq.Bool("retired"); err != nil {
		return nil, err
	}
	var provState, driver, resourceClass, fault, group, owner, descr, lessee, project *string
	if provState, err = strArg(rq, "provision_state"); err != nil {
		return nil, err
	}
	if p.marker, err = uuidArg(rq, "marker"); err != nil {
		return nil, err
	}
	if p.limit, err = rq.Int("limit"); err != nil {
		return nil, err
	}
	if s, err := strArg(rq, "sort_key"); err != nil {
		return nil, err
	} else if s != nil {
		p.sortKey = *s
	}
	if s, err := strArg(rq, "sort_dir"); err != nil {
		return nil, err
	} else if s != nil {
		p.sortDir = *s
	}
	if driver, err = strArg(rq, "driver"); err != nil {
		return nil, err
	}
	if !detailPath {
		if p.fields, err = stringList(rq, "fields"); err != nil {
			return nil, err
		}
	}
	if resourceClass, err = strArg(rq, "resource_class"); err != nil {
		return nil, err
	}
	if fault, err = strArg(rq, "fault"); err != nil {
		return nil, err
	}
	if group, err = strArg(rq, "conductor_group"); err != nil {
		return nil, err
	}
	if !detailPath {
		if p.detail, err = rq.Bool("detail"); err != nil {
			return nil, err
		}
	}
	if p.conductor, err = strArg(rq, "conductor"); err != nil {
		return nil, err
	}
	if owner, err = strArg(rq, "owner"); err != nil {
		return nil, err
	}
	if descr, err = strArg(rq, "description_contains"); err != nil {
		return nil, err
	}
	if lessee, err = strArg(rq, "lessee"); err != nil {
		return nil, err
	}
	if project, err = strArg(rq, "project"); err != nil {
		return nil, err
	}
	shards, err := stringList(rq, "shard")
	if err != nil {
		return nil, err
	}
	sharded, err := rq.Bool("sharded")
	if err != nil {
		return nil, err
	}

	v := rq.Ver
	minVer := func(ok bool, min mv.Version) error {
		if !ok && !v.AtLeast(min) {
			return ironic.Errorf(ironic.NotAcceptable, "Request not acceptable. The minimal required API version should be %s", min)
		}
		return nil
	}
	if !detailPath {
		if p.fields != nil && !v.AtLeast(mv.FetchingSubsetOfFields) {
			return nil, notAcceptable()
		}
		if err := checkNodeFieldsAllowed(v, p.fields); err != nil {
			return nil, err
		}
	}
	if err := checkNodeFieldsAllowed(v, []string{p.sortKey}); err != nil && !detailPath {
		return nil, err
	}
	if provState != nil {
		if !v.AtLeast(mv.ProvisionStateFilter) {
			return nil, notAcceptable()
		}
		if !states.IsState(states.Provision(*provState)) {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Provision state \"%s\" is not valid", *provState)
		}
	}
	for _, c := range []struct {
		set bool
		min mv.Version
	}{
		{driver != nil, mv.DriverFilter}, {resourceClass != nil, mv.ResourceClass}, {fault != nil, mv.Fault},
	} {
		if err := minVer(!c.set, c.min); err != nil {
			return nil, err
		}
	}
	if fault != nil && *fault != "power failure" && *fault != "clean failure" && *fault != "rescue abort failure" {
		return nil, ironic.Errorf(ironic.ClientSideError,
			"Unrecognized fault \"%s\" is specified, allowed faults are ('power failure', 'clean failure', 'rescue abort failure')", *fault)
	}
	checks := []struct {
		set bool
		min mv.Version
	}{
		{group != nil, mv.NodeConductorGroup}, {p.conductor != nil, mv.Conductors},
		{owner != nil, mv.NodeOwner}, {lessee != nil, mv.NodeLessee},
		{shards != nil, mv.NodeShard}, {sharded != nil, mv.NodeShard},
	}
	if detailPath {
		// detail() checks owner and lessee before sort_key, conductor after.
		if err := checkNodeFieldsAllowed(v, []string{p.sortKey}); err != nil {
			return nil, err
		}
	}
	for _, c := range checks {
		if err := minVer(!c.set, c.min); err != nil {
			return nil, err
		}
	}
	if !detailPath {
		if p.fields, err = returnFields(v, p.fields, p.detail, defaultNodeFields); err != nil {
			return nil, err
		}
		var bad []string
		for _, f := range p.fields {
			if !isNodeQueryField(f) {
				bad = append(bad, f)
			}
		}
		if len(bad) > 0 {
			// Ironic fails with a 500 here (an unknown column reaches the
			// database); we answer as its other lists do.
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Field(s) \"%s\" are not valid", strings.Join(bad, ", "))
		}
	} else {
		p.fields = nil
	}

	f := &p.filter
	f.Maintenance, f.Associated, f.Retired = p.maintenance, p.associated, p.retired
	f.ChassisUUID, f.InstanceUUID = chassis, p.instance
	f.ProvisionState, f.Driver, f.ResourceClass, f.Fault = (*states.Provision)(provState), driver, resourceClass, (*states.Fault)(fault)
	f.ConductorGroup, f.Owner, f.Lessee, f.Project = group, owner, lessee, project
	f.DescriptionContains, f.Sharded = descr, sharded
	if shards != nil {
		f.ShardIn = shards
	}
	return p, nil
}

func (a *API) listNodes(rq *Request) (*Response, error) { return a.nodeCollection(rq, false) }

func (a *API) listNodesDetail(rq *Request) (*Response, error) { return a.nodeCollection(rq, true) }

// nodeCollection is get_all/detail and _get_nodes_collection.
func (a *API) nodeCollection(rq *Request, detailPath bool) (*Response, error) {
	requested, err := strArg(rq, "project")
	if err != nil {
		return nil, err
	}
	project, err := a.checkListPolicy(rq.Ctx(), "node", requested)
	if err != nil {
		return nil, err
	}
	p, err := a.parseNodeListParams(rq, detailPath)
	if err != nil {
		return nil, err
	}
	p.filter.Project = project
	limit, err := a.validateLimit(p.limit)
	if err != nil {
		return nil, err
	}
	if err := validateSortDir(p.sortDir); err != nil {
		return nil, err
	}
	switch p.sortKey {
	case "properties", "driver_info", "extra", "instance_info", "driver_internal_info", "clean_step",
		"deploy_step", "raid_config", "target_raid_config", "traits", "network_data":
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value %s is an invalid field for sorting", p.sortKey)
	}
	ctx := rq.Ctx()
	opts := db.ListOpts{Limit: limit, SortKey: p.sortKey, SortDir: p.sortDir}
	if p.marker != nil {
		mk, err := a.d.Store.GetNodeByUUID(ctx, *p.marker)
		if err != nil {
			return nil, err
		}
		opts.Marker = mk.ID
	}
	if p.sortKey == "id" {
		opts.SortKey = ""
	}
	var nodes []models.Node
	if cols := nodeColumnsFor(p.fields, detailPath); cols != nil {
		// A subset of fields (Nova's sync asks for a few): read only
		// those columns, as Ironic's get_node_list(fields=...) does.
		nodes, err = a.d.Store.ListNodeColumns(ctx, cols, p.filter, opts)
	} else {
		// The views only read the rows: cached ones may be shared.
		nodes, err = a.d.Store.ListNodesShared(ctx, p.filter, opts)
	}
	if err != nil {
		return nil, badSortKey(err, p.sortKey)
	}
	if p.conductor != nil {
		kept := nodes[:0]
		for i := range nodes {
			host, err := a.d.Conductor.ConductorFor(ctx, &nodes[i])
			if err == nil && host == *p.conductor {
				kept = append(kept, nodes[i])
			}
		}
		nodes = kept
	}
	fields := p.fields
	if detailPath || (p.detail != nil && *p.detail && fields == nil) {
		fields = nil
	}
	nr := a.newNodeRenderer(rq, fields)
	items := make([]any, 0, len(nodes))
	for i := range nodes {
		o, err := nr.render(ctx, &nodes[i])
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	args := []nextArg{{"sort_key", p.sortKey}, {"sort_dir", p.sortDir}}
	if p.associated != nil && *p.associated {
		args = append(args, nextArg{"associated", true})
	}
	if p.maintenance != nil && *p.maintenance {
		args = append(args, nextArg{"maintenance", true})
	}
	if p.retired != nil && *p.retired {
		args = append(args, nextArg{"retired", true})
	}
	if p.detail != nil {
		args = append(args, nextArg{"detail", *p.detail})
	}
	if p.instance != nil {
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
	return OK(collection("nodes", items, nextLink(rq, resource, len(nodes), limit, marker, args, fields))), nil
}

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

// badSortKey rewrites the DB's unknown-column error with the API's text.
func badSortKey(err error, key string) error {
	if f := ironic.AsFault(err); f.Class == ironic.InvalidParameterValue && strings.Contains(f.Message, "sort") {
		return ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value \"%s\" is an invalid field for sorting", key)
	}
	return err
}

// nodeWithFields reads get_one's only argument, ?fields=, then the node
// under baremetal:node:get.
func (a *API) nodeWithFields(rq *Request) (*models.Node, []string, error) {
	if err := rq.CheckArgs("fields"); err != nil {
		return nil, nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:get")
	if err != nil {
		return nil, nil, err
	}
	return n, fields, nil
}

// getNode is get_one.
func (a *API) getNode(rq *Request) (*Response, error) {
	n, fields, err := a.nodeWithFields(rq)
	if err != nil {
		return nil, err
	}
	if fields != nil && !rq.Ver.AtLeast(mv.FetchingSubsetOfFields) {
		return nil, notAcceptable()
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

// nodeBodyString reads a string-or-null schema field.
func optString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
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
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid %s: %s", name, pyschemaRepr(v))
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
			if err := checkUUID(k, s); err != nil {
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

// createNode is NodesController.post.
func (a *API) createNode(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	raw, err := rq.ReadBody()
	if err != nil {
		return nil, err
	}
	var doc any = pyjson.Object{}
	if len(raw) > 0 {
		if doc, err = decodeBody(raw); err != nil {
			return nil, err
		}
	}
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

// as400 re-codes a fault of class c to 400, as Ironic does for lookups of
// things referenced from a request body.
func as400(err error, c ironic.Class) error {
	if f := ironic.AsFault(err); f.Class == c {
		return f.WithStatus(http.StatusBadRequest)
	}
	return err
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

// decodeBody decodes a JSON body keeping key order.
func decodeBody(raw []byte) (any, error) {
	doc, err := pyschemaDecode(raw)
	if err != nil {
		return nil, malformedJSON(raw)
	}
	return doc, nil
}

// deleteNode is NodesController.delete.
func (a *API) deleteNode(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:delete")
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

// setMaintenance / clearMaintenance are NodeMaintenanceController.
func (a *API) setMaintenance(rq *Request) (*Response, error) {
	reason, err := argOrBody(rq, "reason")
	if err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:set_maintenance")
	if err != nil {
		return nil, err
	}
	n.Maintenance = true
	n.MaintenanceReason = reason
	if _, err := a.updateNodeViaConductor(rq.Ctx(), n, []string{"maintenance", "maintenance_reason"}, false); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted}, nil
}

func (a *API) clearMaintenance(rq *Request) (*Response, error) {
	if _, err := argOrBody(rq); err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:clear_maintenance")
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

// getNodeStates is NodeStatesController.get.
func (a *API) getNodeStates(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:get_states")
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

// setPowerState is PUT /states/power; the conductor decides.
func (a *API) setPowerState(rq *Request) (*Response, error) {
	args, err := bodyArgs(rq, "target", "timeout")
	if err != nil {
		return nil, err
	}
	target, ok := args["target"].(string)
	if !ok {
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: target")
	}
	var timeout *int
	if t, ok := args["timeout"]; ok && t != nil {
		ti, err := intArg("timeout", t)
		if err != nil {
			return nil, err
		}
		timeout = &ti
	}
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_power_state", func(n *models.Node) error {
		return checkPowerRequest(rq, n, states.Power(target), timeout)
	})
	if err != nil {
		return nil, err
	}
	to := 0
	if timeout != nil {
		to = *timeout
	}
	if err := a.d.Conductor.ChangeNodePowerState(rq.Ctx(), topic, n.UUID, states.Power(target), to); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted, Location: rq.BaseURL() + "/v1/nodes/" + rq.Var("node") + "/states"}, nil
}

// checkPowerRequest is PUT /states/power's checks of the target and
// timeout against the request's version and the node.
func checkPowerRequest(rq *Request, n *models.Node, target states.Power, timeout *int) error {
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
			target, rq.Var("node"), pyStr((*string)(n.PowerState)))
	}
	if ps := models.Deref(n.ProvisionState); ps == states.Cleaning || ps == states.CleanWait {
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".",
			target, rq.Var("node"), ps)
	}
	return nil
}

// validate handlers.
func (a *API) validateNodeQuery(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("node", "node_uuid"); err != nil {
		return nil, err
	}
	node, _ := rq.Str("node")
	nodeUUID, hasUUID := rq.Str("node_uuid")
	if !rq.Has("node") && !hasUUID {
		return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received None.")
	}
	if rq.Has("node") {
		if err := checkUUIDOrName(rq.Ver, "node", node); err != nil {
			return nil, err
		}
		if !rq.Ver.AtLeast(mv.NodeName) && !isUUID(node) {
			return nil, notAcceptable()
		}
	}
	if hasUUID {
		if err := checkUUID("node_uuid", nodeUUID); err != nil {
			return nil, err
		}
		node = nodeUUID
	}
	return a.validateIdent(rq, node)
}

func (a *API) validateNode(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	ident := rq.Var("node")
	if err := checkUUIDOrName(rq.Ver, "node", ident); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.NodeName) && !isUUID(ident) {
		return nil, notAcceptable()
	}
	return a.validateIdent(rq, ident)
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

// nodeVendorMethods is GET /nodes/{n}/vendor_passthru/methods.
func (a *API) nodeVendorMethods(rq *Request) (*Response, error) {
	ms, err := nodeRead(a, rq, "baremetal:node:vendor_passthru", a.d.Conductor.GetNodeVendorPassthruMethods)
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

// listShards is GET /v1/shards.
func (a *API) listShards(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeShard) {
		return nil, ironic.Webob(ironic.NotFound, "The API version does not allow shards")
	}
	if err := rq.CheckArgs(); err != nil {
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

// timeNow is used by history views.
var _ = time.Now
