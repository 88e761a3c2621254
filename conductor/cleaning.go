package conductor

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// DoNodeClean is do_node_clean: manual cleaning of a manageable node,
// which returns to manageable. The steps are checked against the
// driver's in the worker (a bad step fails the cleaning, as in Ironic).
func (m *Manager) DoNodeClean(ctx context.Context, _ string, uuid string, cleanSteps []*pyjson.Dict, disableRamdisk *bool) error {
	if err := m.concurrentActionLimit(ctx, actionCleaning); err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	if n.Maintenance {
		t.release(ctx)
		return nodeInMaintenance("cleaning", n.UUID)
	}
	if err := m.validatePowerAndNetwork(ctx, t, false); err != nil {
		t.release(ctx)
		if ironic.IsClass(err, ironic.InvalidParameterValue) {
			return ironic.Errorf(ironic.InvalidParameterValue, "Validation of node %s for cleaning failed: %s", n.UUID, err)
		}
		return err
	}
	noRamdisk := disableRamdisk != nil && *disableRamdisk
	if cleanSteps == nil {
		cleanSteps = []*pyjson.Dict{}
	}
	state := t.ProvisionState()
	err = m.startTransition(ctx, t, event{Name: states.EventClean, Target: states.Manageable}, func(ctx context.Context, t *task) {
		m.doNodeClean(ctx, t, cleanSteps, noRamdisk)
	})
	return asStateRequested(err, "manual clean", t, state)
}

func (m *Manager) validatePowerAndNetwork(ctx context.Context, t *task, skipNetwork bool) error {
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	if err != nil || skipNetwork {
		return err
	}
	nw, err := iface[drivers.NetworkInterface](t, drivers.Network, "network")
	if err == nil {
		err = nw.Validate(ctx, t)
	}
	return err
}

// skipAutomatedCleaning is utils.skip_automated_cleaning.
func (m *Manager) skipAutomatedCleaning(n *models.Node) bool {
	if n.AutomatedClean != nil {
		return !*n.AutomatedClean
	}
	return !m.cfg.AutomatedClean
}

// doNodeClean is cleaning.do_node_clean; manual cleaning has non-nil
// cleanSteps.
func (m *Manager) doNodeClean(ctx context.Context, t *task, cleanSteps []*pyjson.Dict, disableRamdisk bool) {
	n := t.node
	manual := cleanSteps != nil
	if !manual && m.skipAutomatedCleaning(n) {
		n.CleanStep = models.NewJSONDict()
		if err := t.processEvent(ctx, event{Name: states.EventDone}); err != nil {
			m.log.ErrorContext(ctx, "finishing cleaning", "node", n.UUID, "error", err)
		}
		return
	}
	if !m.cfg.AllowProvisioningInMaintenance && n.Maintenance {
		m.cleaningError(ctx, t, "Cleaning a node in maintenance mode is not allowed", cleanErrOpts{noTearDown: true})
		return
	}
	if err := m.validatePowerAndNetwork(ctx, t, disableRamdisk); err != nil {
		m.cleaningError(ctx, t, fmt.Sprintf("Validation of node %s for cleaning failed: %s", n.UUID, err), cleanErrOpts{})
		return
	}
	t.wipeCleaningInternalInfo(ctx)
	if manual {
		t.DriverInternalInfo().Set("clean_steps", stepsValue(cleanSteps))
		t.DriverInternalInfo().Set("cleaning_disable_ramdisk", disableRamdisk)
	}
	if err := t.Save(ctx); err != nil {
		m.cleaningError(ctx, t, "Unexpected error when processing next clean step. "+errClass(err)+": "+err.Error(), cleanErrOpts{})
		return
	}
	if bios, err := iface[drivers.BIOSInterface](t, drivers.BIOS, "bios"); err == nil {
		if err := bios.CacheBIOSSettings(ctx, t); err != nil && !ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
			m.log.WarnContext(ctx, "caching BIOS settings", "node", n.UUID, "error", err)
		}
	}
	var prepared states.Provision
	if !disableRamdisk {
		deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
		if err == nil {
			prepared, err = deploy.PrepareCleaning(ctx, t)
		}
		if err != nil {
			m.cleaningError(ctx, t, fmt.Sprintf("Failed to prepare node %s for cleaning: %s", n.UUID, err), cleanErrOpts{})
			return
		}
	}
	target := cleaningTarget(manual)
	if prepared == states.CleanWait {
		if err := t.processEvent(ctx, event{Name: states.EventWait, Target: target}); err != nil {
			m.log.ErrorContext(ctx, "clean wait", "node", n.UUID, "error", err)
		}
		return
	}
	steps, err := setNodeCleaningSteps(ctx, t, disableRamdisk)
	if err != nil {
		if ironic.IsClass(err, ironic.InvalidParameterValue) {
			m.cleaningError(ctx, t, fmt.Sprintf("Cannot clean node %s: %s", n.UUID, err), cleanErrOpts{})
		} else {
			m.cleaningError(ctx, t, "Unexpected error when processing next clean step. "+errClass(err)+": "+err.Error(), cleanErrOpts{})
		}
		return
	}
	idx := -1
	if len(steps) > 0 {
		idx = 0
	}
	m.doNextCleanStep(ctx, t, idx, &disableRamdisk)
}

