package redfishbmc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// subscription is an EventDestination.
type subscription struct {
	id, destination, context, protocol string
	eventTypes                         []string
	headers                            []map[string]string
}

// Subscription is an event subscription of a BMC.
type Subscription struct {
	ID, Destination, Context, Protocol string
	EventTypes                         []string
}

// Delivery is one event the BMC sent to a subscriber.
type Delivery struct {
	Destination string
	Body        json.RawMessage
	// Status is the subscriber's answer; Err why there was none.
	Status int
	Err    string
}

// eventTypes are the EventTypesForSubscription.
var eventTypes = []string{"StatusChange", "ResourceUpdated", "ResourceAdded", "ResourceRemoved", "Alert"}

// Subscriptions returns the BMC's event subscriptions in creation order.
func (b *BMC) Subscriptions() []Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Subscription, 0, len(b.subOrder))
	for _, id := range b.subOrder {
		s := b.subs[id]
		out = append(out, Subscription{ID: s.id, Destination: s.destination, Context: s.context,
			Protocol: s.protocol, EventTypes: slices.Clone(s.eventTypes)})
	}
	return out
}

// Deliveries returns the events the BMC sent, oldest first.
func (b *BMC) Deliveries() []Delivery {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.deliveries)
}

func getEventService(c *call) (*reply, error) {
	return okReply(map[string]any{
		"@odata.type":                  "#EventService.v1_0_8.EventService",
		"@odata.id":                    c.uri("EventService"),
		"Id":                           "EventService",
		"Name":                         "Event Service",
		"ServiceEnabled":               true,
		"DeliveryRetryAttempts":        3,
		"DeliveryRetryIntervalSeconds": 30,
		"EventTypesForSubscription":    eventTypes,
		"Status":                       status(true),
		"Subscriptions":                c.ref("EventService", "Subscriptions"),
		"Actions": map[string]any{
			"#EventService.SubmitTestEvent": map[string]any{
				"target":                            c.uri("EventService", "Actions", "EventService.SubmitTestEvent"),
				"EventType@Redfish.AllowableValues": eventTypes,
			},
		},
	}), nil
}

func getSubscriptions(c *call) (*reply, error) {
	return okReply(c.collection("#EventDestinationCollection.EventDestinationCollection",
		"Event Subscriptions Collection", []string{"EventService", "Subscriptions"}, c.b.subOrder)), nil
}

func (c *call) renderSubscription(s *subscription) map[string]any {
	return map[string]any{
		"@odata.type": "#EventDestination.v1_0_0.EventDestination",
		"@odata.id":   c.uri("EventService", "Subscriptions", s.id),
		"Id":          s.id,
		"Name":        "Event Subscription " + s.id,
		"Destination": s.destination,
		"Context":     s.context,
		"Protocol":    s.protocol,
		"EventTypes":  s.eventTypes,
		// HttpHeaders are write-only (Redfish returns null).
		"HttpHeaders": nil,
	}
}

func getSubscription(c *call) (*reply, error) {
	s := c.b.subs[c.args[0]]
	if s == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	return okReply(c.renderSubscription(s)), nil
}

