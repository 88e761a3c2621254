package conductor

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// iface returns the node's implementation of kind k as T, or
// UnsupportedDriverExtension naming ext.
func iface[T any](t *task, k drivers.Kind, ext string) (T, error) {
	v, ok := t.driver.Interface(k).(T)
	if !ok {
		var zero T
		return zero, drivers.Unsupported(t, ext)
	}
	return v, nil
}

// isInvalidParameter reports whether err is InvalidParameterValue or its
// subclass MissingParameterValue.
func isInvalidParameter(err error) bool {
	return ironic.IsClass(err, ironic.InvalidParameterValue) || ironic.IsClass(err, ironic.MissingParameterValue)
}

// errClass is the exception class name of err, for "failed with <class>"
// messages.
func errClass(err error) string {
	var f *ironic.Fault
	if errors.As(err, &f) {
		return string(f.Class)
	}
	var p foreign
	if errors.As(err, &p) {
		return p.PythonClass()
	}
	return "Exception"
}

// foreign is an error standing for a Python exception outside Ironic's
// hierarchy (a driver library's, as sushy's ServerSideError): Ironic
// names its class where it names an unexpected exception's.
type foreign interface{ PythonClass() string }

// unexpected reports whether err is no Ironic exception: Ironic's
// handlers name its class in last_error.
func unexpected(err error) bool {
	var f *ironic.Fault
	return !errors.As(err, &f)
}

func nodeInMaintenance(op, uuid string) error {
	return ironic.Errorf(ironic.NodeInMaintenance, "The %s operation can't be performed on node %s because it's in maintenance mode.", op, uuid)
}

func nodeProtected(uuid string) error {
	return ironic.Errorf(ironic.NodeProtected, "Node %s is protected and cannot be undeployed, rebuilt or deleted", uuid)
}

// asStateRequested turns the machine's InvalidState into the
// InvalidStateRequested the RPC methods raise.
func asStateRequested(err error, action string, t *task, state states.Provision) error {
	if ironic.IsClass(err, ironic.InvalidState) {
		return invalidStateRequested(string(action), t.node.UUID, state)
	}
	return err
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// isGlanceImage is glance service_utils.is_glance_image.
func isGlanceImage(v any) bool {
	s, ok := v.(string)
	return ok && (strings.HasPrefix(s, "glance://") || uuidLike.MatchString(strings.Trim(s, "{}")))
}

// validateInstanceInfoTraits is utils.validate_instance_info_traits.
func (m *Manager) validateInstanceInfoTraits(t *task) error {
	raw, ok := t.node.InstanceInfo.Lookup("traits")
	if !ok || raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		if s, isStr := raw.(string); isStr && s == "" {
			return nil
		}
		return ironic.Errorf(ironic.InvalidParameterValue, "Error parsing traits from Node %s instance_info field. A list of strings is expected.", t.node.UUID)
	}
	if len(list) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, tr := range t.node.Traits {
		have[tr.Trait] = true
	}
	var missing []string
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return ironic.Errorf(ironic.InvalidParameterValue, "Error parsing traits from Node %s instance_info field. A list of strings is expected.", t.node.UUID)
		}
		if !have[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return ironic.Errorf(ironic.InvalidParameterValue,
			"Cannot specify instance traits that are not also set on the node. Node %s is missing traits %s", t.node.UUID, strings.Join(missing, ", "))
	}
	return nil
}

// The actions _concurrent_action_limit knows.
const (
	actionProvisioning   = "provisioning"
	actionUnprovisioning = "unprovisioning"
	actionCleaning       = "cleaning"
)

