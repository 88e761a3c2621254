package conductor

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// powerOffOnly refuses volume changes unless the node is powered off.
func powerOffOnly(t *task, action string) error {
	if models.Deref(t.node.PowerState) != states.PowerOff {
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".",
			action, t.node.UUID, noneOr(t.node.PowerState))
	}
	return nil
}

// UpdateVolumeConnector saves a connector of a powered-off node.
func (m *Manager) UpdateVolumeConnector(ctx context.Context, _ string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	uuid, err := m.nodeUUIDByID(ctx, c.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if err := powerOffOnly(t, "volume connector update"); err != nil {
		return nil, err
	}
	vals, err := m.store.VolumeConnectorValues(c, changes)
	if err != nil {
		return nil, err
	}
	return m.store.UpdateVolumeConnector(ctx, db.ByUUID(c.UUID), vals)
}

// DestroyVolumeConnector deletes a connector of a powered-off node.
func (m *Manager) DestroyVolumeConnector(ctx context.Context, _ string, conn *models.VolumeConnector) error {
	c, err := m.store.GetVolumeConnector(ctx, db.ByUUID(conn.UUID))
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, c.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if err := powerOffOnly(t, "volume connector deletion"); err != nil {
		return err
	}
	return m.store.DestroyVolumeConnector(ctx, db.ByUUID(c.UUID))
}

// UpdateVolumeTarget saves a target of a powered-off node.
func (m *Manager) UpdateVolumeTarget(ctx context.Context, _ string, vt *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	uuid, err := m.nodeUUIDByID(ctx, vt.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if err := powerOffOnly(t, "volume target update"); err != nil {
		return nil, err
	}
	vals, err := m.store.VolumeTargetValues(vt, changes)
	if err != nil {
		return nil, err
	}
	return m.store.UpdateVolumeTarget(ctx, db.ByUUID(vt.UUID), vals)
}

// DestroyVolumeTarget deletes a target of a powered-off node.
func (m *Manager) DestroyVolumeTarget(ctx context.Context, _ string, target *models.VolumeTarget) error {
	vt, err := m.store.GetVolumeTarget(ctx, db.ByUUID(target.UUID))
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, vt.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if err := powerOffOnly(t, "volume target deletion"); err != nil {
		return err
	}
	return m.store.DestroyVolumeTarget(ctx, db.ByUUID(vt.UUID))
}
