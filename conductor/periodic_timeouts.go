package conductor

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// failStuckOnStart is the start-up sweep (_fail_transient_state for
// STUCK_STATES_TREATED_AS_FAIL): unreserved nodes mapped here in a state
// no conductor can resume are failed.
func (m *Manager) failStuckOnStart(ctx context.Context) error {
	for _, s := range states.All() {
		if !states.StuckOnRestart(s) {
			continue
		}
		state := s
		msg := fmt.Sprintf("The %s state can't be resumed by conductor %s. Moving to fail state.", state, m.cfg.Host)
		if err := m.failIfInState(ctx, db.NodeFilter{Reserved: models.Ptr(false), ProvisionState: &state},
			"provision_updated_at", failSpec{states: []states.Provision{state}, lastError: msg}); err != nil {
			return err
		}
	}
	return nil
}

// failSpec says how failIfInState fails a node.
type failSpec struct {
	states []states.Provision
	// maintenance, when set, must equal the node's.
	maintenance *bool
	// keepTarget keeps the node's target_provision_state.
	keepTarget bool
	// callback, when set, runs in a worker after the fail event;
	// otherwise lastError is recorded (event type "transition").
	callback  func(ctx context.Context, t *task)
	lastError string
}

// failIfInState is _fail_if_in_state: discovery of the nodes, then
// failOne for each, up to [conductor]periodic_max_workers of them.
func (m *Manager) failIfInState(ctx context.Context, f db.NodeFilter, sortKey string, spec failSpec) error {
	nodes, err := m.mappedNodes(ctx, nil, f, db.ListOpts{SortKey: sortKey, SortDir: "asc"})
	if err != nil {
		return err
	}
	count := 0
	for _, n := range nodes {
		done, err := m.failOne(ctx, n.UUID, spec)
		if ironic.IsClass(err, ironic.NoFreeConductorWorker) {
			break
		}
		if err != nil && !ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			m.log.WarnContext(ctx, "failing node", "node", n.UUID, "error", err)
		}
		if err != nil || !done {
			continue
		}
		count++
		if count >= m.cfg.PeriodicMaxWorkers {
			break
		}
	}
	return nil
}

// failOne fails one node if it is (still) in one of spec's states; done
// says whether it was.
func (m *Manager) failOne(ctx context.Context, uuid string, spec failSpec) (bool, error) {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return false, err
	}
	n := t.node
	in := false
	for _, s := range spec.states {
		in = in || t.ProvisionState() == s
	}
	if !in || (spec.maintenance != nil && *spec.maintenance != n.Maintenance) {
		t.release(ctx)
		return false, nil
	}
	var target states.Provision
	if spec.keepTarget {
		target = models.Deref(n.TargetProvisionState)
	}
	if spec.callback != nil {
		return true, m.startTransition(ctx, t, event{Name: states.EventFail, Target: target, LastError: n.LastError}, spec.callback)
	}
	defer t.release(ctx)
	t.record(ctx, spec.lastError, historyTransition, true)
	return true, t.processEvent(ctx, event{Name: states.EventFail, Target: target})
}

// CheckProvisionTimeouts runs the four callback timeout checks once
// (_check_deploy_timeouts, _check_cleanwait_timeouts,
// _check_inspect_wait_timeouts, _check_rescuewait_timeouts).
func (m *Manager) CheckProvisionTimeouts(ctx context.Context) error {
	notMaint := models.Ptr(false)
	unreserved := models.Ptr(false)
	var errs []error
	if d := m.cfg.DeployCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.DeployWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []states.Provision{states.DeployWait}, callback: m.cleanupAfterTimeout}))
	}
	if d := m.cfg.CleanCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.CleanWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []states.Provision{states.CleanWait}, keepTarget: true, callback: m.cleanupCleanWaitTimeout}))
	}
	if d := m.cfg.InspectWaitTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.InspectWait), InspectionStartedBefore: &d}, "inspection_started_at",
			failSpec{states: []states.Provision{states.InspectWait}, maintenance: notMaint, lastError: "timeout reached while inspecting the node"}))
	}
	if d := m.cfg.RescueCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.RescueWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []states.Provision{states.RescueWait}, keepTarget: true, callback: m.cleanupRescueWaitTimeout}))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanupAfterTimeout is utils.cleanup_after_timeout.
func (m *Manager) cleanupAfterTimeout(ctx context.Context, t *task) {
	msg := "Timeout reached while waiting for callback for node " + t.node.UUID
	m.deployingError(ctx, t, msg, true)
}

// cleanupCleanWaitTimeout is utils.cleanup_cleanwait_timeout.
func (m *Manager) cleanupCleanWaitTimeout(ctx context.Context, t *task) {
	step := "{}"
	if len(t.node.CleanStep) > 0 {
		step = reprDict(t.node.CleanStep)
	}
	msg := "Timeout reached while cleaning the node. Please check if the ramdisk responsible for the cleaning is running on the node. Failed on step " + step + "."
	m.cleaningError(ctx, t, msg, cleanErrOpts{keepState: true})
}

// cleanupRescueWaitTimeout is utils.cleanup_rescuewait_timeout.
func (m *Manager) cleanupRescueWaitTimeout(ctx context.Context, t *task) {
	m.rescuingError(ctx, t, "Timeout reached while waiting for rescue ramdisk callback for node", false)
}

// reprDict is Python's repr of a dict.
func reprDict(d models.JSONDict) string {
	return pyschema.Repr(map[string]any(d))
}