func postSubscription(c *call) (*reply, error) {
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	s := &subscription{protocol: "Redfish", eventTypes: []string{"Alert"}}
	for k, v := range body {
		ptr := "#/" + k
		switch k {
		case "Destination", "Context", "Protocol":
			str, ok := v.(string)
			if !ok {
				return nil, errPropertyType(ptr, toString(v))
			}
			switch k {
			case "Destination":
				s.destination = str
			case "Context":
				s.context = str
			case "Protocol":
				if str != "Redfish" {
					return nil, errPropertyNotInList(ptr, str, []string{"Redfish"})
				}
			}
		case "EventTypes":
			list, ok := v.([]any)
			if !ok {
				return nil, errPropertyType(ptr, toString(v))
			}
			s.eventTypes = nil
			for _, e := range list {
				str, _ := e.(string)
				if !slices.Contains(eventTypes, str) {
					return nil, errPropertyNotInList(ptr, toString(e), eventTypes)
				}
				s.eventTypes = append(s.eventTypes, str)
			}
		case "HttpHeaders":
			// The schema's array of objects, or (as gofish sends it) one
			// object.
			var list []any
			switch h := v.(type) {
			case []any:
				list = h
			case map[string]any:
				list = []any{h}
			default:
				return nil, errPropertyType(ptr, toString(v))
			}
			for _, h := range list {
				m, ok := h.(map[string]any)
				if !ok {
					return nil, errPropertyType(ptr, toString(h))
				}
				hh := map[string]string{}
				for hk, hv := range m {
					hh[hk] = toString(hv)
				}
				s.headers = append(s.headers, hh)
			}
		case "Oem", "SubscriptionType", "DeliveryRetryPolicy", "RegistryPrefixes", "ResourceTypes":
			// Accepted; the emulator filters on EventTypes only.
		default:
			if !strings.Contains(k, "@") {
				return nil, errPropertyUnknown(ptr)
			}
		}
	}
	if s.destination == "" {
		return nil, errCreateMissing("Destination")
	}
	if u, err := url.Parse(s.destination); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errPropertyValueFormat("#/Destination", s.destination)
	}
	s.id = c.s.opts.NewID()
	c.b.subs[s.id] = s
	c.b.subOrder = append(c.b.subOrder, s.id)
	uri := c.uri("EventService", "Subscriptions", s.id)
	return &reply{status: http.StatusCreated, body: c.renderSubscription(s), header: http.Header{"Location": {uri}}}, nil
}

func deleteSubscription(c *call) (*reply, error) {
	id := c.args[0]
	if c.b.subs[id] == nil {
		return nil, errNotFound(c.r.URL.Path)
	}
	delete(c.b.subs, id)
	c.b.subOrder = slices.DeleteFunc(c.b.subOrder, func(x string) bool { return x == id })
	return noContent(), nil
}

// deliveryTimeout bounds the delivery of one event.
const deliveryTimeout = 5 * time.Second

// postSubmitTestEvent sends a test event to every subscriber of its type
// (one POST each, bounded by deliveryTimeout) and records the answers.
func postSubmitTestEvent(c *call) (*reply, error) {
	body, err := c.object()
	if err != nil {
		return nil, err
	}
	const action = "EventService.SubmitTestEvent"
	typ := "Alert"
	if v, ok := body["EventType"]; ok {
		str, _ := v.(string)
		if !slices.Contains(eventTypes, str) {
			return nil, errActionParamNotInList(action, "EventType", toString(v), eventTypes)
		}
		typ = str
	}
	str := func(k, def string) string {
		if v, ok := body[k].(string); ok {
			return v
		}
		return def
	}
	event := map[string]any{
		"EventType":      typ,
		"EventId":        str("EventId", c.s.opts.NewID()),
		"EventTimestamp": str("EventTimestamp", c.now.UTC().Format(time.RFC3339)),
		"Message":        str("Message", "Test event"),
		"MessageId":      str("MessageId", "Base.1.16.0.Success"),
		"Severity":       str("Severity", "OK"),
	}
	if o := str("OriginOfCondition", ""); o != "" {
		event["OriginOfCondition"] = map[string]any{"@odata.id": o}
	}
	c.b.mu.Lock()
	var targets []*subscription
	for _, id := range c.b.subOrder {
		if s := c.b.subs[id]; slices.Contains(s.eventTypes, typ) {
			targets = append(targets, s)
		}
	}
	c.b.mu.Unlock()
	for _, s := range targets {
		d := c.deliver(s, event)
		c.b.mu.Lock()
		c.b.deliveries = append(c.b.deliveries, d)
		c.b.mu.Unlock()
	}
	return noContent(), nil
}

func (c *call) deliver(s *subscription, event map[string]any) Delivery {
	raw, _ := json.Marshal(map[string]any{
		"@odata.type": "#Event.v1_3_0.Event",
		"Id":          c.s.opts.NewID(),
		"Name":        "Event Array",
		"Context":     s.context,
		"Events":      []any{event},
	})
	d := Delivery{Destination: s.destination, Body: raw}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.r.Context()), deliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.destination, bytes.NewReader(raw))
	if err != nil {
		d.Err = err.Error()
		return d
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range s.headers {
		for k, v := range h {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.s.opts.HTTPClient.Do(req)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	resp.Body.Close()
	d.Status = resp.StatusCode
	return d
}
