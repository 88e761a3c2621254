package apiv1

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

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

// routesPortgroups registers /portgroups and /nodes/{node}/portgroups,
// routed as pecan routes PortgroupsController (its _lookup first, for any
// path below the collection).
func (a *API) routesPortgroups(m *mux.Router) {
	top := func(rq *Request) (*Response, error) { return a.portgroupsController(rq, "", restSegments(rq)) }
	ms := methods{"GET": top, "POST": top, "PATCH": top, "DELETE": top}
	a.handle(m, "/portgroups", ms, "DELETE, GET, PATCH, POST")
	a.handle(m, "/portgroups/{rest:.+}", ms, "DELETE, GET, PATCH, POST")

	byNode := a.nodeLookup("portgroups", func(rq *Request) (*Response, error) {
		return a.portgroupsController(rq, rq.Var("node"), restSegments(rq))
	})
	nms := methods{"GET": byNode, "POST": byNode, "PATCH": byNode, "DELETE": byNode}
	a.handle(m, "/nodes/{node}/portgroups", nms, "DELETE, GET, PATCH, POST")
	a.handle(m, "/nodes/{node}/portgroups/{rest:.+}", nms, "DELETE, GET, PATCH, POST")
}

// portgroupsController dispatches one request to PortgroupsController.
func (a *API) portgroupsController(rq *Request, parentNode string, rem []string) (*Response, error) {
	if len(rem) > 0 {
		// _lookup: pecan tries it before any handler that gets positional
		// arguments. Its answers are webob's.
		if !rq.Ver.AtLeast(mv.Portgroups) {
			return nil, ironic.Webob(ironic.NotFound, "")
		}
		if !validLogicalName(rem[0]) && !isUUID(rem[0]) {
			return nil, ironic.Webob(ironic.HTTPBadRequest, "Expected UUID or name for portgroup: "+rem[0])
		}
		if len(rem) > 1 && rem[1] == "ports" {
			if !rq.Ver.AtLeast(mv.PortgroupsSubcontrollers) {
				return nil, ironic.Webob(ironic.NotFound, "")
			}
			return a.portsController(rq, portParent{node: parentNode, pg: rem[0]}, rem[2:])
		}
	}
	switch rq.HTTP.Method {
	case http.MethodGet:
		switch {
		case len(rem) == 0:
			return a.listPortgroups(rq, parentNode, false, nil)
		case rem[len(rem)-1] == "detail":
			return a.listPortgroups(rq, parentNode, true, rem[:len(rem)-1])
		case len(rem) == 1:
			return a.getPortgroup(rq, parentNode, rem[0], nil)
		case len(rem) == 2:
			return a.getPortgroup(rq, parentNode, rem[0], &rem[1])
		}
		// Ironic fails with a 500 TypeError (too many positional
		// arguments); there is no such resource.
		return nil, ironic.Webob(ironic.NotFound, "")
	case http.MethodPost:
		return a.createPortgroup(rq, parentNode, rem)
	case http.MethodPatch:
		return a.patchPortgroup(rq, parentNode, rem)
	case http.MethodDelete:
		return a.deletePortgroup(rq, parentNode, rem)
	}
	// Other verbs, HEAD included: pecan finds no handler.
	return nil, ironic.Webob(ironic.MethodNotAllowed, "")
}

// portgroupsNotFound is the answer of every handler before 1.23.
func portgroupsNotFound() error {
	return ironic.Errorf(ironic.NotFound, "Resource could not be found.")
}

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
	case validLogicalName(ident):
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
	node, address, marker *string
	limit                 *int
	sortKey, sortDir      string
	fields                []string
	detail                *bool
}

