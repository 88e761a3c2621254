package apiv1

import (
	"net/http"
	"reflect"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// allocationSchema is allocation.py's ALLOCATION_SCHEMA.
var allocationSchema = pyschema.MustCompile(`{
  "type": "object",
  "properties": {
    "candidate_nodes": {"type": ["array", "null"], "items": {"type": "string"}},
    "extra": {"type": ["object", "null"]},
    "name": {"type": ["string", "null"]},
    "node": {"type": ["string", "null"]},
    "owner": {"type": ["string", "null"]},
    "resource_class": {"type": ["string", "null"], "maxLength": 80},
    "traits": {"type": ["array", "null"], "items": ` + traitSchemaJSON + `},
    "uuid": {"type": ["string", "null"]}
  },
  "additionalProperties": false
}`)

// allocationSchemaFields are the properties of ALLOCATION_SCHEMA.
func allocationSchemaFields() []string {
	return []string{"candidate_nodes", "extra", "name", "node", "owner", "resource_class", "traits", "uuid"}
}

// AllocationsController's parameters.
var (
	allocationListArgs = params(opt("node", uuidOrNameArg), opt("resource_class", strArg), opt("state", strArg)).
				and(paging(uuidArg)...).
				and(opt("fields", stringListArg), opt("owner", strArg))
	allocationGetArgs    = params(req("allocation_ident", uuidOrNameArg), opt("fields", stringListArg))
	allocationCreateArgs = params(req("allocation", bodyOf("object"))).takesBody("allocation")
	allocationPatchArgs  = params(req("allocation_ident", strArg), req("patch", bodyOf("array"))).takesBody("patch")
	allocationDeleteArgs = params(req("allocation_ident", uuidOrNameArg))
)

// listAllocations is AllocationsController.get_all.
func (a *API) listAllocations(rq *Request) (*Response, error) {
	b, err := allocationListArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	node, fields, owner := b.str("node"), b.list("fields"), b.str("owner")
	ctx := rq.Ctx()
	requestor, err := a.checkListPolicy(ctx, "allocation", owner)
	if err != nil {
		return nil, err
	}
	if err := checkAllocationFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	if owner != nil && !rq.Ver.AtLeast(mv.AllocationOwner) {
		return nil, notAcceptable()
	}
	if owner != nil && requestor != nil && *owner != *requestor {
		return nil, ironic.Errorf(ironic.NotAuthorized, "Not authorized.")
	}
	if requestor != nil {
		owner = requestor
	}
	pg, err := a.page(b)
	if err != nil {
		return nil, err
	}
	o, err := pg.listOpts(sortKeyFirst, []string{"extra", "candidate_nodes", "traits"}, func(marker string) (int64, error) {
		m, err := a.d.Store.GetAllocationByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return m.ID, nil
	})
	if err != nil {
		return nil, err
	}
	f := db.AllocationFilter{ResourceClass: b.str("resource_class"), State: strAs[states.Allocation](b, "state"), Owner: owner}
	if node != nil {
		n, err := a.findNodeOnce(rq, *node)
		if err != nil {
			return nil, as400(err, ironic.NodeNotFound)
		}
		if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(n)); err != nil {
			if ironic.IsClass(err, ironic.HTTPForbidden) {
				return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
			}
			return nil, err
		}
		f.NodeUUID = &n.UUID
	}
	list, err := a.d.Store.ListAllocations(ctx, f, o)
	if err != nil {
		return nil, err
	}
	items := make([]pyjson.Object, 0, len(list))
	for i := range list {
		al := &list[i]
		if err := a.d.Policy.Authorize(ctx, "baremetal:allocation:get", allocationTarget(al)); err != nil {
			return nil, err
		}
		item, err := a.renderAllocation(rq, al)
		if err != nil {
			return nil, err
		}
		if err := checkFields(fields, item); err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	var next any
	if len(list) > 0 {
		next = nextLink(rq, "allocations", len(list), pg.limit, list[len(list)-1].UUID, pg.nextArgs(nil), fields)
	}
	for i := range items {
		items[i] = sanitizeAllocation(rq.Ver, items[i], fields)
	}
	return OK(collection("allocations", items, next)), nil
}

// getAllocation is AllocationsController.get_one; a second path segment is
// the fields argument, as pecan binds it.
func (a *API) getAllocation(rq *Request) (*Response, error) {
	b, err := allocationGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, fields := b.ident("allocation_ident"), b.list("fields")
	al, err := a.allocationFor(rq, ident, "baremetal:allocation:get")
	if err != nil {
		return nil, err
	}
	if err := checkAllocationFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	out, err := a.renderAllocation(rq, al)
	if err != nil {
		return nil, err
	}
	if err := checkFields(fields, out); err != nil {
		return nil, err
	}
	return OK(sanitizeAllocation(rq.Ver, out, fields)), nil
}

// createAllocation is AllocationsController.post: the body is validated
// and resolved as Ironic does, and the conductor stores and processes the
// allocation (create_allocation).
func (a *API) createAllocation(rq *Request) (*Response, error) {
	b, err := allocationCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if verr := allocationSchema.Validate(b.body); verr != nil {
		return nil, schemaError("allocation", verr)
	}
	body, _ := plain(b.body).(map[string]any)
	if _, err := uuidArg("uuid", body["uuid"]); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := a.authorizeCreateAllocation(rq, body); err != nil {
		return nil, err
	}
	if rc := ironic.FromContext(ctx); a.cfg.EnforceNewDefaults && rc.SystemScope != "all" {
		// A project's allocation is its own unless
		// baremetal:allocation:create_restricted lets it name another
		// owner.
		owner, _ := body["owner"].(string)
		switch {
		case pyjson.Truthy(body["owner"]):
			if !a.d.Policy.Check(ctx, "baremetal:allocation:create_restricted", nil) && owner != rc.ProjectID {
				return nil, ironic.Errorf(ironic.NotAuthorized, "Cannot create allocation with an owner Project ID value %s "+
					"not matching the requestor Project ID %s. Policy baremetal:allocation:create_restricted is required "+
					"for this capability.", owner, noneIfEmpty(rc.ProjectID))
			}
		default:
			body["owner"] = optAny(rc.ProjectID)
		}
	}
	if name := body["name"]; pyjson.Truthy(name) && !isAPIName(rq.Ver, name) {
		return nil, ironic.Errorf(ironic.Invalid, "Cannot create allocation with invalid name '%s'", pyStr(name))
	}
	var node *models.Node
	if ident, _ := body["node"].(string); ident != "" {
		if !rq.Ver.AtLeast(mv.AllocationBackfill) {
			return nil, ironic.Errorf(ironic.Invalid, "Cannot set node when creating an allocation in this API version")
		}
		n, err := a.findNodeOnce(rq, ident)
		if err != nil {
			return nil, as400(err, ironic.NodeNotFound)
		}
		if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(n)); err != nil {
			if ironic.IsClass(err, ironic.HTTPForbidden) {
				return nil, ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", ident).WithStatus(http.StatusBadRequest)
			}
			return nil, err
		}
		node = n
	}
	if !pyjson.Truthy(body["resource_class"]) && node == nil {
		return nil, ironic.Errorf(ironic.Invalid, "The resource_class field is mandatory when not backfilling")
	}
	al := &models.Allocation{Name: optString(body["name"]), Owner: optString(body["owner"]),
		ResourceClass: optString(body["resource_class"])}
	if !pyjson.Truthy(body["resource_class"]) && node != nil {
		al.ResourceClass = node.ResourceClass
	}
	if cands, _ := body["candidate_nodes"].([]any); len(cands) > 0 {
		idents := make([]string, len(cands))
		for i, c := range cands {
			idents[i], _ = c.(string)
		}
		// A project-scoped caller without create_restricted picks among
		// its own nodes only.
		project := ""
		if !a.d.Policy.Check(ctx, "baremetal:allocation:create_restricted", nil) {
			project = ironic.FromContext(ctx).ProjectID
		}
		converted, err := a.d.Store.CheckNodeList(ctx, idents, project)
		if err != nil {
			return nil, as400(err, ironic.NodeNotFound)
		}
		// The candidates keep their order, as UUIDs.
		al.CandidateNodes = make(models.JSONList, len(idents))
		for i, id := range idents {
			al.CandidateNodes[i] = converted[id]
		}
	} else if cands, ok := body["candidate_nodes"].([]any); ok {
		al.CandidateNodes = models.JSONList(cands)
	}
	if traits, ok := body["traits"].([]any); ok {
		al.Traits = models.JSONList(traits)
	}
	if extra, ok := body["extra"].(map[string]any); ok {
		al.Extra = extra
	}
	switch u, _ := body["uuid"].(string); {
	case u != "":
		al.UUID = u
	case node != nil && node.InstanceUUID != nil && *node.InstanceUUID != "":
		// Backfilling without a UUID: the instance's UUID is the
		// allocation's.
		al.UUID = *node.InstanceUUID
	default:
		al.UUID = a.d.UUIDs.NewUUID()
	}
	var topic string
	if node != nil {
		al.NodeID = &node.ID
		if topic, err = a.d.Conductor.TopicFor(ctx, node); err != nil {
			return nil, err
		}
	} else if topic, err = a.randomTopic(rq); err != nil {
		return nil, err
	}
	created, err := a.d.Conductor.CreateAllocation(ctx, topic, al)
	if err != nil {
		return nil, err
	}
	out, err := a.allocationView(rq, created, nil)
	if err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusCreated, Body: out,
		Location: rq.BaseURL() + "/v1/allocations/" + created.UUID}, nil
}

