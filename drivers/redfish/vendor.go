package redfish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// Vendor is the "redfish" vendor interface: virtual media ejection and
// event subscriptions.
type Vendor struct {
	c *core
	// boot removes the images the virtual media boot interface published
	// when eject_vmedia ejects them.
	boot *VirtualMediaBoot
}

// GetProperties returns none.
func (*Vendor) GetProperties() drivers.Properties { return nil }

// Routes lists the node methods.
func (*Vendor) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "create_subscription", HTTPMethods: []string{"POST"}, Async: false,
			Description:          "Creates a subscription on a node. Required argument: a dictionary of {'Destination': 'destination_url'}",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "delete_subscription", HTTPMethods: []string{"DELETE"}, Async: false,
			Description:          "Delete a subscription on a node. Required argument: a dictionary of {'id': 'subscription_bmc_id'}",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "eject_vmedia", HTTPMethods: []string{"POST"}, Async: true,
			Description:          "Eject a virtual media device. If no device is provided then all attached devices will be ejected. Optional arguments: 'boot_device' - the boot device to eject, either 'cd', 'dvd', 'usb', or 'floppy'",
			RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "get_all_subscriptions", HTTPMethods: []string{"GET"}, Async: false,
			Description: "Returns all subscriptions on the node.", RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "get_subscription", HTTPMethods: []string{"GET"}, Async: false,
			Description:          "Get a subscription on the node. Required argument: a dictionary of {'id': 'subscription_bmc_id'}",
			RequireExclusiveLock: true},
	)
}

// DriverRoutes lists none.
func (*Vendor) DriverRoutes() drivers.VendorMethods { return nil }

// Validate checks a method's arguments as Ironic's redfish vendor
// passthru does: eject_vmedia's boot_device against the BMC's devices,
// create_subscription's EventTypes against the EventService's, its
// Context, Protocol, HttpHeaders and Destination, delete_subscription's
// id.
func (v *Vendor) Validate(ctx context.Context, task drivers.Task, method, _ string, args map[string]any) error {
	switch method {
	case "eject_vmedia":
		return v.validateEject(ctx, task, args)
	case "create_subscription":
		if et, ok := args["EventTypes"]; ok && et != nil {
			if err := v.validateEventTypes(ctx, task, et); err != nil {
				return err
			}
		}
		if c, ok := args["Context"]; ok {
			if _, isStr := c.(string); !isStr {
				return drivers.InvalidParameter("Context %s is not a valid string", py.Str(c))
			}
		}
		if p, ok := args["Protocol"]; ok {
			if _, isStr := p.(string); !isStr {
				return drivers.InvalidParameter("Protocol %s is not a string", py.Str(p))
			}
		}
		if h := args["HttpHeaders"]; h != nil {
			if _, isList := h.([]any); !isList {
				return drivers.InvalidParameter("HttpHeaders %s is not a list of headers", py.Str(h))
			}
		}
		dest, isStr := args["Destination"].(string)
		if !isStr || !parseURI(dest).valid() {
			return drivers.InvalidParameter("Destination %s is not a valid URI", py.Str(args["Destination"]))
		}
	case "delete_subscription":
		id := args["id"]
		if !py.Truthy(id) {
			return drivers.InvalidParameter("id can't be None")
		}
		if !validSubscriptionID(py.Str(id)) {
			return drivers.InvalidParameter("Invalid BMC subscription ID value: '%s'", py.Str(id))
		}
	}
	return nil
}

// validSubscriptionID is ironic.common.validate.is_bmc_subscription_id_valid.
func validSubscriptionID(s string) bool {
	return !strings.ContainsAny(s, "!*'(),{}|\\^~[]`<>#%\"") && !strings.Contains(s, "..")
}

