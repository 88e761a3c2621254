package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// heartbeatAllowed is HEARTBEAT_ALLOWED (FASTTRACK_HEARTBEAT_ALLOWED with
// fast track).
func heartbeatAllowed(state states.Provision, fast bool) bool {
	switch state {
	case states.DeployWait, states.CleanWait, states.RescueWait, states.Deploying:
		return true
	case states.Cleaning, states.Rescuing:
		return !fast
	case states.Enroll, states.Manageable, states.Available:
		return fast
	}
	return false
}

// heartbeatRecordOnly is _HEARTBEAT_RECORD_ONLY.
func heartbeatRecordOnly(state states.Provision) bool {
	switch state {
	case states.Enroll, states.Manageable, states.Available, states.Cleaning, states.Deploying, states.Rescuing:
		return true
	}
	return false
}

// isoNow is timeutils.utcnow().isoformat().
func isoNow(c ironic.Clock) string {
	now := c.Now().UTC()
	if now.Nanosecond()/1000 == 0 {
		return now.Format("2006-01-02T15:04:05")
	}
	return now.Format("2006-01-02T15:04:05.000000")
}

// heartbeat is HeartbeatMixin.heartbeat: the agent's URL, version and the
// time are recorded; in wait call-back the deployment goes on (agent
// steps cached, next step started or the running one checked), in clean
// wait the cleaning does.
func (c Config) heartbeat(ctx context.Context, task drivers.Task, hb drivers.Heartbeat) error {
	fastEnabled, _ := deployutil.FastTrackEnabled(task, c.FastTrack)
	state := task.ProvisionState()
	if !heartbeatAllowed(state, fastEnabled) {
		c.logf(ctx, task, true, "Heartbeat from node %s in unsupported provision state %s, not taking any action.", task.NodeUUID(), state)
		return nil
	}
	if err := task.UpgradeLock(ctx); err != nil {
		if ironic.IsClass(err, ironic.NodeLocked) {
			c.logf(ctx, task, false, "Node %s is currently locked, skipping heartbeat processing (will retry on the next heartbeat)", task.NodeUUID())
			return nil
		}
		return err
	}
	state = task.ProvisionState()
	dii := task.DriverInternalInfo()
	dii.Set("agent_url", hb.CallbackURL)
	dii.Set("agent_version", hb.AgentVersion)
	dii.Set("agent_last_heartbeat", isoNow(c.Clock))
	if hb.AgentVerifyCA != "" {
		dii.Set("agent_verify_ca", hb.AgentVerifyCA)
	}
	if hb.AgentStatus != "" {
		dii.Set("agent_status", hb.AgentStatus)
	}
	if hb.AgentStatusMessage != "" {
		dii.Set("agent_status_message", hb.AgentStatusMessage)
	}
	if err := task.Save(ctx); err != nil {
		return err
	}
	if heartbeatRecordOnly(state) {
		return nil
	}
	if task.Maintenance() {
		c.heartbeatInMaintenance(ctx, task)
		return nil
	}
	switch state {
	case states.DeployWait:
		c.heartbeatDeployWait(ctx, task)
	case states.CleanWait:
		c.heartbeatCleanWait(ctx, task)
	case states.RescueWait:
		c.heartbeatRescueWait(ctx, task)
	}
	return nil
}

// heartbeatInMaintenance is _heartbeat_in_maintenance.
func (c Config) heartbeatInMaintenance(ctx context.Context, task drivers.Task) {
	switch task.ProvisionState() {
	case states.Cleaning, states.CleanWait:
		if !c.AllowProvisioningInMaintenance {
			task.FailSteps(ctx, drivers.CleanStep, "Cleaning aborted as node is in maintenance mode")
			return
		}
	case states.Deploying, states.DeployWait:
		if !c.AllowProvisioningInMaintenance {
			task.FailSteps(ctx, drivers.DeployStep, "Deploy aborted as node is in maintenance mode")
			return
		}
	case states.Rescuing, states.RescueWait:
		if !c.AllowProvisioningInMaintenance {
			task.FailRescue(ctx, "Rescue aborted as node is in maintenance mode")
			return
		}
	}
	c.logf(ctx, task, false, "Heartbeat from node %s in maintenance mode; not taking any action.", task.NodeUUID())
}

