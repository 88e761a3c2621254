package conductor

import (
	"context"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
)

// task is Ironic's TaskManager: a node held under a shared or exclusive
// lock, with its driver built. The exclusive lock is the nodes.reservation
// column, claimed with a conditional UPDATE; a shared lock writes nothing.
type task struct {
	m      *Manager
	node   *models.Node
	orig   models.Node
	shared bool
	driver *drivers.Driver
	ports  []models.Port
	pgs    []models.Portgroup
}

// acquire locks the node (retrying a busy lock as Ironic's
// node_locked_retry_* options say) and loads its driver and ports.
func (m *Manager) acquire(ctx context.Context, uuid string, shared bool) (*task, error) {
	var n *models.Node
	var err error
	if shared {
		n, err = m.store.GetNodeByUUID(ctx, uuid)
	} else {
		n, err = m.reserve(ctx, db.ByUUID(uuid))
	}
	if err != nil {
		return nil, err
	}
	t := &task{m: m, node: n, orig: snapshot(n), shared: shared}
	if err := t.load(ctx); err != nil {
		t.release(ctx)
		return nil, err
	}
	return t, nil
}

func (t *task) load(ctx context.Context) error {
	drv, err := t.m.reg.BuildDriver(nodeInterfaces(t.node))
	if err != nil {
		return err
	}
	t.driver = drv
	id := t.node.ID
	if t.ports, err = t.m.store.ListPorts(ctx, db.PortFilter{NodeID: &id}, db.ListOpts{}); err != nil {
		return err
	}
	t.pgs, err = t.m.store.ListPortgroups(ctx, db.PortgroupFilter{NodeID: &id}, db.ListOpts{})
	return err
}

// release drops the exclusive lock.
func (t *task) release(ctx context.Context) {
	if t.shared {
		return
	}
	rctx := context.WithoutCancel(ctx)
	if err := t.m.store.ReleaseNode(rctx, t.m.cfg.Host, db.ByID(t.node.ID)); err != nil {
		t.m.log.WarnContext(ctx, "releasing node lock", "node", t.node.UUID, "error", err)
	}
	t.m.lockWaits.released(t.node.UUID)
}

// nodeInterfaces is the driver view of a node's interface fields.
func nodeInterfaces(n *models.Node) *drivers.NodeInterfaces {
	fields := map[drivers.Kind]string{}
	for _, k := range drivers.Kinds() {
		if p := *nodeIface(n, k); p != nil {
			fields[k] = *p
		}
	}
	return &drivers.NodeInterfaces{UUID: n.UUID, Driver: n.Driver, Fields: fields, InstanceInfo: n.InstanceInfo}
}

// applyInterfaces writes filled-in interface fields back to the node and
// returns the names of the fields that changed.
func applyInterfaces(n *models.Node, ni *drivers.NodeInterfaces) []string {
	var changed []string
	for _, k := range drivers.Kinds() {
		name := ni.Fields[k]
		p := nodeIface(n, k)
		if name == "" {
			continue
		}
		if *p == nil || **p != name {
			v := name
			*p = &v
			changed = append(changed, string(k)+"_interface")
		}
	}
	return changed
}

func nodeIface(n *models.Node, k drivers.Kind) **string {
	switch k {
	case drivers.BIOS:
		return &n.BIOSInterface
	case drivers.Boot:
		return &n.BootInterface
	case drivers.Console:
		return &n.ConsoleInterface
	case drivers.Deploy:
		return &n.DeployInterface
	case drivers.Inspect:
		return &n.InspectInterface
	case drivers.Management:
		return &n.ManagementInterface
	case drivers.Network:
		return &n.NetworkInterface
	case drivers.Power:
		return &n.PowerInterface
	case drivers.RAID:
		return &n.RAIDInterface
	case drivers.Rescue:
		return &n.RescueInterface
	case drivers.Storage:
		return &n.StorageInterface
	case drivers.Vendor:
		return &n.VendorInterface
	}
	panic("unknown interface kind " + string(k))
}

