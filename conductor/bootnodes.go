package conductor

import (
	"context"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
)

// bootNodes is drivers.BootNodes over the conductor's database: the
// narrow, unlocked reads of the driver methods (ipxe_config).
type bootNodes struct{ store Store }

var _ drivers.BootNodes = bootNodes{}

func (b bootNodes) BootNodeByUUID(ctx context.Context, uuid string) (drivers.BootNode, bool, error) {
	return bootNode(b.store.GetBootNodeByUUID(ctx, uuid))
}

func (b bootNodes) BootNodeByPortAddress(ctx context.Context, address string) (drivers.BootNode, bool, error) {
	return bootNode(b.store.GetBootNodeByPortAddress(ctx, address))
}

func bootNode(n *db.BootNode, found bool, err error) (drivers.BootNode, bool, error) {
	if err != nil || !found {
		return drivers.BootNode{}, false, err
	}
	return drivers.BootNode{ID: n.ID, UUID: n.UUID, ProvisionState: models.Deref(n.ProvisionState),
		DeployInterface: models.Deref(n.DeployInterface), DriverInfo: n.DriverInfo.Dict, InstanceInfo: n.InstanceInfo.Dict,
		DriverInternalInfo: n.DriverInternalInfo.Dict}, true, nil
}

func (b bootNodes) BootVolumeTargets(ctx context.Context, n drivers.BootNode) ([]drivers.BootVolumeTarget, error) {
	rows, err := b.store.ListVolumeTargets(ctx, db.VolumeFilter{NodeID: &n.ID}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	out := make([]drivers.BootVolumeTarget, len(rows))
	for i, t := range rows {
		out[i] = drivers.BootVolumeTarget{UUID: t.UUID, VolumeType: models.Deref(t.VolumeType), BootIndex: t.BootIndex, Properties: t.Properties.Dict}
	}
	return out, nil
}

func (b bootNodes) BootVolumeConnectors(ctx context.Context, n drivers.BootNode) ([]drivers.VolumeConnector, error) {
	rows, err := b.store.ListVolumeConnectors(ctx, db.VolumeFilter{NodeID: &n.ID}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	return driverConnectors(rows), nil
}