// validateEject is _validate_eject_vmedia: a boot device, when given,
// must be one of every virtual media device's MediaTypes. (sushy 4.3
// reads them as enumeration members, which no string given to the API
// equals: any boot device is refused when the BMC has virtual media.)
func (v *Vendor) validateEject(ctx context.Context, task drivers.Task, args map[string]any) error {
	dev := args["boot_device"]
	if !py.Truthy(dev) {
		return nil
	}
	sys, done, err := v.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	managers, err := sys.managers(ctx)
	if err != nil {
		return asFault(err)
	}
	mm := &managerMedia{managers: managers}
	for _, m := range managers {
		media, err := mm.virtualMedia(ctx, sys.b, m)
		if err != nil {
			return asFault(err)
		}
		if len(media) > 0 {
			return drivers.InvalidParameter("Boot device %s is not a valid value ", py.Str(dev))
		}
	}
	return nil
}

// eventTypes is sushy's EventType enumeration, as Python shows its
// members.
var eventTypes = []struct{ name, value string }{
	{"STATUS_CHANGE", "StatusChange"}, {"RESOURCE_UPDATED", "ResourceUpdated"}, {"RESOURCE_ADDED", "ResourceAdded"},
	{"RESOURCE_REMOVED", "ResourceRemoved"}, {"ALERT", "Alert"}, {"METRIC_REPORT", "MetricReport"}, {"OTHER", "Other"},
}

// validateEventTypes is the EventTypes check of
// _validate_create_subscription. sushy 4.3 gives the allowed types as
// enumeration members, which no string equals: every non-empty list is
// refused, with the allowed members in the message.
func (v *Vendor) validateEventTypes(ctx context.Context, task drivers.Task, et any) error {
	es, err := v.c.eventService(ctx, task)
	if err != nil {
		return err
	}
	supported, _ := es.raw.Get("EventTypesForSubscription").([]any)
	var allowed []string
	for _, t := range eventTypes {
		if len(supported) == 0 || slices.Contains(supported, any(t.value)) {
			allowed = append(allowed, "<EventType."+t.name+": '"+t.value+"'>")
		}
	}
	list, isList := et.([]any)
	if isList && len(list) == 0 {
		return nil
	}
	set := "set()"
	if len(allowed) > 0 {
		set = "{" + strings.Join(allowed, ", ") + "}"
	}
	return drivers.InvalidParameter("EventTypes %s is not a valid value, allowed values %s", py.Str(et), set)
}

// DriverValidate accepts every call.
func (*Vendor) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// subscriptionFields are SUBSCRIPTION_COMMON_FIELDS, in the order a
// subscription's document has them.
func filterSubscription(d *pyjson.Dict) *pyjson.Dict {
	out := pyjson.NewDict(5)
	for k, v := range d.All() {
		switch k {
		case "Id", "Context", "Protocol", "Destination", "EventTypes":
			out.Set(k, v)
		}
	}
	return out
}

