package conductor

import (
	"context"
	"reflect"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/roothints"
	"github.com/goironic/ironic/states"
)

// History event types (ironic.common.states, "History Event State Types").
const (
	historyProvisioning  = "provisioning"
	historyCleaning      = "cleaning"
	historyDeploying     = "deploying"
	historyTakeover      = "takeover"
	historyIntrospection = "introspection"
	historyRescue        = "rescue"
	historyConductor     = "conductor"
	historyTransition    = "transition"
	historyUnprovision   = "unprovision"
	historyAdoption      = "adoption"
	historyMonitoring    = "monitoring"
	historyVerify        = "verify"
)

// snapshot copies a node deeply enough that changes made through the task
// (in place, to its dictionaries, or by reassigning pointers) show up when
// Save compares the node with the snapshot.
func snapshot(n *models.Node) models.Node {
	c := *n
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			if d, ok := f.Interface().(models.JSONDict); ok {
				f.Set(reflect.ValueOf(models.DictFrom(d.DeepClone())))
			}
		case reflect.Pointer:
			if !f.IsNil() {
				p := reflect.New(f.Elem().Type())
				p.Elem().Set(f.Elem())
				f.Set(p)
			}
		}
	}
	return c
}

// event is one provision state machine event as the conductor processes
// it (task_manager.process_event's arguments).
type event struct {
	// Name is the machine event.
	Name states.Event
	// Target, when set, is the explicit target state (manual cleaning's
	// manageable) instead of the machine's.
	Target states.Provision
	// Spawning says a worker carries on after the transition: the target
	// stays set even in a stable state, and last_error becomes LastError.
	Spawning bool
	// LastError is the error recorded with the transition; nil clears it
	// when Spawning, and leaves it alone otherwise.
	LastError *string
}

// invalidState is the machine's refusal of an event.
func invalidState(state states.Provision, ev states.Event) error {
	return ironic.Errorf(ironic.InvalidState, "Can not transition from state '%s' on event '%s' (no defined transition)", state, ev)
}

