package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// deployStepDeploy is the name of the deploy step "deploy".
const deployStepDeploy = "deploy"

// Steps declares the out-of-band deploy steps of Ironic's agent deploy
// interfaces: deploy (100), write_image (80, "direct" only),
// prepare_instance_boot (60), tear_down_agent (40),
// switch_to_tenant_network (30) and boot_instance (20). The agent's
// in-band steps would come on top once it heartbeats.
func (d *Deploy) Steps() []drivers.Step {
	step := func(name string, prio int) drivers.Step {
		return drivers.Step{Phase: drivers.DeployStep, Interface: drivers.Deploy, Name: name, Priority: prio}
	}
	steps := []drivers.Step{step(deployStepDeploy, 100)}
	if d.image {
		steps = append(steps, step("write_image", 80))
	}
	return append(steps, step("prepare_instance_boot", 60), step("tear_down_agent", 40),
		step("switch_to_tenant_network", 30), step("boot_instance", 20))
}

// ExecuteStep runs one of the steps Steps declares.
func (d *Deploy) ExecuteStep(ctx context.Context, task drivers.Task, name string, args *pyjson.Dict) (states.Provision, error) {
	switch name {
	case deployStepDeploy:
		return d.Deploy(ctx, task)
	case "write_image":
		if d.image {
			return d.writeImage(ctx, task)
		}
	case "prepare_instance_boot":
		return "", d.prepareInstanceBoot(ctx, task)
	case "tear_down_agent":
		return "", d.tearDownAgent(ctx, task)
	case "switch_to_tenant_network":
		return "", switchToTenantNetwork(ctx, task)
	case "boot_instance":
		return "", bootInstance(ctx, task)
	}
	// An in-band step: the agent runs it.
	phase := stepPhase(task)
	if phase == drivers.CleanStep || py.Truthy(task.DriverInternalInfo().Get("agent_cached_deploy_steps")) {
		return d.cfg.executeInband(ctx, task, phase, name, args)
	}
	oob := make([]string, 0, 6)
	for _, st := range d.Steps() {
		oob = append(oob, fmt.Sprintf("{'step': %s, 'priority': %d, 'argsinfo': None, 'interface': 'deploy'}", py.Repr(st.Name), st.Priority))
	}
	return "", ironic.Errorf(ironic.InstanceDeployFailure,
		"Deploy step {'interface': 'deploy', 'step': %s} has not been found. Available out-of-band steps: [%s]. Agent is not running.",
		py.Repr(name), strings.Join(oob, ", "))
}

// InbandSteps is the agent's part of get_deploy_steps / get_clean_steps:
// the deploy interface's steps the node's agent reported.
func (d *Deploy) InbandSteps(task drivers.Task, phase drivers.StepPhase) []*pyjson.Dict {
	return d.cfg.inbandSteps(task, phase)
}

// shouldWriteImage is the node's storage interface's should_write_image
// (true without one).
func shouldWriteImage(ctx context.Context, task drivers.Task) (bool, error) {
	if st := task.Driver().Storage; st != nil {
		return st.ShouldWriteImage(ctx, task)
	}
	return true, nil
}

// Prepare is Ironic's CustomAgentDeploy.prepare. While deploying, the
// node is powered off; unless it boots from a volume, the provisioning
// network replaces the tenant one; the volumes are attached, and a node
// booting from a volume is ready (no agent needed). Otherwise the agent
// ramdisk is prepared to boot; an active node (conductor take-over) gets
// its instance boot prepared again.
func (d *Deploy) Prepare(ctx context.Context, task drivers.Task) error {
	if err := storage.PopulateInternalInfo(ctx, task); err != nil {
		return err
	}
	drv := task.Driver()
	state := task.ProvisionState()
	if state == states.Deploying {
		if drv.Network != nil {
			if err := drv.Network.Validate(ctx, task); err != nil {
				return err
			}
		}
		fast, err := d.isFastTrack(ctx, task)
		if err != nil {
			return err
		}
		if !fast {
			if err := task.PowerAction(ctx, states.PowerOff); err != nil {
				return err
			}
		}
		write, err := shouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		if write {
			err := withNetworkPower(ctx, task, !fast, func() error {
				if drv.Network == nil {
					return nil
				}
				if err := drv.Network.UnconfigureTenantNetworks(ctx, task); err != nil {
					return err
				}
				return drv.Network.AddProvisioningNetwork(ctx, task)
			})
			if err != nil {
				return err
			}
			if fast {
				if err := d.updateInstanceInfo(ctx, task); err != nil {
					return err
				}
			}
		}
		if drv.Storage != nil {
			if err := drv.Storage.AttachVolumes(ctx, task); err != nil {
				return err
			}
		}
		if !write || fast {
			return nil
		}
	}
	switch state {
	case states.Active, states.Unrescuing:
		return drv.Boot.PrepareInstance(ctx, task)
	case states.Adopting:
		return nil
	case states.Rescuing, states.RescueWait, states.Rescue, states.RescueFailed:
	default:
		if err := d.updateInstanceInfo(ctx, task); err != nil {
			return err
		}
	}
	if d.cfg.ManageAgentBoot {
		return drv.Boot.PrepareRamdisk(ctx, task, map[string]any{}, deployutil.RescueOrDeployMode(task))
	}
	return nil
}

