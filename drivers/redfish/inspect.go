package redfish

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// Inspect is the "redfish" inspect interface.
type Inspect struct {
	drivers.InspectBase
	base
}

// InspectHardware is not implemented yet.
func (*Inspect) InspectHardware(context.Context, drivers.Task) (states.Provision, error) {
	return "", notImplemented(drivers.Inspect, "inspect hardware")
}
