package conductor

import (
	"context"
	"fmt"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/states"
)

// drivers.Task: the node as drivers see it, and the conductor code they
// call (its capabilities NodeLock, StepFlow, RescueFlow, NodeRenderer).
var (
	_ drivers.Task           = (*task)(nil)
	_ drivers.NodeLock       = (*task)(nil)
	_ drivers.StepFlow       = (*task)(nil)
	_ drivers.RescueFlow     = (*task)(nil)
	_ drivers.InspectionFlow = (*task)(nil)
	_ drivers.NodeRenderer   = (*task)(nil)
)

func (t *task) NodeUUID() string        { return t.node.UUID }
func (t *task) DriverName() string      { return t.node.Driver }
func (t *task) Driver() *drivers.Driver { return t.driver }
func (t *task) InterfaceName(k drivers.Kind) string {
	if v, ok := t.node.InstanceInfo.Get(string(k) + "_interface").(string); ok && v != "" {
		return v
	}
	if p := *nodeIface(t.node, k); p != nil {
		return *p
	}
	return ""
}

func ensure(d *models.JSONDict) *pyjson.Dict {
	if d.IsNil() {
		*d = models.NewJSONDict()
	}
	return d.Dict
}

func (t *task) DriverInfo() *pyjson.Dict         { return ensure(&t.node.DriverInfo) }
func (t *task) DriverInternalInfo() *pyjson.Dict { return ensure(&t.node.DriverInternalInfo) }
func (t *task) InstanceInfo() *pyjson.Dict       { return ensure(&t.node.InstanceInfo) }
func (t *task) Properties() *pyjson.Dict         { return ensure(&t.node.Properties) }
func (t *task) TargetRAIDConfig() *pyjson.Dict   { return ensure(&t.node.TargetRAIDConfig) }
func (t *task) RAIDConfig() *pyjson.Dict         { return ensure(&t.node.RAIDConfig) }
func (t *task) NetworkData() *pyjson.Dict        { return ensure(&t.node.NetworkData) }
func (t *task) AutomatedClean() *bool            { return t.node.AutomatedClean }
func (t *task) PowerState() states.Power         { return models.Deref(t.node.PowerState) }
func (t *task) LastError() *string               { return t.node.LastError }
func (t *task) SetPowerState(s states.Power) {
	if s == "" {
		t.node.PowerState = nil
		return
	}
	t.node.PowerState = &s
}
func (t *task) ProvisionState() states.Provision { return models.Deref(t.node.ProvisionState) }
func (t *task) Shared() bool                     { return t.mode == sharedLock }

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
			LocalLinkConnection: p.LocalLinkConnection.Dict, InternalInfo: p.InternalInfo.Dict, Extra: p.Extra.Dict,
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
			Properties: pg.Properties.Dict, InternalInfo: pg.InternalInfo.Dict, Extra: pg.Extra.Dict,
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

