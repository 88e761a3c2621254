package redfish

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/stmcginnis/gofish/schemas"
)

// eventService is the service's EventService, read through the node's
// connection.
type eventService struct {
	b *bmc
	*doc
}

// eventService is Ironic's redfish_utils.get_event_service: the service
// root's EventService (RedfishError when it has none).
func (c *core) eventService(ctx context.Context, task drivers.Task) (*eventService, error) {
	info, err := ParseDriverInfo(task, c.cfg)
	if err != nil {
		return nil, err
	}
	var es *eventService
	_, err = c.withConnection(ctx, task, info, func(b *bmc) error {
		p, _ := field(b.root, "EventService", "@odata.id")
		path, _ := p.(string)
		if path == "" {
			return missingAttribute("EventService/@odata.id", b.rootPrefix)
		}
		d, err := load[schemas.EventService](ctx, b, path, "Id", "Name", "Actions")
		if err != nil {
			return err
		}
		es = &eventService{b: b, doc: d}
		return nil
	})
	if isKind(err, kindMissingAttribute) {
		c.log.ErrorContext(ctx, "The Redfish EventService was not found", "node", task.NodeUUID(), "error", err)
		return nil, redfishError("%s", err)
	}
	if err != nil {
		return nil, asFault(err)
	}
	return es, nil
}

// subscriptions reads the EventService's Subscriptions collection.
func (es *eventService) subscriptions(ctx context.Context) (*doc, error) {
	v := es.raw.Get("Subscriptions")
	if !pyjson.Truthy(v) {
		return nil, missingAttribute("Subscriptions", es.path)
	}
	link, _ := pyjson.AsDict(v)
	p, _ := link.Get("@odata.id").(string)
	r, err := es.b.get(ctx, p)
	if err != nil {
		return nil, err
	}
	return &doc{path: p, raw: r.dict()}, nil
}

// createSubscription is EventDestinationCollection.create: POST the
// payload, then (on 201 with a Location) the collection read again and
// the new subscription read. nil without a Location.
func (es *eventService) createSubscription(ctx context.Context, payload *pyjson.Dict) (*pyjson.Dict, error) {
	subs, err := es.subscriptions(ctx)
	if err != nil {
		return nil, err
	}
	r, err := es.b.post(ctx, subs.path, payload)
	if err != nil {
		return nil, err
	}
	loc := r.header.Get("Location")
	if r.status != 201 || loc == "" {
		return nil, nil
	}
	if _, err := es.b.get(ctx, subs.path); err != nil {
		return nil, err
	}
	d, err := load[schemas.EventDestination](ctx, es.b, loc)
	if err != nil {
		return nil, err
	}
	return d.raw, nil
}
