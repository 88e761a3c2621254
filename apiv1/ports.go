package apiv1

import (
	"context"
	"net/http"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/states"
)

// portStore is the part of the database the ports routes use.
type portStore interface {
	NodeUUIDsByID(ctx context.Context, ids []int64) (map[int64]string, error)
	ListPorts(ctx context.Context, f db.PortFilter, o db.ListOpts) ([]models.Port, error)
	GetPortByUUID(ctx context.Context, uuid string) (*models.Port, error)
	GetPortByAddress(ctx context.Context, address, owner, project string) (*models.Port, error)
	GetPortgroupByID(ctx context.Context, id int64, project string) (*models.Portgroup, error)
	GetPortgroupByUUID(ctx context.Context, uuid string) (*models.Portgroup, error)
	GetPortgroupByName(ctx context.Context, name string) (*models.Portgroup, error)
	GetNodeByID(ctx context.Context, id int64) (*models.Node, error)
	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
}

// portParent is the collection a PortsController serves: all ports, or
// those of a node (/nodes/{node}/ports) or of a port group
// (/portgroups/{pg}/ports), as _lookup built it.
type portParent struct {
	node string
	pg   string
}

func (p portParent) set() bool { return p.node != "" || p.pg != "" }

// parentOf is the parent of a PortsController or PortgroupsController
// request (the context of the routes below /nodes/{node} and
// /portgroups/{pg}).
func parentOf(rq *Request) portParent { return portParent{node: rq.Var("node"), pg: rq.Var("pg")} }

// PortsController's parameters.
var (
	portListArgs = params(opt("node", uuidOrNameArg), opt("node_uuid", uuidArg), opt("address", macArg)).
			and(paging(uuidArg)...).
			and(opt("fields", stringListArg), opt("portgroup", uuidOrNameArg), opt("detail", boolArg),
			opt("shard", stringListArg))
	portDetailArgs = portListArgs.without("fields", "detail")
	portGetArgs    = params(req("port_uuid", uuidArg), opt("fields", stringListArg))
	portCreateArgs = params(req("port", bodyOf("object"))).takesBody("port")
	portPatchArgs  = params(req("port_uuid", uuidArg), req("patch", bodyOf("array"))).takesBody("patch")
	portDeleteArgs = params(req("port_uuid", uuidArg))
)

// portsController is PortsController, wherever it is mounted.
func (a *API) portsController() restController {
	return restController{getAll: a.listPorts, getOne: a.getPort, post: a.createPort, patch: a.patchPort,
		delete: a.deletePort, actions: map[string]handlerFunc{"detail": a.listPortsDetail}}
}

// ownerTarget is the policy target of a port, port group or volume
// object, whose access follows its node (check_port_policy_and_retrieve,
// check_volume_policy_and_retrieve): node.owner and node.lessee, "None"
// (Python's str(None)) when unset or when there is no node.
func ownerTarget(n *models.Node) map[string]string {
	t := map[string]string{"node.owner": "None", "node.lessee": "None"}
	if n != nil {
		if n.Owner != nil {
			t["node.owner"] = *n.Owner
		}
		if n.Lessee != nil {
			t["node.lessee"] = *n.Lessee
		}
	}
	return t
}

// listProject is the list part of check_port_list_policy: list_all, or
// failing that the project-scoped list rule and the caller's project as a
// filter.
func (a *API) listProject(ctx context.Context, kind string) (string, error) {
	err := a.d.Policy.Authorize(ctx, "baremetal:"+kind+":list_all", nil)
	if err == nil {
		return "", nil
	}
	project := ironic.FromContext(ctx).ProjectID
	if project == "" {
		return "", err
	}
	if err := a.d.Policy.Authorize(ctx, "baremetal:"+kind+":list", nil); err != nil {
		return "", err
	}
	return project, nil
}