// patchAllocation is AllocationsController.patch: only name and extra
// change, and Ironic's API saves them itself.
func (a *API) patchAllocation(rq *Request) (*Response, error) {
	b, err := allocationPatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ops, err := a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.AllocationUpdate) {
		return nil, ironic.Errorf(ironic.MethodNotAllowed, "The API version does not allow updating allocations")
	}
	al, err := a.allocationFor(rq, b.ident("allocation_ident"), "baremetal:allocation:update")
	if err != nil {
		return nil, err
	}
	if err := checkPatchAllowed(ops, []string{"name", "extra"}); err != nil {
		return nil, err
	}
	for _, name := range patchValues(ops, "/name") {
		if pyjson.Truthy(name) && !isAPIName(rq.Ver, name) {
			return nil, ironic.Errorf(ironic.Invalid, "Cannot update allocation with invalid name '%s'", pyStr(name))
		}
	}
	doc := allocationPatchDoc(al)
	patched, err := applyPatch(deepCopy(doc).(map[string]any), ops)
	if err != nil {
		return nil, err
	}
	kept := map[string]any{}
	for _, f := range allocationSchemaFields() {
		if v, ok := patched[f]; ok {
			kept[f] = v
		}
	}
	if verr := allocationSchema.Validate(kept); verr != nil {
		return nil, schemaError("patch", verr)
	}
	if _, err := uuidArg("uuid", kept["uuid"]); err != nil {
		return nil, err
	}
	vals := db.Values{}
	if name := kept["name"]; !reflect.DeepEqual(name, doc["name"]) {
		vals["name"] = name
	}
	if extra := kept["extra"]; !reflect.DeepEqual(extra, doc["extra"]) {
		vals["extra"] = extra
	}
	if len(vals) > 0 {
		if al, err = a.d.Store.UpdateAllocation(rq.Ctx(), db.ByUUID(al.UUID), vals, false); err != nil {
			return nil, err
		}
	}
	out, err := a.allocationView(rq, al, nil)
	if err != nil {
		return nil, err
	}
	return OK(out), nil
}

