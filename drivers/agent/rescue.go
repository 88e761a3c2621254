package agent

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// FinalizeRescue is rescue.finalize_rescue with the hashed rescue
// password; an agent refusing it gets the plain one unless
// [conductor]require_rescue_password_hashed.
func (c *Client) FinalizeRescue(ctx context.Context, task drivers.Task, requireHashed bool) (Command, error) {
	ii := task.InstanceInfo()
	hashed := ii["hashed_rescue_password"]
	if !py.Truthy(hashed) {
		return nil, ironic.Errorf(ironic.IronicException, "Agent rescue requires rescue_password in instance_info")
	}
	res, err := c.Run(ctx, task, "rescue.finalize_rescue", pyjson.Object{{Key: "rescue_password", Value: hashed}, {Key: "hashed", Value: true}}, false, false)
	if err == nil || !ironic.IsClass(err, ironic.AgentAPIError) {
		return res, err
	}
	if requireHashed {
		return nil, ironic.Errorf(ironic.InstanceRescueFailure, "Unable to rescue node due to an out of date agent ramdisk. Please contact the administrator to update the rescue ramdisk to contain an ironic-python-agent version of at least 6.0.0.")
	}
	return c.Run(ctx, task, "rescue.finalize_rescue", pyjson.Object{{Key: "rescue_password", Value: ii["rescue_password"]}}, false, false)
}

// Rescue is AgentRescue.rescue: the node powers off (its recorded power
// state stays on, as Ironic keeps it for the power sync), leaves the
// tenant networks for the rescuing one and boots the rescue ramdisk; the
// agent's heartbeat finishes the rescue.
func (r *Rescue) Rescue(ctx context.Context, task drivers.Task) (states.Provision, error) {
	if err := task.PowerAction(ctx, states.PowerOff); err != nil {
		return "", err
	}
	task.SetPowerState(states.PowerOn)
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	drv := task.Driver()
	if err := drv.Boot.CleanUpInstance(ctx, task); err != nil {
		return "", err
	}
	if nw := drv.Network; nw != nil {
		err := withNetworkPower(ctx, task, true, func() error {
			if err := nw.UnconfigureTenantNetworks(ctx, task); err != nil {
				return err
			}
			_, err := nw.AddRescuingNetwork(ctx, task)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	if r.cfg.ManageAgentBoot {
		if err := drv.Boot.PrepareRamdisk(ctx, task, map[string]any{}, drivers.RamdiskRescue); err != nil {
			return "", err
		}
	}
	if err := task.PowerAction(ctx, states.PowerOn); err != nil {
		return "", err
	}
	return states.RescueWait, nil
}

// Unrescue is AgentRescue.unrescue: back to the tenant networks and the
// instance's boot.
func (r *Rescue) Unrescue(ctx context.Context, task drivers.Task) (states.Provision, error) {
	if err := task.PowerAction(ctx, states.PowerOff); err != nil {
		return "", err
	}
	task.SetPowerState(states.PowerOn)
	if err := task.Save(ctx); err != nil {
		return "", err
	}
	if err := r.CleanUp(ctx, task); err != nil {
		return "", err
	}
	drv := task.Driver()
	if nw := drv.Network; nw != nil {
		if err := withNetworkPower(ctx, task, true, func() error { return nw.ConfigureTenantNetworks(ctx, task) }); err != nil {
			return "", err
		}
	}
	if err := drv.Boot.PrepareInstance(ctx, task); err != nil {
		return "", err
	}
	if err := task.PowerAction(ctx, states.PowerOn); err != nil {
		return "", err
	}
	return states.Active, nil
}

// CleanUp is AgentRescue.clean_up: the rescue password goes, the rescue
// ramdisk's boot is cleaned up and the rescuing network removed.
func (r *Rescue) CleanUp(ctx context.Context, task drivers.Task) error {
	ii := task.InstanceInfo()
	delete(ii, "rescue_password")
	delete(ii, "hashed_rescue_password")
	if err := task.Save(ctx); err != nil {
		return err
	}
	drv := task.Driver()
	if r.cfg.ManageAgentBoot {
		if err := drv.Boot.CleanUpRamdisk(ctx, task, drivers.RamdiskRescue); err != nil {
			return err
		}
	}
	if nw := drv.Network; nw != nil {
		return withNetworkPower(ctx, task, true, func() error { return nw.RemoveRescuingNetwork(ctx, task) })
	}
	return nil
}

// heartbeatRescueWait is _heartbeat_rescue_wait / _finalize_rescue: the
// agent sets the rescue password; the node leaves the rescuing network
// and is rescued. Failures go to rescuing_error_handler.
func (c Config) heartbeatRescueWait(ctx context.Context, task drivers.Task) {
	if err := c.finalizeRescue(ctx, task); err != nil {
		lastError := fmt.Sprintf("Node failed to perform rescue operation: %s", err)
		c.logf(ctx, task, true, "Asynchronous exception for node %s: %s", task.NodeUUID(), lastError)
		if s := task.ProvisionState(); s == states.Rescuing || s == states.RescueWait {
			task.FailRescue(ctx, lastError)
		}
	}
}

func (c Config) finalizeRescue(ctx context.Context, task drivers.Task) error {
	fail := func(reason any) error {
		inst := any(task.InstanceUUID())
		if task.InstanceUUID() == "" {
			inst = nil
		}
		return ironic.Errorf(ironic.InstanceRescueFailure, "Failed to rescue instance %s for node %s: %s", py.Str(inst), task.NodeUUID(), reason)
	}
	res, err := c.client().FinalizeRescue(ctx, task, c.RequireRescuePasswordHashed)
	if err != nil {
		if ironic.IsClass(err, ironic.InstanceRescueFailure) {
			return err
		}
		return fail(err)
	}
	if res.Status() != "SUCCEEDED" {
		return fail("Agent returned bad result for command finalize_rescue: " + CommandError(res))
	}
	if err := task.ProcessEvent(ctx, "resume"); err != nil {
		return err
	}
	if err := (&Rescue{cfg: c}).CleanUp(ctx, task); err != nil {
		return err
	}
	if nw := task.Driver().Network; nw != nil {
		if err := withNetworkPower(ctx, task, true, func() error { return nw.ConfigureTenantNetworks(ctx, task) }); err != nil {
			return err
		}
	}
	return task.ProcessEvent(ctx, "done")
}
