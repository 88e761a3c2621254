package apiv1

import (
	"net/http"

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

// eventsGate is EventsController._lookup: before 1.54 a verb other than
// POST is a bare 404.
func eventsGate(rq *Request) *ironic.Fault {
	if rq.HTTP.Method == http.MethodPost || rq.Ver.AtLeast(mv.Events) {
		return nil
	}
	return ironic.Webob(ironic.NotFound, "")
}

// eventsArgs are EventsController.post's parameters.
var eventsArgs = params(req("evts", bodyOf("object"))).takesBody("evts")

// postEvents is EventsController.post: external events (from Neutron) are
// validated and logged; Ironic does nothing else with them yet. A path
// segment after /events binds to the body parameter.
func (a *API) postEvents(rq *Request) (*Response, error) {
	b, err := eventsArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	doc := b.body
	if verr := eventsSchema.Validate(doc); verr != nil {
		return nil, schemaError("evts", verr)
	}
	events, _ := doc.(pyjson.Object).Get("events")
	for _, ev := range events.([]any) {
		if err := validateNetworkEvent(ev); err != nil {
			return nil, err
		}
	}
	if !rq.Ver.AtLeast(mv.Events) {
		return nil, resourceNotFound()
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
		return schemaError("evts", verr)
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
		if _, err := uuidArg(k, s); err != nil {
			return err
		}
	}
	return nil
}