// Call runs a vendor method.
func (v *Vendor) Call(ctx context.Context, task drivers.Task, method, _ string, args map[string]any) (any, error) {
	switch method {
	case "eject_vmedia":
		dev, _ := args["boot_device"].(string)
		return nil, v.boot.EjectAndCleanUp(ctx, task, dev)
	case "create_subscription":
		return v.createSubscription(ctx, task, args)
	case "delete_subscription":
		return nil, v.deleteSubscription(ctx, task, args)
	case "get_all_subscriptions":
		es, err := v.c.eventService(ctx, task)
		if err != nil {
			return nil, err
		}
		subs, err := es.subscriptions(ctx)
		if err != nil {
			if !isSushy(err) {
				return nil, err
			}
			msg := fmt.Sprintf("Redfish get_subscriptions failed for node %s. Error: %s", task.NodeUUID(), err)
			v.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
			return nil, redfishError("%s", msg)
		}
		return subs.raw, nil
	case "get_subscription":
		return v.getSubscription(ctx, task, args)
	}
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

func (v *Vendor) createSubscription(ctx context.Context, task drivers.Task, args map[string]any) (any, error) {
	get := func(k string, dflt any) any {
		if x, ok := args[k]; ok {
			return x
		}
		return dflt
	}
	payload := pyjson.DictOf(
		"Destination", args["Destination"],
		"Protocol", get("Protocol", "Redfish"),
		"Context", get("Context", ""),
		"EventTypes", get("EventTypes", []any{"Alert"}),
	)
	if h := get("HttpHeaders", []any{}); py.Truthy(h) {
		payload.Set("HttpHeaders", h)
	}
	es, err := v.c.eventService(ctx, task)
	if err != nil {
		return nil, err
	}
	sub, err := es.createSubscription(ctx, payload)
	if err != nil {
		if !isSushy(err) {
			return nil, err
		}
		msg := fmt.Sprintf("Failed to create subscription on node %s. Subscription payload: %s. Error: %s",
			task.NodeUUID(), py.Repr(payload), err)
		v.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return nil, redfishError("%s", msg)
	}
	if sub == nil {
		// sushy returns None without a 201 and a Location: Ironic then
		// fails reading its document.
		return nil, ironic.Errorf(ironic.IronicException, "'NoneType' object has no attribute 'json'")
	}
	return filterSubscription(sub), nil
}

// subscriptionPath is the subscription's path in the collection.
func subscriptionPath(coll, id string) string {
	if strings.HasSuffix(coll, "/") {
		return coll + id
	}
	return coll + "/" + id
}

func (v *Vendor) deleteSubscription(ctx context.Context, task drivers.Task, args map[string]any) error {
	id := py.Str(args["id"])
	es, err := v.c.eventService(ctx, task)
	if err != nil {
		return err
	}
	err = func() error {
		subs, err := es.subscriptions(ctx)
		if err != nil {
			return err
		}
		p := subscriptionPath(subs.path, id)
		if _, err := es.b.get(ctx, p); err != nil {
			return err
		}
		_, err = es.b.delete(ctx, p, nil)
		return err
	}()
	if err != nil {
		if !isSushy(err) {
			return err
		}
		msg := fmt.Sprintf("Redfish delete_subscription failed for subscription %s on node %s. Error: %s", id, task.NodeUUID(), err)
		v.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		var f *ironic.Fault
		_ = errors.As(redfishError("%s", msg), &f)
		return f.WithStatus(http.StatusNotFound)
	}
	return nil
}

func (v *Vendor) getSubscription(ctx context.Context, task drivers.Task, args map[string]any) (any, error) {
	rawID := args["id"]
	id := py.Str(rawID)
	es, err := v.c.eventService(ctx, task)
	if err != nil {
		return nil, err
	}
	var out *pyjson.Dict
	err = func() error {
		subs, err := es.subscriptions(ctx)
		if err != nil {
			return err
		}
		if _, isStr := rawID.(string); !isStr {
			// Ironic looks for illegal characters "in" the value.
			return ironic.Errorf(ironic.IronicException, "argument of type '%s' is not iterable", pyTypeName(rawID))
		}
		if !validSubscriptionID(id) {
			return drivers.InvalidParameter("Invalid BMC ID value: '%s'", id)
		}
		// Ironic reads event_service.subscriptions a second time.
		if _, err := es.subscriptions(ctx); err != nil {
			return err
		}
		r, err := es.b.get(ctx, subscriptionPath(subs.path, id))
		if err != nil {
			return err
		}
		out = filterSubscription(r.dict())
		return nil
	}()
	if err != nil {
		if !isSushy(err) {
			return nil, err
		}
		msg := fmt.Sprintf("Redfish get_subscription failed for subscription %s on node %s. Error: %s", id, task.NodeUUID(), err)
		v.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return nil, redfishError("%s", msg)
	}
	return out, nil
}

// CallDriver has no methods to run.
func (*Vendor) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// pyTypeName is the name of a JSON value's Python type.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case *pyjson.Dict, map[string]any:
		return "dict"
	}
	if n, ok := pyNumber(v); ok && n == float64(int64(n)) {
		if _, isFloat := v.(float64); !isFloat {
			return "int"
		}
	}
	return "float"
}
