package conductor

import (
	"context"
	"crypto/rand"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/shacrypt"
	"github.com/goironic/ironic/states"
)

// DoNodeRescue is do_node_rescue: the rescue password (and its SHA-256
// crypt hash) go into instance_info, then the rescue runs in a worker.
func (m *Manager) DoNodeRescue(ctx context.Context, _ string, uuid, rescuePassword string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	if n.Maintenance {
		t.release(ctx)
		return nodeInMaintenance("rescuing", n.UUID)
	}
	t.wipeTokenAndURL()
	ii := t.InstanceInfo()
	ii.Set("rescue_password", rescuePassword)
	ii.Set("hashed_rescue_password", shacrypt.SHA256(rescuePassword, randomSalt()))
	if err := t.Save(ctx); err != nil {
		t.release(ctx)
		return err
	}
	if err := m.validateRescue(ctx, t); err != nil {
		removeRescuePassword(t)
		_ = t.Save(ctx)
		t.release(ctx)
		return ironic.Errorf(ironic.InstanceRescueFailure, "Failed to rescue instance %s for node %s: Validation failed: %s",
			pyOptStr(models.Deref(n.InstanceUUID)), n.UUID, err)
	}
	state := t.ProvisionState()
	if !m.fsm.Actionable(state, states.EventRescue) {
		removeRescuePassword(t)
		_ = t.Save(ctx)
		t.release(ctx)
		return invalidStateRequested(string(states.EventRescue), n.UUID, state)
	}
	return m.startTransition(ctx, t, event{Name: states.EventRescue}, m.doNodeRescue)
}

func (m *Manager) validateRescue(ctx context.Context, t *task) error {
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	if err != nil {
		return err
	}
	r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
	if err == nil {
		err = r.Validate(ctx, t)
	}
	if err != nil {
		return err
	}
	nw, err := iface[drivers.NetworkInterface](t, drivers.Network, "network")
	if err == nil {
		err = nw.Validate(ctx, t)
	}
	return err
}

// removeRescuePassword is utils.remove_node_rescue_password (unsaved).
func removeRescuePassword(t *task) {
	if t.node.InstanceInfo.IsNil() {
		return
	}
	t.node.InstanceInfo.Delete("rescue_password")
	t.node.InstanceInfo.Delete("hashed_rescue_password")
}

// doNodeRescue is manager._do_node_rescue.
func (m *Manager) doNodeRescue(ctx context.Context, t *task) {
	fail := func(msg string) {
		removeRescuePassword(t)
		t.record(ctx, msg, historyRescue, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing rescue", "node", t.node.UUID, "error", err)
		}
	}
	r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
	var next states.Provision
	if err == nil {
		next, err = r.Rescue(ctx, t)
	}
	if err != nil {
		if unexpected(err) {
			fail("Failed to rescue. Exception: " + err.Error())
		} else {
			fail("Failed to rescue: " + err.Error())
		}
		return
	}
	switch next {
	case states.RescueWait:
		err = t.processEvent(ctx, event{Name: states.EventWait})
	case states.Rescue:
		err = t.processEvent(ctx, event{Name: states.EventDone})
	default:
		fail("Failed to rescue: Driver returned unexpected state " + pyOptStr(next))
		return
	}
	if err != nil {
		m.log.ErrorContext(ctx, "finishing rescue", "node", t.node.UUID, "error", err)
	}
}

// DoNodeUnrescue is do_node_unrescue.
func (m *Manager) DoNodeUnrescue(ctx context.Context, _ string, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	t.delInternal("agent_url")
	if n.Maintenance {
		t.release(ctx)
		return nodeInMaintenance("unrescuing", n.UUID)
	}
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	if err != nil {
		t.release(ctx)
		if isInvalidParameter(err) {
			return ironic.Errorf(ironic.InstanceUnrescueFailure, "Failed to unrescue instance %s for node %s: Validation failed: %s",
				pyOptStr(models.Deref(n.InstanceUUID)), n.UUID, err)
		}
		return err
	}
	state := t.ProvisionState()
	err = m.startTransition(ctx, t, event{Name: states.EventUnrescue}, m.doNodeUnrescue)
	return asStateRequested(err, string(states.EventUnrescue), t, state)
}

// doNodeUnrescue is manager._do_node_unrescue.
func (m *Manager) doNodeUnrescue(ctx context.Context, t *task) {
	fail := func(msg string) {
		t.record(ctx, msg, historyRescue, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing unrescue", "node", t.node.UUID, "error", err)
		}
	}
	r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
	var next states.Provision
	if err == nil {
		next, err = r.Unrescue(ctx, t)
	}
	if err != nil {
		if unexpected(err) {
			fail("Failed to unrescue. Exception: " + err.Error())
		} else {
			fail("Failed to unrescue: " + err.Error())
		}
		return
	}
	t.wipeTokenAndURL()
	if next != states.Active {
		fail("Failed to unrescue: Driver returned unexpected state " + pyOptStr(next))
		return
	}
	if err := t.processEvent(ctx, event{Name: states.EventDone}); err != nil {
		m.log.ErrorContext(ctx, "finishing unrescue", "node", t.node.UUID, "error", err)
	}
}

// doNodeRescueAbort is manager._do_node_rescue_abort.
func (m *Manager) doNodeRescueAbort(ctx context.Context, t *task) {
	n := t.node
	r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
	if err == nil {
		err = r.CleanUp(ctx, t)
	}
	if err != nil {
		msg := "Failed to clean up rescue after aborting the operation"
		m.log.ErrorContext(ctx, msg, "node", n.UUID, "error", err)
		n.Maintenance = true
		n.MaintenanceReason = models.Ptr(msg)
		n.Fault = models.Ptr(states.RescueAbortFailure)
		t.record(ctx, msg, historyRescue, true)
		_ = t.Save(ctx)
		return
	}
	t.delInternal("agent_url")
	m.log.InfoContext(ctx, "Rescue operation aborted for node "+n.UUID+".")
	// Not an error: the node is back in normal operation.
	t.record(ctx, "By request, the rescue operation was aborted.", historyRescue, false)
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node after rescue abort", "node", n.UUID, "error", err)
	}
}

const cryptAlphabet = shacrypt.Alphabet

// randomSalt is crypt.mksalt(METHOD_SHA256)'s 16 salt characters.
func randomSalt() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var s strings.Builder
	for _, x := range b {
		s.WriteByte(cryptAlphabet[int(x)%len(cryptAlphabet)])
	}
	return s.String()
}

// rescuingError is utils.rescuing_error_handler.
func (m *Manager) rescuingError(ctx context.Context, t *task, msg string, setFail bool) {
	err := func() error {
		power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
		if err != nil {
			return err
		}
		if err := m.nodePowerAction(ctx, t, power, states.PowerOff, 0); err != nil {
			return err
		}
		r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
		if err != nil {
			return err
		}
		return r.CleanUp(ctx, t)
	}()
	if err != nil {
		msg = "Rescue operation was unsuccessful, clean up failed for node: " + err.Error()
	}
	t.record(ctx, msg, historyRescue, true)
	t.delInternal("agent_url")
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node", "node", t.node.UUID, "error", err)
	}
	if setFail {
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing rescue", "node", t.node.UUID, "error", err)
		}
	}
}