// deleteAllocation is AllocationsController.delete: the conductor
// removes the allocation and frees its node (destroy_allocation).
func (a *API) deleteAllocation(rq *Request) (*Response, error) {
	b, err := allocationDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("allocation_ident")
	al, err := a.allocationFor(rq, ident, "baremetal:allocation:delete")
	if err != nil {
		return nil, err
	}
	if al.NodeID != nil {
		if _, err := a.d.Store.GetNodeByID(rq.Ctx(), *al.NodeID); err != nil {
			return nil, err
		}
	}
	topic, err := a.randomTopic(rq)
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.DestroyAllocation(rq.Ctx(), topic, al); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// randomTopic is rpcapi.get_random_topic: the topic of a live conductor,
// none being a TemporaryFailure. Picking one at random spreads the work in
// Ironic; any live conductor can do it, so the first in host order is as
// good.
func (a *API) randomTopic(rq *Request) (string, error) {
	hosts, err := a.d.Store.GetOnlineConductors(rq.Ctx(), a.heartbeatTimeout())
	if err != nil {
		return "", err
	}
	if len(hosts) == 0 {
		return "", ironic.Errorf(ironic.TemporaryFailure, "Resource temporarily unavailable, please retry.")
	}
	return rpc.Topic + "." + a.d.Conductor.PickHost(hosts), nil
}

// allocationFor is check_allocation_policy_and_retrieve: the allocation by
// UUID or name (retried with the ".json" suffix the path lost), then the
// owner policy.
func (a *API) allocationFor(rq *Request, ident, policy string) (*models.Allocation, error) {
	al, err := a.findAllocation(rq, ident)
	if err != nil && rq.jsonSuffix && ironic.IsClass(err, ironic.AllocationNotFound) {
		al, err = a.findAllocation(rq, ident+".json")
	}
	if err != nil {
		return nil, err
	}
	// A caller who may not see the allocation learns nothing of it.
	target := allocationTarget(al)
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:allocation:get", target); err != nil {
		if ironic.IsClass(err, ironic.HTTPForbidden) {
			return nil, ironic.Errorf(ironic.AllocationNotFound, "Allocation %s could not be found.", ident)
		}
		return nil, err
	}
	if policy == "baremetal:allocation:get" {
		return al, nil
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), policy, target); err != nil {
		return nil, err
	}
	return al, nil
}

