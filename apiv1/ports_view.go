package apiv1

import (
	"context"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// defaultPortFields are the fields of a non-detailed port list.
func defaultPortFields() []string { return []string{"uuid", "address"} }

// defaultPortgroupFields are the fields of a non-detailed port group list.
func defaultPortgroupFields() []string { return []string{"uuid", "address", "name"} }

// portUnsortable and portgroupUnsortable are the controllers'
// invalid_sort_key_list.
var (
	portUnsortable      = []string{"extra", "internal_info", "local_link_connection"}
	portgroupUnsortable = []string{"extra", "internal_info", "properties"}
)

// checkPortFields is PortsController._check_allowed_port_fields for a list
// of field names (requested fields, a sort key, or the fields a patch
// touches): 406 for a field newer than the request.
func checkPortFields(v mv.Version, fields []string) error {
	if fields == nil {
		return nil
	}
	has := func(f string) bool { return slices.Contains(fields, f) }
	switch {
	case !v.AtLeast(mv.PortAdvancedNetFields) && (has("pxe_enabled") || has("local_link_connection")),
		has("portgroup_uuid") && !v.AtLeast(mv.PortgroupsSubcontrollers),
		has("physical_network") && !v.AtLeast(mv.PortPhysicalNetwork),
		has("is_smartnic") && !v.AtLeast(mv.PortSmartnic),
		has("local_link_connection/network_type") && !v.AtLeast(mv.LocalLinkConnectionNetworkType):
		return notAcceptable()
	}
	return nil
}

// checkPortBodyFields is _check_allowed_port_fields for a create body: its
// keys, and a network_type inside local_link_connection.
func checkPortBodyFields(v mv.Version, body map[string]any) error {
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	if err := checkPortFields(v, keys); err != nil {
		return err
	}
	if llc, ok := body["local_link_connection"].(map[string]any); ok && !v.AtLeast(mv.LocalLinkConnectionNetworkType) {
		if _, ok := llc["network_type"]; ok {
			return notAcceptable()
		}
	}
	return nil
}

// checkPortgroupFields is check_allowed_portgroup_fields.
func checkPortgroupFields(v mv.Version, fields []string) error {
	if fields == nil {
		return nil
	}
	if (slices.Contains(fields, "mode") || slices.Contains(fields, "properties")) && !v.AtLeast(mv.PortgroupModeProperties) {
		return notAcceptable()
	}
	return nil
}

// without drops keys from obj.
func without(obj pyjson.Object, keys ...string) pyjson.Object {
	out := obj[:0:0]
	for _, m := range obj {
		if !slices.Contains(keys, m.Key) {
			out = append(out, m)
		}
	}
	return out
}

// hidePortFields is port.py's hide_fields_in_newer_versions.
func hidePortFields(v mv.Version, obj pyjson.Object) pyjson.Object {
	var hide []string
	if !v.AtLeast(mv.PortInternalInfo) {
		hide = append(hide, "internal_info")
	}
	if !v.AtLeast(mv.PortAdvancedNetFields) {
		hide = append(hide, "pxe_enabled", "local_link_connection")
	}
	if !v.AtLeast(mv.PortgroupsSubcontrollers) {
		hide = append(hide, "portgroup_uuid")
	}
	if !v.AtLeast(mv.PortPhysicalNetwork) {
		hide = append(hide, "physical_network")
	}
	if !v.AtLeast(mv.PortSmartnic) {
		hide = append(hide, "is_smartnic")
	}
	if len(hide) == 0 {
		return obj
	}
	return without(obj, hide...)
}

// portRenderer renders ports and port groups for one request, looking up
// the UUIDs of their nodes and port groups once each.
type portRenderer struct {
	a     *API
	rq    *Request
	base  string
	nodes map[int64]*string // nil value: the node is gone
	pgs   map[int64]string
}

func (a *API) newPortRenderer(rq *Request) *portRenderer {
	return &portRenderer{a: a, rq: rq, base: rq.BaseURL(), nodes: map[int64]*string{}, pgs: map[int64]string{}}
}

// prefetchNodes looks up the nodes of a page of rows in one query.
func (pr *portRenderer) prefetchNodes(ctx context.Context, ids []*int64) error {
	var want []int64
	for _, id := range ids {
		if id != nil {
			if _, ok := pr.nodes[*id]; !ok {
				want = append(want, *id)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	found, err := pr.a.d.Store.NodeUUIDsByID(ctx, want)
	if err != nil {
		return err
	}
	for _, id := range want {
		if u, ok := found[id]; ok {
			pr.nodes[id] = &u
		} else {
			pr.nodes[id] = nil
		}
	}
	return nil
}

// nodeUUID is the port's (or port group's) node_uuid, nil when the node
// no longer exists.
func (pr *portRenderer) nodeUUID(ctx context.Context, id *int64) (any, error) {
	if id == nil {
		return nil, nil
	}
	u, ok := pr.nodes[*id]
	if !ok {
		n, err := pr.a.d.Store.GetNodeByID(ctx, *id)
		switch {
		case err == nil:
			u = &n.UUID
		case ironic.IsClass(err, ironic.NodeNotFound):
		default:
			return nil, err
		}
		pr.nodes[*id] = u
	}
	if u == nil {
		return nil, nil
	}
	return *u, nil
}

// portgroupUUID is a port's portgroup_uuid (objects.Portgroup.get by id:
// a missing port group is an error, as in Ironic).
func (pr *portRenderer) portgroupUUID(ctx context.Context, id *int64) (any, error) {
	if id == nil || *id == 0 {
		return nil, nil
	}
	if u, ok := pr.pgs[*id]; ok {
		return u, nil
	}
	pg, err := pr.a.d.Store.GetPortgroupByID(ctx, *id, "")
	if err != nil {
		return nil, err
	}
	pr.pgs[*id] = pg.UUID
	return pg.UUID, nil
}

// port is port.py's convert_with_links before sanitizing: every field, in
// Ironic's order.
func (pr *portRenderer) port(ctx context.Context, p *models.Port) (pyjson.Object, error) {
	nodeUUID, err := pr.nodeUUID(ctx, p.NodeID)
	if err != nil {
		return nil, err
	}
	pgUUID, err := pr.portgroupUUID(ctx, p.PortgroupID)
	if err != nil {
		return nil, err
	}
	return pyjson.Object{
		{Key: "uuid", Value: p.UUID},
		{Key: "created_at", Value: isoTime(p.CreatedAt)},
		{Key: "updated_at", Value: isoTime(p.UpdatedAt)},
		{Key: "address", Value: strOrNil(p.Address)},
		{Key: "extra", Value: dictOrEmpty(p.Extra)},
		{Key: "internal_info", Value: dictOrEmpty(p.InternalInfo)},
		{Key: "is_smartnic", Value: boolOrNil(p.IsSmartNIC)},
		{Key: "local_link_connection", Value: dictOrEmpty(p.LocalLinkConnection)},
		{Key: "physical_network", Value: strOrNil(p.PhysicalNetwork)},
		{Key: "pxe_enabled", Value: boolOrNil(p.PXEEnabled)},
		{Key: "node_uuid", Value: nodeUUID},
		{Key: "links", Value: selfLinks(pr.base, "ports", p.UUID)},
		{Key: "portgroup_uuid", Value: pgUUID},
	}, nil
}

// portOne renders one port as get_one, create and patch answer it.
func (pr *portRenderer) portOne(ctx context.Context, p *models.Port, fields []string) (pyjson.Object, error) {
	o, err := pr.port(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := checkFields(fields, o); err != nil {
		return nil, err
	}
	return keepFields(hidePortFields(pr.rq.Ver, o), fields), nil
}

// portgroup is portgroup.py's convert_with_links before sanitizing.
func (pr *portRenderer) portgroup(ctx context.Context, pg *models.Portgroup) (pyjson.Object, error) {
	nodeUUID, err := pr.nodeUUID(ctx, pg.NodeID)
	if err != nil {
		return nil, err
	}
	return pyjson.Object{
		{Key: "uuid", Value: pg.UUID},
		{Key: "created_at", Value: isoTime(pg.CreatedAt)},
		{Key: "updated_at", Value: isoTime(pg.UpdatedAt)},
		{Key: "address", Value: strOrNil(pg.Address)},
		{Key: "extra", Value: dictOrEmpty(pg.Extra)},
		{Key: "internal_info", Value: dictOrEmpty(pg.InternalInfo)},
		{Key: "mode", Value: strOrNil(pg.Mode)},
		{Key: "name", Value: strOrNil(pg.Name)},
		{Key: "properties", Value: dictOrEmpty(pg.Properties)},
		{Key: "standalone_ports_supported", Value: boolOrNil(pg.StandalonePortsSupported)},
		{Key: "node_uuid", Value: nodeUUID},
		{Key: "links", Value: selfLinks(pr.base, "portgroups", pg.UUID)},
		{Key: "ports", Value: []pyjson.Object{
			link("self", pr.base+"/v1/portgroups/"+pg.UUID+"/ports"),
			link("bookmark", pr.base+"/portgroups/"+pg.UUID+"/ports"),
		}},
	}, nil
}

// portgroupOne renders one port group as get_one, create and patch answer
// it.
func (pr *portRenderer) portgroupOne(ctx context.Context, pg *models.Portgroup, fields []string) (pyjson.Object, error) {
	o, err := pr.portgroup(ctx, pg)
	if err != nil {
		return nil, err
	}
	if err := checkFields(fields, o); err != nil {
		return nil, err
	}
	return keepFields(o, fields), nil
}