// drivers.Task: the node as drivers see it, and the conductor code they
// call (the capabilities are implemented in agent.go).
var (
	_ drivers.Task         = (*task)(nil)
	_ drivers.NodeLock     = (*task)(nil)
	_ drivers.StepFlow     = (*task)(nil)
	_ drivers.RescueFlow   = (*task)(nil)
	_ drivers.NodeRenderer = (*task)(nil)
)

func (t *task) NodeUUID() string        { return t.node.UUID }
func (t *task) DriverName() string      { return t.node.Driver }
func (t *task) Driver() *drivers.Driver { return t.driver }
func (t *task) InterfaceName(k drivers.Kind) string {
	if v, ok := t.node.InstanceInfo[string(k)+"_interface"].(string); ok && v != "" {
		return v
	}
	if p := *nodeIface(t.node, k); p != nil {
		return *p
	}
	return ""
}

func ensure(d *models.JSONDict) map[string]any {
	if *d == nil {
		*d = models.JSONDict{}
	}
	return *d
}

func (t *task) DriverInfo() map[string]any         { return ensure(&t.node.DriverInfo) }
func (t *task) DriverInternalInfo() map[string]any { return ensure(&t.node.DriverInternalInfo) }
func (t *task) InstanceInfo() map[string]any       { return ensure(&t.node.InstanceInfo) }
func (t *task) Properties() map[string]any         { return ensure(&t.node.Properties) }
func (t *task) TargetRAIDConfig() map[string]any   { return ensure(&t.node.TargetRAIDConfig) }
func (t *task) NetworkData() map[string]any        { return ensure(&t.node.NetworkData) }
func (t *task) AutomatedClean() *bool              { return t.node.AutomatedClean }
func (t *task) PowerState() string                 { return models.Deref(t.node.PowerState) }
func (t *task) SetPowerState(s string) {
	if s == "" {
		t.node.PowerState = nil
		return
	}
	t.node.PowerState = &s
}
func (t *task) ProvisionState() string { return models.Deref(t.node.ProvisionState) }
func (t *task) Shared() bool           { return t.shared }

func (t *task) Ports() []drivers.Port {
	pgUUID := map[int64]string{}
	for _, pg := range t.pgs {
		pgUUID[pg.ID] = pg.UUID
	}
	out := make([]drivers.Port, 0, len(t.ports))
	for _, p := range t.ports {
		dp := drivers.Port{
			UUID: p.UUID, Address: models.Deref(p.Address), PXEEnabled: p.PXEEnabled == nil || *p.PXEEnabled,
			PhysicalNetwork: models.Deref(p.PhysicalNetwork), IsSmartNIC: p.IsSmartNIC != nil && *p.IsSmartNIC,
			LocalLinkConnection: p.LocalLinkConnection, InternalInfo: p.InternalInfo, Extra: p.Extra,
		}
		if p.PortgroupID != nil {
			dp.PortgroupUUID = pgUUID[*p.PortgroupID]
		}
		out = append(out, dp)
	}
	return out
}

func (t *task) Portgroups() []drivers.Portgroup {
	out := make([]drivers.Portgroup, 0, len(t.pgs))
	for _, pg := range t.pgs {
		out = append(out, drivers.Portgroup{
			UUID: pg.UUID, Name: models.Deref(pg.Name), Address: models.Deref(pg.Address),
			Mode: models.Deref(pg.Mode), StandalonePortsSupported: pg.StandalonePortsSupported == nil || *pg.StandalonePortsSupported,
			Properties: pg.Properties, InternalInfo: pg.InternalInfo, Extra: pg.Extra,
		})
	}
	return out
}

func (t *task) InstanceUUID() string { return models.Deref(t.node.InstanceUUID) }

