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

// portgroupStore is the part of the database the portgroups routes use.
type portgroupStore interface {
	ListPortgroups(ctx context.Context, f db.PortgroupFilter, o db.ListOpts) ([]models.Portgroup, error)
	GetPortgroupByID(ctx context.Context, id int64, project string) (*models.Portgroup, error)
	GetPortgroupByUUID(ctx context.Context, uuid string) (*models.Portgroup, error)
	GetPortgroupByName(ctx context.Context, name string) (*models.Portgroup, error)
	GetPortgroupByAddress(ctx context.Context, address, project string) (*models.Portgroup, error)
	CreatePortgroup(ctx context.Context, p *models.Portgroup) (*models.Portgroup, error)
}

// PortgroupsController's parameters.
var (
	portgroupListArgs = params(opt("node", uuidOrNameArg), opt("address", macArg)).
				and(paging(uuidArg)...).
				and(opt("fields", stringListArg), opt("detail", boolArg))
	portgroupDetailArgs = portgroupListArgs.without("fields", "detail")
	portgroupGetArgs    = params(req("portgroup_ident", uuidOrNameArg), opt("fields", stringListArg))
	portgroupCreateArgs = params(req("portgroup", bodyOf("object"))).takesBody("portgroup")
	portgroupPatchArgs  = params(req("portgroup_ident", uuidOrNameArg), req("patch", bodyOf("array"))).
				takesBody("patch")
	portgroupDeleteArgs = params(req("portgroup_ident", uuidOrNameArg))
)

// portgroupsController is PortgroupsController, at /portgroups and below
// a node.
func (a *API) portgroupsController() restController {
	return restController{getAll: a.listPortgroups, getOne: a.getPortgroup, post: a.createPortgroup,
		patch: a.patchPortgroup, delete: a.deletePortgroup,
		actions: map[string]handlerFunc{"detail": a.listPortgroupsDetail}}
}

// portgroupLookupGate is PortgroupsController._lookup, for any path below
// the collection: port groups exist from 1.23, the ident must be a UUID or
// a logical name, and their ports from 1.24.
func portgroupLookupGate(rq *Request) *ironic.Fault {
	if !rq.Ver.AtLeast(mv.Portgroups) {
		return ironic.Webob(ironic.NotFound, "")
	}
	ident := rq.Var("pg")
	if !isName(ident) && !isUUID(ident) {
		return ironic.Webob(ironic.HTTPBadRequest, "Expected UUID or name for portgroup: "+ident)
	}
	if sub, _, _ := strings.Cut(rq.below, "/"); sub == "ports" && !rq.Ver.AtLeast(mv.PortgroupsSubcontrollers) {
		return ironic.Webob(ironic.NotFound, "")
	}
	return nil
}

// portgroupsNotFound is the answer of every handler before 1.23.
func portgroupsNotFound() error { return resourceNotFound() }

// retrievePortgroup is check_port_policy_and_retrieve for a port group:
// objects.Portgroup.get takes an id, a UUID, a MAC address or a name.
func (a *API) retrievePortgroup(rq *Request, policy, ident string) (*models.Portgroup, *models.Node, error) {
	ctx := rq.Ctx()
	var pg *models.Portgroup
	var err error
	switch {
	case db.IsIntLike(ident):
		id, _ := pyIntLike(ident)
		pg, err = a.d.Store.GetPortgroupByID(ctx, id, "")
	case isUUID(ident):
		pg, err = a.d.Store.GetPortgroupByUUID(ctx, ident)
	case isMAC(ident):
		pg, err = a.d.Store.GetPortgroupByAddress(ctx, ident, "")
	case isName(ident):
		pg, err = a.d.Store.GetPortgroupByName(ctx, ident)
	default:
		err = ironic.Errorf(ironic.InvalidIdentity, "Expected a UUID or int but received %s.", ident)
	}
	if err != nil {
		return nil, nil, err
	}
	n, err := a.ownedNode(ctx, pg.NodeID)
	if err != nil {
		return nil, nil, err
	}
	target := ownerTarget(n)
	if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", target); err != nil {
		return nil, nil, ironic.Errorf(ironic.PortgroupNotFound, "Portgroup %s could not be found.", ident)
	}
	if err := a.d.Policy.Authorize(ctx, policy, target); err != nil {
		return nil, nil, err
	}
	return pg, n, nil
}

// findPortgroupWithSuffix is get_rpc_portgroup_with_suffix: with a ".json"
// suffix stripped from the path, a miss is retried with it.
func (a *API) findPortgroupWithSuffix(rq *Request, ident string) (*models.Portgroup, error) {
	pg, err := a.findPortgroup(rq.Ctx(), ident)
	if err != nil && rq.jsonSuffix && ironic.IsClass(err, ironic.PortgroupNotFound) {
		return a.findPortgroup(rq.Ctx(), ident+".json")
	}
	return pg, err
}