// checkPortListPolicy is check_port_list_policy: a parent port group is
// looked up by UUID and a parent node by UUID only (so a node named in the
// path is "Portgroup None could not be found.", as in Ironic 21.4).
func (a *API) checkPortListPolicy(rq *Request, kind string, par portParent) (string, error) {
	ctx := rq.Ctx()
	var node *models.Node
	concealed := false
	if par.pg != "" {
		pg, err := a.d.Store.GetPortgroupByUUID(ctx, par.pg)
		if err != nil {
			return "", err
		}
		if node, err = a.portNode(ctx, pg.NodeID); err != nil {
			return "", err
		}
	} else if par.node != "" {
		n, err := a.d.Store.GetNodeByUUID(ctx, par.node)
		if err != nil {
			if ironic.IsClass(err, ironic.NodeNotFound) {
				return "", ironic.Errorf(ironic.PortgroupNotFound, "Portgroup None could not be found.")
			}
			return "", err
		}
		node, concealed = n, true
	}
	if par.set() && node != nil {
		if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(node)); err != nil {
			switch {
			case concealed:
				return "", ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", node.UUID)
			case par.pg != "":
				return "", ironic.Errorf(ironic.PortgroupNotFound, "Portgroup %s could not be found.", par.pg)
			}
			return "", err
		}
	}
	return a.listProject(ctx, kind)
}

// portNode is objects.Node.get_by_id for a port's or port group's node.
func (a *API) portNode(ctx context.Context, id *int64) (*models.Node, error) {
	if id == nil {
		return nil, missingPortNode(id)
	}
	return a.d.Store.GetNodeByID(ctx, *id)
}

// missingPortNode is the error for a port or port group whose node is gone
// (Ironic fails on it with a 500 AttributeError).
func missingPortNode(id *int64) error {
	if id == nil {
		return ironic.Errorf(ironic.NodeNotFound, "Node None could not be found.")
	}
	return ironic.Errorf(ironic.NodeNotFound, "Node %d could not be found.", *id)
}

