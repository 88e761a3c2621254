package conductor

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
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
	ii["rescue_password"] = rescuePassword
	ii["hashed_rescue_password"] = sha256Crypt(rescuePassword, randomSalt())
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
	if t.node.InstanceInfo == nil {
		return
	}
	delete(t.node.InstanceInfo, "rescue_password")
	delete(t.node.InstanceInfo, "hashed_rescue_password")
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
		if errClass(err) == "Exception" {
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
		if errClass(err) == "Exception" {
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

const cryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

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

// sha256Crypt is crypt(3)'s SHA-256 scheme ("$5$", 5000 rounds), what
// Ironic's hash_password gives with the default
// rescue_password_hash_algorithm.
func sha256Crypt(password, salt string) string {
	if len(salt) > 16 {
		salt = salt[:16]
	}
	p, s := []byte(password), []byte(salt)
	sum := func(parts ...[]byte) []byte {
		h := sha256.New()
		for _, x := range parts {
			h.Write(x)
		}
		return h.Sum(nil)
	}
	repeat := func(d []byte, n int) []byte {
		out := make([]byte, 0, n)
		for len(out) < n {
			out = append(out, d[:min(len(d), n-len(out))]...)
		}
		return out
	}
	b := sum(p, s, p)
	h := sha256.New()
	h.Write(p)
	h.Write(s)
	h.Write(repeat(b, len(p)))
	for l := len(p); l > 0; l >>= 1 {
		if l&1 != 0 {
			h.Write(b)
		} else {
			h.Write(p)
		}
	}
	a := h.Sum(nil)
	dp := sum(repeat(p, len(p)*len(p)))
	pp := repeat(dp, len(p))
	ds := sum(repeat(s, len(s)*(16+int(a[0]))))
	sp := repeat(ds, len(s))
	c := a
	for i := 0; i < 5000; i++ {
		h := sha256.New()
		if i&1 != 0 {
			h.Write(pp)
		} else {
			h.Write(c)
		}
		if i%3 != 0 {
			h.Write(sp)
		}
		if i%7 != 0 {
			h.Write(pp)
		}
		if i&1 != 0 {
			h.Write(c)
		} else {
			h.Write(pp)
		}
		c = h.Sum(nil)
	}
	var out strings.Builder
	enc := func(b2, b1, b0 byte, n int) {
		w := uint(b2)<<16 | uint(b1)<<8 | uint(b0)
		for ; n > 0; n-- {
			out.WriteByte(cryptAlphabet[w&0x3f])
			w >>= 6
		}
	}
	for _, g := range [][3]int{{0, 10, 20}, {21, 1, 11}, {12, 22, 2}, {3, 13, 23}, {24, 4, 14}, {15, 25, 5}, {6, 16, 26}, {27, 7, 17}, {18, 28, 8}, {9, 19, 29}} {
		enc(c[g[0]], c[g[1]], c[g[2]], 4)
	}
	enc(0, c[31], c[30], 3)
	return fmt.Sprintf("$5$%s$%s", salt, out.String())
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
