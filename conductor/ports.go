package conductor

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// nodeUUIDByID resolves the node a port or volume object belongs to.
func (m *Manager) nodeUUIDByID(ctx context.Context, id *int64) (string, error) {
	if id == nil {
		return "", ironic.Errorf(ironic.NodeNotFound, "Node None could not be found.")
	}
	n, err := m.store.GetNodeByID(ctx, *id)
	if err != nil {
		return "", err
	}
	return n.UUID, nil
}

func toDriverPort(p *models.Port) drivers.Port {
	return drivers.Port{UUID: p.UUID, Address: models.Deref(p.Address), PXEEnabled: p.PXEEnabled == nil || *p.PXEEnabled,
		PhysicalNetwork: models.Deref(p.PhysicalNetwork), IsSmartNIC: p.IsSmartNIC != nil && *p.IsSmartNIC,
		LocalLinkConnection: p.LocalLinkConnection, InternalInfo: p.InternalInfo, Extra: p.Extra}
}

// CreatePort creates a port under its node's lock, after the network
// interface has had its say (create_port).
func (m *Manager) CreatePort(ctx context.Context, _ string, p *models.Port) (*models.Port, error) {
	uuid, err := m.nodeUUIDByID(ctx, p.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if nw, ok := t.driver.Interface(drivers.Network).(drivers.NetworkInterface); ok {
		if err := nw.PortChanged(ctx, t, toDriverPort(p)); err != nil {
			return nil, err
		}
	}
	return m.store.CreatePort(ctx, p)
}

// UpdatePort saves a port's changed fields (update_port).
func (m *Manager) UpdatePort(ctx context.Context, _ string, p *models.Port, changes []string) (*models.Port, error) {
	uuid, err := m.nodeUUIDByID(ctx, p.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if nw, ok := t.driver.Interface(drivers.Network).(drivers.NetworkInterface); ok {
		if err := nw.PortChanged(ctx, t, toDriverPort(p)); err != nil {
			return nil, err
		}
	}
	vals, err := m.store.PortValues(p, changes)
	if err != nil {
		return nil, err
	}
	return m.store.UpdatePort(ctx, db.ByUUID(p.UUID), vals)
}

// DestroyPort deletes a port not bound to a VIF (destroy_port).
func (m *Manager) DestroyPort(ctx context.Context, _ string, portUUID string) error {
	p, err := m.store.GetPortByUUID(ctx, portUUID)
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, p.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if vif, use := attachedVIF(p.InternalInfo); vif != "" && !t.node.Maintenance {
		return ironic.Errorf(ironic.InvalidState, "Cannot delete the port %s as it is bound to VIF %s for %s use.", p.UUID, vif, use)
	}
	return m.store.DestroyPort(ctx, db.ByUUID(p.UUID))
}

// attachedVIF is utils.get_attached_vif.
func attachedVIF(info map[string]any) (string, string) {
	for _, c := range []struct{ key, use string }{
		{"tenant_vif_port_id", "tenant"}, {"cleaning_vif_port_id", "cleaning"},
		{"provisioning_vif_port_id", "provisioning"}, {"rescuing_vif_port_id", "rescuing"},
		{"inspection_vif_port_id", "inspecting"},
	} {
		if v, ok := info[c.key].(string); ok && v != "" {
			return v, c.use
		}
	}
	return "", ""
}

// UpdatePortgroup saves a port group's changed fields.
func (m *Manager) UpdatePortgroup(ctx context.Context, _ string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	uuid, err := m.nodeUUIDByID(ctx, pg.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	vals, err := m.store.PortgroupValues(pg, changes)
	if err != nil {
		return nil, err
	}
	return m.store.UpdatePortgroup(ctx, db.ByUUID(pg.UUID), vals)
}

// DestroyPortgroup deletes a port group.
func (m *Manager) DestroyPortgroup(ctx context.Context, _ string, pgUUID string) error {
	pg, err := m.store.GetPortgroupByUUID(ctx, pgUUID)
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, pg.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	return m.store.DestroyPortgroup(ctx, db.ByUUID(pg.UUID))
}

// powerOffOnly refuses volume changes unless the node is powered off.
func powerOffOnly(t *task, action string) error {
	if models.Deref(t.node.PowerState) != states.PowerOff {
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".",
			action, t.node.UUID, pyNone(t.node.PowerState))
	}
	return nil
}

func pyNone(p *string) string {
	if p == nil {
		return "None"
	}
	return *p
}

// UpdateVolumeConnector saves a connector of a powered-off node.
func (m *Manager) UpdateVolumeConnector(ctx context.Context, _ string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	uuid, err := m.nodeUUIDByID(ctx, c.NodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, uuid, false)
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
func (m *Manager) DestroyVolumeConnector(ctx context.Context, _ string, cUUID string) error {
	c, err := m.store.GetVolumeConnector(ctx, db.ByUUID(cUUID))
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, c.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, false)
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
	t, err := m.acquire(ctx, uuid, false)
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
func (m *Manager) DestroyVolumeTarget(ctx context.Context, _ string, tUUID string) error {
	vt, err := m.store.GetVolumeTarget(ctx, db.ByUUID(tUUID))
	if err != nil {
		return err
	}
	uuid, err := m.nodeUUIDByID(ctx, vt.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if err := powerOffOnly(t, "volume target deletion"); err != nil {
		return err
	}
	return m.store.DestroyVolumeTarget(ctx, db.ByUUID(vt.UUID))
}
