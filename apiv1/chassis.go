package apiv1

import (
	"context"
	"net/http"
	"reflect"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
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

// ChassisController's parameters.
var (
	chassisListArgs   = params(paging(uuidArg)...).and(opt("fields", stringListArg), opt("detail", boolArg))
	chassisDetailArgs = params(paging(uuidArg)...)
	chassisGetArgs    = params(req("chassis_uuid", uuidArg), opt("fields", stringListArg))
	chassisCreateArgs = params(req("chassis", bodyOf("object"))).takesBody("chassis")
	chassisPatchArgs  = params(req("chassis_uuid", strArg), req("patch", bodyOf("array"))).takesBody("patch")
	chassisDeleteArgs = params(req("chassis_uuid", uuidArg))
)

// chassisController is ChassisController, with NodesController below a
// chassis (/chassis/{chassis}/nodes), which pecan reaches with the chassis
// UUID as the node handlers' first positional argument.
func (a *API) chassisController() (chassis, nodes restController) {
	h := &chassisAPI{a: a, schema: pyschema.MustCompile(chassisSchemaJSON)}
	chassis = restController{getAll: h.list, getOne: h.getOne, post: h.create, patch: h.patch, delete: h.delete,
		actions: map[string]handlerFunc{"detail": h.detail}}
	nodes = restController{
		getAll: func(rq *Request) (*Response, error) { return a.nodeCollection(rq, false, true) },
		getOne: func(rq *Request) (*Response, error) { return a.getNodeFrom(rq, rq.positional(), true) },
		post:   a.createNode,
		patch:  func(rq *Request) (*Response, error) { return a.patchNodeFrom(rq, true) },
		delete: func(rq *Request) (*Response, error) { return a.deleteNodeFrom(rq, true) },
		actions: map[string]handlerFunc{"detail": func(rq *Request) (*Response, error) {
			return a.nodeCollection(rq, true, true)
		}},
	}
	return chassis, nodes
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
	return keepFields(o, fields), nil
}

// list is ChassisController.get_all; detail its custom action.
func (h *chassisAPI) list(rq *Request) (*Response, error) { return h.collection(rq, false) }

func (h *chassisAPI) detail(rq *Request) (*Response, error) { return h.collection(rq, true) }

// getOne is ChassisController.get_one.
func (h *chassisAPI) getOne(rq *Request) (*Response, error) {
	b, err := chassisGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, fields := b.ident("chassis_uuid"), b.list("fields")
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:get", nil); err != nil {
		return nil, err
	}
	if err := checkFieldsVersion(rq.Ver, fields); err != nil {
		return nil, err
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

// collection is get_all and detail with _get_chassis_collection; a detail
// below a chassis (/chassis/<x>/detail) is no collection.
func (h *chassisAPI) collection(rq *Request, detailPath bool) (*Response, error) {
	spec := chassisListArgs
	if detailPath {
		spec = chassisDetailArgs
	}
	b, err := spec.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := h.a.d.Policy.Authorize(ctx, "baremetal:chassis:get", nil); err != nil {
		return nil, err
	}
	var fields []string
	resource := "chassis/detail"
	if detailPath {
		if len(rq.positional()) > 0 {
			// "/detail should only work against collections"
			return nil, ironic.Errorf(ironic.HTTPNotFound, "Resource could not be found.")
		}
	} else {
		resource = "chassis"
		if err := checkFieldsVersion(rq.Ver, b.list("fields")); err != nil {
			return nil, err
		}
		if fields, err = returnFields(rq.Ver, b.list("fields"), b.boolean("detail"), []string{"uuid", "description"}); err != nil {
			return nil, err
		}
	}
	pg, err := h.a.page(b)
	if err != nil {
		return nil, err
	}
	opts, err := pg.listOpts(markerFirst, []string{"extra"}, func(marker string) (int64, error) {
		mk, err := h.a.d.Store.GetChassisByUUID(ctx, marker)
		if err != nil {
			return 0, err
		}
		return mk.ID, nil
	})
	if err != nil {
		return nil, err
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
	var marker string
	if len(list) > 0 {
		marker = list[len(list)-1].UUID
	}
	return OK(collection("chassis", items, nextLink(rq, resource, len(list), pg.limit, marker, pg.nextArgs(b.boolean("detail")), fields))), nil
}

// create is ChassisController.post.
func (h *chassisAPI) create(rq *Request) (*Response, error) {
	b, err := chassisCreateArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if verr := h.schema.Validate(b.body); verr != nil {
		return nil, schemaError("chassis", verr)
	}
	body, _ := plain(b.body).(map[string]any)
	if _, err := uuidArg("uuid", body["uuid"]); err != nil {
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
	b, err := chassisPatchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ops, err := h.a.patchOps(b.body)
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
	c, err := h.a.d.Store.GetChassisByUUID(ctx, b.ident("chassis_uuid"))
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
		return nil, schemaError("patch", verr)
	}
	if _, err := uuidArg("uuid", kept["uuid"]); err != nil {
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
	b, err := chassisDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("chassis_uuid")
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
