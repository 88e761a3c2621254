package apiv1

import (
	"context"
	"maps"
	"net/http"
	"reflect"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
)

// chassisStore is the part of the database the chassis routes use.
type chassisStore interface {
	ListChassis(ctx context.Context, o db.ListOpts) ([]models.Chassis, error)
	GetChassisByUUID(ctx context.Context, uuid string) (*models.Chassis, error)
	CreateChassis(ctx context.Context, ch *models.Chassis) (*models.Chassis, error)
	UpdateChassis(ctx context.Context, ref db.Ref, values db.Values) (*models.Chassis, error)
	DestroyChassis(ctx context.Context, ref db.Ref) error
}

// chassisSchemaJSON is chassis.py CHASSIS_SCHEMA.
const chassisSchemaJSON = `{
  "type": "object",
  "properties": {
    "uuid": {"type": ["string", "null"]},
    "extra": {"type": ["object", "null"]},
    "description": {"type": ["string", "null"], "maxLength": 255}
  },
  "additionalProperties": false
}`

// chassisPatchAllowed are the CHASSIS_SCHEMA properties, which are what a
// PATCH may touch.
func chassisPatchAllowed() []string { return []string{"uuid", "extra", "description"} }

// chassisAPI serves ChassisController; Ironic's API writes chassis to the
// database itself.
type chassisAPI struct {
	a      *API
	schema *pyschema.Schema
}

// routesChassis registers the chassis routes, including the chassis' view
// of NodesController (/chassis/{chassis}/nodes), which pecan reaches with
// the chassis UUID as the handlers' first positional argument.
func (a *API) routesChassis(m *mux.Router) {
	h := &chassisAPI{a: a, schema: pyschema.MustCompile(chassisSchemaJSON)}
	missing := missingPositional("chassis_uuid")
	a.handle(m, "/chassis", methods{"GET": h.list, "POST": h.create, "PATCH": missing, "DELETE": missing})
	a.handle(m, "/chassis/{chassis}", methods{"GET": h.get, "POST": postOnItemAsBody("chassis", "chassis"),
		"PATCH": h.patch, "DELETE": h.delete})
	a.handle(m, "/chassis/{chassis}/detail", methods{"GET": h.detailBelowItem})
	a.handle(m, "/chassis/{chassis}/nodes", methods{"GET": h.listNodes, "POST": postOnItemAsBody("node", "chassis"),
		"PATCH": h.patchNodes, "DELETE": h.deleteNodes})
	a.handle(m, "/chassis/{chassis}/nodes/{node}", methods{"GET": h.getNode, "POST": postOnItemAsBody("node", "chassis"),
		"PATCH": h.patchNodes, "DELETE": h.deleteNode}, "DELETE, GET, PATCH, POST")
	a.handle(m, "/chassis/{chassis}/{extra}", methods{"GET": getFieldsSegment(h.getOne),
		"PATCH": patchSegment(func(*Request) error { return nil }), "DELETE": deleteSegment}, "DELETE, GET, PATCH, POST")
}

// chassisView is convert_with_links before sanitizing. The "nodes" links
// are wrapped in a second list: Ironic builds them with a stray trailing
// comma, and clients have seen that shape ever since.
func chassisView(base string, c *models.Chassis) pyjson.Object {
	nodes := base + "/v1/chassis/" + c.UUID + "/nodes"
	return pyjson.Object{
		{Key: "uuid", Value: c.UUID},
		{Key: "created_at", Value: isoTime(c.CreatedAt)},
		{Key: "updated_at", Value: isoTime(c.UpdatedAt)},
		{Key: "description", Value: strOrNil(c.Description)},
		{Key: "extra", Value: dictOrEmpty(c.Extra)},
		{Key: "links", Value: selfLinks(base, "chassis", c.UUID)},
		{Key: "nodes", Value: []any{[]pyjson.Object{
			link("self", nodes),
			link("bookmark", base+"/chassis/"+c.UUID+"/nodes"),
		}}},
	}
}

// render is convert_with_links with sanitizing: fields must name members
// of the chassis; only they (and links) are kept.
func renderChassis(base string, c *models.Chassis, fields []string) (pyjson.Object, error) {
	o := chassisView(base, c)
	if fields != nil {
		if err := checkFields(fields, o); err != nil {
			return nil, err
		}
	}
	return keepViewFields(o, fields), nil
}

// list is ChassisController.get_all.
func (h *chassisAPI) list(rq *Request) (*Response, error) { return h.collection(rq, false) }

// get is get_one; "detail" is the custom action of the same name.
func (h *chassisAPI) get(rq *Request) (*Response, error) {
	if rq.Var("chassis") == "detail" {
		return h.collection(rq, true)
	}
	return h.getOne(rq)
}