// updateInstanceInfo is _update_instance_info: nothing for
// "custom-agent"; "direct" builds the image information the agent
// downloads (build_instance_info_for_deploy).
func (d *Deploy) updateInstanceInfo(ctx context.Context, task drivers.Task) error {
	if !d.image {
		return nil
	}
	return d.cfg.buildInstanceInfoForDeploy(ctx, task)
}

// Deploy is the "deploy" deploy step: with an image to write, the node
// reboots into the agent ramdisk (unless an earlier step did) and the
// deployment waits for the agent's call back; booting from a volume it
// has nothing to do.
func (d *Deploy) Deploy(ctx context.Context, task drivers.Task) (states.Provision, error) {
	fast, err := d.isFastTrack(ctx, task)
	if err != nil {
		return "", err
	}
	if fast {
		// The agent is up and heartbeating: no reboot; its deploy steps
		// (not necessarily cached) are fetched and the step list
		// recomputed, so the next step is the agent's write_image.
		if d.cfg.Log != nil {
			d.cfg.Log.DebugContext(ctx, "Performing a fast track deployment for "+task.NodeUUID()+".", "node", task.NodeUUID())
		}
		if err := d.cfg.refreshSteps(ctx, task, drivers.DeployStep); err != nil {
			return "", err
		}
		return "", task.ValidateDeploySteps(ctx)
	}
	write, err := shouldWriteImage(ctx, task)
	if err != nil || !write {
		return "", err
	}
	dii := task.DriverInternalInfo()
	if !py.Truthy(dii.Get("deployment_reboot")) {
		if err := task.PowerAction(ctx, states.Rebooting); err != nil {
			return "", err
		}
	}
	dii.Delete("deployment_reboot")
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	return states.DeployWait, nil
}

// writeImage is the write_image step: nothing when booting from a
// volume; otherwise the agent's write_image deploy step, with Ironic's
// image_info, and the deployment waits for it.
func (d *Deploy) writeImage(ctx context.Context, task drivers.Task) (states.Provision, error) {
	write, err := shouldWriteImage(ctx, task)
	if err != nil || !write {
		return "", err
	}
	return d.cfg.executeStep(ctx, task, drivers.DeployStep, d.cfg.writeImageStep(task))
}

// prepareInstanceBoot is the prepare_instance_boot step: the boot
// interface prepares the instance's boot. "direct" writing an image would
// first ask the agent for the partition UUIDs.
func (d *Deploy) prepareInstanceBoot(ctx context.Context, task drivers.Task) error {
	if d.image {
		write, err := shouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		if write {
			return d.cfg.prepareWrittenInstanceBoot(ctx, task)
		}
		return task.Driver().Boot.PrepareInstance(ctx, task)
	}
	if err := task.Driver().Boot.PrepareInstance(ctx, task); err != nil {
		if d.cfg.Log != nil {
			d.cfg.Log.ErrorContext(ctx, fmt.Sprintf("Preparing instance for booting failed for node %s. %s: %s",
				task.NodeUUID(), faultClass(err), err), "node", task.NodeUUID())
		}
		return ironic.Errorf(ironic.InstanceDeployFailure, "Failed to prepare instance for booting")
	}
	return nil
}

