package conductor

import (
	"context"
	"slices"
	"strings"

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

// acquireFor locks the node a port or port group belongs to.
func (m *Manager) acquireFor(ctx context.Context, nodeID *int64) (*task, error) {
	uuid, err := m.nodeUUIDByID(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	return m.acquire(ctx, uuid, exclusiveLock)
}

// portgroupUUID is the UUID of one of the task node's port groups.
func (t *task) portgroupUUID(id int64) string {
	for _, pg := range t.pgs {
		if pg.ID == id {
			return pg.UUID
		}
	}
	return ""
}

func (t *task) toDriverPort(p *models.Port) drivers.Port {
	dp := drivers.Port{UUID: p.UUID, Address: models.Deref(p.Address), PXEEnabled: p.PXEEnabled == nil || *p.PXEEnabled,
		PhysicalNetwork: models.Deref(p.PhysicalNetwork), IsSmartNIC: p.IsSmartNIC != nil && *p.IsSmartNIC,
		LocalLinkConnection: p.LocalLinkConnection, InternalInfo: p.InternalInfo, Extra: p.Extra}
	if p.PortgroupID != nil {
		dp.PortgroupUUID = t.portgroupUUID(*p.PortgroupID)
	}
	return dp
}

func toDriverPortgroup(pg *models.Portgroup) drivers.Portgroup {
	return drivers.Portgroup{UUID: pg.UUID, Name: models.Deref(pg.Name), Address: models.Deref(pg.Address),
		Mode: models.Deref(pg.Mode), StandalonePortsSupported: pg.StandalonePortsSupported == nil || *pg.StandalonePortsSupported,
		Properties: pg.Properties, InternalInfo: pg.InternalInfo, Extra: pg.Extra}
}

// noneOr renders an optional string (or state) as Python's "%s" of it.
func noneOr[S ~string](p *S) string {
	if p == nil {
		return "None"
	}
	return string(*p)
}

// validatePortPhysnet is conductor.utils.validate_port_physnet: a port
// joining (or changing its physical network within) a port group must
// share the physical network of the group's other ports. changed lists
// the port's changed columns (every column when the port is created).
func (t *task) validatePortPhysnet(p *models.Port, changed func(string) bool) error {
	if p.PortgroupID == nil || *p.PortgroupID == 0 {
		return nil
	}
	if !changed("portgroup_id") && !changed("physical_network") {
		return nil
	}
	// The physical networks of the group's other ports on this node; nil
	// stands for ports without one.
	var physnets []*string
	for i := range t.ports {
		q := &t.ports[i]
		if q.PortgroupID == nil || *q.PortgroupID != *p.PortgroupID || (p.ID != 0 && q.ID == p.ID) {
			continue
		}
		if !slices.ContainsFunc(physnets, func(x *string) bool { return eqPhysnet(x, q.PhysicalNetwork) }) {
			physnets = append(physnets, q.PhysicalNetwork)
		}
	}
	pgUUID := t.portgroupUUID(*p.PortgroupID)
	switch {
	case len(physnets) == 0:
		return nil
	case len(physnets) > 1:
		names := make([]string, len(physnets))
		for i, x := range physnets {
			names[i] = noneOr(x)
		}
		return ironic.Errorf(ironic.PortgroupPhysnetInconsistent,
			"Port group %s has member ports with inconsistent physical networks (%s). All ports in a port group must have the same physical network.",
			pgUUID, strings.Join(names, ", "))
	}
	if !eqPhysnet(p.PhysicalNetwork, physnets[0]) {
		return ironic.Errorf(ironic.Conflict,
			"Port with physical network %s cannot become a member of port group %s which has ports in physical network %s.",
			noneOr(p.PhysicalNetwork), pgUUID, noneOr(physnets[0]))
	}
	return nil
}

func eqPhysnet(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// CreatePort creates a port under its node's lock (create_port): only
// the physical network consistency of its port group is checked.
func (m *Manager) CreatePort(ctx context.Context, _ string, p *models.Port) (*models.Port, error) {
	t, err := m.acquireFor(ctx, p.NodeID)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if err := t.validatePortPhysnet(p, func(string) bool { return true }); err != nil {
		return nil, err
	}
	return m.store.CreatePort(ctx, p)
}

// connectivityStates are the provision states in which a port's
// connectivity and a port group's node may change without maintenance.
func connectivityStates() []states.Provision {
	return []states.Provision{states.Enroll, states.Inspecting, states.InspectWait, states.Manageable}
}

// UpdatePort saves a port's changed columns (update_port): the node's
// state must allow the change, the port group's physical network must
// agree, and the network interface has its say.
func (m *Manager) UpdatePort(ctx context.Context, _ string, p *models.Port, changes []string) (*models.Port, error) {
	t, err := m.acquireFor(ctx, p.NodeID)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	changed := func(c string) bool { return slices.Contains(changes, c) }
	node := t.node
	state := models.Deref(node.ProvisionState)
	if (state == states.Active || node.InstanceUUID != nil) && changed("address") && !node.Maintenance {
		return nil, ironic.Errorf(ironic.InvalidState,
			"Cannot update hardware address for port %s as node %s is active or has instance UUID assigned",
			p.UUID, node.UUID)
	}
	connectivity := []string{"portgroup_id", "pxe_enabled", "local_link_connection", "physical_network"}
	if slices.ContainsFunc(connectivity, changed) && !slices.Contains(connectivityStates(), state) && !node.Maintenance {
		return nil, ironic.Errorf(ironic.InvalidState,
			"Port %s can not have any connectivity attributes (%s) updated unless node %s is in a %s state or in maintenance mode. The current state is %s.",
			p.UUID, strings.Join(connectivity, ", "), node.UUID, states.Join(connectivityStates(), ", "),
			noneOr(node.ProvisionState))
	}
	if err := t.validatePortPhysnet(p, changed); err != nil {
		return nil, err
	}
	if nw := t.driver.Network; nw != nil {
		if err := nw.Validate(ctx, t); err != nil {
			return nil, err
		}
		if err := nw.PortChanged(ctx, t, t.toDriverPort(p)); err != nil {
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
func (m *Manager) DestroyPort(ctx context.Context, _ string, port *models.Port) error {
	p, err := m.store.GetPortByUUID(ctx, port.UUID)
	if err != nil {
		return err
	}
	t, err := m.acquireFor(ctx, p.NodeID)
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

// UpdatePortgroup saves a port group's changed columns (update_portgroup).
// Moving a port group to another node needs a state that allows it (or
// maintenance) and an empty group. Ironic 21.4 means to refuse a group
// with ports but its query compares port group ids with the UUID and never
// matches; we make the check it intends.
func (m *Manager) UpdatePortgroup(ctx context.Context, _ string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	t, err := m.acquireFor(ctx, pg.NodeID)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	node := t.node
	if slices.Contains(changes, "node_id") {
		if !slices.Contains(connectivityStates(), models.Deref(node.ProvisionState)) && !node.Maintenance {
			return nil, ironic.Errorf(ironic.InvalidState,
				"Portgroup %s can not be associated to node %s unless the node is in a %s state or in maintenance mode.",
				pg.UUID, node.UUID, states.Join(connectivityStates(), ", "))
		}
		id := pg.ID
		members, err := m.store.ListPorts(ctx, db.PortFilter{PortgroupID: &id}, db.ListOpts{Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(members) > 0 {
			return nil, ironic.Errorf(ironic.PortgroupNotEmpty,
				"Portgroup %s can not be associated with node %s because there are ports associated with this portgroup.",
				pg.UUID, node.UUID)
		}
	}
	if nw := t.driver.Network; nw != nil {
		if err := nw.Validate(ctx, t); err != nil {
			return nil, err
		}
		if err := nw.PortgroupChanged(ctx, t, toDriverPortgroup(pg)); err != nil {
			return nil, err
		}
	}
	vals, err := m.store.PortgroupValues(pg, changes)
	if err != nil {
		return nil, err
	}
	return m.store.UpdatePortgroup(ctx, db.ByUUID(pg.UUID), vals)
}

// DestroyPortgroup deletes a port group that has no ports
// (destroy_portgroup; the database refuses a non-empty group).
func (m *Manager) DestroyPortgroup(ctx context.Context, _ string, group *models.Portgroup) error {
	pg, err := m.store.GetPortgroupByUUID(ctx, group.UUID)
	if err != nil {
		return err
	}
	t, err := m.acquireFor(ctx, pg.NodeID)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	return m.store.DestroyPortgroup(ctx, db.ByUUID(pg.UUID))
}
