package conductor

import (
	"context"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// CreateNode checks the node's interfaces, fills in the defaults and
// stores it (create_node).
func (m *Manager) CreateNode(ctx context.Context, _ string, n *models.Node) (*models.Node, error) {
	ni := nodeInterfaces(n)
	if _, err := m.reg.CheckAndUpdateNodeInterfaces(ni); err != nil {
		return nil, err
	}
	applyInterfaces(n, ni)
	return m.store.CreateNode(ctx, n)
}

// allowedUpdateStates are where interfaces and resource_class may change.
func allowedUpdateStates() []states.Provision {
	return []states.Provision{states.Enroll, states.Inspecting, states.InspectWait, states.Manageable, states.Available}
}

func allowedUpdateState(s states.Provision) bool { return slices.Contains(allowedUpdateStates(), s) }

// UpdateNode saves the changed fields of a node (update_node).
func (m *Manager) UpdateNode(ctx context.Context, _ string, upd rpc.NodeUpdate, reset bool) (*models.Node, error) {
	n := &upd.Node
	delta := map[string]bool{}
	for _, c := range upd.Changes {
		delta[c] = true
	}
	if delta["maintenance"] && !n.Maintenance {
		n.MaintenanceReason, n.Fault = nil, nil
		delta["maintenance_reason"], delta["fault"] = true, true
	}
	ps := models.Deref(n.ProvisionState)
	if delta["protected"] {
		if !n.Protected {
			n.ProtectedReason = nil
			delta["protected_reason"] = true
		} else if ps != states.Active && ps != states.Rescue {
			return nil, ironic.Errorf(ironic.InvalidState,
				"Node %s can only be made protected in provision states 'active' or 'rescue', the current state is '%s'", n.UUID, ps)
		}
	}
	if delta["protected_reason"] && models.Deref(n.ProtectedReason) != "" && !n.Protected {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The protected_reason field can only be set when protected is True")
	}
	if delta["retired"] {
		if n.Retired == nil || !*n.Retired {
			n.RetiredReason = nil
			delta["retired_reason"] = true
		} else if ps == states.Available {
			return nil, ironic.Errorf(ironic.InvalidState,
				"Node %s can not have 'retired' set in provision state 'available', the current state is '%s'", n.UUID, ps)
		}
	}
	if delta["retired_reason"] && models.Deref(n.RetiredReason) != "" && (n.Retired == nil || !*n.Retired) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The retired_reason field can only be set when retired is True")
	}
	updatingDriver := delta["driver"]
	check := updatingDriver
	for _, k := range drivers.Kinds() {
		field := string(k) + "_interface"
		if !delta[field] {
			if updatingDriver && reset {
				*nodeIface(n, k) = nil
				delta[field] = true
			}
			continue
		}
		if !allowedUpdateState(ps) && !n.Maintenance {
			return nil, ironic.Errorf(ironic.InvalidState,
				"Node %s can not have %s updated unless it is in one of allowed (%s) states or in maintenance mode.",
				n.UUID, field, states.Join(allowedUpdateStates(), ", "))
		}
		check = true
	}
	if check {
		ni := nodeInterfaces(n)
		if _, err := m.reg.CheckAndUpdateNodeInterfaces(ni); err != nil {
			return nil, err
		}
		for _, f := range applyInterfaces(n, ni) {
			delta[f] = true
		}
	}
	t, err := m.acquire(ctx, n.UUID, exclusiveLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	cur := t.node
	if delta["instance_uuid"] && n.InstanceUUID != nil && cur.InstanceUUID != nil {
		return nil, ironic.Errorf(ironic.NodeAssociated,
			"Node %s is associated with instance %s.", n.UUID, *cur.InstanceUUID)
	}
	if delta["resource_class"] && cur.ResourceClass != nil && !allowedUpdateState(models.Deref(cur.ProvisionState)) {
		return nil, ironic.Errorf(ironic.InvalidState,
			"Node %s can not have resource_class updated unless it is in one of allowed (%s) states.",
			n.UUID, states.Join(allowedUpdateStates(), ", "))
	}
	cols := make([]string, 0, len(delta))
	for c := range delta {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	vals, err := m.store.NodeValues(n, cols)
	if err != nil {
		return nil, err
	}
	return m.store.UpdateNode(ctx, db.ByID(cur.ID), vals)
}

// DestroyNode deletes a node (destroy_node).
func (m *Manager) DestroyNode(ctx context.Context, _ string, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	if n.Protected {
		t.release(ctx)
		return ironic.Errorf(ironic.NodeProtected, "Node %s is protected and cannot be undeployed, rebuilt or deleted", n.UUID)
	}
	if n.InstanceUUID != nil && !n.Maintenance {
		t.release(ctx)
		return ironic.Errorf(ironic.NodeAssociated, "Node %s is associated with instance %s.", n.UUID, *n.InstanceUUID)
	}
	ps := models.Deref(n.ProvisionState)
	if !states.DeleteAllowed(ps, m.cfg.AllowDeletingAvailableNodes) && !n.Maintenance {
		t.release(ctx)
		valid := "manageable, enroll, adopt failed"
		if m.cfg.AllowDeletingAvailableNodes {
			valid = "manageable, enroll, adopt failed, available"
		}
		return ironic.Errorf(ironic.InvalidState,
			"Can not delete node \"%s\" while it is in provision state \"%s\". Valid provision states to perform deletion are: \"%s\", or set the node into maintenance mode",
			n.UUID, ps, valid)
	}
	// The node row goes with its lock.
	return m.store.DestroyNode(ctx, db.ByID(n.ID))
}

// ValidateDriverInterfaces runs every interface's validate.
func (m *Manager) ValidateDriverInterfaces(ctx context.Context, _ string, uuid string) (map[string]rpc.ValidationResult, error) {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	// As in Ironic, the image type is worked out for the validation only
	// (a shared lock: nothing is saved).
	if _, err := m.updateImageType(ctx, t); err != nil {
		return nil, err
	}
	res := m.reg.ValidateNode(ctx, t, drivers.WithHost(m.cfg.Host), drivers.WithLogger(m.log),
		drivers.WithDeployChecks(func(ctx context.Context, _ drivers.Task) error {
			if err := m.validateInstanceInfoTraits(t); err != nil {
				return err
			}
			return validateDeployStepsAndTemplates(ctx, t, nil, true)
		}))
	out := make(map[string]rpc.ValidationResult, len(res))
	for _, r := range res {
		out[string(r.Kind)] = rpc.ValidationResult{Result: r.Result, Reason: r.Reason}
	}
	return out, nil
}

// GetDriverProperties lists a hardware type's properties.
func (m *Manager) GetDriverProperties(_ context.Context, _ string, driver string) (map[string]string, error) {
	props, err := m.reg.DriverProperties(driver)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(props))
	for _, p := range props {
		out[p.Name] = p.Description
	}
	return out, nil
}

func vendorMethods(ms drivers.VendorMethods) map[string]rpc.VendorMethod {
	out := make(map[string]rpc.VendorMethod, len(ms))
	for _, m := range ms {
		out[m.Name] = rpc.VendorMethod{HTTPMethods: m.HTTPMethods, Async: m.Async, Description: m.Description,
			Attach: m.Attach, RequireExclusiveLock: m.RequireExclusiveLock}
	}
	return out
}

// GetDriverVendorPassthruMethods lists driver-level vendor methods.
func (m *Manager) GetDriverVendorPassthruMethods(_ context.Context, _ string, driver string) (map[string]rpc.VendorMethod, error) {
	ms, err := m.reg.DriverVendorMethods(driver)
	if err != nil {
		return nil, err
	}
	return vendorMethods(ms), nil
}

// GetNodeVendorPassthruMethods lists a node's vendor methods.
func (m *Manager) GetNodeVendorPassthruMethods(ctx context.Context, _ string, uuid string) (map[string]rpc.VendorMethod, error) {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	v, ok := t.driver.Interface(drivers.Vendor).(drivers.VendorInterface)
	if !ok {
		return map[string]rpc.VendorMethod{}, nil
	}
	return vendorMethods(v.Routes()), nil
}

// GetRAIDLogicalDiskProperties describes RAID logical disk properties.
func (m *Manager) GetRAIDLogicalDiskProperties(_ context.Context, _ string, driver string) (map[string]string, error) {
	props, err := m.reg.RAIDLogicalDiskProperties(driver)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(props))
	for _, p := range props {
		out[p.Name] = p.Description
	}
	return out, nil
}

