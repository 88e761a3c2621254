package apiv1

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// volumeStore is the part of the database the volume routes use. Ironic's
// API creates volume connectors and targets itself; updates and deletions
// go through the node's conductor.
type volumeStore interface {
	ListVolumeConnectors(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeConnector, error)
	GetVolumeConnector(ctx context.Context, ref db.Ref) (*models.VolumeConnector, error)
	CreateVolumeConnector(ctx context.Context, vc *models.VolumeConnector) (*models.VolumeConnector, error)
	ListVolumeTargets(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeTarget, error)
	GetVolumeTarget(ctx context.Context, ref db.Ref) (*models.VolumeTarget, error)
	CreateVolumeTarget(ctx context.Context, vt *models.VolumeTarget) (*models.VolumeTarget, error)
	GetNodeByID(ctx context.Context, id int64) (*models.Node, error)
	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
}

// volumeGate is VolumeController._lookup: connectors and targets exist
// from 1.32.
func volumeGate(rq *Request) *ironic.Fault {
	if !rq.Ver.AtLeast(mv.Volume) {
		return ironic.Webob(ironic.NotFound, "")
	}
	return nil
}

// volumeControllers are VolumeConnectorsController and
// VolumeTargetsController, at /volume and below a node.
func (a *API) volumeControllers() (connectors, targets restController) {
	return newVolumeResource(a, connectorKind{a: a, schema: mustCompileConnectorSchema()}).controller(),
		newVolumeResource(a, targetKind{a: a, schema: mustCompileTargetSchema()}).controller()
}

// volumeRoot is VolumeController.get: links to the connectors and targets,
// of a node when reached through one.
func (a *API) volumeRoot(rq *Request) (*Response, error) {
	// Ironic answers unexpected arguments with a 500 (TypeError); they
	// are a client error.
	if _, err := params().bind(rq); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.Volume) {
		return nil, resourceNotFound()
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:volume:get", nil); err != nil {
		return nil, err
	}
	base := rq.BaseURL()
	resource, args := "volume", ""
	if node := rq.Var("node"); node != "" {
		resource, args = "nodes", node+"/volume/"
	}
	pair := func(rargs string) []pyjson.Object {
		return []pyjson.Object{
			link("self", base+"/v1/"+resource+"/"+rargs),
			link("bookmark", base+"/"+resource+"/"+rargs),
		}
	}
	return OK(pyjson.Object{
		{Key: "links", Value: pair(args)},
		{Key: "connectors", Value: pair(args + "connectors")},
		{Key: "targets", Value: pair(args + "targets")},
	}), nil
}

// volumeNames are the constants of a volume resource.
type volumeNames struct {
	kind          string // "connector": the body's name in schema errors
	plural        string // "connectors": the path segment and the list key
	param         string // "connector_uuid": the item argument
	schemaProps   []string
	patchAllowed  []string
	defaultFields []string
	badSortKeys   []string
}

// volumeKind is what differs between volume connectors and targets.
type volumeKind[T any] interface {
	names() volumeNames
	get(ctx context.Context, uuid string) (*T, error)
	list(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]T, error)
	create(ctx context.Context, v *T) (*T, error)
	update(ctx context.Context, topic string, v *T, changes []string) (*T, error)
	destroy(ctx context.Context, topic string, v *T) error
	// notFound is the kind's not-found fault for ident.
	notFound(ident string) error
	validate(doc any, name string) error
	// ids returns the object's internal id, UUID and node id.
	ids(v *T) (id int64, uuid string, nodeID *int64)
	// view is convert_with_links before sanitizing.
	view(base string, v *T, nodeUUID any) pyjson.Object
	// sanitize runs after the fields are kept (targets mask secrets).
	sanitize(o pyjson.Object) pyjson.Object
	// redact hides what only baremetal:volume:view_target_properties may
	// see; it reports whether the kind has anything to hide.
	redact(v *T) bool
	// fromBody builds an object from a validated create body.
	fromBody(body map[string]any, uuid string, nodeID int64) *T
	// asDict is the object's as_dict() without node_id.
	asDict(v *T) map[string]any
	// applyPatched writes the changed schema fields of a patched document
	// onto v and returns the changed columns.
	applyPatched(v *T, kept map[string]any) []string
	setNodeID(v *T, id int64)
}

// volumeResource serves one of VolumeConnectorsController and
// VolumeTargetsController, at /volume/<plural> and under a node: the
// kind, and the parameters of its methods (named after the kind).
type volumeResource[T any, K volumeKind[T]] struct {
	a                                          *API
	k                                          K
	getArgs, createArgs, patchArgs, deleteArgs argSpec
}

