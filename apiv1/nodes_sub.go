package apiv1

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
)

func pyschemaRepr(v any) string { return pyschema.Repr(v) }

func pyschemaDecode(b []byte) (any, error) { return pyschema.DecodeOrdered(b) }

// subNode resolves the node of a sub-resource path as NodesController's
// _lookup does: the ident must be a UUID or a name (else a 400 in webob's
// shape) and the sub-resource must exist at this version (else 404).
func (a *API) subNode(rq *Request, policy string, min mv.Version) (*models.Node, error) {
	ident := rq.Var("node")
	if !isLogicalName(rq.Ver, ident) && !isUUID(ident) {
		return nil, ironic.Webob(ironic.HTTPBadRequest, "Expected UUID or name for node: "+ident)
	}
	if !rq.Ver.AtLeast(min) {
		return nil, ironic.Webob(ironic.NotFound, "")
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

// bodyArgs binds handler arguments as bindArgs does, with the body's
// values as plain Go values; anything not allowed is "Unexpected
// arguments".
func bodyArgs(rq *Request, allowed ...string) (map[string]any, error) {
	args, bad, err := bindArgs(rq, allowed)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, ironic.Errorf(ironic.ClientSideError, "Unexpected arguments: %s", strings.Join(bad, ", "))
	}
	for k, v := range args {
		args[k] = plain(v)
	}
	return args, nil
}

// argOrBody reads an optional string argument (args.string).
func argOrBody(rq *Request, names ...string) (*string, error) {
	args, err := bodyArgs(rq, names...)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, nil
	}
	return stringArg(args, names[0])
}

// pyStrValue is Python's str() of a decoded JSON value.
func pyStrValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return pyBool(x)
	case nil:
		return "None"
	}
	if n, ok := v.(interface{ String() string }); ok {
		return n.String()
	}
	return pyschema.Repr(v)
}

// intArg is args.integer on an argument value.
func intArg(name string, v any) (int, error) {
	s := pyStrValue(v)
	if b, ok := v.(bool); ok {
		if b {
			return 1, nil
		}
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, ironic.Errorf(ironic.InvalidParameterValue, "Expected an integer for %s: %s", name, s)
	}
	return n, nil
}

// Traits.

func (a *API) listTraits(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		return nil, notAcceptable()
	}
	n, err := a.subNode(rq, "baremetal:node:traits:list", mv.InitialVersion)
	if err != nil {
		return nil, err
	}
	return OK(pyjson.Object{{Key: "traits", Value: n.TraitNames()}}), nil
}

func (a *API) setTraits(rq *Request) (*Response, error) { return a.putTraits(rq, nil) }

func (a *API) addTrait(rq *Request) (*Response, error) {
	t := rq.Var("trait")
	return a.putTraits(rq, &t)
}