// setNodeCleaningSteps is steps.set_node_cleaning_steps: the driver's
// enabled clean steps for automated cleaning, the user's validated ones
// for manual cleaning, stored as clean_steps from index 0.
func setNodeCleaningSteps(ctx context.Context, t *task, disableRamdisk bool) ([]*pyjson.Dict, error) {
	var steps []*pyjson.Dict
	if models.Deref(t.node.TargetProvisionState) != states.Manageable {
		steps = driverSteps(t, drivers.CleanStep, true, true)
	} else {
		var err error
		steps, err = validateUserSteps(asSteps(t.DriverInternalInfo().Get("clean_steps")),
			driverSteps(t, drivers.CleanStep, false, false), "clean", "", false, disableRamdisk)
		if err != nil {
			return nil, err
		}
	}
	t.node.CleanStep = models.NewJSONDict()
	t.DriverInternalInfo().Set("clean_steps", stepsValue(steps))
	t.DriverInternalInfo().Set("clean_step_index", nil)
	return steps, t.Save(ctx)
}

// doNextCleanStep is cleaning.do_next_clean_step.
func (m *Manager) doNextCleanStep(ctx context.Context, t *task, index int, disableRamdisk *bool) {
	n := t.node
	manual := models.Deref(n.TargetProvisionState) == states.Manageable
	target := cleaningTarget(manual)
	noRamdisk := false
	if disableRamdisk != nil {
		noRamdisk = *disableRamdisk
	} else {
		noRamdisk, _ = t.DriverInternalInfo().Get("cleaning_disable_ramdisk").(bool)
	}
	var steps []*pyjson.Dict
	if index >= 0 {
		steps = asSteps(t.DriverInternalInfo().Get("clean_steps"))
		if index < len(steps) {
			steps = steps[index:]
		} else {
			steps = nil
		}
	}
	for i, step := range steps {
		n.CleanStep = models.DictFrom(step)
		t.DriverInternalInfo().Set("clean_step_index", index+i)
		if err := t.Save(ctx); err != nil {
			m.cleaningError(ctx, t, "Unexpected error when processing next clean step. "+errClass(err)+": "+err.Error(), cleanErrOpts{})
			return
		}
		result, err := executeStep(ctx, t, step)
		if err != nil {
			m.cleaningError(ctx, t, fmt.Sprintf("Node %s failed step %s: %s", n.UUID, pyschema.Repr(n.CleanStep.Dict), err), cleanErrOpts{})
			return
		}
		switch result {
		case "":
		case states.CleanWait:
			if err := t.processEvent(ctx, event{Name: states.EventWait, Target: target}); err != nil {
				m.log.ErrorContext(ctx, "clean wait", "node", n.UUID, "error", err)
			}
			return
		default:
			m.cleaningError(ctx, t, fmt.Sprintf("While executing step %s on node %s, step returned invalid value: %s",
				pyschema.Repr(step), n.UUID, result), cleanErrOpts{})
			return
		}
	}
	n.CleanStep = models.NewJSONDict()
	t.wipeCleaningInternalInfo(ctx)
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node after cleaning", "node", n.UUID, "error", err)
	}
	if !noRamdisk {
		deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
		if err == nil {
			err = deploy.TearDownCleaning(ctx, t)
		}
		if err != nil {
			m.cleaningError(ctx, t, fmt.Sprintf("Failed to tear down from cleaning for node %s, reason: %s", n.UUID, err),
				cleanErrOpts{noTearDown: true})
			return
		}
	}
	ev := states.EventDone
	if manual || (n.Retired != nil && *n.Retired) {
		ev = states.EventManage
	}
	if err := t.processEvent(ctx, event{Name: ev}); err != nil {
		m.log.ErrorContext(ctx, "finishing cleaning", "node", n.UUID, "error", err)
	}
}

