package conductor

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
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

