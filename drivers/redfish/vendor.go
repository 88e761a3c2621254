package redfish

import (
	"context"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// Vendor is the "redfish" vendor interface: virtual media ejection and
// event subscriptions.
type Vendor struct{ c *core }

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

// Validate checks a method's arguments where that needs no BMC; checks
// that need one (a boot device to eject, event types) are not implemented
// yet.
func (v *Vendor) Validate(_ context.Context, _ drivers.Task, method, _ string, args map[string]any) error {
	switch method {
	case "eject_vmedia":
		if py.Truthy(args["boot_device"]) {
			return notImplemented(drivers.Vendor, "check virtual media devices")
		}
	case "create_subscription":
		if args["EventTypes"] != nil {
			return notImplemented(drivers.Vendor, "check event types")
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
		s := py.Str(id)
		if strings.ContainsAny(s, "!*'(),{}|\\^~[]`<>#%\"") || strings.Contains(s, "..") {
			return drivers.InvalidParameter("Invalid BMC subscription ID value: '%s'", s)
		}
	}
	return nil
}

// DriverValidate accepts every call.
func (*Vendor) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call is not implemented yet.
func (v *Vendor) Call(_ context.Context, _ drivers.Task, method, _ string, _ map[string]any) (any, error) {
	if _, ok := v.Routes().Lookup(method); !ok {
		return nil, drivers.InvalidParameter("No handler for method %s", method)
	}
	return nil, notImplemented(drivers.Vendor, "run "+method)
}

// CallDriver has no methods to run.
func (*Vendor) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}
