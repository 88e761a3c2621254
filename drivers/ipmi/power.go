package ipmi

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/states"
)

// Power is the "ipmitool" power interface (IPMIPower).
type Power struct{ t *tool }

// GetProperties returns the IPMI driver_info keys.
func (*Power) GetProperties() drivers.Properties { return commonProperties() }

// Validate checks the node's IPMI driver_info; the BMC is not contacted.
func (p *Power) Validate(ctx context.Context, task drivers.Task) error {
	_, err := p.t.parse(ctx, task)
	return err
}

// GetPowerState runs "power status": PowerOn or PowerOff as ipmitool
// reports it, PowerError for any other answer, an IPMIFailure when
// ipmitool fails.
func (p *Power) GetPowerState(ctx context.Context, task drivers.Task) (states.Power, error) {
	info, err := p.t.parse(ctx, task)
	if err != nil {
		return "", err
	}
	return p.t.powerStatus(ctx, info)
}

// SetPowerState is IPMIPower.set_power_state: power on (after the
// persistent boot device is set again for ipmi_force_boot_device nodes),
// power off, soft power off, or soft reboot (soft off, then on), each
// waiting until the BMC reports the state.
func (p *Power) SetPowerState(ctx context.Context, task drivers.Task, state states.Power, timeout time.Duration) error {
	info, err := p.t.parse(ctx, task)
	if err != nil {
		return err
	}
	switch state {
	case states.PowerOn:
		if err := ensureNextBootDevice(ctx, task, info); err != nil {
			return err
		}
		return p.setAndWait(ctx, task, info, states.PowerOn, timeout)
	case states.PowerOff:
		return p.setAndWait(ctx, task, info, states.PowerOff, timeout)
	case states.SoftPowerOff:
		return p.setAndWait(ctx, task, info, states.SoftPowerOff, timeout)
	case states.SoftRebooting:
		if err := p.setAndWait(ctx, task, info, states.SoftPowerOff, timeout); err != nil {
			return err
		}
		if err := ensureNextBootDevice(ctx, task, info); err != nil {
			return err
		}
		return p.setAndWait(ctx, task, info, states.PowerOn, timeout)
	}
	return drivers.InvalidParameter("set_power_state called with invalid power state %s.", state)
}

// Reboot is IPMIPower.reboot: power off unless the BMC reports the node
// off already, then power on, each waited for.
func (p *Power) Reboot(ctx context.Context, task drivers.Task, timeout time.Duration) error {
	info, err := p.t.parse(ctx, task)
	if err != nil {
		return err
	}
	current, err := p.t.powerStatus(ctx, info)
	if err != nil {
		return err
	}
	if current != states.PowerOff {
		if err := p.setAndWait(ctx, task, info, states.PowerOff, timeout); err != nil {
			return err
		}
	}
	if err := ensureNextBootDevice(ctx, task, info); err != nil {
		return err
	}
	return p.setAndWait(ctx, task, info, states.PowerOn, timeout)
}

// GetSupportedPowerStates returns every power state, as Ironic's ipmitool
// power does.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff}, nil
}

// powerStatus is _power_status.
func (t *tool) powerStatus(ctx context.Context, info *Info) (states.Power, error) {
	const cmd = "power status"
	out, _, err := t.exec(ctx, info, cmd, execOptions{killOnTimeout: t.cfg.KillOnTimeout})
	if err != nil {
		t.cfg.Log.WarnContext(ctx, fmt.Sprintf("IPMI power status failed for node %s with error: %s.", info.NodeUUID, err), "node", info.NodeUUID)
		return "", ipmiFailure(cmd)
	}
	switch out {
	case "Chassis Power is on\n":
		return states.PowerOn, nil
	case "Chassis Power is off\n":
		return states.PowerOff, nil
	}
	return states.PowerError, nil
}