// SavePort writes the internal_info and extra a network interface changed
// (port.save()).
func (t *task) SavePort(ctx context.Context, p drivers.Port) error {
	i := slices.IndexFunc(t.ports, func(q models.Port) bool { return q.UUID == p.UUID })
	if i < 0 {
		return ironic.Errorf(ironic.PortNotFound, "Port %s could not be found.", p.UUID)
	}
	row := t.ports[i]
	row.InternalInfo, row.Extra = jsonDict(p.InternalInfo), jsonDict(p.Extra)
	vals, err := t.m.store.PortValues(&row, []string{"internal_info", "extra"})
	if err != nil {
		return err
	}
	saved, err := t.m.store.UpdatePort(ctx, db.ByID(row.ID), vals)
	if err != nil {
		return err
	}
	t.ports[i] = *saved
	return nil
}

// SavePortgroup is SavePort for port groups.
func (t *task) SavePortgroup(ctx context.Context, pg drivers.Portgroup) error {
	i := slices.IndexFunc(t.pgs, func(q models.Portgroup) bool { return q.UUID == pg.UUID })
	if i < 0 {
		return ironic.Errorf(ironic.PortgroupNotFound, "Portgroup %s could not be found.", pg.UUID)
	}
	row := t.pgs[i]
	row.InternalInfo, row.Extra = jsonDict(pg.InternalInfo), jsonDict(pg.Extra)
	vals, err := t.m.store.PortgroupValues(&row, []string{"internal_info", "extra"})
	if err != nil {
		return err
	}
	saved, err := t.m.store.UpdatePortgroup(ctx, db.ByID(row.ID), vals)
	if err != nil {
		return err
	}
	t.pgs[i] = *saved
	return nil
}

func jsonDict(m map[string]any) models.JSONDict {
	if m == nil {
		return models.JSONDict{}
	}
	return models.JSONDict(m)
}

func (t *task) BIOSSettings() drivers.BIOSSettingsStore { return biosStore{t} }

// Save writes the node fields changed through the task.
func (t *task) Save(ctx context.Context) error {
	cols := changedColumns(&t.orig, t.node)
	if len(cols) == 0 {
		return nil
	}
	vals, err := t.m.store.NodeValues(t.node, cols)
	if err != nil {
		return err
	}
	n, err := t.m.store.UpdateNode(ctx, db.ByID(t.node.ID), vals)
	if err != nil {
		return err
	}
	// The node is updated in place: callers keep pointers to it.
	*t.node = *n
	t.orig = snapshot(t.node)
	return nil
}

// biosStore keeps a node's bios_settings rows in sync.
type biosStore struct{ t *task }

func (b biosStore) List(ctx context.Context) ([]drivers.BIOSSetting, error) {
	rows, err := b.t.m.store.ListBIOSSettings(ctx, b.t.node.ID)
	if err != nil {
		return nil, err
	}
	out := make([]drivers.BIOSSetting, len(rows))
	for i, r := range rows {
		out[i] = drivers.BIOSSetting{Name: r.Name, Value: models.Deref(r.Value)}
	}
	return out, nil
}

func (b biosStore) Replace(ctx context.Context, settings []drivers.BIOSSetting) error {
	cur, err := b.t.m.store.ListBIOSSettings(ctx, b.t.node.ID)
	if err != nil {
		return err
	}
	have := map[string]string{}
	for _, c := range cur {
		have[c.Name] = models.Deref(c.Value)
	}
	var create, update []models.BIOSSetting
	want := map[string]bool{}
	for _, s := range settings {
		want[s.Name] = true
		v := s.Value
		old, ok := have[s.Name]
		switch {
		case !ok:
			create = append(create, models.BIOSSetting{Name: s.Name, Value: &v})
		case old != v:
			update = append(update, models.BIOSSetting{Name: s.Name, Value: &v})
		}
	}
	var del []string
	for name := range have {
		if !want[name] {
			del = append(del, name)
		}
	}
	if len(create) > 0 {
		if _, err := b.t.m.store.CreateBIOSSettings(ctx, b.t.node.ID, create); err != nil {
			return err
		}
	}
	if len(update) > 0 {
		if _, err := b.t.m.store.UpdateBIOSSettings(ctx, b.t.node.ID, update); err != nil {
			return err
		}
	}
	if len(del) > 0 {
		return b.t.m.store.DeleteBIOSSettings(ctx, b.t.node.ID, del)
	}
	return nil
}