// getOne is ChassisController.get_one.
func (h *chassisAPI) getOne(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("fields"); err != nil {
		return nil, err
	}
	ident := rq.Var("chassis")
	if err := checkUUID("chassis_uuid", ident); err != nil {
		return nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:get", nil); err != nil {
		return nil, err
	}
	if fields != nil && !rq.Ver.AtLeast(mv.FetchingSubsetOfFields) {
		return nil, notAcceptable()
	}
	c, err := h.a.d.Store.GetChassisByUUID(ctx, ident)
	if err != nil {
		return nil, err
	}
	o, err := renderChassis(rq.BaseURL(), c, fields)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// collection is get_all and detail with _get_chassis_collection.
func (h *chassisAPI) collection(rq *Request, detailPath bool) (*Response, error) {
	allowed := []string{"marker", "limit", "sort_key", "sort_dir"}
	if !detailPath {
		allowed = append(allowed, "fields", "detail")
	}
	if err := rq.CheckArgs(allowed...); err != nil {
		return nil, err
	}
	p, err := parseListArgs(rq, markerUUID, !detailPath)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:get", nil); err != nil {
		return nil, err
	}
	var fields []string
	resource := "chassis/detail"
	if !detailPath {
		resource = "chassis"
		if p.fields != nil && !rq.Ver.AtLeast(mv.FetchingSubsetOfFields) {
			return nil, notAcceptable()
		}
		if fields, err = returnFields(rq.Ver, p.fields, p.detail, []string{"uuid", "description"}); err != nil {
			return nil, err
		}
	}
	limit, err := h.a.validateLimit(p.limit)
	if err != nil {
		return nil, err
	}
	if err := validateSortDir(p.sortDir); err != nil {
		return nil, err
	}
	opts := db.ListOpts{Limit: limit, SortKey: p.sortKey, SortDir: p.sortDir}
	if p.marker != nil {
		mk, err := h.a.d.Store.GetChassisByUUID(ctx, *p.marker)
		if err != nil {
			return nil, err
		}
		opts.Marker = mk.ID
	}
	if p.sortKey == "extra" {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value %s is an invalid field for sorting", p.sortKey)
	}
	list, err := h.a.d.Store.ListChassis(ctx, opts)
	if err != nil {
		return nil, err
	}
	base := rq.BaseURL()
	items := make([]any, 0, len(list))
	for i := range list {
		o, err := renderChassis(base, &list[i], fields)
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	args := p.nextArgs()
	if p.detail != nil {
		args = append(args, nextArg{"detail", *p.detail})
	}
	var marker string
	if len(list) > 0 {
		marker = list[len(list)-1].UUID
	}
	return OK(collection("chassis", items, nextLink(rq, resource, len(list), limit, marker, args, fields))), nil
}

// detailBelowItem is GET /chassis/{chassis}/detail: the detail action
// only works on the collection.
func (h *chassisAPI) detailBelowItem(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("marker", "limit", "sort_key", "sort_dir"); err != nil {
		return nil, err
	}
	if _, err := parseListArgs(rq, markerUUID, false); err != nil {
		return nil, err
	}
	if err := h.a.d.Policy.Authorize(rq.Ctx(), "baremetal:chassis:get", nil); err != nil {
		return nil, err
	}
	return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
}

// create is ChassisController.post.
func (h *chassisAPI) create(rq *Request) (*Response, error) {
	doc, err := readMethodBody(rq)
	if err != nil {
		return nil, err
	}
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if verr := h.schema.Validate(doc); verr != nil {
		return nil, bodySchemaFault(verr, "chassis")
	}
	body, _ := plain(doc).(map[string]any)
	if err := checkBodyUUID(body, "uuid"); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:create", nil); err != nil {
		return nil, err
	}
	c := &models.Chassis{
		Description: optString(body["description"]),
		Extra:       bodyDict(body["extra"]),
	}
	if u, _ := body["uuid"].(string); u != "" {
		c.UUID = u
	} else {
		c.UUID = h.a.d.UUIDs.NewUUID()
	}
	created, err := h.a.d.Store.CreateChassis(ctx, c)
	if err != nil {
		return nil, err
	}
	base := rq.BaseURL()
	return &Response{Status: http.StatusCreated, Body: chassisView(base, created),
		Location: base + "/v1/chassis/" + created.UUID}, nil
}