// AddNodeTraits adds (or with replace, sets) a node's traits.
func (m *Manager) AddNodeTraits(ctx context.Context, _ string, uuid string, traits []string, replace bool) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if replace {
		_, err = m.store.SetNodeTraits(ctx, t.node.ID, traits)
		return err
	}
	for _, tr := range traits {
		if _, err := m.store.AddNodeTrait(ctx, t.node.ID, tr); err != nil {
			return err
		}
	}
	return nil
}

// RemoveNodeTraits removes the given traits, or all of them.
func (m *Manager) RemoveNodeTraits(ctx context.Context, _ string, uuid string, traits []string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if traits == nil {
		return m.store.UnsetNodeTraits(ctx, t.node.ID)
	}
	for _, tr := range traits {
		if err := m.store.DeleteNodeTrait(ctx, t.node.ID, tr); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) network(t *task) (drivers.NetworkInterface, error) {
	nw, ok := t.driver.Interface(drivers.Network).(drivers.NetworkInterface)
	if !ok {
		return nil, drivers.Unsupported(t, "network")
	}
	return nw, nil
}

// VIFList lists the node's VIFs, once the network interface validated
// the node (vif_list).
func (m *Manager) VIFList(ctx context.Context, _ string, uuid string) ([]map[string]any, error) {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	nw, err := m.network(t)
	if err != nil {
		return nil, err
	}
	if err := nw.Validate(ctx, t); err != nil {
		return nil, err
	}
	vifs, err := nw.VIFList(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(vifs))
	for i, v := range vifs {
		out[i] = v
	}
	return out, nil
}

// VIFAttach attaches a VIF through the network interface.
func (m *Manager) VIFAttach(ctx context.Context, _ string, uuid string, vif map[string]any) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	nw, err := m.network(t)
	if err != nil {
		return err
	}
	if err := nw.Validate(ctx, t); err != nil {
		return err
	}
	return nw.VIFAttach(ctx, t, drivers.VIF(vif))
}

// VIFDetach detaches a VIF.
func (m *Manager) VIFDetach(ctx context.Context, _ string, uuid, vifID string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	nw, err := m.network(t)
	if err != nil {
		return err
	}
	if err := nw.Validate(ctx, t); err != nil {
		return err
	}
	return nw.VIFDetach(ctx, t, vifID)
}
