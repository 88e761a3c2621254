package fake

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// The conductor's side of a task (drivers.NodeLock, StepFlow, RescueFlow
// and NodeRenderer): a fake.Task has no state machine or step engine, so
// it records what an implementation asked for in Flow and changes nothing
// else, except that UpgradeLock makes the lock exclusive.

// UpgradeLock implements drivers.NodeLock: the lock becomes exclusive.
func (t *Task) UpgradeLock(context.Context) error {
	t.Flow = append(t.Flow, "upgrade lock")
	t.SharedLock = false
	return nil
}

// CurrentStep implements drivers.StepFlow.
func (t *Task) CurrentStep(phase drivers.StepPhase) *pyjson.Dict {
	if phase == drivers.CleanStep {
		return t.Node.CleanStep
	}
	return t.Node.DeployStep
}

// SetCleaningSteps implements drivers.StepFlow (recorded only).
func (t *Task) SetCleaningSteps(context.Context) error {
	t.Flow = append(t.Flow, "set cleaning steps")
	return nil
}

// ValidateDeploySteps implements drivers.StepFlow (recorded only).
func (t *Task) ValidateDeploySteps(context.Context) error {
	t.Flow = append(t.Flow, "validate deploy steps")
	return nil
}

// ContinueSteps implements drivers.StepFlow (recorded only).
func (t *Task) ContinueSteps(_ context.Context, phase drivers.StepPhase) error {
	t.Flow = append(t.Flow, "continue "+string(phase))
	return nil
}

// FailSteps implements drivers.StepFlow (recorded only).
func (t *Task) FailSteps(_ context.Context, phase drivers.StepPhase, msg string) {
	t.Flow = append(t.Flow, "fail "+string(phase)+": "+msg)
}

// TouchProvisioning implements drivers.StepFlow (recorded only).
func (t *Task) TouchProvisioning(context.Context) error {
	t.Flow = append(t.Flow, "touch provisioning")
	return nil
}

// ProcessEvent implements drivers.RescueFlow (recorded only).
func (t *Task) ProcessEvent(_ context.Context, event states.Event) error {
	t.Flow = append(t.Flow, "event "+string(event))
	return nil
}

// FailRescue implements drivers.RescueFlow (recorded only).
func (t *Task) FailRescue(_ context.Context, msg string) {
	t.Flow = append(t.Flow, "fail rescue: "+msg)
}

// NodeDict implements drivers.NodeRenderer with the fields a fake Node
// holds, in the order of Ironic's Node fields.
func (t *Task) NodeDict() (pyjson.Object, error) {
	n := t.Node
	o := pyjson.Object{
		{Key: "uuid", Value: n.UUID},
		{Key: "name", Value: nullable(n.Name)},
		{Key: "instance_uuid", Value: nullable(n.InstanceUUID)},
		{Key: "driver", Value: n.Driver},
		{Key: "driver_info", Value: t.DriverInfo()},
		{Key: "driver_internal_info", Value: t.DriverInternalInfo()},
		{Key: "clean_step", Value: orEmpty(&n.CleanStep)},
		{Key: "deploy_step", Value: orEmpty(&n.DeployStep)},
		{Key: "target_raid_config", Value: t.TargetRAIDConfig()},
		{Key: "instance_info", Value: t.InstanceInfo()},
		{Key: "properties", Value: t.Properties()},
		{Key: "power_state", Value: nullable(n.PowerState)},
		{Key: "provision_state", Value: nullable(n.ProvisionState)},
		{Key: "target_provision_state", Value: nullable(n.TargetProvisionState)},
		{Key: "maintenance", Value: n.Maintenance},
		{Key: "automated_clean", Value: n.AutomatedClean},
	}
	for _, k := range drivers.Kinds() {
		o = append(o, pyjson.Member{Key: k.Field(), Value: nullable(t.InterfaceName(k))})
	}
	return append(o, pyjson.Member{Key: "network_data", Value: t.NetworkData()}), nil
}

// PortDicts implements drivers.NodeRenderer with the fields a
// drivers.Port holds, in the order of Ironic's Port fields.
func (t *Task) PortDicts() ([]any, error) {
	out := make([]any, 0, len(t.PortList))
	for _, p := range t.PortList {
		out = append(out, pyjson.Object{
			{Key: "uuid", Value: p.UUID},
			{Key: "address", Value: p.Address},
			{Key: "extra", Value: orEmpty(&p.Extra)},
			{Key: "local_link_connection", Value: orEmpty(&p.LocalLinkConnection)},
			{Key: "portgroup_uuid", Value: nullable(p.PortgroupUUID)},
			{Key: "pxe_enabled", Value: p.PXEEnabled},
			{Key: "internal_info", Value: orEmpty(&p.InternalInfo)},
			{Key: "physical_network", Value: nullable(p.PhysicalNetwork)},
			{Key: "is_smartnic", Value: p.IsSmartNIC},
		})
	}
	return out, nil
}

// nullable is None for "", else the string (of type string, whatever
// string type s has).
func nullable[S ~string](s S) any {
	if s == "" {
		return nil
	}
	return string(s)
}

// FailInspection implements drivers.InspectionFlow: last_error is set
// and the call recorded.
func (t *Task) FailInspection(_ context.Context, msg string) error {
	t.Node.LastError = &msg
	t.Flow = append(t.Flow, "fail inspection: "+msg)
	return nil
}

// StoreInventory implements drivers.InspectionFlow: the data is kept in
// Inventory and PluginData.
func (t *Task) StoreInventory(_ context.Context, inventory, pluginData *pyjson.Dict) error {
	t.Inventory, t.PluginData = inventory, pluginData
	t.Flow = append(t.Flow, "store inventory")
	return nil
}

// AfterRelease implements drivers.InspectionFlow: fn is kept in After;
// RunAfter runs it.
func (t *Task) AfterRelease(fn func(ctx context.Context, withNode drivers.WithNode)) {
	t.After = append(t.After, fn)
}

// RunAfter runs the functions AfterRelease kept, in order, with this
// task standing for the re-acquired node.
func (t *Task) RunAfter(ctx context.Context) {
	after := t.After
	t.After = nil
	for _, fn := range after {
		fn(ctx, func(ctx context.Context, f func(context.Context, drivers.Task) error) error {
			t.Flow = append(t.Flow, "acquire")
			return f(ctx, t)
		})
	}
}
