package conductor

import (
	"context"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// SetTargetRAIDConfig stores the node's target RAID configuration
// (set_target_raid_config) under its exclusive lock. A non-empty
// configuration is first validated by the node's RAID interface (Ironic's
// raid.validate_configuration against the interface's schema); an empty
// one clears the target without asking the interface.
func (m *Manager) SetTargetRAIDConfig(ctx context.Context, _ string, uuid string, config *pyjson.Dict) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if config.Len() > 0 {
		ri, ok := t.driver.Interface(drivers.RAID).(drivers.RAIDInterface)
		if !ok {
			return drivers.Unsupported(t, "raid")
		}
		if err := ri.ValidateRAIDConfig(ctx, t, config); err != nil {
			return err
		}
	}
	if config == nil {
		config = pyjson.NewDict(0)
	}
	t.node.TargetRAIDConfig = models.DictFrom(config)
	return t.Save(ctx)
}