// portgroupListParams are the validated arguments of a port group list.
type portgroupListParams struct {
	node, address *string
	page          page
	fields        []string
	detail        *bool
}

func (a *API) listPortgroups(rq *Request) (*Response, error) { return a.portgroupList(rq, false) }

func (a *API) listPortgroupsDetail(rq *Request) (*Response, error) { return a.portgroupList(rq, true) }

// portgroupList is PortgroupsController.get_all, or detail (see portList
// for the segments before "detail").
func (a *API) portgroupList(rq *Request, detailPath bool) (*Response, error) {
	spec := portgroupListArgs
	if detailPath {
		spec = portgroupDetailArgs
	}
	positional := rq.positional()
	b, err := spec.bind(rq, positional...)
	if err != nil {
		return nil, err
	}
	p := &portgroupListParams{node: b.str("node"), address: b.str("address"), fields: b.list("fields"),
		detail: b.boolean("detail")}
	v := rq.Ver
	if !v.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	parentNode := rq.Var("node")
	if parentNode != "" {
		p.node = &parentNode
	}
	project, err := a.checkPortListPolicy(rq, "portgroup", portParent{node: parentNode})
	if err != nil {
		return nil, err
	}
	sortKey := b.strOr("sort_key", "id")
	resource := "portgroups"
	if detailPath {
		if err := checkPortgroupFields(v, []string{sortKey}); err != nil {
			return nil, err
		}
		if len(positional) > 0 {
			return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
		}
		resource = "portgroups/detail"
	} else {
		if err := checkPortgroupFields(v, p.fields); err != nil {
			return nil, err
		}
		if err := checkPortgroupFields(v, []string{sortKey}); err != nil {
			return nil, err
		}
		if p.fields, err = returnFields(v, p.fields, p.detail, defaultPortgroupFields()); err != nil {
			return nil, err
		}
	}
	if p.page, err = a.page(b); err != nil {
		return nil, err
	}
	return a.portgroupCollection(rq, p, project, resource)
}

