package redfish

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// RAID is the "redfish" RAID interface. Like Ironic's, its validation only
// looks at target_raid_config (no scsi disks), not at driver_info.
type RAID struct {
	drivers.RAIDBase
	c *core
}

// GetProperties returns the Redfish driver_info keys.
func (*RAID) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's target_raid_config, if any.
func (r *RAID) Validate(ctx context.Context, task drivers.Task) error {
	cfg := task.TargetRAIDConfig()
	if cfg.Len() == 0 {
		return nil
	}
	return r.ValidateRAIDConfig(ctx, task, cfg)
}

// ValidateRAIDConfig checks config against Ironic's RAID schema and refuses
// scsi disks.
func (*RAID) ValidateRAIDConfig(_ context.Context, _ drivers.Task, config *pyjson.Dict) error {
	if err := drivers.ValidateRAIDConfig(config); err != nil {
		return err
	}
	disks, _ := config.Get("logical_disks").([]any)
	for _, d := range disks {
		if m, ok := pyjson.AsDict(d); ok && m.Get("interface_type") == "scsi" {
			return drivers.InvalidParameter("interface type `scsi` not supported by Redfish RAID")
		}
	}
	return nil
}

// CreateConfiguration is not implemented yet.
func (*RAID) CreateConfiguration(context.Context, drivers.Task, drivers.RAIDCreateOptions) (states.Provision, error) {
	return "", notImplemented(drivers.RAID, "create RAID configurations")
}

// DeleteConfiguration is not implemented yet.
func (*RAID) DeleteConfiguration(context.Context, drivers.Task) (states.Provision, error) {
	return "", notImplemented(drivers.RAID, "delete RAID configurations")
}