// patch is ChassisController.patch: the patch applies to the chassis'
// as_dict(); only changed fields are written.
func (h *chassisAPI) patch(rq *Request) (*Response, error) {
	ops, err := h.a.readPatchBody(rq, func() error { return rq.CheckArgs() })
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:update", nil); err != nil {
		return nil, err
	}
	if err := checkPatchAllowed(ops, chassisPatchAllowed()); err != nil {
		return nil, err
	}
	c, err := h.a.d.Store.GetChassisByUUID(ctx, rq.Var("chassis"))
	if err != nil {
		return nil, err
	}
	doc := map[string]any{
		"id":          c.ID,
		"uuid":        c.UUID,
		"created_at":  isoTime(c.CreatedAt),
		"updated_at":  isoTime(c.UpdatedAt),
		"description": strOrNil(c.Description),
		"extra":       patchDictValue(c.Extra),
	}
	patched, err := applyPatch(doc, ops)
	if err != nil {
		return nil, err
	}
	kept := pruneToSchema(patched, chassisPatchAllowed())
	if verr := h.schema.Validate(kept); verr != nil {
		return nil, bodySchemaFault(verr, "patch")
	}
	if err := checkBodyUUID(kept, "uuid"); err != nil {
		return nil, err
	}
	values := db.Values{}
	if kept["uuid"] != c.UUID {
		values["uuid"] = kept["uuid"]
	}
	if !reflect.DeepEqual(kept["description"], strOrNil(c.Description)) {
		values["description"] = kept["description"]
	}
	if !reflect.DeepEqual(kept["extra"], patchDictValue(c.Extra)) {
		values["extra"] = kept["extra"]
	}
	updated, err := h.a.d.Store.UpdateChassis(ctx, db.ByUUID(c.UUID), values)
	if err != nil {
		return nil, err
	}
	return OK(chassisView(rq.BaseURL(), updated)), nil
}

// delete is ChassisController.delete.
func (h *chassisAPI) delete(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	ident := rq.Var("chassis")
	if err := checkUUID("chassis_uuid", ident); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:delete", nil); err != nil {
		return nil, err
	}
	c, err := h.a.d.Store.GetChassisByUUID(ctx, ident)
	if err != nil {
		return nil, err
	}
	if err := h.a.d.Store.DestroyChassis(ctx, db.ByUUID(c.UUID)); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// listNodes is NodesController.get_all reached through a chassis: the
// chassis UUID from the path is the chassis_uuid argument, and the node
// list machinery does the rest.
func (h *chassisAPI) listNodes(rq *Request) (*Response, error) { return h.nodeList(rq, false) }

func (h *chassisAPI) nodeList(rq *Request, detail bool) (*Response, error) {
	if rq.Has("chassis_uuid") {
		// Ironic fails with a TypeError (500): the argument comes twice.
		return nil, ironic.Errorf(ironic.ClientSideError, "Unexpected arguments: chassis_uuid")
	}
	q := maps.Clone(rq.Query())
	q.Set("chassis_uuid", rq.Var("chassis"))
	rq.query = q
	return h.a.nodeCollection(rq, detail)
}

// getNode is GET /chassis/{chassis}/nodes/{node}: the detail action, or
// get_one(chassis, fields=node), which refuses to serve a node through a
// chassis.
func (h *chassisAPI) getNode(rq *Request) (*Response, error) {
	if rq.Var("node") == "detail" {
		return h.nodeList(rq, true)
	}
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if err := checkUUIDOrNameArg("node_ident", rq.Var("chassis")); err != nil {
		return nil, err
	}
	return nil, ironic.Errorf(ironic.OperationNotPermitted, "Operation not permitted.")
}

// patchNodes is NodesController.patch(chassis, reset_interfaces=node):
// arguments are checked, then a patch through a chassis is refused.
func (h *chassisAPI) patchNodes(rq *Request) (*Response, error) {
	var reset *bool
	_, err := h.a.readPatchBody(rq, func() error {
		if err := rq.CheckArgs("reset_interfaces"); err != nil {
			return err
		}
		if err := checkUUIDOrNameArg("node_ident", rq.Var("chassis")); err != nil {
			return err
		}
		if n, ok := rq.Vars["node"]; ok {
			b, err := parseBool("reset_interfaces", n)
			if err != nil {
				return err
			}
			reset = &b
			return nil
		}
		var err error
		reset, err = rq.Bool("reset_interfaces")
		return err
	})
	if err != nil {
		return nil, err
	}
	if reset != nil && !rq.Ver.AtLeast(mv.ResetInterfaces) {
		return nil, notAcceptable()
	}
	return nil, ironic.Errorf(ironic.OperationNotPermitted, "Operation not permitted.")
}

// deleteNodes is NodesController.delete(chassis): refused through a
// chassis.
func (h *chassisAPI) deleteNodes(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if err := checkUUIDOrNameArg("node_ident", rq.Var("chassis")); err != nil {
		return nil, err
	}
	return nil, ironic.Errorf(ironic.OperationNotPermitted, "Operation not permitted.")
}

// deleteNode is NodesController.delete(chassis, node): extra positional
// arguments are NotFound.
func (h *chassisAPI) deleteNode(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if err := checkUUIDOrNameArg("node_ident", rq.Var("chassis")); err != nil {
		return nil, err
	}
	return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
}
