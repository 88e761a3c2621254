package apiv1

import (
	"net/http"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
)

// subNode is the node of a sub-controller NodesController._lookup built
// (its ident and version checked by nodeLookupGate), under policy.
func (a *API) subNode(rq *Request, policy string) (*models.Node, error) {
	return a.nodeFor(rq, policy, rq.Var("node"))
}

// Traits.

func (a *API) listTraits(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		// NodesController.get_one(node, fields="traits") in older versions.
		return a.getNodeFrom(rq, []string{rq.Var("node"), "traits"}, false)
	}
	n, err := a.subNode(rq, "baremetal:node:traits:list")
	if err != nil {
		return nil, err
	}
	return OK(pyjson.Object{{Key: "traits", Value: n.TraitNames()}}), nil
}

// The parameters of NodeTraitsController.put and delete; put's trait and
// body are checked against their schemas by setTraits.
var (
	traitsSetArgs    = params(opt("trait", nil), opt("body", nil)).takesBody("body")
	traitsDeleteArgs = params(opt("trait", strArg))
)

// setTraits is NodeTraitsController.put: either one trait in the path and
// no body, or the whole list in the body.
func (a *API) setTraits(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		return nil, ironic.Webob(ironic.MethodNotAllowed, "")
	}
	b, err := traitsSetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	var trait *string
	if t := b.value("trait"); t != nil {
		if verr := a.schemas.trait.Validate(t); verr != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("trait"))
		}
		trait = b.str("trait")
	}
	doc := b.body
	if verr := a.schemas.traits.Validate(doc); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("body"))
	}
	var traits []string
	hasTraits := false
	if o, ok := doc.(pyjson.Object); ok {
		if v, ok := o.Get("traits"); ok && v != nil {
			hasTraits = true
			traits = []string{}
			for _, t := range v.([]any) {
				s := t.(string)
				if verr := a.schemas.trait.Validate(s); verr != nil {
					return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("body"))
				}
				traits = append(traits, s)
			}
		}
	}
	n, err := a.subNode(rq, "baremetal:node:traits:set")
	if err != nil {
		return nil, err
	}
	single := trait != nil && *trait != ""
	if (single && hasTraits) || !(single || hasTraits) {
		return nil, ironic.Errorf(ironic.Invalid, "A single node trait may be added via PUT /v1/nodes/<node identifier>/traits/<trait> with no body, or all node traits may be replaced via PUT /v1/nodes/<node identifier>/traits with the list of traits specified in the request body.")
	}
	if single && pyjson.Truthy(plain(doc)) {
		return nil, ironic.Errorf(ironic.Invalid, "No body should be provided when adding a trait")
	}
	ctx := rq.Ctx()
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, err
	}
	if single {
		if err := a.d.Conductor.AddNodeTraits(ctx, topic, n.UUID, []string{*trait}, false); err != nil {
			return nil, err
		}
		return &Response{Status: http.StatusNoContent,
			Location: rq.BaseURL() + "/v1/nodes/" + rq.Var("node") + "/traits/" + *trait}, nil
	}
	if err := a.d.Conductor.AddNodeTraits(ctx, topic, n.UUID, traits, true); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// deleteTraits is NodeTraitsController.delete: one trait (in the path,
// or given as the trait argument) or all of them.
func (a *API) deleteTraits(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		// NodesController.delete(node, "traits", ...) in older versions.
		return nil, resourceNotFound()
	}
	b, err := traitsDeleteArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	trait := b.str("trait")
	n, err := a.subNode(rq, "baremetal:node:traits:delete")
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, err
	}
	var traits []string
	if trait != nil {
		traits = []string{*trait}
	}
	if err := a.d.Conductor.RemoveNodeTraits(ctx, topic, n.UUID, traits); err != nil {
		if ironic.IsClass(err, ironic.NodeTraitNotFound) && trait != nil {
			return nil, ironic.Errorf(ironic.NodeTraitNotFound, "Node %s doesn't have a trait '%s'", n.UUID, *trait)
		}
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// VIFs.

func (a *API) vifNode(rq *Request, policy string) (*models.Node, string, error) {
	n, err := a.subNode(rq, policy)
	if err != nil {
		return nil, "", err
	}
	topic, err := a.d.Conductor.TopicFor(rq.Ctx(), n)
	if err != nil {
		return nil, "", as400(err, ironic.NoValidHost)
	}
	return n, topic, nil
}

func (a *API) listVIFs(rq *Request) (*Response, error) {
	n, topic, err := a.vifNode(rq, "baremetal:node:vif:list")
	if err != nil {
		return nil, err
	}
	if _, err := params().bind(rq); err != nil {
		return nil, err
	}
	vifs, err := a.d.Conductor.VIFList(rq.Ctx(), topic, n.UUID)
	if err != nil {
		return nil, err
	}
	items := make([]any, len(vifs))
	for i, v := range vifs {
		items[i] = v
	}
	return OK(pyjson.Object{{Key: "vifs", Value: items}}), nil
}

// The parameters of NodeVIFController.post and delete.
var (
	vifAttachArgs = params(req("vif", bodyOf("object"))).takesBody("vif")
	vifDetachArgs = params(req("vif_id", uuidOrNameArg))
)

// attachVIF is NodeVIFController.post.
func (a *API) attachVIF(rq *Request) (*Response, error) {
	b, err := vifAttachArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if verr := a.schemas.vif.Validate(b.body); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("vif"))
	}
	vif := plain(b.body).(map[string]any)
	if _, err := uuidOrNameArg("id", vif["id"]); err != nil {
		return nil, err
	}
	n, topic, err := a.vifNode(rq, "baremetal:node:vif:attach")
	if err != nil {
		return nil, err
	}
	if rq.Ver.AtLeast(mv.NodeVIFAttachPort) {
		_, p := vif["port_uuid"]
		_, pg := vif["portgroup_uuid"]
		if p && pg {
			return nil, ironic.Errorf(ironic.Invalid, "Cannot specify both port_uuid and portgroup_uuid")
		}
	}
	if err := a.d.Conductor.VIFAttach(rq.Ctx(), topic, n.UUID, vif); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// detachVIF is NodeVIFController.delete.
