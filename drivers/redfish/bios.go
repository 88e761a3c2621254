package redfish

import (
	"context"

	"github.com/goironic/ironic/drivers"
)

// BIOS is the "redfish" BIOS interface.
type BIOS struct{ base }

// ApplyConfiguration is not implemented yet.
func (*BIOS) ApplyConfiguration(context.Context, drivers.Task, []drivers.BIOSSetting) error {
	return notImplemented(drivers.BIOS, "apply BIOS settings")
}

// FactoryReset is not implemented yet.
func (*BIOS) FactoryReset(context.Context, drivers.Task) error {
	return notImplemented(drivers.BIOS, "reset BIOS settings")
}

// CacheBIOSSettings is not implemented yet.
func (*BIOS) CacheBIOSSettings(context.Context, drivers.Task) error {
	return notImplemented(drivers.BIOS, "cache BIOS settings")
}