// portgroupCollection is _get_portgroups_collection.
func (a *API) portgroupCollection(rq *Request, p *portgroupListParams, project, resource string) (*Response, error) {
	ctx := rq.Ctx()
	opts, err := p.page.listOpts(markerFirst, portgroupUnsortable, func(marker string) (int64, error) {
		mk, err := a.d.Store.GetPortgroupByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return mk.ID, nil
	})
	if err != nil {
		return nil, err
	}
	sortKey, limit := p.page.sortKey, p.page.limit
	f := db.PortgroupFilter{Project: project}
	var pgs []models.Portgroup
	switch {
	case p.node != nil:
		n, err := a.findNodeOnce(rq, *p.node)
		if err != nil {
			return nil, err
		}
		f.NodeID = &n.ID
		if pgs, err = a.d.Store.ListPortgroups(ctx, f, opts); err != nil {
			return nil, badSortKey(err, sortKey)
		}
	case p.address != nil:
		pg, err := a.d.Store.GetPortgroupByAddress(ctx, *p.address, project)
		switch {
		case err == nil:
			pgs = []models.Portgroup{*pg}
		case ironic.IsClass(err, ironic.PortgroupNotFound):
		default:
			return nil, err
		}
	default:
		if pgs, err = a.d.Store.ListPortgroups(ctx, f, opts); err != nil {
			return nil, badSortKey(err, sortKey)
		}
	}
	pr := a.newPortRenderer(rq)
	items := make([]pyjson.Object, 0, len(pgs))
	for i := range pgs {
		o, err := pr.portgroup(ctx, &pgs[i])
		if err != nil {
			return nil, err
		}
		if err := checkFields(p.fields, o); err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	var marker string
	if len(items) > 0 {
		marker = pgs[len(pgs)-1].UUID
	}
	next := nextLink(rq, resource, len(items), limit, marker, p.page.nextArgs(p.detail), p.fields)
	out := make([]any, len(items))
	for i, o := range items {
		out[i] = keepFields(o, p.fields)
	}
	return OK(collection("portgroups", out, next)), nil
}

// getPortgroup is PortgroupsController.get_one; GET /portgroups/{pg}/{x}
// passes x as fields.
func (a *API) getPortgroup(rq *Request) (*Response, error) {
	b, err := portgroupGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, fields, parentNode := b.ident("portgroup_ident"), b.list("fields"), rq.Var("node")
	v := rq.Ver
	if !v.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	if _, _, err := a.retrievePortgroup(rq, "baremetal:portgroup:get", ident); err != nil {
		return nil, err
	}
	if parentNode != "" {
		return nil, operationNotPermitted()
	}
	if err := checkPortgroupFields(v, fields); err != nil {
		return nil, err
	}
	pg, err := a.findPortgroupWithSuffix(rq, ident)
	if err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portgroupOne(rq.Ctx(), pg, fields)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// createPortgroup is PortgroupsController.post: port groups are created by
// the API directly, not by a conductor.
func (a *API) createPortgroup(rq *Request) (*Response, error) {
	b, err := portgroupCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	doc, parentNode := b.body, rq.Var("node")
	if verr := portSchemas.portgroup.Validate(doc); verr != nil {
		return nil, schemaError("portgroup", verr)
	}
	ob := doc.(pyjson.Object)
	if err := validateBodyExtra(ob, portgroupBodyValidators()); err != nil {
		return nil, err
	}
	v := rq.Ver
	if !v.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	body := plain(ob).(map[string]any)
	ctx := rq.Ctx()
	nodeUUID, _ := body["node_uuid"].(string)
	node, err := a.bodyNode(ctx, "baremetal:portgroup:create", nodeUUID)
	if err != nil {
		return nil, err
	}
	if parentNode != "" {
		return nil, operationNotPermitted()
	}
	if !v.AtLeast(mv.PortgroupModeProperties) && (pyjson.Truthy(body["mode"]) || pyjson.Truthy(body["properties"])) {
		return nil, notAcceptable()
	}
	name := body["name"]
	if pyjson.Truthy(name) {
		if s, ok := name.(string); !ok || !isName(s) {
			return nil, ironic.Errorf(ironic.ClientSideError, "Cannot create portgroup with invalid name '%s'", pyStr(name))
		}
	}
	pg := &models.Portgroup{NodeID: &node.ID}
	if u, _ := body["uuid"].(string); u != "" {
		pg.UUID = u
	} else {
		pg.UUID = a.d.UUIDs.NewUUID()
	}
	pg.Name = optString(name)
	pg.Address = optString(body["address"])
	pg.Mode = optString(body["mode"])
	pg.Extra = dictValue(body["extra"])
	pg.Properties = dictValue(body["properties"])
	if val, ok := body["standalone_ports_supported"]; ok {
		b, isBool := val.(bool)
		if !isBool {
			return nil, cannotBeNone("standalone_ports_supported")
		}
		pg.StandalonePortsSupported = &b
	}
	created, err := a.d.Store.CreatePortgroup(ctx, pg)
	if err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portgroupOne(ctx, created, nil)
	if err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusCreated, Body: o, Location: rq.BaseURL() + "/v1/portgroups/" + created.UUID}, nil
}

// portgroupPatchAllowed is portgroup.py's PATCH_ALLOWED_FIELDS.
func portgroupPatchAllowed() []string {
	return []string{"address", "extra", "mode", "name", "node_uuid", "properties", "standalone_ports_supported"}
}

// patchPortgroup is PortgroupsController.patch.
func (a *API) patchPortgroup(rq *Request) (*Response, error) {
	b, err := portgroupPatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, parentNode := b.ident("portgroup_ident"), rq.Var("node")
	ops, err := a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	v := rq.Ver
	if !v.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	pg, node, err := a.retrievePortgroup(rq, "baremetal:portgroup:update", ident)
	if err != nil {
		return nil, err
	}
	if parentNode != "" {
		return nil, operationNotPermitted()
	}
	if !v.AtLeast(mv.PortgroupModeProperties) && (firstOpOn(ops, "/mode") || firstOpOn(ops, "/properties")) {
		return nil, notAcceptable()
	}
	if err := checkPatchAllowed(ops, portgroupPatchAllowed()); err != nil {
		return nil, err
	}
	for _, name := range patchValues(ops, "/name") {
		if !pyjson.Truthy(name) {
			continue
		}
		if s, ok := name.(string); !ok || !isName(s) {
			return nil, ironic.Errorf(ironic.ClientSideError, "Portgroup %s: Cannot change name to invalid name '%s'",
				ident, pyStr(name))
		}
	}
	if node == nil {
		return nil, missingPortNode(pg.NodeID)
	}
	doc, err := applyPatch(portgroupDoc(pg, node.UUID), ops)
	if err != nil {
		return nil, err
	}
	if _, ok := doc["mode"]; !ok {
		return nil, ironic.Errorf(ironic.ClientSideError, "'mode' is a mandatory attribute and can not be removed")
	}
	ctx := rq.Ctx()
	if nu, ok := doc["node_uuid"]; ok && nu != node.UUID {
		if node, err = a.patchedNode(ctx, nu); err != nil {
			return nil, err
		}
	}
	patched := orderedDoc(doc, []string{"uuid", "name", "node_uuid", "address", "extra",
		"standalone_ports_supported", "mode", "properties"})
	if verr := portSchemas.portgroup.Validate(patched); verr != nil {
		return nil, schemaError("patch", verr)
	}
	if err := validateBodyExtra(patched, portgroupBodyValidators()); err != nil {
		return nil, err
	}
	changes, err := applyPortgroupChanges(pg, plain(patched).(map[string]any), node)
	if err != nil {
		return nil, err
	}
	if node.ProvisionState != nil && *node.ProvisionState == states.Inspecting && v.AtLeast(mv.InspectWait) {
		return nil, &ironic.Fault{Class: ironic.ClientSideError, Status: http.StatusConflict,
			Message: "Cannot update portgroup \"" + pg.UUID + "\" on node \"" + node.UUID + "\" while it is in state \"inspecting\"."}
	}
	topic, err := a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	updated, err := a.d.Conductor.UpdatePortgroup(ctx, topic, pg, changes)
	if err != nil {
		return nil, err
	}
	o, err := a.newPortRenderer(rq).portgroupOne(ctx, updated, nil)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// portgroupDoc is the patchable document of a port group: as_dict() with
// node_id replaced by node_uuid.
func portgroupDoc(pg *models.Portgroup, nodeUUID string) map[string]any {
	return map[string]any{
		"id":                         pg.ID,
		"uuid":                       pg.UUID,
		"name":                       strOrNil(pg.Name),
		"node_uuid":                  nodeUUID,
		"address":                    strOrNil(pg.Address),
		"extra":                      deepCopy(dictOrEmpty(pg.Extra)),
		"internal_info":              deepCopy(dictOrEmpty(pg.InternalInfo)),
		"standalone_ports_supported": boolOrNil(pg.StandalonePortsSupported),
		"mode":                       strOrNil(pg.Mode),
		"properties":                 deepCopy(dictOrEmpty(pg.Properties)),
		"created_at":                 isoTime(pg.CreatedAt),
		"updated_at":                 isoTime(pg.UpdatedAt),
	}
}

// applyPortgroupChanges is patch_update_changed_fields for a port group.
func applyPortgroupChanges(pg *models.Portgroup, vals map[string]any, node *models.Node) ([]string, error) {
	var changes []string
	if nv := optString(vals["name"]); !jsonEqual(strOrNil(pg.Name), strOrNil(nv)) {
		pg.Name = nv
		changes = append(changes, "name")
	}
	if pg.NodeID == nil || *pg.NodeID != node.ID {
		id := node.ID
		pg.NodeID = &id
		changes = append(changes, "node_id")
	}
	if nv := optString(vals["address"]); !jsonEqual(strOrNil(pg.Address), strOrNil(nv)) {
		pg.Address = nv
		changes = append(changes, "address")
	}
	if nv := vals["extra"]; !jsonEqual(dictOrEmpty(pg.Extra), nv) {
		pg.Extra = dictValue(nv)
		changes = append(changes, "extra")
	}
	if nv := vals["standalone_ports_supported"]; !jsonEqual(boolOrNil(pg.StandalonePortsSupported), nv) {
		b, ok := nv.(bool)
		if !ok {
			return nil, cannotBeNone("standalone_ports_supported")
		}
		pg.StandalonePortsSupported = &b
		changes = append(changes, "standalone_ports_supported")
	}
	if nv := optString(vals["mode"]); !jsonEqual(strOrNil(pg.Mode), strOrNil(nv)) {
		pg.Mode = nv
		changes = append(changes, "mode")
	}
	if nv := vals["properties"]; !jsonEqual(dictOrEmpty(pg.Properties), nv) {
		pg.Properties = dictValue(nv)
		changes = append(changes, "properties")
	}
	return changes, nil
}

// deletePortgroup is PortgroupsController.delete.
func (a *API) deletePortgroup(rq *Request) (*Response, error) {
	b, err := portgroupDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, parentNode := b.ident("portgroup_ident"), rq.Var("node")
	if !rq.Ver.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	pg, node, err := a.retrievePortgroup(rq, "baremetal:portgroup:delete", ident)
	if err != nil {
		return nil, err
	}
	if parentNode != "" {
		return nil, operationNotPermitted()
	}
	if node == nil {
		return nil, missingPortNode(pg.NodeID)
	}
	ctx := rq.Ctx()
	topic, err := a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.DestroyPortgroup(ctx, topic, pg); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}