// tearDownAgent is the tear_down_agent step: the node is switched off
// before it boots the instance — through the agent when it can, or by
// waiting for it to be off and forcing it off after
// [agent]post_deploy_get_power_state_retries. With no agent running (a
// node booting from a volume) the soft power-off request fails as in
// Ironic, which then checks the power state.
func (d *Deploy) tearDownAgent(ctx context.Context, task drivers.Task) error {
	if d.cfg.DeployLogsCollect == "always" {
		d.cfg.collectRamdiskLogs(ctx, task, "")
	}
	drv := task.Driver()
	supported, err := drv.Power.GetSupportedPowerStates(ctx, task)
	if err != nil {
		return err
	}
	canPowerOn := slices.Contains(supported, states.PowerOn)
	oob, err := deployutil.BoolFromString(orFalse(task.DriverInfo().Get("deploy_forces_oob_reboot")))
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return ironic.Errorf(ironic.InstanceDeployFailure, "Error rebooting node %s after deploy. %s: %s", task.NodeUUID(), faultClass(err), err)
	}
	switch {
	case !canPowerOn:
		if _, err := d.cfg.client().Sync(ctx, task); err != nil {
			return fail(err)
		}
		if err := task.PowerAction(ctx, states.Rebooting); err != nil {
			return fail(err)
		}
	case !oob:
		if _, err := d.cfg.client().PowerOff(ctx, task); err != nil && d.cfg.Log != nil {
			d.cfg.Log.WarnContext(ctx, fmt.Sprintf("Failed to soft power off node %s. %s: %s", task.NodeUUID(), faultClass(err), err), "node", task.NodeUUID())
		}
		if !d.waitPoweredOff(ctx, task) {
			if d.cfg.Log != nil {
				d.cfg.Log.WarnContext(ctx, fmt.Sprintf("Failed to soft power off node %s in at least %d seconds. Forcing hard power off and proceeding.",
					task.NodeUUID(), int(d.cfg.PostDeployPowerStateRetryInterval.Seconds())*d.cfg.PostDeployPowerStateRetries), "node", task.NodeUUID())
			}
			if err := task.PowerAction(ctx, states.PowerOff); err != nil {
				return fail(err)
			}
		}
	default:
		if res, err := d.cfg.client().Sync(ctx, task); err != nil {
			return fail(err)
		} else if fs := py.Str(res["faultstring"]); res["faultstring"] != nil && d.cfg.Log != nil {
			if strings.Contains(fs, "Unknown command") {
				fs = "The version of the IPA ramdisk used in the deployment do not support the command \"sync\""
			}
			d.cfg.Log.WarnContext(ctx, fmt.Sprintf("Failed to flush the file system prior to hard rebooting the node %s: %s", task.NodeUUID(), fs), "node", task.NodeUUID())
		}
		if err := task.PowerAction(ctx, states.PowerOff); err != nil {
			return fail(err)
		}
	}
	return nil
}

// waitPoweredOff polls the power state up to
// [agent]post_deploy_get_power_state_retries+1 times, until it is off.
func (d *Deploy) waitPoweredOff(ctx context.Context, task drivers.Task) bool {
	power := task.Driver().Power
	for i := 0; i <= d.cfg.PostDeployPowerStateRetries; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return false
			case <-d.cfg.After(d.cfg.PostDeployPowerStateRetryInterval):
			}
		}
		if st, err := power.GetPowerState(ctx, task); err == nil && st == states.PowerOff {
			return true
		}
	}
	return false
}

// switchToTenantNetwork is the switch_to_tenant_network step.
func switchToTenantNetwork(ctx context.Context, task drivers.Task) error {
	nw := task.Driver().Network
	if nw == nil {
		return nil
	}
	err := withNetworkPower(ctx, task, true, func() error {
		if err := nw.RemoveProvisioningNetwork(ctx, task); err != nil {
			return err
		}
		return nw.ConfigureTenantNetworks(ctx, task)
	})
	if err != nil {
		return ironic.Errorf(ironic.InstanceDeployFailure, "Error changing node %s to tenant networks after deploy. %s: %s", task.NodeUUID(), faultClass(err), err)
	}
	return nil
}