// concurrentActionLimit is _concurrent_action_limit: ConcurrentActionLimit
// when max_concurrent_deploy nodes are deploying (for a deploy), or
// max_concurrent_clean nodes are cleaning or being deleted (for a tear
// down or a manual clean). The count covers every node, whichever
// conductor has it.
func (m *Manager) concurrentActionLimit(ctx context.Context, action string) error {
	var inState []states.Provision
	limit := m.cfg.MaxConcurrentClean
	switch action {
	case actionProvisioning:
		inState, limit = []states.Provision{states.Deploying, states.DeployWait}, m.cfg.MaxConcurrentDeploy
	case actionUnprovisioning, actionCleaning:
		inState = []states.Provision{states.Deleting, states.Cleaning, states.CleanWait}
	default:
		return nil
	}
	n, err := m.store.CountNodesInProvisionState(ctx, inState...)
	if err != nil {
		return err
	}
	if n >= int64(limit) {
		return ironic.Errorf(ironic.ConcurrentActionLimit,
			"Unable to process request at this time. The concurrent action limit for %s has been reached. Please contact your administrator and try again later.", action)
	}
	return nil
}

// DoNodeDeploy is do_node_deploy: validated under the node's lock, then
// the deployment (or rebuild) runs in a worker.
func (m *Manager) DoNodeDeploy(ctx context.Context, _ string, uuid string, rebuild bool, configdrive any, deploySteps []*pyjson.Dict) error {
	if err := m.concurrentActionLimit(ctx, actionProvisioning); err != nil {
		return err
	}
	ev := states.EventDeploy
	if rebuild {
		ev = states.EventRebuild
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	fail := func(err error) error { t.release(ctx); return err }
	if n.Maintenance {
		return fail(nodeInMaintenance("provisioning", n.UUID))
	}
	if rebuild && n.Protected {
		return fail(nodeProtected(n.UUID))
	}
	state := t.ProvisionState()
	if !m.fsm.Actionable(state, ev) {
		return fail(invalidStateRequested(string(ev), n.UUID, state))
	}
	if rebuild && isGlanceImage(n.InstanceInfo.Get("image_source")) {
		t.InstanceInfo().Delete("kernel")
		t.InstanceInfo().Delete("ramdisk")
	}
	// The image type first, so that the deploy interface validates
	// only what this kind of image needs; saved at once, as Ironic does.
	if changed, err := m.updateImageType(ctx, t); err != nil {
		return fail(err)
	} else if changed {
		if err := t.Save(ctx); err != nil {
			return fail(err)
		}
	}
	if err := m.validateForDeploy(ctx, t, deploySteps); err != nil {
		if isInvalidParameter(err) {
			err = ironic.Errorf(ironic.InstanceDeployFailure, "Failed to validate deploy or power info for node %s: %s", n.UUID, err.Error()).WithStatus(400)
		}
		return fail(err)
	}
	err = m.startTransition(ctx, t, event{Name: ev}, func(ctx context.Context, t *task) {
		m.doNodeDeploy(ctx, t, configdrive, deploySteps)
	})
	return asStateRequested(err, string(ev), t, state)
}

func (m *Manager) validateForDeploy(ctx context.Context, t *task, deploySteps []*pyjson.Dict) error {
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err != nil {
		return err
	}
	if err := power.Validate(ctx, t); err != nil {
		return err
	}
	deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
	if err != nil {
		return err
	}
	if err := deploy.Validate(ctx, t); err != nil {
		return err
	}
	if err := m.validateInstanceInfoTraits(t); err != nil {
		return err
	}
	return validateDeployStepsAndTemplates(ctx, t, deploySteps, true)
}

// doNodeDeploy is deployments.do_node_deploy, in the worker.
func (m *Manager) doNodeDeploy(ctx context.Context, t *task, cd any, deploySteps []*pyjson.Dict) {
	t.wipeDeployInternalInfo(ctx)
	if pyjson.Truthy(cd) { // Python's `if configdrive:`
		if err := m.storeConfigdrive(ctx, t, cd); err != nil {
			m.deployingError(ctx, t, configdriveErrorMessage(err), false)
			return
		}
	}
	if err := t.Save(ctx); err != nil {
		m.deployingError(ctx, t, fmt.Sprintf("Failed to store the configdrive in the database. %s", err), false)
		return
	}
	deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
	if err == nil {
		err = deploy.Prepare(ctx, t)
	}
	if err != nil {
		msg := "Failed to prepare to deploy: " + err.Error()
		if unexpected(err) {
			msg = "Failed to prepare to deploy. Exception: " + err.Error()
		}
		m.deployingError(ctx, t, msg, false)
		return
	}
	if len(deploySteps) > 0 {
		t.DriverInternalInfo().Set("user_deploy_steps", stepsValue(deploySteps))
	}
	steps, err := allDeploymentSteps(ctx, t, true)
	if err != nil {
		m.deployingError(ctx, t, "Cannot get deploy steps; failed to deploy: "+err.Error(), true)
		return
	}
	t.DriverInternalInfo().Set("deploy_steps", stepsValue(steps))
	t.node.DeployStep = models.NewJSONDict()
	t.DriverInternalInfo().Set("deploy_step_index", nil)
	if len(steps) == 0 {
		m.deployingError(ctx, t, "No deploy steps returned by the driver", true)
		return
	}
	id := m.id
	t.node.ConductorAffinity = &id
	if err := t.Save(ctx); err != nil {
		m.deployingError(ctx, t, "Unexpected error when processing next deploy step. "+errClass(err)+": "+err.Error(), true)
		return
	}
	m.doNextDeployStep(ctx, t, 0)
}

// doNextDeployStep is deployments.do_next_deploy_step: the steps from
// index on, until one goes asynchronous or all are done.
func (m *Manager) doNextDeployStep(ctx context.Context, t *task, index int) {
	for idx := index; index >= 0; idx++ {
		steps := asSteps(t.DriverInternalInfo().Get("deploy_steps"))
		if idx >= len(steps) {
			break
		}
		step := steps[idx]
		t.node.DeployStep = models.DictFrom(step)
		t.DriverInternalInfo().Set("deploy_step_index", idx)
		if err := t.Save(ctx); err != nil {
			m.deployingError(ctx, t, "Unexpected error when processing next deploy step. "+errClass(err)+": "+err.Error(), true)
			return
		}
		result, err := executeStep(ctx, t, step)
		if err != nil {
			if t.ProvisionState() != states.DeployFailed {
				msg := fmt.Sprintf("Deploy step %s failed: %s.", stepID(step), err)
				if unexpected(err) {
					msg = fmt.Sprintf("Deploy step %s failed with %s: %s.", stepID(step), errClass(err), err)
				}
				m.deployingError(ctx, t, msg, true)
			}
			return
		}
		if t.ProvisionState() == states.DeployFailed {
			return
		}
		switch result {
		case "":
		case states.DeployWait:
			if t.ProvisionState() != states.DeployWait {
				if err := t.processEvent(ctx, event{Name: states.EventWait}); err != nil {
					m.log.ErrorContext(ctx, "deploy wait", "node", t.node.UUID, "error", err)
				}
			}
			return
		default:
			m.deployingError(ctx, t, "Failed to deploy: "+pyschema.Repr(t.node.DeployStep.Dict), true)
			return
		}
	}
	t.node.DeployStep = models.NewJSONDict()
	t.wipeDeployInternalInfo(ctx)
	if err := t.processEvent(ctx, event{Name: states.EventDone}); err != nil {
		m.log.ErrorContext(ctx, "finishing deployment", "node", t.node.UUID, "error", err)
	}
}

// deployingError is utils.deploying_error_handler: the error recorded,
// the deployment cleaned up, the node moved to deploy failed.
func (m *Manager) deployingError(ctx context.Context, t *task, errmsg string, cleanUp bool) {
	m.log.ErrorContext(ctx, errmsg, "node", t.node.UUID)
	t.record(ctx, errmsg, historyDeploying, true)
	var cleanupErr string
	if cleanUp {
		if deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy"); err == nil {
			if err := deploy.CleanUp(ctx, t); err != nil {
				add := "Also failed to clean up due to: " + err.Error()
				if unexpected(err) {
					add = "An unhandled exception was encountered while aborting. More information may be found in the log file."
				}
				cleanupErr = errmsg + ". " + add
			}
		}
	}
	switch t.ProvisionState() {
	case states.Deploying, states.DeployWait, states.DeployFailed:
		t.node.DeployStep = models.NewJSONDict()
		t.wipeDeployInternalInfo(ctx)
	}
	if cleanupErr != "" {
		t.record(ctx, cleanupErr, historyDeploying, true)
	}
	if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
		m.log.ErrorContext(ctx, "failing deployment", "node", t.node.UUID, "error", err)
		_ = t.Save(ctx)
	}
}