// heartbeatDeployWait is _heartbeat_deploy_wait.
func (c Config) heartbeatDeployWait(ctx context.Context, task drivers.Task) {
	msg := "Unexpected exception"
	dii := task.DriverInternalInfo()
	var err error
	if !py.Truthy(dii.Get("agent_cached_deploy_steps")) {
		msg = "Failed to load in-band deploy steps"
		err = c.refreshSteps(ctx, task, drivers.DeployStep)
	}
	if err == nil {
		err = task.TouchProvisioning(ctx)
	}
	if polling, _ := dii.Get("deployment_polling").(bool); err == nil && !polling {
		msg = "Failed to process the next deploy step"
		err = c.processNextStep(ctx, task, drivers.DeployStep)
	}
	if err != nil {
		lastError := fmt.Sprintf("%s: %s", msg, err)
		c.logf(ctx, task, true, "Asynchronous exception for node %s: %s", task.NodeUUID(), lastError)
		if s := task.ProvisionState(); s == states.Deploying || s == states.DeployWait {
			c.collectOnFailure(ctx, task)
			task.FailSteps(ctx, drivers.DeployStep, lastError)
		}
	}
}

// heartbeatCleanWait is _heartbeat_clean_wait: a node that just booted
// gets its clean steps from the agent and starts the first; later the
// running step is checked.
func (c Config) heartbeatCleanWait(ctx context.Context, task drivers.Task) {
	msg := "Failed checking if cleaning is done"
	err := task.TouchProvisioning(ctx)
	switch {
	case err != nil:
	case task.CurrentStep(drivers.CleanStep).Len() == 0:
		msg = "Node failed to start the first cleaning step"
		if err = c.refreshSteps(ctx, task, drivers.CleanStep); err == nil {
			if err = task.SetCleaningSteps(ctx); err == nil {
				err = task.ContinueSteps(ctx, drivers.CleanStep)
			}
		}
	default:
		msg = "Node failed to check cleaning progress"
		if polling, _ := task.DriverInternalInfo().Get("cleaning_polling").(bool); !polling {
			err = c.processNextStep(ctx, task, drivers.CleanStep)
		}
	}
	if err != nil {
		lastError := fmt.Sprintf("%s: %s", msg, err)
		if s := task.ProvisionState(); s == states.Cleaning || s == states.CleanWait {
			task.FailSteps(ctx, drivers.CleanStep, lastError)
		}
	}
}

// stepFailure is NodeCleaningFailure or InstanceDeployFailure (_raise).
func stepFailure(phase drivers.StepPhase, format string, args ...any) error {
	if phase == drivers.CleanStep {
		return ironic.Errorf(ironic.NodeCleaningFailure, format, args...)
	}
	return ironic.Errorf(ironic.InstanceDeployFailure, format, args...)
}