// ownedNode is the node that owns a port or port group for policy checks:
// nil when it is gone (check_port_policy_and_retrieve tolerates that).
func (a *API) ownedNode(ctx context.Context, id *int64) (*models.Node, error) {
	n, err := a.portNode(ctx, id)
	if err != nil {
		if ironic.IsClass(err, ironic.NodeNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return n, nil
}

// retrievePort is check_port_policy_and_retrieve for a port.
func (a *API) retrievePort(rq *Request, policy, ident string) (*models.Port, *models.Node, error) {
	ctx := rq.Ctx()
	p, err := a.d.Store.GetPortByUUID(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	n, err := a.ownedNode(ctx, p.NodeID)
	if err != nil {
		return nil, nil, err
	}
	target := ownerTarget(n)
	if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", target); err != nil {
		return nil, nil, ironic.Errorf(ironic.PortNotFound, "Port %s could not be found.", ident)
	}
	if err := a.d.Policy.Authorize(ctx, policy, target); err != nil {
		return nil, nil, err
	}
	return p, n, nil
}

// findPortgroup is get_rpc_portgroup: by UUID, else by name.
func (a *API) findPortgroup(ctx context.Context, ident string) (*models.Portgroup, error) {
	if isUUID(ident) {
		return a.d.Store.GetPortgroupByUUID(ctx, ident)
	}
	if isName(ident) {
		return a.d.Store.GetPortgroupByName(ctx, ident)
	}
	return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received %s.", ident)
}

// shardNotAcceptable is check_allow_filter_by_shard's answer.
func shardNotAcceptable() error {
	return ironic.Errorf(ironic.NotAcceptable, "Request not acceptable. The minimal required API version should be %s",
		mv.NodeShard)
}

// portListParams are the validated arguments of a port list.
type portListParams struct {
	node, nodeUUID, address, portgroup *string
	page                               page
	fields                             []string
	detail                             *bool
	shard                              []string
}

func (a *API) listPorts(rq *Request) (*Response, error) { return a.portList(rq, false) }

func (a *API) listPortsDetail(rq *Request) (*Response, error) { return a.portList(rq, true) }

// portList is PortsController.get_all, or detail when detailPath is set
// (path segments before "detail" bind to detail's parameters, and make the
// request a 404 in the end).
func (a *API) portList(rq *Request, detailPath bool) (*Response, error) {
	spec := portListArgs
	if detailPath {
		spec = portDetailArgs
	}
	positional := rq.positional()
	b, err := spec.bind(rq, positional...)
	if err != nil {
		return nil, err
	}
	par := parentOf(rq)
	project, err := a.checkPortListPolicy(rq, "port", par)
	if err != nil {
		return nil, err
	}
	p := &portListParams{node: b.str("node"), nodeUUID: b.str("node_uuid"), address: b.str("address"),
		portgroup: b.str("portgroup"), fields: b.list("fields"), detail: b.boolean("detail"), shard: b.list("shard")}
	if par.node != "" {
		p.node = &par.node
	}
	if par.pg != "" {
		p.portgroup = &par.pg
	}
	v := rq.Ver
	if !detailPath {
		if err := checkFieldsVersion(v, p.fields); err != nil {
			return nil, err
		}
		if err := checkPortFields(v, p.fields); err != nil {
			return nil, err
		}
	}
	if err := checkPortFields(v, []string{b.strOr("sort_key", "id")}); err != nil {
		return nil, err
	}
	if p.portgroup != nil && !v.AtLeast(mv.PortgroupsSubcontrollers) {
		return nil, notAcceptable()
	}
	if p.shard != nil && !v.AtLeast(mv.NodeShard) {
		return nil, shardNotAcceptable()
	}
	if !detailPath {
		if p.fields, err = returnFields(v, p.fields, p.detail, defaultPortFields()); err != nil {
			return nil, err
		}
	}
	if p.nodeUUID == nil && p.node != nil && !v.AtLeast(mv.NodeName) && !isUUID(*p.node) {
		return nil, notAcceptable()
	}
	resource := "ports"
	if detailPath {
		// "/detail should only work against collections"
		if len(positional) > 0 {
			return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
		}
		resource = "ports/detail"
	}
	if p.page, err = a.page(b); err != nil {
		return nil, err
	}
	return a.portCollection(rq, par, p, project, resource)
}

// portCollection is _get_ports_collection.
func (a *API) portCollection(rq *Request, par portParent, p *portListParams, project, resource string) (*Response, error) {
	ctx := rq.Ctx()
	opts, err := p.page.listOpts(markerFirst, portUnsortable, func(marker string) (int64, error) {
		mk, err := a.d.Store.GetPortByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return mk.ID, nil
	})
	if err != nil {
		return nil, err
	}
	sortKey, limit := p.page.sortKey, p.page.limit
	nodeIdent := par.node
	if nodeIdent == "" {
		if p.nodeUUID != nil {
			nodeIdent = *p.nodeUUID
		} else if p.node != nil {
			nodeIdent = *p.node
		}
	}
	pgIdent := par.pg
	if pgIdent == "" && p.portgroup != nil {
		pgIdent = *p.portgroup
	}
	exclusive := 0
	for _, set := range []bool{nodeIdent != "", pgIdent != "", len(p.shard) > 0} {
		if set {
			exclusive++
		}
	}
	if exclusive > 1 {
		return nil, operationNotPermitted()
	}
	f := db.PortFilter{Project: project}
	var ports []models.Port
	switch {
	case pgIdent != "":
		pg, err := a.findPortgroup(ctx, pgIdent)
		if err != nil {
			return nil, err
		}
		f.PortgroupID = &pg.ID
		ports, err = a.d.Store.ListPorts(ctx, f, opts)
		if err != nil {
			return nil, badSortKey(err, sortKey)
		}
	case nodeIdent != "":
		n, err := a.findNodeOnce(rq, nodeIdent)
		if err != nil {
			return nil, err
		}
		f.NodeID = &n.ID
		ports, err = a.d.Store.ListPorts(ctx, f, opts)
		if err != nil {
			return nil, badSortKey(err, sortKey)
		}
	case p.address != nil:
		pt, err := a.d.Store.GetPortByAddress(ctx, *p.address, "", project)
		switch {
		case err == nil:
			ports = []models.Port{*pt}
		case ironic.IsClass(err, ironic.PortNotFound):
		default:
			return nil, err
		}
	default:
		if len(p.shard) > 0 {
			f.Shards = p.shard
		}
		ports, err = a.d.Store.ListPorts(ctx, f, opts)
		if err != nil {
			return nil, badSortKey(err, sortKey)
		}
	}
	pr := a.newPortRenderer(rq)
	nodeIDs := make([]*int64, len(ports))
	for i := range ports {
		nodeIDs[i] = ports[i].NodeID
	}
	if err := pr.prefetchNodes(ctx, nodeIDs); err != nil {
		return nil, err
	}
	items := make([]pyjson.Object, 0, len(ports))
	for i := range ports {
		o, err := pr.port(ctx, &ports[i])
		if err != nil {
			return nil, err
		}
		if err := checkFields(p.fields, o); err != nil {
			return nil, err
		}
		// The node was deleted after the ports were read: so was the port.
		if nu, _ := o.Get("node_uuid"); nu == nil {
			continue
		}
		items = append(items, o)
	}
	var marker string
	if len(items) > 0 {
		u, _ := items[len(items)-1].Get("uuid")
		marker, _ = u.(string)
	}
	next := nextLink(rq, resource, len(items), limit, marker, p.page.nextArgs(p.detail), p.fields)
	out := make([]any, len(items))
	for i, o := range items {
		out[i] = keepFields(hidePortFields(rq.Ver, o), p.fields)
	}
	return OK(collection("ports", out, next)), nil
}

// getPort is PortsController.get_one; GET /ports/{uuid}/{x} passes x as
// fields.
func (a *API) getPort(rq *Request) (*Response, error) {
	b, err := portGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	fields := b.list("fields")
	if parentOf(rq).set() {
		return nil, operationNotPermitted()
	}
	p, _, err := a.retrievePort(rq, "baremetal:port:get", b.ident("port_uuid"))
	if err != nil {
		return nil, err
	}
	if err := checkFieldsVersion(rq.Ver, fields); err != nil {
		return nil, err
	}
	if err := checkPortFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portOne(rq.Ctx(), p, fields)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// createPort is PortsController.post.
func (a *API) createPort(rq *Request) (*Response, error) {
	b, err := portCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	doc := b.body
	if verr := portSchemas.port.Validate(doc); verr != nil {
		return nil, schemaError("port", verr)
	}
	ob := doc.(pyjson.Object)
	if err := validateBodyExtra(ob, portBodyValidators()); err != nil {
		return nil, err
	}
	if parentOf(rq).set() {
		return nil, operationNotPermitted()
	}
	body := plain(ob).(map[string]any)
	ctx := rq.Ctx()
	v := rq.Ver

	nodeUUID, _ := body["node_uuid"].(string)
	node, err := a.bodyNode(ctx, "baremetal:port:create", nodeUUID)
	if err != nil {
		return nil, err
	}
	if err := checkPortBodyFields(v, body); err != nil {
		return nil, err
	}
	var pg *models.Portgroup
	if pgu, ok := body["portgroup_uuid"].(string); ok && pgu != "" {
		pg, err = a.d.Store.GetPortgroupByUUID(ctx, pgu)
		if err != nil {
			return nil, as400(err, ironic.PortgroupNotFound)
		}
		if pg.NodeID == nil || *pg.NodeID != node.ID {
			// Ironic raises BadRequest, which has no HTTP code there and
			// becomes a 500; it is the client's error.
			return nil, ironic.Errorf(ironic.BadRequest, "Port can not be added to a portgroup belonging to a different node.").
				WithStatus(http.StatusBadRequest)
		}
	}
	if pyjson.Truthy(body["is_smartnic"]) {
		if llc := body["local_link_connection"]; llc != nil && !portSchemas.smartNIC.IsValid(llc) {
			return nil, ironic.Errorf(ironic.Invalid, "Smart NIC port must have port_id and hostname in local_link_connection")
		}
	}
	if pn, ok := body["physical_network"].(string); ok && pn == "" {
		return nil, ironic.Errorf(ironic.Invalid, "A non-empty value is required when setting physical_network")
	}
	if pg != nil && pyjson.Truthy(body["pxe_enabled"]) && pg.StandalonePortsSupported != nil && !*pg.StandalonePortsSupported {
		return nil, ironic.Errorf(ironic.Conflict, "Port group %s doesn't support standalone ports. This port cannot be created as a member of that portgroup as the port's 'pxe_enabled' field was set to True.", pg.UUID)
	}
	port := &models.Port{NodeID: &node.ID}
	if u, _ := body["uuid"].(string); u != "" {
		port.UUID = u
	} else {
		port.UUID = a.d.UUIDs.NewUUID()
	}
	port.Address = optString(body["address"])
	port.Extra = dictValue(body["extra"])
	port.LocalLinkConnection = dictValue(body["local_link_connection"])
	port.PhysicalNetwork = optString(body["physical_network"])
	if pg != nil {
		port.PortgroupID = &pg.ID
	}
	if val, ok := body["pxe_enabled"]; ok {
		b, isBool := val.(bool)
		if !isBool {
			return nil, cannotBeNone("pxe_enabled")
		}
		port.PXEEnabled = &b
	}
	if b, ok := body["is_smartnic"].(bool); ok {
		port.IsSmartNIC = &b
	}
	topic, err := a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	created, err := a.d.Conductor.CreatePort(ctx, topic, port)
	if err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portOne(ctx, created, nil)
	if err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusCreated, Body: o, Location: rq.BaseURL() + "/v1/ports/" + created.UUID}, nil
}

// bodyNode is replace_node_uuid_with_id followed by the create policy
// check: the node named by a create body's node_uuid, which must be visible
// to the caller; a missing node is a 400, reported after the policy check.
func (a *API) bodyNode(ctx context.Context, policy, nodeUUID string) (*models.Node, error) {
	node, err := a.d.Store.GetNodeByUUID(ctx, nodeUUID)
	switch {
	case err == nil:
		if a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(node)) != nil {
			node = nil
		}
	case !ironic.IsClass(err, ironic.NodeNotFound):
		return nil, err
	}
	if err := a.d.Policy.Authorize(ctx, policy, nodeTarget(node)); err != nil {
		return nil, err
	}
	if node == nil {
		return nil, ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", nodeUUID).WithStatus(http.StatusBadRequest)
	}
	return node, nil
}

// portPatchAllowed is port.py's PATCH_ALLOWED_FIELDS.
func portPatchAllowed() []string {
	return []string{"address", "extra", "is_smartnic", "local_link_connection", "node_uuid",
		"physical_network", "portgroup_uuid", "pxe_enabled"}
}

// firstOpOn is api_utils.is_path_updated as Ironic 21.4 implements it: it
// looks at the first operation only.
func firstOpOn(ops []patchOp, path string) bool {
	if len(ops) == 0 {
		return false
	}
	return ops[0].Path == path || strings.HasPrefix(ops[0].Path, path+"/")
}

// pathRemoved is api_utils.is_path_removed.
func pathRemoved(ops []patchOp, path string) bool {
	for _, op := range ops {
		if op.Op == "remove" && (op.Path == path || strings.HasPrefix(op.Path, path+"/")) {
			return true
		}
	}
	return false
}

// patchedNode is the node a patched node_uuid names (objects.Node.get:
// by id when int-like, by UUID when UUID-like, else InvalidIdentity);
// NodeNotFound is a 400 here.
func (a *API) patchedNode(ctx context.Context, v any) (*models.Node, error) {
	var n *models.Node
	var err error
	if id, ok := pyIntLike(v); ok {
		n, err = a.d.Store.GetNodeByID(ctx, id)
	} else if s, ok := v.(string); ok && isUUID(s) {
		n, err = a.d.Store.GetNodeByUUID(ctx, s)
	} else {
		return nil, ironic.Errorf(ironic.InvalidIdentity, "Expected a UUID or int but received %s.", pyStr(v))
	}
	if err != nil {
		return nil, as400(err, ironic.NodeNotFound)
	}
	return n, nil
}

// orderedDoc lists a patched document's members in the given key order, as
// the Python dict Ironic validates holds them.
func orderedDoc(doc map[string]any, order []string) pyjson.Object {
	o := make(pyjson.Object, 0, len(order))
	for _, k := range order {
		if v, ok := doc[k]; ok {
			o = append(o, pyjson.Member{Key: k, Value: v})
		}
	}
	return o
}

// patchPort is PortsController.patch.
func (a *API) patchPort(rq *Request) (*Response, error) {
	b, err := portPatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("port_uuid")
	ops, err := a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	if parentOf(rq).set() {
		return nil, operationNotPermitted()
	}
	if err := checkPatchAllowed(ops, portPatchAllowed()); err != nil {
		return nil, err
	}
	var touched []string
	for _, f := range []string{"pxe_enabled", "local_link_connection", "portgroup_uuid", "physical_network",
		"is_smartnic", "local_link_connection/network_type"} {
		if len(patchValues(ops, "/"+f)) > 0 || pathRemoved(ops, "/"+f) {
			touched = append(touched, f)
		}
	}
	v := rq.Ver
	if err := checkPortFields(v, touched); err != nil {
		return nil, err
	}
	port, node, err := a.retrievePort(rq, "baremetal:port:update", ident)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, missingPortNode(port.NodeID)
	}
	ctx := rq.Ctx()
	var pg *models.Portgroup
	if port.PortgroupID != nil && *port.PortgroupID != 0 {
		if pg, err = a.d.Store.GetPortgroupByID(ctx, *port.PortgroupID, ""); err != nil {
			return nil, err
		}
	}
	doc := portDoc(port, node.UUID, pg)
	doc, err = applyPatch(doc, ops)
	if err != nil {
		return nil, err
	}
	if firstOpOn(ops, "/portgroup_uuid") {
		pg = nil
		if pgu := doc["portgroup_uuid"]; pyjson.Truthy(pgu) {
			s, ok := pgu.(string)
			if !ok {
				s = pyStr(pgu)
			}
			if pg, err = a.d.Store.GetPortgroupByUUID(ctx, s); err != nil {
				return nil, as400(err, ironic.PortgroupNotFound)
			}
		}
	}
	if nu, ok := doc["node_uuid"]; ok && nu != node.UUID {
		if node, err = a.patchedNode(ctx, nu); err != nil {
			return nil, err
		}
	}
	// patched_validate_with_schema
	patched := orderedDoc(doc, []string{"uuid", "node_uuid", "address", "extra", "local_link_connection",
		"pxe_enabled", "physical_network", "is_smartnic", "portgroup_uuid"})
	if verr := portSchemas.port.Validate(patched); verr != nil {
		return nil, schemaError("patch", verr)
	}
	if err := validateBodyExtra(patched, portBodyValidators()); err != nil {
		return nil, err
	}
	vals := plain(patched).(map[string]any)
	changes, err := applyPortChanges(port, vals, node, pg)
	if err != nil {
		return nil, err
	}
	if node.ProvisionState != nil && *node.ProvisionState == states.Inspecting && v.AtLeast(mv.InspectWait) {
		return nil, &ironic.Fault{Class: ironic.ClientSideError, Status: http.StatusConflict,
			Message: "Cannot update port \"" + port.UUID + "\" on \"" + node.UUID + "\" while it is in state \"inspecting\"."}
	}
	if firstOpOn(ops, "/physical_network") && port.PhysicalNetwork != nil && *port.PhysicalNetwork == "" {
		return nil, ironic.Errorf(ironic.Invalid, "A non-empty value is required when setting physical_network")
	}
	topic, err := a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	updated, err := a.d.Conductor.UpdatePort(ctx, topic, port, changes)
	if err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portOne(ctx, updated, nil)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// portDoc is the patchable document of a port: Port.as_dict() with node_id
// replaced by node_uuid and portgroup_id (when set) by portgroup_uuid.
func portDoc(p *models.Port, nodeUUID string, pg *models.Portgroup) map[string]any {
	d := map[string]any{
		"id":                    p.ID,
		"uuid":                  p.UUID,
		"node_uuid":             nodeUUID,
		"address":               strOrNil(p.Address),
		"extra":                 deepCopy(dictOrEmpty(p.Extra)),
		"local_link_connection": deepCopy(dictOrEmpty(p.LocalLinkConnection)),
		"pxe_enabled":           boolOrNil(p.PXEEnabled),
		"internal_info":         deepCopy(dictOrEmpty(p.InternalInfo)),
		"physical_network":      strOrNil(p.PhysicalNetwork),
		"is_smartnic":           boolOrNil(p.IsSmartNIC),
		"name":                  strOrNil(p.Name),
		"created_at":            isoTime(p.CreatedAt),
		"updated_at":            isoTime(p.UpdatedAt),
		"portgroup_uuid":        nil,
	}
	if pg != nil {
		d["portgroup_uuid"] = pg.UUID
	} else {
		d["portgroup_id"] = nil
	}
	return d
}

// applyPortChanges is patch_update_changed_fields for a port: it sets the
// fields whose patched value differs and returns their columns.
func applyPortChanges(p *models.Port, vals map[string]any, node *models.Node, pg *models.Portgroup) ([]string, error) {
	var changes []string
	if p.NodeID == nil || *p.NodeID != node.ID {
		id := node.ID
		p.NodeID = &id
		changes = append(changes, "node_id")
	}
	newAddr := optString(vals["address"])
	if !jsonEqual(strOrNil(newAddr), strOrNil(p.Address)) {
		p.Address = newAddr
		changes = append(changes, "address")
	}
	for _, c := range []struct {
		col string
		dst *models.JSONDict
	}{{"extra", &p.Extra}, {"local_link_connection", &p.LocalLinkConnection}} {
		nv := vals[c.col]
		if !jsonEqual(dictOrEmpty(*c.dst), nv) {
			*c.dst = dictValue(nv)
			changes = append(changes, c.col)
		}
	}
	var pgID *int64
	if pg != nil {
		id := pg.ID
		pgID = &id
	}
	if (pgID == nil) != (p.PortgroupID == nil) || (pgID != nil && *pgID != *p.PortgroupID) {
		p.PortgroupID = pgID
		changes = append(changes, "portgroup_id")
	}
	if nv := vals["pxe_enabled"]; !jsonEqual(boolOrNil(p.PXEEnabled), nv) {
		b, ok := nv.(bool)
		if !ok {
			return nil, cannotBeNone("pxe_enabled")
		}
		p.PXEEnabled = &b
		changes = append(changes, "pxe_enabled")
	}
	if nv := optString(vals["physical_network"]); !jsonEqual(strOrNil(p.PhysicalNetwork), strOrNil(nv)) {
		p.PhysicalNetwork = nv
		changes = append(changes, "physical_network")
	}
	if nv := vals["is_smartnic"]; !jsonEqual(boolOrNil(p.IsSmartNIC), nv) {
		if b, ok := nv.(bool); ok {
			p.IsSmartNIC = &b
		} else {
			p.IsSmartNIC = nil
		}
		changes = append(changes, "is_smartnic")
	}
	return changes, nil
}

// jsonEqual compares two decoded JSON values as Python's == would.
func jsonEqual(a, b any) bool {
	ab, err1 := pyjson.Marshal(normJSON(a))
	bb, err2 := pyjson.Marshal(normJSON(b))
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

// normJSON makes dict types comparable by their encoding.
func normJSON(v any) any {
	if d, ok := v.(models.JSONDict); ok {
		return map[string]any(d)
	}
	return v
}

// deletePort is PortsController.delete.
func (a *API) deletePort(rq *Request) (*Response, error) {
	b, err := portDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("port_uuid")
	if parentOf(rq).set() {
		return nil, operationNotPermitted()
	}
	port, node, err := a.retrievePort(rq, "baremetal:port:delete", ident)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, missingPortNode(port.NodeID)
	}
	ctx := rq.Ctx()
	topic, err := a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.DestroyPort(ctx, topic, port); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}