// ContinueNodeDeploy is continue_node_deploy: the deploy steps resume
// after an asynchronous one finished.
func (m *Manager) ContinueNodeDeploy(ctx context.Context, _ string, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	state := t.ProvisionState()
	if state != states.DeployWait && state != states.Deploying {
		t.release(ctx)
		return ironic.Errorf(ironic.InvalidStateRequested,
			"Cannot continue deploying on %s. Node is in %s state; should be in one of %s", t.node.UUID, state,
			states.DeployWait+", "+states.Deploying)
	}
	if state == states.DeployWait {
		return m.startTransition(ctx, t, event{Name: states.EventResume}, m.continueDeploy)
	}
	return m.spawnOrFail(ctx, t, m.continueDeploy)
}

// continueDeploy is deployments.continue_node_deploy once the node is
// deploying again: the steps are validated once more (an agent may have
// brought in-band ones) and the next one runs.
func (m *Manager) continueDeploy(ctx context.Context, t *task) {
	if v, _ := t.DriverInternalInfo().Get("steps_validated").(bool); !v {
		if err := t.setFinalDeploySteps(ctx); err != nil {
			m.deployingError(ctx, t, fmt.Sprintf("Failed to validate the final deploy steps list for node %s: %s", t.node.UUID, err), true)
			return
		}
	}
	m.doNextDeployStep(ctx, t, nextStepIndex(t, "deploy"))
}