type cleanErrOpts struct {
	noTearDown  bool
	keepState   bool  // set_fail_state=False
	maintenance *bool // nil: maintenance when a step was running
}

// cleaningError is utils.cleaning_error_handler.
func (m *Manager) cleaningError(ctx context.Context, t *task, errmsg string, o cleanErrOpts) {
	n := t.node
	m.log.ErrorContext(ctx, errmsg, "node", n.UUID)
	setMaint := n.CleanStep.Len() > 0
	if o.maintenance != nil {
		setMaint = *o.maintenance
	}
	if setMaint {
		n.Fault = models.Ptr(states.CleanFailure)
		n.Maintenance = true
	}
	if !o.noTearDown {
		deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
		if err == nil {
			err = deploy.TearDownCleaning(ctx, t)
		}
		if err != nil {
			errmsg += ". Also failed to tear down cleaning."
		}
	}
	switch t.ProvisionState() {
	case states.Cleaning, states.CleanWait, states.CleanFailed:
		n.CleanStep = models.NewJSONDict()
		t.delInternal("clean_step_index", "cleaning_reboot", "cleaning_polling", "skip_current_clean_step")
		t.wipeTokenAndURL()
	}
	manual := models.Deref(n.TargetProvisionState) == states.Manageable
	t.record(ctx, errmsg, historyCleaning, true)
	if setMaint && models.Deref(n.MaintenanceReason) == "" {
		n.MaintenanceReason = models.Ptr(errmsg)
	}
	if o.keepState || t.ProvisionState() == states.CleanFailed {
		if err := t.Save(ctx); err != nil {
			m.log.ErrorContext(ctx, "saving node", "node", n.UUID, "error", err)
		}
		return
	}
	target := cleaningTarget(manual)
	if err := t.processEvent(ctx, event{Name: states.EventFail, Target: target}); err != nil {
		m.log.ErrorContext(ctx, "failing cleaning", "node", n.UUID, "error", err)
		_ = t.Save(ctx)
	}
}

// cleanAbortError is cleaning.get_last_error.
func cleanAbortError(n *models.Node) string {
	msg := "By request, the clean operation was aborted"
	if n.CleanStep.Len() > 0 {
		msg += fmt.Sprintf(" during or after the completion of step \"%s\"", stepID(n.CleanStep.Dict))
	}
	return msg
}

// doNodeCleanAbort is cleaning.do_node_clean_abort.
func (m *Manager) doNodeCleanAbort(ctx context.Context, t *task) {
	n := t.node
	deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
	if err == nil {
		err = deploy.TearDownCleaning(ctx, t)
	}
	if err != nil {
		m.cleaningError(ctx, t, "Failed to tear down cleaning after aborting the operation",
			cleanErrOpts{noTearDown: true, keepState: true})
		return
	}
	n.LastError = models.Ptr(cleanAbortError(n))
	n.CleanStep = models.NewJSONDict()
	t.wipeCleaningInternalInfo(ctx)
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node after clean abort", "node", n.UUID, "error", err)
	}
}

// ContinueNodeClean is continue_node_clean: the clean steps resume after
// an asynchronous one finished.
func (m *Manager) ContinueNodeClean(ctx context.Context, _ string, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	if t.ProvisionState() != states.CleanWait {
		t.release(ctx)
		return ironic.Errorf(ironic.InvalidStateRequested, "Cannot continue cleaning on %s, node is in %s state, should be %s",
			n.UUID, t.ProvisionState(), states.CleanWait)
	}
	next := nextStepIndex(t, "clean")
	if n.CleanStep.Len() > 0 {
		if v, _ := n.CleanStep.Get("abort_after").(bool); v {
			target := cleaningTarget(models.Deref(n.TargetProvisionState) == states.Manageable)
			le := cleanAbortError(n)
			return m.startTransition(ctx, t, event{Name: states.EventAbort, Target: target, LastError: &le}, m.doNodeCleanAbort)
		}
	}
	target := cleaningTarget(models.Deref(n.TargetProvisionState) == states.Manageable)
	return m.startTransition(ctx, t, event{Name: states.EventResume, Target: target}, func(ctx context.Context, t *task) {
		m.doNextCleanStep(ctx, t, next, nil)
	})
}

// cleaningTarget is the explicit target of a cleaning event: manageable
// for manual cleaning, none (the machine's: available) otherwise.
func cleaningTarget(manual bool) states.Provision {
	if manual {
		return states.Manageable
	}
	return ""
}
