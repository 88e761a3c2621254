package conductor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// ChangeNodePowerState is change_node_power_state: validated under the
// node's exclusive lock and the target recorded, then the power action
// runs in a worker, which holds the lock until it is done; the call
// returns at once. Errors of the action itself are recorded on the node.
func (m *Manager) ChangeNodePowerState(ctx context.Context, _ string, uuid string, newState states.Power, timeout int) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	power, ok := t.driver.Interface(drivers.Power).(drivers.PowerInterface)
	if !ok {
		t.release(ctx)
		return drivers.Unsupported(t, "power")
	}
	if err := power.Validate(ctx, t); err != nil {
		t.release(ctx)
		return err
	}
	supported, err := power.GetSupportedPowerStates(ctx, t)
	if err != nil {
		t.release(ctx)
		return err
	}
	if !slices.Contains(supported, newState) {
		t.release(ctx)
		return ironic.Errorf(ironic.InvalidParameterValue, "The driver %s does not support the power state, %s", t.node.Driver, newState)
	}
	if !m.tryWorker() {
		// power_state_error_handler: nothing moves, the node says why.
		t.node.LastError = models.Ptr("No free conductor workers available")
		_ = t.Save(ctx)
		t.release(ctx)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	target := states.PowerOff
	if newState == states.PowerOn || newState == states.Rebooting || newState == states.SoftRebooting {
		target = states.PowerOn
	}
	t.node.TargetPowerState = &target
	t.node.LastError = nil
	if err := t.Save(ctx); err != nil {
		<-m.workers.slots
		t.release(ctx)
		return err
	}
	d := time.Duration(timeout) * time.Second
	if d == 0 && (newState == states.SoftRebooting || newState == states.SoftPowerOff) {
		d = m.cfg.SoftPowerOffTimeout
	}
	m.runReserved(ctx, t, func(ctx context.Context, t *task) {
		if err := m.nodePowerAction(ctx, t, power, newState, d); err != nil {
			m.log.WarnContext(ctx, "power action failed", "node", uuid, "state", newState, "error", err)
		}
	})
	return nil
}

// nodePowerAction is conductor.utils.node_power_action.
func (m *Manager) nodePowerAction(ctx context.Context, t *task, power drivers.PowerInterface, newState states.Power, timeout time.Duration) error {
	n := t.node
	if newState == states.PowerOn || newState == states.PowerOff || newState == states.SoftPowerOff {
		cur, err := power.GetPowerState(ctx, t)
		if err != nil {
			n.TargetPowerState = nil
			t.record(ctx, fmt.Sprintf("Failed to change power state to '%s': %v", newState, err), "", true)
			return firstErr(err, t.Save(ctx))
		}
		if (cur == states.PowerOn && newState == states.PowerOn) ||
			(cur == states.PowerOff && (newState == states.PowerOff || newState == states.SoftPowerOff)) {
			n.LastError = nil
			n.PowerState = &cur
			n.TargetPowerState = nil
			if newState != states.PowerOn {
				wipeOnPowerOff(n)
			}
			return t.Save(ctx)
		}
	}
	target := states.PowerOff
	if newState == states.PowerOn || newState == states.Rebooting || newState == states.SoftRebooting {
		target = states.PowerOn
	}
	n.TargetPowerState = &target
	if !states.Failure(models.Deref(n.ProvisionState)) {
		n.LastError = nil
	}
	dii := t.DriverInternalInfo()
	dii.Set("last_power_state_change", m.clock.Now().UTC().Format("2006-01-02T15:04:05.000000"))
	if newState != states.PowerOn {
		wipeOnPowerOff(n)
	}
	if err := t.Save(ctx); err != nil {
		return err
	}
	var err error
	if target == states.PowerOn && models.Deref(n.ProvisionState) == states.Active {
		// An active node's volumes are attached before it powers on.
		err = m.storage(t).AttachVolumes(ctx, t)
	}
	switch {
	case err != nil:
	case newState == states.Rebooting:
		err = power.Reboot(ctx, t, timeout)
	default:
		err = power.SetPowerState(ctx, t, newState, timeout)
	}
	if err != nil {
		n.TargetPowerState = nil
		t.record(ctx, fmt.Sprintf("Failed to change power state to '%s' by '%s': %v", target, newState, err), "", true)
		return firstErr(err, t.Save(ctx))
	}
	n.PowerState = &target
	n.TargetPowerState = nil
	if err := t.Save(ctx); err != nil {
		return err
	}
	m.notifyNova(ctx, n, target)
	m.log.InfoContext(ctx, fmt.Sprintf("Successfully set node %s power state to %s by %s.", n.UUID, target, newState), "node", n.UUID)
	if target == states.PowerOff && models.Deref(n.ProvisionState) == states.Active {
		// ... and detached once it is off; a StorageError is only logged.
		if err := m.storage(t).DetachVolumes(ctx, t); err != nil {
			var f *ironic.Fault
			if !errors.As(err, &f) || f.Class != ironic.StorageError {
				return err
			}
			m.log.WarnContext(ctx, fmt.Sprintf("Volume detachment for node %s failed: %v", n.UUID, err), "node", n.UUID)
		}
	}
	return nil
}

// storage is the task's storage interface ("noop" when it has none).
func (m *Manager) storage(t *task) drivers.StorageInterface {
	if s, ok := t.driver.Interface(drivers.Storage).(drivers.StorageInterface); ok && s != nil {
		return s
	}
	return noStorage{}
}

// noStorage stands in for a missing storage interface.
type noStorage struct{ drivers.Interface }

func (noStorage) AttachVolumes(context.Context, drivers.Task) error { return nil }
func (noStorage) DetachVolumes(context.Context, drivers.Task) error { return nil }
func (noStorage) ShouldWriteImage(context.Context, drivers.Task) (bool, error) {
	return true, nil
}

// wipeOnPowerOff drops what must not survive a power off or reboot.
func wipeOnPowerOff(n *models.Node) {
	if n.DriverInternalInfo.IsNil() {
		return
	}
	n.DriverInternalInfo.Delete("agent_url")
	if pregen, _ := n.DriverInternalInfo.Get("agent_secret_token_pregenerated").(bool); !pregen {
		n.DriverInternalInfo.Delete("agent_secret_token")
	}
	n.DriverInternalInfo.Delete("agent_cached_deploy_steps")
	n.DriverInternalInfo.Delete("agent_cached_clean_steps")
	n.DriverInternalInfo.Delete("agent_verify_ca")
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// PowerAction implements drivers.Task: node_power_action on the task's
// own node, for deploy and boot interfaces.
func (t *task) PowerAction(ctx context.Context, state states.Power) error {
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err != nil {
		return err
	}
	return t.m.nodePowerAction(ctx, t, power, state, 0)
}

// notifyNova is nova.power_update for a node with an instance.
func (m *Manager) notifyNova(ctx context.Context, n *models.Node, state states.Power) {
	if m.cfg.Nova != nil && n.InstanceUUID != nil && *n.InstanceUUID != "" {
		m.cfg.Nova.PowerUpdate(ctx, *n.InstanceUUID, state)
	}
}