// putTraits is NodeTraitsController.put: either one trait in the path and
// no body, or the whole list in the body.
func (a *API) putTraits(rq *Request, trait *string) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		return nil, ironic.Webob(ironic.MethodNotAllowed, "")
	}
	if trait != nil {
		if verr := a.schemas.trait.Validate(*trait); verr != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("trait"))
		}
	}
	raw, err := rq.ReadBody()
	if err != nil {
		return nil, err
	}
	var doc any
	if len(raw) > 0 {
		if doc, err = decodeBody(raw); err != nil {
			return nil, err
		}
		if verr := a.schemas.traits.Validate(doc); verr != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("body"))
		}
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
	n, err := a.subNode(rq, "baremetal:node:traits:set", mv.InitialVersion)
	if err != nil {
		return nil, err
	}
	single := trait != nil && *trait != ""
	if (single && hasTraits) || !(single || hasTraits) {
		return nil, ironic.Errorf(ironic.Invalid, "A single node trait may be added via PUT /v1/nodes/<node identifier>/traits/<trait> with no body, or all node traits may be replaced via PUT /v1/nodes/<node identifier>/traits with the list of traits specified in the request body.")
	}
	if single && doc != nil && pyjson.Truthy(plain(doc)) {
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

func (a *API) deleteTraits(rq *Request) (*Response, error) { return a.removeTraits(rq, nil) }

func (a *API) deleteTrait(rq *Request) (*Response, error) {
	t := rq.Var("trait")
	return a.removeTraits(rq, &t)
}

func (a *API) removeTraits(rq *Request, trait *string) (*Response, error) {
	if !rq.Ver.AtLeast(mv.NodeTraits) {
		return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
	}
	n, err := a.subNode(rq, "baremetal:node:traits:delete", mv.InitialVersion)
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
	n, err := a.subNode(rq, policy, mv.VIFSSubcontroller)
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
	if err := rq.CheckArgs(); err != nil {
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

func (a *API) attachVIF(rq *Request) (*Response, error) {
	if !rq.Ver.AtLeast(mv.VIFSSubcontroller) {
		return nil, ironic.Webob(ironic.NotFound, "")
	}
	raw, err := rq.ReadBody()
	if err != nil {
		return nil, err
	}
	doc, err := decodeBody(raw)
	if err != nil {
		return nil, err
	}
	if verr := a.schemas.vif.Validate(doc); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("vif"))
	}
	vif := pyjson.Ordered(doc).(*pyjson.Dict)
	if err := checkUUIDOrName(rq.Ver, "id", vif.Get("id").(string)); err != nil {
		return nil, err
	}
	n, topic, err := a.vifNode(rq, "baremetal:node:vif:attach")
	if err != nil {
		return nil, err
	}
	if rq.Ver.AtLeast(mv.NodeVIFAttachPort) {
		if vif.Has("port_uuid") && vif.Has("portgroup_uuid") {
			return nil, ironic.Errorf(ironic.Invalid, "Cannot specify both port_uuid and portgroup_uuid")
		}
	}
	if err := a.d.Conductor.VIFAttach(rq.Ctx(), topic, n.UUID, vif); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

func (a *API) detachVIF(rq *Request) (*Response, error) {
	vifID := rq.Var("vif")
	if !rq.Ver.AtLeast(mv.VIFSSubcontroller) {
		return nil, ironic.Webob(ironic.NotFound, "")
	}
	if err := checkUUIDOrName(rq.Ver, "vif_id", vifID); err != nil {
		return nil, err
	}
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

func (a *API) listBIOS(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("detail", "fields"); err != nil {
		return nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
	detail, err := rq.Bool("detail")
	if err != nil {
		return nil, err
	}
	n, err := a.subNode(rq, "baremetal:node:bios:get", mv.BIOSInterface)
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

func (a *API) getBIOS(rq *Request) (*Response, error) {
	name := rq.Var("setting")
	n, err := a.subNode(rq, "baremetal:node:bios:get", mv.BIOSInterface)
	if err != nil {
		return nil, err
	}
	if !isLogicalName(rq.Ver, name) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected name for setting_name: %s", name)
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

func (a *API) listHistory(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("detail", "marker", "limit"); err != nil {
		return nil, err
	}
	detail, err := rq.Bool("detail")
	if err != nil {
		return nil, err
	}
	marker, err := uuidArg(rq, "marker")
	if err != nil {
		return nil, err
	}
	limitArg, err := rq.Int("limit")
	if err != nil {
		return nil, err
	}
	n, err := a.subNode(rq, "baremetal:node:history:get", mv.NodeHistory)
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
	limit, err := a.validateLimit(limitArg)
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

func (a *API) getHistory(rq *Request) (*Response, error) {
	ev := rq.Var("event")
	n, err := a.subNode(rq, "baremetal:node:history:get", mv.NodeHistory)
	if err != nil {
		return nil, err
	}
	if err := checkUUIDOrName(rq.Ver, "event", ev); err != nil {
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
	n, err := a.subNode(rq, "baremetal:node:inventory:get", mv.NodeInventory)
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