func (a *API) findAllocation(rq *Request, ident string) (*models.Allocation, error) {
	switch {
	case isUUID(ident):
		return a.d.Store.GetAllocationByUUID(rq.Ctx(), ident)
	case isName(ident):
		return a.d.Store.GetAllocationByName(rq.Ctx(), ident)
	}
	return nil, ironic.Errorf(ironic.InvalidUuidOrName, "Expected a logical name or UUID but received %s.", ident)
}

// allocationTarget is the policy target of an allocation
// (check_owner_policy('allocation', ...)): allocation.owner, "None" when
// unset.
func allocationTarget(al *models.Allocation) map[string]string {
	t := map[string]string{"allocation.owner": "None"}
	if al.Owner != nil {
		t["allocation.owner"] = *al.Owner
	}
	return t
}

// checkAllocationFieldsAllowed is _check_allowed_allocation_fields: owner
// needs 1.60.
func checkAllocationFieldsAllowed(v mv.Version, fields []string) error {
	if slices.Contains(fields, "owner") && !v.AtLeast(mv.AllocationOwner) {
		return notAcceptable()
	}
	return nil
}

// renderAllocation is allocation.convert_with_links before sanitizing.
func (a *API) renderAllocation(rq *Request, al *models.Allocation) (pyjson.Object, error) {
	list := func(l models.JSONList) any {
		if l == nil {
			return []any{}
		}
		return []any(l)
	}
	var nodeUUID any
	if al.NodeID != nil {
		n, err := a.d.Store.GetNodeByID(rq.Ctx(), *al.NodeID)
		switch {
		case err == nil:
			nodeUUID = n.UUID
		case !ironic.IsClass(err, ironic.NodeNotFound):
			return nil, err
		}
	}
	return pyjson.Object{
		{Key: "uuid", Value: al.UUID},
		{Key: "created_at", Value: isoTime(al.CreatedAt)},
		{Key: "updated_at", Value: isoTime(al.UpdatedAt)},
		{Key: "candidate_nodes", Value: list(al.CandidateNodes)},
		{Key: "extra", Value: dictOrEmpty(al.Extra)},
		{Key: "last_error", Value: strOrNil(al.LastError)},
		{Key: "name", Value: strOrNil(al.Name)},
		{Key: "owner", Value: strOrNil(al.Owner)},
		{Key: "resource_class", Value: strOrNil(al.ResourceClass)},
		{Key: "state", Value: string(al.State)},
		{Key: "traits", Value: list(al.Traits)},
		{Key: "links", Value: selfLinks(rq.BaseURL(), "allocations", al.UUID)},
		{Key: "node_uuid", Value: nodeUUID},
	}, nil
}