// refreshSteps is AgentBaseMixin.refresh_steps: the agent's steps of
// phase, grouped by interface, cached in
// driver_internal_info/agent_cached_<phase>_steps with the hardware
// manager version. A busy agent is asked again on the next heartbeat.
func (c Config) refreshSteps(ctx context.Context, task drivers.Task, phase drivers.StepPhase) error {
	res, err := c.client().GetSteps(ctx, task, phase)
	if ironic.IsClass(err, ironic.AgentInProgress) {
		return nil
	}
	if err != nil {
		return err
	}
	result := res.Result()
	if result == nil {
		result = pyjson.NewDict(0)
	}
	stepsKey := string(phase) + "_steps"
	var missing []string
	for _, k := range []string{stepsKey, "hardware_manager_version"} {
		if _, ok := result.Lookup(k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return stepFailure(phase, "agent get_%s_steps for node %s returned an invalid result. Keys: %s are missing from result: %s.",
			phase, task.NodeUUID(), pySet(missing), py.Repr(result))
	}
	// By hardware manager in the agent's order; the cache is by
	// interface, in the order interfaces first appear.
	byManager, _ := result.Get(stepsKey).(*pyjson.Dict)
	steps := pyjson.NewDict(1)
	for _, l := range byManager.All() {
		list, _ := l.([]any)
		for _, s := range list {
			step, ok := s.(*pyjson.Dict)
			if !ok {
				continue
			}
			var miss []string
			for _, k := range []string{"interface", "step", "priority"} {
				if !step.Has(k) {
					miss = append(miss, k)
				}
			}
			if len(miss) > 0 {
				return stepFailure(phase, "agent get_%s_steps for node %s returned an invalid %s step. Keys: %s are missing from step: %s.",
					phase, task.NodeUUID(), phase, pySet(miss), py.Repr(step))
			}
			if phase == drivers.CleanStep {
				step.Set("requires_ramdisk", true)
			}
			iface := py.Str(step.Get("interface"))
			l, _ := steps.Get(iface).([]any)
			steps.Set(iface, append(l, step))
		}
	}
	dii := task.DriverInternalInfo()
	dii.Set("hardware_manager_version", result.Get("hardware_manager_version"))
	dii.Set("agent_cached_"+string(phase)+"_steps", steps)
	dii.Set("agent_cached_"+string(phase)+"_steps_refreshed", isoNow(c.Clock))
	return task.Save(ctx)
}

func pySet(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = py.Repr(s)
	}
	return "{" + strings.Join(q, ", ") + "}"
}

// cachedSteps is agent_base.get_steps: the cached agent steps of phase
// for interface iface, copied, priorities overridden.
func cachedSteps(task drivers.Task, phase drivers.StepPhase, iface string, override map[string]*int) []*pyjson.Dict {
	all, _ := task.DriverInternalInfo().Get("agent_cached_" + string(phase) + "_steps").(*pyjson.Dict)
	list, _ := all.Get(iface).([]any)
	out := make([]*pyjson.Dict, 0, len(list))
	for _, s := range list {
		step, ok := s.(*pyjson.Dict)
		if !ok {
			continue
		}
		cp := step.Clone()
		if p := override[py.Str(cp.Get("step"))]; p != nil {
			cp.Set("priority", *p)
		}
		out = append(out, cp)
	}
	return out
}

// inbandSteps is get_clean_steps / the in-band part of get_deploy_steps
// of the agent deploy interfaces: the agent's cached steps of the deploy
// interface; clean steps with [deploy]erase_devices_priority and
// erase_devices_metadata_priority applied.
func (c Config) inbandSteps(task drivers.Task, phase drivers.StepPhase) []*pyjson.Dict {
	var override map[string]*int
	if phase == drivers.CleanStep {
		override = map[string]*int{"erase_devices": c.EraseDevicesPriority, "erase_devices_metadata": c.EraseDevicesMetadataPriority}
	}
	return cachedSteps(task, phase, string(drivers.Deploy), override)
}

// stepPhase is the phase an in-band step runs in: cleaning while the
// node cleans, deploying otherwise.
func stepPhase(task drivers.Task) drivers.StepPhase {
	switch task.ProvisionState() {
	case states.Cleaning, states.CleanWait:
		return drivers.CleanStep
	}
	return drivers.DeployStep
}