// setFinalDeploySteps validates the user's deploy steps and templates
// against the steps known now (an agent's included), sets the node's
// deploy step list (set_node_deployment_steps(reset_current=False)) and
// records steps_validated.
func (t *task) setFinalDeploySteps(ctx context.Context) error {
	steps, err := allDeploymentSteps(ctx, t, false)
	if err != nil {
		return err
	}
	t.DriverInternalInfo().Set("deploy_steps", stepsValue(steps))
	t.DriverInternalInfo().Set("steps_validated", true)
	return nil
}

// spawnOrFail hands t to a worker, recording a missing worker on the
// node as Ironic's spawn error handlers do.
func (m *Manager) spawnOrFail(ctx context.Context, t *task, fn func(ctx context.Context, t *task)) error {
	if !m.tryWorker() {
		t.record(ctx, "No free conductor workers available", historyConductor, true)
		_ = t.Save(ctx)
		t.release(ctx)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	m.runReserved(ctx, t, fn)
	return nil
}

// nextStepIndex is utils.update_next_step_index: the step after the
// current one, or the current one again when the driver asked for it.
func nextStepIndex(t *task, kind string) int {
	dii := t.DriverInternalInfo()
	steps := asSteps(dii.Get(kind + "_steps"))
	if len(steps) == 0 {
		return -1
	}
	cur, ok := dii.Lookup(kind + "_step_index")
	if !ok || cur == nil {
		return 0
	}
	skip := true
	if v, ok := dii.Get("skip_current_" + kind + "_step").(bool); ok {
		skip = v
	}
	dii.Delete("skip_current_" + kind + "_step")
	dii.Delete(kind + "ing_polling")
	idx := intOf(cur)
	if skip {
		idx++
	}
	if idx >= len(steps) {
		return len(steps)
	}
	return idx
}

// DoNodeTearDown is do_node_tear_down: the instance is removed in a
// worker, then the node is cleaned (automated cleaning) and becomes
// available.
func (m *Manager) DoNodeTearDown(ctx context.Context, _ string, uuid string) error {
	if err := m.concurrentActionLimit(ctx, actionUnprovisioning); err != nil {
		return err
	}
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	t.delInternal("agent_url")
	if t.node.Protected {
		t.release(ctx)
		return nodeProtected(t.node.UUID)
	}
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	if err != nil {
		t.release(ctx)
		if isInvalidParameter(err) {
			return ironic.Errorf(ironic.InstanceDeployFailure, "Failed to validate power driver interface. Can not delete instance. Error: %s", err)
		}
		return err
	}
	initial := t.ProvisionState()
	err = m.startTransition(ctx, t, event{Name: states.EventDelete}, func(ctx context.Context, t *task) {
		m.doNodeTearDown(ctx, t, initial)
	})
	return asStateRequested(err, string(states.EventDelete), t, initial)
}

// doNodeTearDown is manager._do_node_tear_down.
func (m *Manager) doNodeTearDown(ctx context.Context, t *task, initial states.Provision) {
	n := t.node
	var failed error
	switch initial {
	case states.RescueWait, states.Rescue, states.UnrescueFailed, states.RescueFailed:
		if r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue"); err == nil {
			failed = r.CleanUp(ctx, t)
		}
	}
	if failed == nil && n.ConsoleEnabled {
		if c, err := iface[drivers.ConsoleInterface](t, drivers.Console, "console"); err == nil {
			failed = c.StopConsole(ctx, t)
		}
	}
	if failed == nil {
		deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
		if err == nil {
			err = deploy.CleanUp(ctx, t)
		}
		if err == nil {
			_, err = deploy.TearDown(ctx, t)
		}
		failed = err
	}
	// Whatever happened, the instance is gone from the node.
	m.deleteConfigdriveObject(ctx, t)
	n.InstanceInfo = models.NewJSONDict()
	n.InstanceUUID = nil
	t.wipeDeployInternalInfo(ctx)
	t.delInternal("instance", "root_uuid_or_disk_id", "is_whole_disk_image", "is_source_a_path", "deploy_boot_mode")
	if v, _ := t.DriverInternalInfo().Get("automatic_lessee").(bool); v {
		n.Lessee = nil
		t.delInternal("automatic_lessee")
	}
	m.removeVIFs(ctx, t)
	if failed != nil {
		m.log.ErrorContext(ctx, "tear down failed", "node", n.UUID, "error", failed)
		t.record(ctx, "Failed to tear down: "+failed.Error(), historyUnprovision, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing tear down", "node", n.UUID, "error", err)
		}
		return
	}
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node after tear down", "node", n.UUID, "error", err)
	}
	if err := t.processEvent(ctx, event{Name: states.EventClean}); err != nil {
		m.log.ErrorContext(ctx, "starting cleaning after tear down", "node", n.UUID, "error", err)
		return
	}
	m.doNodeClean(ctx, t, nil, false)
}

