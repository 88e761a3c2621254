package apiv1

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
)

// eventsSchema is event.py's EVENTS_SCHEMA.
var eventsSchema = pyschema.MustCompile(`{
  "type": "object",
  "properties": {
    "events": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "event": {"type": "string", "enum": ["network.bind_port", "network.unbind_port", "network.delete_port"]}
        },
        "required": ["event"],
        "additionalProperties": true
      }
    }
  },
  "required": ["events"],
  "additionalProperties": false
}`)

// networkEventSchema is the schema of NETWORK_EVENT_VALIDATOR, which every
// known event uses.
var networkEventSchema = pyschema.MustCompile(`{
  "type": "object",
  "properties": {
    "event": {"type": "string"},
    "port_id": {"type": "string"},
    "mac_address": {"type": "string"},
    "status": {"type": "string"},
    "device_id": {"type": ["string", "null"]},
    "binding:host_id": {"type": ["string", "null"]},
    "binding:vnic_type": {"type": ["string", "null"]}
  },
  "required": ["event", "port_id", "mac_address", "status"],
  "additionalProperties": false
}`)

// routesEvents registers EventsController (API 1.54): only POST. Before
// 1.54 the controller's _lookup answers any other verb with a bare 404.
func (a *API) routesEvents(m *mux.Router) {
	gate := func(rq *Request) *ironic.Fault {
		if rq.HTTP.Method == http.MethodPost || rq.Ver.AtLeast(mv.Events) {
			return nil
		}
		return ironic.Webob(ironic.NotFound, "")
	}
	a.miscRouteGate(m.Path("/events"), gate)
	a.miscRouteGate(m.Path("/events/{evts}"), gate)
	a.handle(m, "/events", methods{"POST": a.postEvents})
	a.handle(m, "/events/{evts}", methods{"POST": a.postEvents})
}

// postEvents is EventsController.post: external events (from Neutron) are
// validated and logged; Ironic does nothing else with them yet.
func (a *API) postEvents(rq *Request) (*Response, error) {
	doc, err := miscReadBody(rq)
	if err != nil {
		return nil, err
	}
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	if s, positional := rq.Vars["evts"]; positional {
		// Pecan binds the extra path segment to the body argument.
		doc = s
	}
	if verr := eventsSchema.Validate(doc); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("evts"))
	}
	events, _ := doc.(pyjson.Object).Get("events")
	for _, ev := range events.([]any) {
		if err := validateNetworkEvent(ev); err != nil {
			return nil, err
		}
	}
	if !rq.Ver.AtLeast(mv.Events) {
		return nil, miscResourceNotFound()
	}
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:events:post", nil); err != nil {
		return nil, err
	}
	for _, ev := range events.([]any) {
		a.d.Log.DebugContext(ctx, "received external event", "event", pyschema.Repr(ev))
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// validateNetworkEvent is NETWORK_EVENT_VALIDATOR: the schema, then the
// identifiers and the MAC address.
func validateNetworkEvent(ev any) error {
	if verr := networkEventSchema.Validate(ev); verr != nil {
		return ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("evts"))
	}
	o := ev.(pyjson.Object)
	for _, k := range []string{"port_id", "mac_address", "device_id", "binding:host_id"} {
		v, ok := o.Get(k)
		s, isStr := v.(string)
		if !ok || !isStr {
			continue
		}
		if k == "mac_address" {
			if _, valid := normalizeMAC(s); !valid {
				return ironic.Errorf(ironic.InvalidParameterValue, "Expected valid MAC address for %s: %s", k, s)
			}
			continue
		}
		if err := checkUUID(k, s); err != nil {
			return err
		}
	}
	return nil
}