// CreatePort creates a port of the task's node with a MAC address.
func (t *task) CreatePort(ctx context.Context, address string) error {
	p, err := t.m.store.CreatePort(ctx, &models.Port{Address: &address, NodeID: models.Ptr(t.node.ID)})
	if err != nil {
		return err
	}
	t.ports = append(t.ports, *p)
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

func jsonDict(d *pyjson.Dict) models.JSONDict {
	if d == nil {
		return models.NewJSONDict()
	}
	return models.DictFrom(d)
}

func (t *task) BIOSSettings() drivers.BIOSSettingsStore { return biosStore{t} }

// The conductor code drivers call (Ironic's drivers calling
// task.upgrade_lock, steps.set_node_cleaning_steps, _continue_steps, the
// error handlers, node.touch_provisioning and as_dict). UpgradeLock is in
// task.go.

// TouchProvisioning is node.touch_provisioning(): provision_updated_at
// becomes now, so a heartbeating agent's long step does not time out.
func (t *task) TouchProvisioning(ctx context.Context) error {
	return t.m.store.TouchNodeProvisioning(ctx, db.ByID(t.node.ID))
}

// NodeName is the node's name ("" for None).
func (t *task) NodeName() string { return models.Deref(t.node.Name) }

// Maintenance is the node's maintenance flag.
func (t *task) Maintenance() bool { return t.node.Maintenance }

// TargetProvisionState is the node's target_provision_state ("" for None).
func (t *task) TargetProvisionState() states.Provision {
	return models.Deref(t.node.TargetProvisionState)
}

// CurrentStep is node.clean_step or node.deploy_step.
func (t *task) CurrentStep(phase drivers.StepPhase) *pyjson.Dict {
	if phase == drivers.CleanStep {
		return t.node.CleanStep.Dict
	}
	return t.node.DeployStep.Dict
}

// SetCleaningSteps is steps.set_node_cleaning_steps, once the agent's
// clean steps are known.
func (t *task) SetCleaningSteps(ctx context.Context) error {
	disable, _ := t.DriverInternalInfo().Get("cleaning_disable_ramdisk").(bool)
	_, err := setNodeCleaningSteps(ctx, t, disable)
	return err
}

// ValidateDeploySteps is deployments.validate_deploy_steps: the final
// deploy step list (the agent's steps now cached) replaces the node's,
// the current step and its index kept, and is marked validated.
func (t *task) ValidateDeploySteps(ctx context.Context) error {
	if err := t.setFinalDeploySteps(ctx); err != nil {
		return err
	}
	return t.Save(ctx)
}

// ContinueSteps is agent_base._continue_steps: the node resumes
// (clean wait -> cleaning, deploy wait -> deploying) and the next step
// runs in this task, as continue_node_clean / continue_node_deploy.
func (t *task) ContinueSteps(ctx context.Context, phase drivers.StepPhase) error {
	m := t.m
	if phase == drivers.CleanStep {
		if t.ProvisionState() == states.CleanWait {
			target := cleaningTarget(t.TargetProvisionState() == states.Manageable)
			if err := t.processEvent(ctx, event{Name: states.EventResume, Target: target}); err != nil {
				return err
			}
		}
		next := nextStepIndex(t, "clean")
		// continue_node_clean: a step flagged abort_after that is not
		// the last one aborts the cleaning once it has finished.
		if abort, _ := t.node.CleanStep.Get("abort_after").(bool); abort && next >= 0 && next < len(asSteps(t.DriverInternalInfo().Get("clean_steps"))) {
			target := cleaningTarget(t.TargetProvisionState() == states.Manageable)
			if err := t.processEvent(ctx, event{Name: states.EventFail, Target: target}); err != nil {
				return err
			}
			m.doNodeCleanAbort(ctx, t)
			return nil
		}
		m.doNextCleanStep(ctx, t, next, nil)
		return nil
	}
	if t.ProvisionState() == states.DeployWait {
		if err := t.processEvent(ctx, event{Name: states.EventResume}); err != nil {
			return err
		}
	}
	m.continueDeploy(ctx, t)
	return nil
}

// FailSteps is cleaning_error_handler or deploying_error_handler for a
// step the agent failed (or a heartbeat that could not go on).
func (t *task) FailSteps(ctx context.Context, phase drivers.StepPhase, msg string) {
	if phase == drivers.CleanStep {
		t.m.cleaningError(ctx, t, msg, cleanErrOpts{})
		return
	}
	t.m.deployingError(ctx, t, msg, true)
}

// PortDicts is [port.as_dict() for port in ports] for the node's ports.
func (t *task) PortDicts() ([]any, error) {
	out := make([]any, 0, len(t.ports))
	for i := range t.ports {
		d, err := objects.PortAsDict(&t.ports[i], t.node.UUID)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// NodeDict is node.as_dict() (objects.NodeAsDict). The agent deploy
// interfaces send it (masked) as their commands' "node".
func (t *task) NodeDict() (pyjson.Object, error) { return objects.NodeAsDict(t.node) }

// ProcessEvent is task.process_event for an agent interface finishing
// an operation (rescue's "resume" and "done").
func (t *task) ProcessEvent(ctx context.Context, name states.Event) error {
	return t.processEvent(ctx, event{Name: name})
}

// FailRescue is utils.rescuing_error_handler for an agent's failed
// rescue.
func (t *task) FailRescue(ctx context.Context, msg string) {
	t.m.rescuingError(ctx, t, msg, true)
}

// nodeInterfaces is the driver view of a node's interface fields.
func nodeInterfaces(n *models.Node) *drivers.NodeInterfaces {
	fields := map[drivers.Kind]string{}
	for _, k := range drivers.Kinds() {
		if p := *nodeIface(n, k); p != nil {
			fields[k] = *p
		}
	}
	return &drivers.NodeInterfaces{UUID: n.UUID, Driver: n.Driver, Fields: fields, InstanceInfo: n.InstanceInfo.Dict}
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

// biosRow is a setting as a bios_settings row.
func biosRow(s drivers.BIOSSetting) models.BIOSSetting {
	v := s.Value
	row := models.BIOSSetting{Name: s.Name, Value: &v, AttributeType: s.AttributeType, LowerBound: s.LowerBound,
		MaxLength: s.MaxLength, MinLength: s.MinLength, ReadOnly: s.ReadOnly, ResetRequired: s.ResetRequired,
		Unique: s.Unique, UpperBound: s.UpperBound}
	if s.AllowableValues != nil {
		items := make([]any, len(s.AllowableValues))
		for i, a := range s.AllowableValues {
			items[i] = a
		}
		row.AllowableValues = models.JSONList(items)
	}
	return row
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
		out[i] = drivers.BIOSSetting{Name: r.Name, Value: models.Deref(r.Value), AttributeType: r.AttributeType,
			LowerBound: r.LowerBound, MaxLength: r.MaxLength, MinLength: r.MinLength, ReadOnly: r.ReadOnly,
			ResetRequired: r.ResetRequired, Unique: r.Unique, UpperBound: r.UpperBound}
		for _, v := range r.AllowableValues {
			out[i].AllowableValues = append(out[i].AllowableValues, fmt.Sprint(v))
		}
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
		row := biosRow(s)
		old, ok := have[s.Name]
		switch {
		case !ok:
			create = append(create, row)
		case old != s.Value:
			// Ironic's sync_node_setting: only a changed value rewrites
			// the setting (and its registry fields).
			update = append(update, row)
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