// executeInband is agent_base.execute_step for the in-band step name:
// the agent starts it and the step waits for the heartbeats.
func (c Config) executeInband(ctx context.Context, task drivers.Task, phase drivers.StepPhase, name string, args *pyjson.Dict) (states.Provision, error) {
	var step *pyjson.Dict
	if cur := task.CurrentStep(phase); py.Str(cur.Get("step")) == name {
		step = cur
	}
	if step == nil {
		for _, s := range cachedSteps(task, phase, string(drivers.Deploy), nil) {
			if py.Str(s.Get("step")) == name {
				step = s
			}
		}
		if step == nil {
			step = pyjson.DictOf("interface", string(drivers.Deploy), "step", name)
		}
		if args != nil {
			step.Set("args", args)
		}
	}
	return c.executeStep(ctx, task, phase, step)
}

func (c Config) executeStep(ctx context.Context, task drivers.Task, phase drivers.StepPhase, step any) (states.Provision, error) {
	res, err := c.client().ExecuteStep(ctx, task, phase, step)
	if err != nil {
		return "", err
	}
	if !py.Truthy(res["command_status"]) {
		return "", stepFailure(phase, "Agent on node %s returned bad command result: %s", task.NodeUUID(), py.Repr(map[string]any(res)))
	}
	if phase == drivers.CleanStep {
		return states.CleanWait, nil
	}
	return states.DeployWait, nil
}

// freshlyBooted is _freshly_booted: the agent ran nothing yet but
// get_<phase>_steps.
func freshlyBooted(cmds []Command, phase drivers.StepPhase) bool {
	return len(cmds) == 0 || (len(cmds) == 1 && cmds[0].Name() == fmt.Sprintf("get_%s_steps", phase))
}

// sameStep is steps.is_equivalent: same interface and step name.
func sameStep(a, b *pyjson.Dict) bool {
	return py.Str(a.Get("interface")) == py.Str(b.Get("interface")) && py.Str(a.Get("step")) == py.Str(b.Get("step"))
}

// completedCommand is _get_completed_command: the agent's last command
// when it is the current step's execution and has finished.
func completedCommand(cmds []Command, phase drivers.StepPhase, current *pyjson.Dict) Command {
	last := cmds[len(cmds)-1]
	if last.Name() != fmt.Sprintf("execute_%s_step", phase) {
		return nil
	}
	lastStep, _ := last.Result().Get(string(phase) + "_step").(*pyjson.Dict)
	switch {
	case last.Status() == "RUNNING":
		return nil
	case last.Status() == "SUCCEEDED" && (lastStep.Len() == 0 || !sameStep(lastStep, current)):
		return nil
	}
	return last
}

func stepIDOf(s *pyjson.Dict) string { return py.Str(s.Get("interface")) + "." + py.Str(s.Get("step")) }

// processNextStep is AgentBaseMixin.process_next_step: once the agent's
// command for the current step has finished, the next step starts (or
// the node reboots first when the step asked for it); a failed command
// fails the cleaning or deployment.
func (c Config) processNextStep(ctx context.Context, task drivers.Task, phase drivers.StepPhase) error {
	cmds, err := c.client().CommandsStatus(ctx, task, true)
	if err != nil {
		return err
	}
	dii := task.DriverInternalInfo()
	if freshlyBooted(cmds, phase) {
		if phase == drivers.CleanStep {
			dii.Delete("cleaning_reboot")
		} else {
			dii.Delete("deployment_reboot")
		}
		if err := task.Save(ctx); err != nil {
			return err
		}
		return task.ContinueSteps(ctx, phase)
	}
	current := task.CurrentStep(phase)
	cmd := completedCommand(cmds, phase, current)
	if cmd == nil {
		return nil
	}
	title := strings.ToUpper(string(phase[:1])) + string(phase[1:])
	switch cmd.Status() {
	case "FAILED":
		c.stepFailure(ctx, task, phase, fmt.Sprintf("%s step %s failed on node %s. %s", title, stepIDOf(current), task.NodeUUID(), CommandError(cmd)))
		return nil
	case "CLEAN_VERSION_MISMATCH", "VERSION_MISMATCH":
		return c.processVersionMismatch(ctx, task, phase)
	case "SUCCEEDED":
		if b, _ := current.Get("reboot_requested").(bool); b {
			c.postStepReboot(ctx, task, phase)
			return nil
		}
		return task.ContinueSteps(ctx, phase)
	}
	c.stepFailure(ctx, task, phase, fmt.Sprintf("Agent returned unknown status for %s step %s on node %s : %s.",
		phase, py.Repr(current), task.NodeUUID(), cmd.Status()))
	return nil
}