// volumeListArgs are get_all's parameters (project is taken as given).
var volumeListArgs = params(opt("node", uuidOrNameArg)).and(paging(uuidArg)...).
	and(opt("fields", stringListArg), opt("detail", boolArg), opt("project", nil))

func newVolumeResource[T any, K volumeKind[T]](a *API, k K) *volumeResource[T, K] {
	n := k.names()
	return &volumeResource[T, K]{a: a, k: k,
		getArgs:    params(req(n.param, uuidArg), opt("fields", stringListArg)),
		createArgs: params(req(n.kind, bodyOf("object"))).takesBody(n.kind),
		patchArgs:  params(req(n.param, uuidArg), req("patch", bodyOf("array"))).takesBody("patch"),
		deleteArgs: params(req(n.param, uuidArg)),
	}
}

func (r *volumeResource[T, K]) controller() restController {
	return restController{getAll: r.list, getOne: r.get, post: r.create, patch: r.patch, delete: r.delete}
}

// volumeRenderer renders volume objects for one request, looking each
// node up once.
type volumeRenderer[T any, K volumeKind[T]] struct {
	r     *volumeResource[T, K]
	rq    *Request
	base  string
	nodes map[int64]string
}

func (r *volumeResource[T, K]) renderer(rq *Request) *volumeRenderer[T, K] {
	return &volumeRenderer[T, K]{r: r, rq: rq, base: rq.BaseURL(), nodes: map[int64]string{}}
}

// render is convert_with_links: node_uuid populated (a missing node is
// NodeNotFound), fields checked, then sanitized.
func (vr *volumeRenderer[T, K]) render(v *T, fields []string) (pyjson.Object, error) {
	_, _, nodeID := vr.r.k.ids(v)
	var nodeUUID any
	if nodeID != nil {
		u, ok := vr.nodes[*nodeID]
		if !ok {
			n, err := vr.r.a.d.Store.GetNodeByID(vr.rq.Ctx(), *nodeID)
			if err != nil {
				return nil, err
			}
			u = n.UUID
			vr.nodes[*nodeID] = u
		}
		nodeUUID = u
	}
	o := vr.r.k.view(vr.base, v, nodeUUID)
	if fields != nil {
		if err := checkFields(fields, o); err != nil {
			return nil, err
		}
	}
	return vr.r.k.sanitize(keepFields(o, fields)), nil
}

// redactUnlessAllowed applies the view_target_properties policy.
func (r *volumeResource[T, K]) redactUnlessAllowed(ctx context.Context, vs ...*T) {
	if r.a.d.Policy.Check(ctx, "baremetal:volume:view_target_properties", nil) {
		return
	}
	for _, v := range vs {
		r.k.redact(v)
	}
}

// listPolicy is check_volume_list_policy: the parent node must be visible,
// and callers without list_all see only their project's volumes.
func (r *volumeResource[T, K]) listPolicy(rq *Request, parent string) (string, error) {
	ctx := rq.Ctx()
	if parent != "" {
		n, err := r.a.d.Store.GetNodeByUUID(ctx, parent)
		if err != nil {
			if ironic.IsClass(err, ironic.NodeNotFound) {
				return "", ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", parent)
			}
			return "", err
		}
		if err := r.a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(n)); err != nil {
			return "", ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", parent)
		}
	}
	if err := r.a.d.Policy.Authorize(ctx, "baremetal:volume:list_all", nil); err != nil {
		project := ironic.FromContext(ctx).ProjectID
		if project == "" {
			return "", err
		}
		if err := r.a.d.Policy.Authorize(ctx, "baremetal:volume:list", nil); err != nil {
			return "", err
		}
		return project, nil
	}
	return "", nil
}

// retrieve is check_volume_policy_and_retrieve: the object and its node;
// callers who may not see the node do not see the object either.
func (r *volumeResource[T, K]) retrieve(rq *Request, policy, ident string) (*T, *models.Node, error) {
	ctx := rq.Ctx()
	v, err := r.k.get(ctx, ident)
	if err != nil {
		return nil, nil, err
	}
	var node *models.Node
	target := ownerTarget(nil)
	if _, _, nodeID := r.k.ids(v); nodeID != nil {
		n, err := r.a.d.Store.GetNodeByID(ctx, *nodeID)
		if err != nil && !ironic.IsClass(err, ironic.NodeNotFound) {
			return nil, nil, err
		}
		if n != nil {
			node, target = n, ownerTarget(n)
		}
	}
	if err := r.a.d.Policy.Authorize(ctx, "baremetal:node:get", target); err != nil {
		return nil, nil, r.k.notFound(ident)
	}
	if err := r.a.d.Policy.Authorize(ctx, policy, target); err != nil {
		return nil, nil, err
	}
	return v, node, nil
}