func (a *API) detachVIF(rq *Request) (*Response, error) {
	b, err := vifDetachArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	vifID := b.ident("vif_id")
	n, topic, err := a.vifNode(rq, "baremetal:node:vif:detach")
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.VIFDetach(rq.Ctx(), topic, n.UUID, vifID); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// BIOS.

var biosRegistryFields = []string{"name", "value", "attribute_type", "allowable_values", "lower_bound",
	"max_length", "min_length", "read_only", "reset_required", "unique", "upper_bound"}

func biosView(base, nodeIdent string, s *models.BIOSSetting, fields []string) pyjson.Object {
	o := pyjson.Object{{Key: "created_at", Value: isoTime(s.CreatedAt)}, {Key: "updated_at", Value: isoTime(s.UpdatedAt)}}
	for _, f := range fields {
		var v any
		switch f {
		case "name":
			v = s.Name
		case "value":
			v = strOrNil(s.Value)
		case "attribute_type":
			v = strOrNil(s.AttributeType)
		case "allowable_values":
			if s.AllowableValues == nil {
				v = []any{}
			} else {
				v = []any(s.AllowableValues)
			}
		case "lower_bound":
			v = intOrNil(s.LowerBound)
		case "max_length":
			v = intOrNil(s.MaxLength)
		case "min_length":
			v = intOrNil(s.MinLength)
		case "read_only":
			v = boolOrNil(s.ReadOnly)
		case "reset_required":
			v = boolOrNil(s.ResetRequired)
		case "unique":
			v = boolOrNil(s.Unique)
		case "upper_bound":
			v = intOrNil(s.UpperBound)
		default:
			continue
		}
		o = append(o, pyjson.Member{Key: f, Value: v})
	}
	return append(o, pyjson.Member{Key: "links", Value: []pyjson.Object{
		link("self", base+"/v1/nodes/"+nodeIdent+"/bios/"+s.Name),
		link("bookmark", base+"/nodes/"+nodeIdent+"/bios/"+s.Name),
	}})
}

func intOrNil(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The parameters of NodeBiosController.get_all and get_one.
var (
	biosListArgs = params(opt("detail", boolArg), opt("fields", stringListArg))
	biosGetArgs  = params(req("setting_name", nameArg))
)

// listBIOS is NodeBiosController.get_all.
func (a *API) listBIOS(rq *Request) (*Response, error) {
	b, err := biosListArgs.bind(rq)
	if err != nil {
		return nil, err
	}
	fields, detail := b.list("fields"), b.boolean("detail")
	n, err := a.subNode(rq, "baremetal:node:bios:get")
	if err != nil {
		return nil, err
	}
	v := rq.Ver
	if detail != nil && !v.AtLeast(mv.BIOSRegistry) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid query parameter ?detail=%s received.", pyBool(*detail))
	}
	if fields != nil && !v.AtLeast(mv.BIOSRegistry) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid query parameter ?fields=%s received.", pyschema.Repr(toAnySlice(fields)))
	}
	if fields != nil && detail != nil && *detail {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Can not specify ?detail=True and fields in the same request.")
	}
	if fields == nil {
		fields = []string{"name", "value"}
	}
	if detail != nil && *detail {
		fields = biosRegistryFields
	}
	settings, err := a.d.Store.ListBIOSSettings(rq.Ctx(), n.ID)
	if err != nil {
		return nil, err
	}
	items := make([]any, 0, len(settings))
	for i := range settings {
		items = append(items, biosView(rq.BaseURL(), rq.Var("node"), &settings[i], fields))
	}
	return OK(pyjson.Object{{Key: "bios", Value: items}}), nil
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// getBIOS is NodeBiosController.get_one.
func (a *API) getBIOS(rq *Request) (*Response, error) {
	b, err := biosGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	name := b.ident("setting_name")
	n, err := a.subNode(rq, "baremetal:node:bios:get")
	if err != nil {
		return nil, err
	}
	s, err := a.d.Store.GetBIOSSetting(rq.Ctx(), n.ID, name)
	if err != nil {
		if ironic.IsClass(err, ironic.BIOSSettingNotFound) {
			return nil, ironic.Errorf(ironic.BIOSSettingNotFound, "Node %s doesn't have a BIOS setting '%s'", n.UUID, name)
		}
		return nil, err
	}
	fields := []string{"name", "value"}
	if rq.Ver.AtLeast(mv.BIOSRegistry) {
		fields = biosRegistryFields
	}
	return OK(pyjson.Object{{Key: name, Value: biosView(rq.BaseURL(), n.UUID, s, fields)}}), nil
}

// History.

func historyView(base, nodeUUID string, h *models.NodeHistory, detail bool) pyjson.Object {
	event := ""
	if h.Event != nil {
		event = *h.Event
	}
	o := pyjson.Object{{Key: "uuid", Value: h.UUID}, {Key: "created_at", Value: isoTime(h.CreatedAt)}}
	if !detail {
		r := []rune(event)
		if len(r) > 255 {
			event = string(r[:251]) + "..."
		}
		o = append(o, pyjson.Member{Key: "severity", Value: strOrNil(h.Severity)}, pyjson.Member{Key: "event", Value: event})
	} else {
		o = append(o,
			pyjson.Member{Key: "severity", Value: strOrNil(h.Severity)},
			pyjson.Member{Key: "event_type", Value: strOrNil(h.EventType)},
			pyjson.Member{Key: "event", Value: strOrNil(h.Event)},
			pyjson.Member{Key: "conductor", Value: strOrNil(h.Conductor)},
			pyjson.Member{Key: "user", Value: strOrNil(h.User)})
	}
	return append(o, pyjson.Member{Key: "links", Value: []pyjson.Object{
		link("self", base+"/v1/nodes/"+nodeUUID+"/history/"+h.UUID),
	}})
}

// The parameters of NodeHistoryController.get_all and get_one.
var (
	historyListArgs = params(opt("detail", boolArg), opt("marker", uuidArg), opt("limit", intArg))
	historyGetArgs  = params(req("event", uuidOrNameArg))
)

// listHistory is NodeHistoryController.get_all.
func (a *API) listHistory(rq *Request) (*Response, error) {
	b, err := historyListArgs.bind(rq)
	if err != nil {
		return nil, err
	}
	detail, marker := b.boolean("detail"), b.str("marker")
	n, err := a.subNode(rq, "baremetal:node:history:get")
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	opts := db.ListOpts{}
	if marker != nil {
		h, err := a.d.Store.GetNodeHistory(ctx, db.ByUUID(*marker))
		if err != nil {
			return nil, err
		}
		opts.Marker = h.ID
	}
	limit, err := a.limit(b.integer("limit"))
	if err != nil {
		return nil, err
	}
	opts.Limit = limit
	events, err := a.d.Store.ListNodeHistoryByNode(ctx, n.ID, opts)
	if err != nil {
		return nil, err
	}
	det := detail != nil && *detail
	items := make([]any, 0, len(events))
	for i := range events {
		items = append(items, historyView(rq.BaseURL(), n.UUID, &events[i], det))
	}
	fields := []string{"uuid", "created_at", "severity", "event"}
	if det {
		fields = []string{"uuid", "created_at", "severity", "event_type", "event", "conductor", "user"}
	}
	var last string
	if len(events) > 0 {
		last = events[len(events)-1].UUID
	}
	next := nextLink(rq, "nodes/"+rq.Var("node")+"/history", len(events), limit, last, nil, fields)
	return OK(collection("history", items, next)), nil
}

// getHistory is NodeHistoryController.get_one.
func (a *API) getHistory(rq *Request) (*Response, error) {
	b, err := historyGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ev := b.ident("event")
	n, err := a.subNode(rq, "baremetal:node:history:get")
	if err != nil {
		return nil, err
	}
	h, err := a.d.Store.GetNodeHistory(rq.Ctx(), db.ByUUID(ev))
	if err != nil {
		return nil, err
	}
	return OK(historyView(rq.BaseURL(), n.UUID, h, true)), nil
}

// Inventory.

func (a *API) getInventory(rq *Request) (*Response, error) {
	n, err := a.subNode(rq, "baremetal:node:inventory:get")
	if err != nil {
		return nil, err
	}
	inv, err := a.d.Store.GetNodeInventoryByNodeID(rq.Ctx(), n.ID)
	if err != nil {
		return nil, err
	}
	return OK(pyjson.Object{
		{Key: "inventory", Value: dictOrEmpty(inv.InventoryData)},
		{Key: "plugin_data", Value: dictOrEmpty(inv.PluginData)},
	}), nil
}