// bootInstance is the boot_instance step: the node is powered on when its
// power interface can.
func bootInstance(ctx context.Context, task drivers.Task) error {
	supported, err := task.Driver().Power.GetSupportedPowerStates(ctx, task)
	if err == nil && slices.Contains(supported, states.PowerOn) {
		err = task.PowerAction(ctx, states.PowerOn)
	}
	if err != nil {
		return ironic.Errorf(ironic.InstanceDeployFailure, "Error booting node %s after deploy. %s: %s", task.NodeUUID(), faultClass(err), err)
	}
	return nil
}

// TearDown is AgentBaseMixin.tear_down: the node is powered off, its
// volumes detached and its volume targets deleted, and it leaves the
// tenant and provisioning networks.
func (d *Deploy) TearDown(ctx context.Context, task drivers.Task) (states.Provision, error) {
	return tearDown(ctx, task, d.cfg.Log)
}

func tearDown(ctx context.Context, task drivers.Task, log *slog.Logger) (states.Provision, error) {
	if err := task.PowerAction(ctx, states.PowerOff); err != nil {
		return "", err
	}
	if err := storage.DeployTearDown(ctx, task, log); err != nil {
		return "", err
	}
	nw := task.Driver().Network
	if nw != nil {
		err := withNetworkPower(ctx, task, true, func() error {
			if err := nw.UnconfigureTenantNetworks(ctx, task); err != nil {
				return err
			}
			return nw.RemoveProvisioningNetwork(ctx, task)
		})
		if err != nil {
			return "", err
		}
	}
	return states.Deleted, nil
}

// CleanUp is AgentBaseMixin.clean_up: the boot interface forgets the
// agent ramdisk (when Ironic manages its boot) and the instance; the
// direct deploy also drops the image the conductor served
// (destroy_http_instance_images).
func (d *Deploy) CleanUp(ctx context.Context, task drivers.Task) error {
	err := cleanUp(ctx, task, d.cfg.ManageAgentBoot)
	if d.image {
		d.cfg.destroyHTTPInstanceImages(task)
	}
	return err
}

func cleanUp(ctx context.Context, task drivers.Task, manageBoot bool) error {
	boot := task.Driver().Boot
	if manageBoot {
		if err := boot.CleanUpRamdisk(ctx, task, ""); err != nil {
			return err
		}
	}
	return boot.CleanUpInstance(ctx, task)
}

// TakeOver has nothing to do.
func (d *Deploy) TakeOver(context.Context, drivers.Task) error { return nil }

// PrepareCleaning is AgentBaseMixin.prepare_cleaning.
func (d *Deploy) PrepareCleaning(ctx context.Context, task drivers.Task) (states.Provision, error) {
	return d.cfg.prepareCleaning(ctx, task, d.cfg.ManageAgentBoot)
}

// prepareCleaning is AgentBaseMixin.prepare_cleaning: in-band cleaning
// prepared; when fast track goes on without a reboot, the running
// agent's clean steps are fetched now, so that the step list the
// conductor computes next has them.
func (c Config) prepareCleaning(ctx context.Context, task drivers.Task, manageBoot bool) (states.Provision, error) {
	next, err := c.prepareInbandCleaning(ctx, task, manageBoot)
	if err != nil || next != "" {
		return next, err
	}
	return "", c.refreshSteps(ctx, task, drivers.CleanStep)
}

// TearDownCleaning is AgentBaseMixin.tear_down_cleaning.
func (d *Deploy) TearDownCleaning(ctx context.Context, task drivers.Task) error {
	return d.cfg.tearDownInbandCleaning(ctx, task, d.cfg.ManageAgentBoot)
}