// removeVIFs detaches every VIF (network.remove_vifs_from_node).
func (m *Manager) removeVIFs(ctx context.Context, t *task) {
	nw, err := iface[drivers.NetworkInterface](t, drivers.Network, "network")
	if err != nil {
		return
	}
	vifs, err := nw.VIFList(ctx, t)
	if err != nil {
		return
	}
	for _, v := range vifs {
		if id, ok := v["id"].(string); ok {
			if err := nw.VIFDetach(ctx, t, id); err != nil {
				m.log.WarnContext(ctx, "detaching VIF on tear down", "node", t.node.UUID, "vif", id, "error", err)
			}
		}
	}
}

// DoProvisioningAction is do_provisioning_action: manage, provide, adopt
// and abort, and any other event the machine allows with nothing to run.
func (m *Manager) DoProvisioningAction(ctx context.Context, _ string, uuid string, action states.Event) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	state := t.ProvisionState()
	switch {
	case action == states.EventProvide && state == states.Manageable:
		if !m.cfg.AllowProvisioningInMaintenance && n.Maintenance {
			t.release(ctx)
			return nodeInMaintenance("providing", n.UUID)
		}
		if n.Retired != nil && *n.Retired {
			t.release(ctx)
			return ironic.Errorf(ironic.NodeIsRetired, "The providing operation can't be performed on node %s because it is retired.", n.UUID)
		}
		return m.startTransition(ctx, t, event{Name: states.EventProvide}, func(ctx context.Context, t *task) {
			m.doNodeClean(ctx, t, nil, false)
		})
	case action == states.EventManage && state == states.Enroll:
		return m.startTransition(ctx, t, event{Name: states.EventManage}, m.doNodeVerify)
	case action == states.EventAdopt && (state == states.Manageable || state == states.AdoptFailed):
		return m.startTransition(ctx, t, event{Name: states.EventAdopt}, m.doAdoption)
	case action == states.EventAbort && (state == states.CleanWait || state == states.RescueWait || state == states.InspectWait):
		return m.doAbort(ctx, t)
	}
	defer t.release(ctx)
	if err := t.processEvent(ctx, event{Name: action}); err != nil {
		return asStateRequested(err, string(action), t, state)
	}
	return nil
}