// list is get_all with _get_volume_*_collection.
func (r *volumeResource[T, K]) list(rq *Request) (*Response, error) {
	n := r.k.names()
	b, err := volumeListArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	parent := rq.Var("node")
	project, err := r.listPolicy(rq, parent)
	if err != nil {
		return nil, err
	}
	detail := b.boolean("detail") != nil && *b.boolean("detail")
	fields := b.list("fields")
	if fields == nil && !detail {
		fields = n.defaultFields
	}
	if len(fields) > 0 && detail {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Can't fetch a subset of fields with 'detail' set")
	}
	pg, err := r.a.page(b)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	opts, err := pg.listOpts(markerFirst, n.badSortKeys, func(marker string) (int64, error) {
		mk, err := r.k.get(ctx, marker)
		if err != nil {
			return 0, err
		}
		id, _, _ := r.k.ids(mk)
		return id, nil
	})
	if err != nil {
		return nil, err
	}
	filter := db.VolumeFilter{Project: project}
	nodeIdent := parent
	if nodeIdent == "" {
		nodeIdent = b.strOr("node", "")
	}
	if nodeIdent != "" {
		nd, err := r.a.findNodeOnce(rq, nodeIdent)
		if err != nil {
			return nil, err
		}
		filter.NodeID = &nd.ID
	}
	objs, err := r.k.list(ctx, filter, opts)
	if err != nil {
		return nil, err
	}
	ptrs := make([]*T, len(objs))
	for i := range objs {
		ptrs[i] = &objs[i]
	}
	r.redactUnlessAllowed(ctx, ptrs...)
	vr := r.renderer(rq)
	items := make([]any, 0, len(objs))
	for _, v := range ptrs {
		o, err := vr.render(v, fields)
		if err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	var marker string
	if len(ptrs) > 0 {
		_, marker, _ = r.k.ids(ptrs[len(ptrs)-1])
	}
	args := pg.nextArgs(nil)
	if detail {
		args = append(args, nextArg{"detail", true})
	}
	return OK(collection(n.plural, items, nextLink(rq, "volume/"+n.plural, len(objs), pg.limit, marker, args, fields))), nil
}

// get is get_one.
func (r *volumeResource[T, K]) get(rq *Request) (*Response, error) {
	b, err := r.getArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident, fields := b.ident(r.k.names().param), b.list("fields")
	v, _, err := r.retrieve(rq, "baremetal:volume:get", ident)
	if err != nil {
		return nil, err
	}
	if rq.Var("node") != "" {
		return nil, operationNotPermitted()
	}
	r.redactUnlessAllowed(rq.Ctx(), v)
	o, err := r.renderer(rq).render(v, fields)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// create is post: the node is named by UUID in the body; a node the
// caller may not see is reported as invalid input, as a missing one is.
func (r *volumeResource[T, K]) create(rq *Request) (*Response, error) {
	n := r.k.names()
	b, err := r.createArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if err := r.k.validate(b.body, n.kind); err != nil {
		return nil, err
	}
	body, _ := plain(b.body).(map[string]any)
	for _, k := range []string{"node_uuid", "uuid"} {
		if _, err := uuidArg(k, body[k]); err != nil {
			return nil, err
		}
	}
	ctx := rq.Ctx()
	nodeUUID, _ := body["node_uuid"].(string)
	node, err := r.a.d.Store.GetNodeByUUID(ctx, nodeUUID)
	target := nodeTarget(nil)
	missing := false
	switch {
	case err == nil:
		if r.a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(node)) != nil {
			missing = true
		} else {
			target = nodeTarget(node)
		}
	case ironic.IsClass(err, ironic.NodeNotFound):
		missing = true
	default:
		return nil, err
	}
	if err := r.a.d.Policy.Authorize(ctx, "baremetal:volume:create", target); err != nil {
		return nil, err
	}
	if missing {
		return nil, ironic.Errorf(ironic.ClientSideError, "Invalid input for field/attribute node_uuid. Value: '%s'. ", nodeUUID)
	}
	if rq.Var("node") != "" {
		return nil, operationNotPermitted()
	}
	uuid, _ := body["uuid"].(string)
	if uuid == "" {
		uuid = r.a.d.UUIDs.NewUUID()
	}
	created, err := r.k.create(ctx, r.k.fromBody(body, uuid, node.ID))
	if err != nil {
		return nil, err
	}
	o, err := r.renderer(rq).render(created, nil)
	if err != nil {
		return nil, err
	}
	_, u, _ := r.k.ids(created)
	base := rq.BaseURL()
	return &Response{Status: 201, Body: o, Location: base + "/v1/volume/" + n.plural + "/" + u}, nil
}

// patch is VolumeConnectorsController/VolumeTargetsController.patch: the
// patch applies in the API, the conductor saves it while the node is
// powered off.
func (r *volumeResource[T, K]) patch(rq *Request) (*Response, error) {
	n := r.k.names()
	b, err := r.patchArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident(n.param)
	ops, err := r.a.patchOps(b.body)
	if err != nil {
		return nil, err
	}
	v, node, err := r.retrieve(rq, "baremetal:volume:update", ident)
	if err != nil {
		return nil, err
	}
	if rq.Var("node") != "" {
		return nil, operationNotPermitted()
	}
	if err := checkPatchAllowed(ops, n.patchAllowed); err != nil {
		return nil, err
	}
	for _, val := range patchValues(ops, "/node_uuid") {
		if s, ok := val.(string); !ok || !isUUID(s) {
			return nil, ironic.Errorf(ironic.InvalidUUID, "Expected a UUID for node_uuid, but received %s.", pyStr(val))
		}
	}
	ctx := rq.Ctx()
	_, _, nodeID := r.k.ids(v)
	if node == nil {
		ref := "None"
		if nodeID != nil {
			ref = pyStr(*nodeID)
		}
		return nil, ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", ref).WithStatus(400)
	}
	doc := r.k.asDict(v)
	doc["node_uuid"] = node.UUID
	patched, err := applyPatch(doc, ops)
	if err != nil {
		return nil, err
	}
	if nu, ok := patched["node_uuid"].(string); ok && nu != node.UUID {
		nn, err := r.a.d.Store.GetNodeByUUID(ctx, nu)
		if err != nil {
			return nil, as400(err, ironic.NodeNotFound)
		}
		node = nn
	}
	kept := pruneToSchema(patched, n.schemaProps)
	if err := r.k.validate(kept, "patch"); err != nil {
		return nil, err
	}
	for _, k := range []string{"node_uuid", "uuid"} {
		if _, err := uuidArg(k, kept[k]); err != nil {
			return nil, err
		}
	}
	changes := r.k.applyPatched(v, kept)
	if nodeID == nil || *nodeID != node.ID {
		r.k.setNodeID(v, node.ID)
		changes = append(changes, "node_id")
	}
	topic, err := r.a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	updated, err := r.k.update(ctx, topic, v, changes)
	if err != nil {
		return nil, err
	}
	r.redactUnlessAllowed(ctx, updated)
	o, err := r.renderer(rq).render(updated, nil)
	if err != nil {
		return nil, err
	}
	return OK(o), nil
}

// delete is VolumeConnectorsController/VolumeTargetsController.delete,
// done by the node's conductor.
func (r *volumeResource[T, K]) delete(rq *Request) (*Response, error) {
	b, err := r.deleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident(r.k.names().param)
	v, node, err := r.retrieve(rq, "baremetal:volume:delete", ident)
	if err != nil {
		return nil, err
	}
	if rq.Var("node") != "" {
		return nil, operationNotPermitted()
	}
	ctx := rq.Ctx()
	_, _, nodeID := r.k.ids(v)
	if node == nil {
		ref := "None"
		if nodeID != nil {
			ref = pyStr(*nodeID)
		}
		return nil, ironic.Errorf(ironic.NodeNotFound, "Node %s could not be found.", ref)
	}
	topic, err := r.a.d.Conductor.TopicFor(ctx, node)
	if err != nil {
		return nil, err
	}
	if err := r.k.destroy(ctx, topic, v); err != nil {
		return nil, err
	}
	return &Response{Status: 204}, nil
}

// bodyInt64 is an integer body value (jsonschema's "integer" admits 2.0).
func bodyInt64(v any) *int64 {
	switch x := v.(type) {
	case nil:
		return nil
	case interface{ Int64() (int64, error) }:
		if i, err := x.Int64(); err == nil {
			return &i
		}
		if f, ok := v.(interface{ Float64() (float64, error) }); ok {
			if fl, err := f.Float64(); err == nil {
				i := int64(fl)
				return &i
			}
		}
	case int64:
		return &x
	case int:
		i := int64(x)
		return &i
	}
	return nil
}