// prepareInbandCleaning is Ironic's deploy_utils.prepare_inband_cleaning:
// the node joins the cleaning network, driver_internal_info gets the
// agent's disk erasure options, the agent ramdisk is prepared to boot and
// the node reboots into it; cleaning then waits for the agent (clean
// wait). With fast track (a live agent on a powered node) nothing
// reboots and the steps go on at once.
func (c Config) prepareInbandCleaning(ctx context.Context, task drivers.Task, manageBoot bool) (states.Provision, error) {
	fast, err := c.isFastTrack(ctx, task)
	if err != nil {
		return "", err
	}
	if nw := task.Driver().Network; nw != nil {
		err := withNetworkPower(ctx, task, !fast, func() error {
			_, err := nw.AddCleaningNetwork(ctx, task)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	dii := task.DriverInternalInfo()
	dii.Set("agent_erase_devices_iterations", c.ShredRandomOverwriteIterations)
	dii.Set("agent_erase_devices_zeroize", c.ShredFinalOverwriteWithZeros)
	dii.Set("agent_continue_if_secure_erase_failed", c.ContinueIfDiskSecureEraseFails)
	dii.Set("agent_continue_if_ata_erase_failed", c.ContinueIfDiskSecureEraseFails)
	dii.Set("agent_enable_nvme_secure_erase", c.EnableNVMeSecureErase)
	dii.Set("agent_enable_ata_secure_erase", c.EnableATASecureErase)
	dii.Set("disk_erasure_concurrency", c.DiskErasureConcurrency)
	dii.Set("agent_erase_skip_read_only", c.EraseSkipReadOnly)
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	if manageBoot {
		if err := task.Driver().Boot.PrepareRamdisk(ctx, task, map[string]any{}, deployutil.RescueOrDeployMode(task)); err != nil {
			return "", err
		}
	}
	if fast, err = c.isFastTrack(ctx, task); err != nil || fast {
		return "", err
	}
	if err := task.PowerAction(ctx, states.Rebooting); err != nil {
		return "", err
	}
	return states.CleanWait, nil
}

// tearDownInbandCleaning is Ironic's deploy_utils.tear_down_inband_cleaning:
// the node is powered off (not when fast tracked), the agent ramdisk's
// boot cleaned up and the cleaning network removed. Ironic keeps a node
// whose cleaning failed powered on; the node's fault is not visible to
// drivers here, so such a node is powered off too.
func (c Config) tearDownInbandCleaning(ctx context.Context, task drivers.Task, manageBoot bool) error {
	fast, err := c.isFastTrack(ctx, task)
	if err != nil {
		return err
	}
	if !fast {
		if err := task.PowerAction(ctx, states.PowerOff); err != nil {
			return err
		}
	}
	if manageBoot {
		if err := task.Driver().Boot.CleanUpRamdisk(ctx, task, ""); err != nil {
			return err
		}
	}
	if nw := task.Driver().Network; nw != nil {
		return withNetworkPower(ctx, task, true, func() error { return nw.RemoveCleaningNetwork(ctx, task) })
	}
	return nil
}

// Heartbeat is HeartbeatMixin.heartbeat: the agent's call back drives
// the deployment or cleaning on.
func (d *Deploy) Heartbeat(ctx context.Context, task drivers.Task, hb drivers.Heartbeat) error {
	return d.cfg.heartbeat(ctx, task, hb)
}

// isFastTrack is Ironic's is_fast_track: fast track enabled for the
// node, its agent alive and its power on.
func (d *Deploy) isFastTrack(ctx context.Context, task drivers.Task) (bool, error) {
	return d.cfg.isFastTrack(ctx, task)
}

// isFastTrack is conductor.utils.is_fast_track, in its order: the node
// fast-track-able (fast_track_able: enabled, an image to write, no
// last_error), then its power state read, then its agent alive.
func (c Config) isFastTrack(ctx context.Context, task drivers.Task) (bool, error) {
	enabled, err := deployutil.FastTrackEnabled(task, c.FastTrack)
	if err != nil || !enabled {
		return false, err
	}
	write, err := shouldWriteImage(ctx, task)
	if err != nil || !write || task.LastError() != nil {
		return false, err
	}
	st, err := task.Driver().Power.GetPowerState(ctx, task)
	if err != nil || st != states.PowerOn {
		return false, err
	}
	return (&Power{cfg: c}).agentAlive(task), nil
}

// withNetworkPower is deployutil.WithNetworkPower when the conductor
// manages the node's power for this step (manage), else fn alone.
func withNetworkPower(ctx context.Context, task drivers.Task, manage bool, fn func() error) error {
	if !manage {
		return fn()
	}
	return deployutil.WithNetworkPower(ctx, task, fn)
}

// faultClass is the Python exception class name of err, as Ironic's
// messages quote it.
func faultClass(err error) string {
	if f := (*ironic.Fault)(nil); errors.As(err, &f) {
		return string(f.Class)
	}
	return "Exception"
}

func orFalse(v any) any {
	if v == nil {
		return false
	}
	return v
}