// listPortgroups is PortgroupsController.get_all, or detail (see
// listPorts for positional).
func (a *API) listPortgroups(rq *Request, parentNode string, detailPath bool, positional []string) (*Response, error) {
	allowed := []string{"node", "address", "marker", "limit", "sort_key", "sort_dir"}
	if detailPath {
		withPositional(rq, allowed, positional)
	} else {
		allowed = append(allowed, "fields", "detail")
	}
	if err := rq.CheckArgs(allowed...); err != nil {
		return nil, err
	}
	p := &portgroupListParams{sortKey: "id", sortDir: "asc"}
	var err error
	if p.node, err = uuidOrNameArg(rq, "node"); err != nil {
		return nil, err
	}
	if p.address, err = macArg(rq, "address"); err != nil {
		return nil, err
	}
	if p.marker, err = uuidQueryArg(rq, "marker"); err != nil {
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
	if !detailPath {
		if p.fields, err = stringList(rq, "fields"); err != nil {
			return nil, err
		}
		if p.detail, err = rq.Bool("detail"); err != nil {
			return nil, err
		}
	}
	v := rq.Ver
	if !v.AtLeast(mv.Portgroups) {
		return nil, portgroupsNotFound()
	}
	if parentNode != "" {
		p.node = &parentNode
	}
	project, err := a.checkPortListPolicy(rq, "portgroup", portParent{node: parentNode})
	if err != nil {
		return nil, err
	}
	resource := "portgroups"
	if detailPath {
		if err := checkPortgroupFields(v, []string{p.sortKey}); err != nil {
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
		if err := checkPortgroupFields(v, []string{p.sortKey}); err != nil {
			return nil, err
		}
		if p.fields, err = returnFields(v, p.fields, p.detail, defaultPortgroupFields()); err != nil {
			return nil, err
		}
	}
	return a.portgroupCollection(rq, p, project, resource)
}

// portgroupCollection is _get_portgroups_collection.
func (a *API) portgroupCollection(rq *Request, p *portgroupListParams, project, resource string) (*Response, error) {
	ctx := rq.Ctx()
	limit, err := a.validateLimit(p.limit)
	if err != nil {
		return nil, err
	}
	if err := validateSortDir(p.sortDir); err != nil {
		return nil, err
	}
	opts := db.ListOpts{Limit: limit, SortKey: p.sortKey, SortDir: p.sortDir}
	if p.marker != nil {
		mk, err := a.d.Store.GetPortgroupByUUID(ctx, *p.marker)
		if err != nil {
			return nil, err
		}
		opts.Marker = mk.ID
	}
	if portgroupInvalidSortKey(p.sortKey) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value %s is an invalid field for sorting", p.sortKey)
	}
	if opts.SortKey == "id" {
		opts.SortKey = ""
	}
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
			return nil, badSortKey(err, p.sortKey)
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
			return nil, badSortKey(err, p.sortKey)
		}
	}
	pr := a.newPortRenderer(rq)
	items := make([]pyjson.Object, 0, len(pgs))
	for i := range pgs {
		o, err := pr.portgroup(ctx, &pgs[i])
		if err != nil {
			return nil, err
		}
		if err := checkFieldsValid(p.fields, o); err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	args := []nextArg{{"sort_key", p.sortKey}, {"sort_dir", p.sortDir}}
	if p.detail != nil {
		args = append(args, nextArg{"detail", *p.detail})
	}
	var marker string
	if len(items) > 0 {
		marker = pgs[len(pgs)-1].UUID
	}
	next := nextLink(rq, resource, len(items), limit, marker, args, p.fields)
	out := make([]any, len(items))
	for i, o := range items {
		out[i] = sanitizeFields(o, p.fields)
	}
	return OK(collection("portgroups", out, next)), nil
}

// getPortgroup is PortgroupsController.get_one; fieldsArg is a fields
// value given as a path segment.
func (a *API) getPortgroup(rq *Request, parentNode, ident string, fieldsArg *string) (*Response, error) {
	if fieldsArg != nil {
		withPositional(rq, []string{"fields"}, []string{*fieldsArg})
	}
	if err := rq.CheckArgs("fields"); err != nil {
		return nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
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
func (a *API) createPortgroup(rq *Request, parentNode string, rem []string) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if len(rem) > 0 {
		return nil, positionalBodyError(portSchemas.portgroup, "portgroup", rem[0])
	}
	doc, err := readObjectBody(rq)
	if err != nil {
		return nil, err
	}
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
		if s, ok := name.(string); !ok || !validLogicalName(s) {
			return nil, ironic.Errorf(ironic.ClientSideError, "Cannot create portgroup with invalid name '%s'", pyStrValue(name))
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
func (a *API) patchPortgroup(rq *Request, parentNode string, rem []string) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	ident, err := itemIdent(rem, "portgroup_ident")
	if err != nil {
		return nil, err
	}
	if len(rem) > 1 {
		return nil, a.positionalPatchError(rem[1])
	}
	ops, err := a.parsePatch(rq)
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
		if s, ok := name.(string); !ok || !validLogicalName(s) {
			return nil, ironic.Errorf(ironic.ClientSideError, "Portgroup %s: Cannot change name to invalid name '%s'",
				ident, pyStrValue(name))
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
func (a *API) deletePortgroup(rq *Request, parentNode string, rem []string) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	ident, err := itemIdent(rem, "portgroup_ident")
	if err != nil {
		return nil, err
	}
	if len(rem) > 1 {
		// Ironic fails with a 500 TypeError (too many positional arguments).
		return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
	}
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