// allocationView is al as the API shows it at the request's version,
// reduced to fields (all when nil).
func (a *API) allocationView(rq *Request, al *models.Allocation, fields []string) (pyjson.Object, error) {
	out, err := a.renderAllocation(rq, al)
	if err != nil {
		return nil, err
	}
	return sanitizeAllocation(rq.Ver, out, fields), nil
}

// sanitizeAllocation is allocation_sanitize: owner is hidden before 1.60,
// then only the requested fields stay.
func sanitizeAllocation(v mv.Version, o pyjson.Object, fields []string) pyjson.Object {
	if !v.AtLeast(mv.AllocationOwner) {
		o = slices.DeleteFunc(o, func(m pyjson.Member) bool { return m.Key == "owner" })
	}
	return keepFields(o, fields)
}

// allocationPatchDoc is the part of the allocation's as_dict() a patch
// can reach or the schema checks afterwards.
func allocationPatchDoc(al *models.Allocation) map[string]any {
	var extra any
	if al.Extra != nil {
		extra = map[string]any(al.Extra)
	}
	list := func(l models.JSONList) any {
		if l == nil {
			return nil
		}
		return []any(l)
	}
	return map[string]any{
		"uuid": al.UUID, "name": strOrNil(al.Name), "extra": extra, "owner": strOrNil(al.Owner),
		"resource_class": strOrNil(al.ResourceClass), "traits": list(al.Traits),
		"candidate_nodes": list(al.CandidateNodes), "state": string(al.State), "last_error": strOrNil(al.LastError),
		"node_id": nil, "conductor_affinity": nil, "id": al.ID, "created_at": nil, "updated_at": nil,
	}
}

// isAPIName is api_utils.is_valid_logical_name on any JSON value: only a
// string can be a name.
func isAPIName(v mv.Version, name any) bool {
	s, ok := name.(string)
	return ok && isLogicalName(v, s)
}

// authorizeCreateAllocation is AllocationsController._authorize_create_allocation:
// baremetal:allocation:create (and, before the new defaults, create_pre_rbac
// for an allocation without owner); when that is refused, a caller may
// still create an allocation of its own project's under
// create_restricted, and the owner becomes that project.
func (a *API) authorizeCreateAllocation(rq *Request, body map[string]any) error {
	ctx := rq.Ctx()
	checkFields := func() error {
		if _, ok := body["owner"]; ok && !rq.Ver.AtLeast(mv.AllocationOwner) {
			return notAcceptable()
		}
		return nil
	}
	err := a.d.Policy.Authorize(ctx, "baremetal:allocation:create", nil)
	if err == nil {
		if err := checkFields(); err != nil {
			return err
		}
		if !a.cfg.EnforceNewDefaults && !pyjson.Truthy(body["owner"]) {
			err = a.d.Policy.Authorize(ctx, "baremetal:allocation:create_pre_rbac", nil)
		}
	}
	if err == nil || !ironic.IsClass(err, ironic.HTTPForbidden) {
		return err
	}
	project := ironic.FromContext(ctx).ProjectID
	if owner, _ := body["owner"].(string); project != "" && pyjson.Truthy(body["owner"]) && project != owner {
		return err
	}
	if pyjson.Truthy(body["owner"]) && !a.cfg.EnforceNewDefaults {
		if err := a.d.Policy.Authorize(ctx, "baremetal:allocation:create_pre_rbac", nil); err != nil {
			return err
		}
	}
	if err := a.d.Policy.Authorize(ctx, "baremetal:allocation:create_restricted", nil); err != nil {
		return err
	}
	if err := checkFields(); err != nil {
		return err
	}
	body["owner"] = optAny(project)
	return nil
}

// optAny is s, or nil (Python's None) when it is empty.
func optAny(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// noneIfEmpty is s as Python's "%s" prints an optional string.
func noneIfEmpty(s string) string {
	if s == "" {
		return "None"
	}
	return s
}