// doNodeVerify is verify.do_node_verify: the power credentials checked
// (enroll → verifying → manageable, or back to enroll).
func (m *Manager) doNodeVerify(ctx context.Context, t *task) {
	n := t.node
	var msg string
	var actual states.Power
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	if err != nil {
		msg = fmt.Sprintf("Failed to validate power driver interface for node %s. Error: %s", n.UUID, err)
	} else if actual, err = power.GetPowerState(ctx, t); err != nil {
		msg = fmt.Sprintf("Failed to get power state for node %s. Error: %s", n.UUID, err)
	}
	if msg != "" {
		m.log.ErrorContext(ctx, msg, "node", n.UUID)
		t.record(ctx, msg, historyVerify, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing verification", "node", n.UUID, "error", err)
		}
		return
	}
	m.cacheBIOSSettings(ctx, t)
	m.cacheVendor(ctx, t)
	m.cacheBootMode(ctx, t)
	if actual != t.PowerState() {
		t.SetPowerState(actual)
	}
	if err := t.processEvent(ctx, event{Name: states.EventDone}); err != nil {
		m.log.ErrorContext(ctx, "finishing verification", "node", n.UUID, "error", err)
	}
}

// doAdoption is manager._do_adoption.
func (m *Manager) doAdoption(ctx context.Context, t *task) {
	n := t.node
	err := func() error {
		if _, err := m.updateImageType(ctx, t); err != nil {
			return err
		}
		if boot, err := iface[drivers.BootInterface](t, drivers.Boot, "boot"); err != nil {
			return err
		} else if bootOption(t) != "local" {
			if err := boot.Validate(ctx, t); err != nil {
				return err
			}
		}
		return m.doTakeover(ctx, t)
	}()
	if err != nil {
		msg := fmt.Sprintf("Error while attempting to adopt node %s: %s.", n.UUID, err)
		m.log.ErrorContext(ctx, msg, "node", n.UUID)
		n.PowerState = nil
		t.record(ctx, msg, historyAdoption, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing adoption", "node", n.UUID, "error", err)
		}
		return
	}
	if err := t.processEvent(ctx, event{Name: states.EventDone}); err != nil {
		m.log.ErrorContext(ctx, "finishing adoption", "node", n.UUID, "error", err)
	}
}

// bootOption is deploy_utils.get_boot_option: instance_info capabilities'
// boot_option, "local" by default.
func bootOption(t *task) string {
	if caps, ok := pyjson.AsDict(t.node.InstanceInfo.Get("capabilities")); ok {
		if v, ok := caps.Get("boot_option").(string); ok && v != "" {
			return v
		}
	}
	return "local"
}

// doTakeover is manager._do_takeover: the deploy interface rebuilds its
// local state, the console restarts, and the node's affinity becomes this
// conductor.
func (m *Manager) doTakeover(ctx context.Context, t *task) error {
	deploy, err := iface[drivers.DeployInterface](t, drivers.Deploy, "deploy")
	if err != nil {
		return err
	}
	if err := deploy.Prepare(ctx, t); err != nil {
		return err
	}
	if err := deploy.TakeOver(ctx, t); err != nil {
		return err
	}
	if t.node.ConsoleEnabled {
		c, err := iface[drivers.ConsoleInterface](t, drivers.Console, "console")
		if err == nil {
			err = c.StartConsole(ctx, t)
		}
		if err != nil {
			msg := fmt.Sprintf("Failed to start console while taking over the node %s: %s.", t.node.UUID, err)
			t.record(ctx, msg, historyTakeover, true)
			t.node.ConsoleEnabled = false
		}
	}
	id := m.id
	t.node.ConductorAffinity = &id
	return t.Save(ctx)
}