// stepFailure is _step_failure_handler: the ramdisk logs are collected
// (labelled "cleaning" for cleaning), then the error handler runs.
func (c Config) stepFailure(ctx context.Context, task drivers.Task, phase drivers.StepPhase, msg string) {
	label := ""
	if phase == drivers.CleanStep {
		label = "cleaning"
	}
	c.collectRamdiskLogs(ctx, task, label)
	task.FailSteps(ctx, phase, msg)
}

// processVersionMismatch is _process_version_mismatch: the agent
// restarted with other hardware managers; its steps are read again and
// automated cleaning starts over, while manual cleaning and deployment
// repeat the current step.
func (c Config) processVersionMismatch(ctx context.Context, task drivers.Task, phase drivers.StepPhase) error {
	if err := c.refreshSteps(ctx, task, phase); err != nil {
		verb := "continue deployment"
		if phase == drivers.CleanStep {
			verb = "continue cleaning"
		}
		task.FailSteps(ctx, phase, fmt.Sprintf("Could not %s on node %s: %s.", verb, task.NodeUUID(), err))
		return nil
	}
	if phase == drivers.CleanStep && task.TargetProvisionState() != states.Manageable {
		if err := task.SetCleaningSteps(ctx); err != nil {
			task.FailSteps(ctx, phase, fmt.Sprintf("Could not restart automated cleaning on node %s after step %s: %s.",
				task.NodeUUID(), py.Repr(task.CurrentStep(phase)), err))
			return nil
		}
	} else {
		task.DriverInternalInfo().Set("skip_current_"+string(phase)+"_step", false)
		if err := task.Save(ctx); err != nil {
			return err
		}
	}
	return task.ContinueSteps(ctx, phase)
}

// postStepReboot is _post_step_reboot: the node reboots into the agent
// after a step that asked for it; the agent will look up a new token.
func (c Config) postStepReboot(ctx context.Context, task drivers.Task, phase drivers.StepPhase) {
	err := error(nil)
	if c.ManageAgentBoot {
		err = task.Driver().Boot.PrepareRamdisk(ctx, task, map[string]any{}, drivers.RamdiskDeploy)
	}
	if err == nil {
		err = task.PowerAction(ctx, states.Rebooting)
	}
	if err != nil {
		task.FailSteps(ctx, phase, fmt.Sprintf("Reboot requested by %s step %s failed for node %s: %s",
			phase, py.Repr(task.CurrentStep(phase)), task.NodeUUID(), err))
		return
	}
	dii := task.DriverInternalInfo()
	if phase == drivers.CleanStep {
		dii.Set("cleaning_reboot", true)
	} else {
		dii.Set("deployment_reboot", true)
	}
	if b, _ := dii.Get("agent_secret_token_pregenerated").(bool); !b {
		dii.Delete("agent_secret_token")
	}
	if err := task.Save(ctx); err != nil {
		c.logf(ctx, task, true, "saving node %s after a reboot: %s", task.NodeUUID(), err)
	}
}

func (c Config) logf(ctx context.Context, task drivers.Task, isErr bool, format string, args ...any) {
	if c.Log == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if isErr {
		c.Log.ErrorContext(ctx, msg, "node", task.NodeUUID())
	} else {
		c.Log.WarnContext(ctx, msg, "node", task.NodeUUID())
	}
}

// client is the agent client for this configuration.
func (c Config) client() *Client {
	if c.Client != nil {
		return c.Client
	}
	return NewClient(ClientConfig{})
}