// ipmiFailure is Ironic's IPMIFailure.
func ipmiFailure(cmd string) error {
	return ironic.Errorf(ironic.IPMIFailure, "IPMI call failed: %s.", cmd)
}

// setAndWait is _set_and_wait: "power on", "power off" or "power soft"
// (soft off waits [conductor]soft_power_off_timeout unless given a
// timeout), then the wait for the state.
func (p *Power) setAndWait(ctx context.Context, task drivers.Task, info *Info, action states.Power, timeout time.Duration) error {
	var cmd string
	target := states.PowerOff
	switch action {
	case states.PowerOn:
		cmd, target = "power on", states.PowerOn
	case states.PowerOff:
		cmd = "power off"
	default:
		cmd = "power soft"
		if timeout <= 0 {
			timeout = p.t.cfg.SoftPowerOffTimeout
		}
	}
	if _, _, err := p.t.exec(ctx, info, cmd, execOptions{}); err != nil {
		p.t.cfg.Log.WarnContext(ctx, fmt.Sprintf("IPMI power action %s failed for node %s with error: %s.", cmd, info.NodeUUID, err), "node", info.NodeUUID)
		return ipmiFailure(cmd)
	}
	return p.waitForPowerState(ctx, task, target, timeout)
}

// waitForPowerState is conductor.utils.node_wait_for_power_state: after a
// second, the power state is read until it is want, the pauses growing
// as oslo's BackOffLoopingCall makes them (doubled, with a jitter of
// gauss(0.75, 0.1), at most 300 s) until their sum would pass timeout
// ([conductor]power_state_change_timeout when zero): then a
// PowerStateFailure. A failure to read the state ends the wait with it.
func (p *Power) waitForPowerState(ctx context.Context, task drivers.Task, want states.Power, timeout time.Duration) error {
	cfg := p.t.cfg
	if timeout <= 0 {
		timeout = cfg.PowerStateChangeTimeout
	}
	if err := cfg.Sleeper.Sleep(ctx, time.Second); err != nil {
		return err
	}
	interval, spent := 1.0, 0.0
	limit := timeout.Seconds()
	for {
		state, err := p.GetPowerState(ctx, task)
		if err != nil {
			return err
		}
		if state == want {
			return nil
		}
		jitter := math.Abs(0.75 + 0.1*cfg.Rand.NormFloat64())
		idle := min(max(interval*2*jitter, 0.001), 300)
		interval = max(interval*2*0.75, 0.001)
		if limit > 0 && spent+idle > limit {
			cfg.Log.ErrorContext(ctx, fmt.Sprintf("Timed out after %d secs waiting for %s on node %s.", seconds(timeout), want, task.NodeUUID()), "node", task.NodeUUID())
			return ironic.Errorf(ironic.PowerStateFailure, "Failed to set node power state to %s.", want)
		}
		spent += idle
		if err := cfg.Sleeper.Sleep(ctx, time.Duration(idle*float64(time.Second))); err != nil {
			return err
		}
	}
}

// ensureNextBootDevice is driver_utils.ensure_next_boot_device: for
// ipmi_force_boot_device nodes, the persistent boot device is set again
// before each power on, unless the last one asked was for the next boot
// only (that mark is dropped instead).
func ensureNextBootDevice(ctx context.Context, task drivers.Task, info *Info) error {
	if !boolFromString(info.ForceBootDevice) {
		return nil
	}
	dii := task.DriverInternalInfo()
	if v, ok := dii.Lookup("is_next_boot_persistent"); ok && v == false {
		dii.Delete("is_next_boot_persistent")
		return task.Save(ctx)
	}
	device, _ := dii.Get("persistent_boot_device").(string)
	if device == "" {
		return nil
	}
	return deployutil.NodeSetBootDevice(ctx, task, device, false)
}

// boolFromString is oslo's bool_from_string(v) (not strict): false for
// what it doesn't recognize.
func boolFromString(v any) bool {
	b, err := deployutil.BoolFromString(v)
	return err == nil && b
}