// doAbort is manager._do_abort for clean wait, rescue wait and inspect
// wait.
func (m *Manager) doAbort(ctx context.Context, t *task) error {
	n := t.node
	switch t.ProvisionState() {
	case states.CleanWait:
		if n.CleanStep.Len() > 0 {
			if ab, _ := n.CleanStep.Get("abortable").(bool); !ab {
				defer t.release(ctx)
				if v, _ := n.CleanStep.Get("abort_after").(bool); !v {
					n.CleanStep.Set("abort_after", true)
					return t.Save(ctx)
				}
				return nil
			}
		}
		target := cleaningTarget(models.Deref(n.TargetProvisionState) == states.Manageable)
		le := cleanAbortError(n)
		return m.startTransition(ctx, t, event{Name: states.EventAbort, Target: target, LastError: &le}, m.doNodeCleanAbort)
	case states.RescueWait:
		removeRescuePassword(t)
		if err := t.Save(ctx); err != nil {
			t.release(ctx)
			return err
		}
		return m.startTransition(ctx, t, event{Name: states.EventAbort}, m.doNodeRescueAbort)
	case states.InspectWait:
		defer t.release(ctx)
		insp, err := iface[drivers.InspectInterface](t, drivers.Inspect, "inspect")
		if err == nil {
			err = insp.Abort(ctx, t)
		}
		if err != nil {
			if !ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
				t.record(ctx, "Failed to abort inspection: "+err.Error(), historyIntrospection, true)
				_ = t.Save(ctx)
			}
			return err
		}
		t.record(ctx, "Inspection was aborted by request.", historyIntrospection, true)
		t.wipeTokenAndURL()
		return t.processEvent(ctx, event{Name: states.EventAbort})
	}
	t.release(ctx)
	return nil
}

// InspectHardware is inspect_hardware: power and inspect validated, then
// the inspection runs in a worker; a synchronous inspector ends in
// manageable, an asynchronous one leaves the node in inspect wait.
func (m *Manager) InspectHardware(ctx context.Context, _ string, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
	if err == nil {
		err = power.Validate(ctx, t)
	}
	var insp drivers.InspectInterface
	if err == nil {
		insp, err = iface[drivers.InspectInterface](t, drivers.Inspect, "inspect")
	}
	if err == nil {
		err = insp.Validate(ctx, t)
	}
	if err != nil {
		t.release(ctx)
		return err
	}
	state := t.ProvisionState()
	err = m.startTransition(ctx, t, event{Name: states.EventInspect}, func(ctx context.Context, t *task) {
		m.doInspectHardware(ctx, t, insp)
	})
	return asStateRequested(err, string(states.EventInspect), t, state)
}

// doInspectHardware is manager._do_inspect_hardware.
func (m *Manager) doInspectHardware(ctx context.Context, t *task, insp drivers.InspectInterface) {
	fail := func(msg string) {
		m.log.ErrorContext(ctx, "inspection failed", "node", t.node.UUID, "error", msg)
		t.record(ctx, msg, historyIntrospection, true)
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing inspection", "node", t.node.UUID, "error", err)
		}
	}
	t.wipeTokenAndURL()
	next, err := insp.InspectHardware(ctx, t)
	if err != nil {
		msg := err.Error()
		if unexpected(err) {
			msg = fmt.Sprintf("Unexpected exception of type %s: %s", errClass(err), err)
		}
		fail(msg)
		return
	}
	var ev states.Event
	switch next {
	case states.Manageable:
		ev = states.EventDone
	case states.InspectWait:
		ev = states.EventWait
	default:
		fail(fmt.Sprintf("During inspection, driver returned unexpected state %s", pyOptStr(next)))
		return
	}
	if err := t.processEvent(ctx, event{Name: ev}); err != nil {
		m.log.ErrorContext(ctx, "finishing inspection", "node", t.node.UUID, "error", err)
	}
}

// pyOptStr is how Python shows an optional string (or state): None for "".
func pyOptStr[S ~string](s S) string {
	if s == "" {
		return "None"
	}
	return string(s)
}