// invalidStateRequested is how the RPC methods report a refused event.
func invalidStateRequested(action, node string, state states.Provision) error {
	return ironic.Errorf(ironic.InvalidStateRequested,
		"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".", action, node, state)
}

// applyEvent moves the node through the machine without saving it:
// provision_state, target_provision_state (as Ironic's FSM keeps it) and
// last_error. The DB layer stamps provision_updated_at and the inspection
// times when the state is saved.
func (t *task) applyEvent(e event) error {
	fsm := t.m.fsm
	cur := t.ProvisionState()
	next, ok := fsm.Next(cur, e.Name)
	if !ok {
		return invalidState(cur, e.Name)
	}
	// The machine starts at the node's state and target.
	target := models.Deref(t.node.TargetProvisionState)
	if target == "" {
		target = fsm.Target(cur)
	}
	if target == next {
		target = ""
	}
	if tg := fsm.Target(next); tg != "" {
		target = tg
	}
	if e.Target != "" {
		if !fsm.Stable(e.Target) {
			return ironic.Errorf(ironic.InvalidState, "Target state '%s' is not a 'stable' state", e.Target)
		}
		target = e.Target
	}
	t.node.ProvisionState = models.Ptr(next)
	if !e.Spawning && fsm.Stable(next) {
		target = ""
	}
	t.node.TargetProvisionState = nil
	if target != "" {
		t.node.TargetProvisionState = models.Ptr(target)
	}
	switch {
	case e.Spawning:
		t.node.LastError = e.LastError
	case e.LastError != nil:
		t.node.LastError = e.LastError
	}
	return nil
}

// processEvent is task.process_event without a callback: the transition
// is applied and saved at once.
func (t *task) processEvent(ctx context.Context, e event) error {
	prev := t.ProvisionState()
	if err := t.applyEvent(e); err != nil {
		return err
	}
	if err := t.Save(ctx); err != nil {
		return err
	}
	t.logTransition(ctx, prev)
	return nil
}

func (t *task) logTransition(ctx context.Context, prev states.Provision) {
	level := t.m.log.InfoContext
	if s := t.ProvisionState(); states.Failure(s) || s == states.Error {
		level = t.m.log.ErrorContext
	}
	level(ctx, "node moved to a new provision state", "node", t.node.UUID, "state", t.ProvisionState(),
		"previous", prev, "target", models.Deref(t.node.TargetProvisionState))
}

// record is conductor.utils.node_history_record: an event in the node's
// history (when [conductor]node_history is on) and, for errors, the
// node's last_error. The node itself is saved by the caller.
func (t *task) record(ctx context.Context, msg, eventType string, isError bool) {
	if msg == "" {
		return
	}
	if isError {
		t.node.LastError = models.Ptr(msg)
	}
	if !t.m.cfg.NodeHistory {
		return
	}
	sev := "INFO"
	if isError {
		sev = "ERROR"
	}
	id := t.node.ID
	h := &models.NodeHistory{
		Conductor: models.Ptr(t.m.cfg.Host), Severity: models.Ptr(sev),
		Event: models.Ptr(msg), NodeID: &id, CreatedAt: models.NewTime(t.m.clock.Now()),
	}
	if eventType != "" {
		h.EventType = models.Ptr(eventType)
	}
	if u := ironic.FromContext(ctx); u.UserID != "" {
		h.User = models.Ptr(u.UserID)
	}
	if _, err := t.m.store.CreateNodeHistory(context.WithoutCancel(ctx), h); err != nil {
		t.m.log.WarnContext(ctx, "recording node history", "node", t.node.UUID, "error", err)
	}
}

// delInternal removes driver_internal_info keys.
func (t *task) delInternal(keys ...string) {
	if t.node.DriverInternalInfo.IsNil() {
		return
	}
	for _, k := range keys {
		t.node.DriverInternalInfo.Delete(k)
	}
}

// wipeTokenAndURL is utils.wipe_token_and_url.
func (t *task) wipeTokenAndURL() {
	t.delInternal("agent_secret_token", "agent_secret_token_pregenerated", "agent_url", "agent_verify_ca")
}

// fastTrackAble is utils.fast_track_able: fast track enabled for the
// node ([deploy]fast_track, or driver_info["fast_track"]), an image to
// write and no last_error. A driver_info value oslo can't read as a
// boolean counts as disabled here (Ironic raises InvalidParameterValue,
// which the deploy interface's checks report first).
func (t *task) fastTrackAble(ctx context.Context) bool {
	enabled := t.m.cfg.FastTrack
	if v, ok := t.DriverInfo().Lookup("fast_track"); ok && v != nil {
		b, err := roothints.ParseBool(v) // oslo's bool_from_string(strict=True)
		if err != nil {
			return false
		}
		enabled = b
	}
	if !enabled || t.node.LastError != nil {
		return false
	}
	write, err := t.m.storage(t).ShouldWriteImage(ctx, t)
	return err == nil && write
}

// wipeDeployInternalInfo is utils.wipe_deploy_internal_info: the agent's
// token and URL go too unless the node is fast-track-able.
func (t *task) wipeDeployInternalInfo(ctx context.Context) {
	if !t.fastTrackAble(ctx) {
		t.wipeTokenAndURL()
	}
	t.DriverInternalInfo().Set("deploy_steps", nil)
	t.delInternal("user_deploy_steps", "agent_cached_deploy_steps", "deploy_step_index", "deployment_reboot",
		"deployment_polling", "skip_current_deploy_step", "steps_validated")
}

// wipeCleaningInternalInfo is utils.wipe_cleaning_internal_info.
func (t *task) wipeCleaningInternalInfo(ctx context.Context) {
	if !t.fastTrackAble(ctx) {
		t.wipeTokenAndURL()
	}
	t.DriverInternalInfo().Set("clean_steps", nil)
	t.delInternal("agent_cached_clean_steps", "clean_step_index", "cleaning_reboot", "cleaning_polling",
		"cleaning_disable_ramdisk", "skip_current_clean_step", "steps_validated")
}
