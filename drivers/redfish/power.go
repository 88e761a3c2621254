package redfish

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// Ironic's redfish power maps (ironic/drivers/modules/redfish/power.py).
var (
	getPowerStateMap = map[string]states.Power{
		"On": states.PowerOn, "PoweringOn": states.PowerOn,
		"Off": states.PowerOff, "PoweringOff": states.PowerOff,
	}
	setPowerStateMap = map[states.Power]string{
		states.PowerOn:       "On",
		states.PowerOff:      "ForceOff",
		states.Rebooting:     "ForceRestart",
		states.SoftRebooting: "GracefulRestart",
		states.SoftPowerOff:  "GracefulShutdown",
	}
	targetStateMap = map[states.Power]states.Power{
		states.Rebooting:     states.PowerOn,
		states.SoftRebooting: states.PowerOn,
		states.SoftPowerOff:  states.PowerOff,
	}
)

// Power is the "redfish" power interface.
type Power struct{ base }

// GetPowerState reads the system's PowerState: On and PoweringOn are
// power on, Off and PoweringOff power off, anything else unknown ("").
func (p *Power) GetPowerState(ctx context.Context, task drivers.Task) (states.Power, error) {
	sys, done, err := p.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	return getPowerStateMap[sys.powerState()], nil
}

// SetPowerState resets the system to the state (On, ForceOff,
// GracefulRestart, GracefulShutdown) and waits until it reports it; a
// node whose boot device could only be set once gets it again before it
// powers on.
func (p *Power) SetPowerState(ctx context.Context, task drivers.Task, state states.Power, timeout time.Duration) error {
	sys, done, err := p.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	if state == states.PowerOn || state == states.SoftRebooting || state == states.Rebooting {
		if err := restoreBootDevice(ctx, p.c, task, sys); err != nil {
			return err
		}
	}
	err = p.setState(ctx, task, sys, state, timeout)
	if isSushy(err) {
		msg := fmt.Sprintf("Setting power state to %s failed for node %s. Error: %s", pyState(state), task.NodeUUID(), err)
		p.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return redfishError("%s", msg)
	}
	return err
}

// pyState is how Python shows a power state that may be None.
func pyState(s states.Power) string {
	if s == "" {
		return "None"
	}
	return string(s)
}

// setState is power._set_power_state: the reset, then waiting for the
// target state.
func (p *Power) setState(ctx context.Context, task drivers.Task, sys *system, state states.Power, timeout time.Duration) error {
	value, ok := setPowerStateMap[state]
	if !ok {
		value = "None"
	}
	if err := sys.resetSystem(ctx, value); err != nil {
		return err
	}
	target, ok := targetStateMap[state]
	if !ok {
		target = state
	}
	return p.waitFor(ctx, task, target, timeout)
}

// Reboot powers the system off (ForceOff) if it is on, then on, waiting
// for each state, as Ironic's redfish reboot does.
func (p *Power) Reboot(ctx context.Context, task drivers.Task, timeout time.Duration) error {
	sys, done, err := p.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	next := states.PowerOff
	err = func() error {
		if getPowerStateMap[sys.powerState()] == states.PowerOn {
			if err := p.setState(ctx, task, sys, next, timeout); err != nil {
				return err
			}
		}
		if err := restoreBootDevice(ctx, p.c, task, sys); err != nil {
			return err
		}
		next = states.PowerOn
		return p.setState(ctx, task, sys, next, timeout)
	}()
	if isSushy(err) {
		msg := fmt.Sprintf("Reboot failed for node %s when setting power state to %s. Error: %s", task.NodeUUID(), next, err)
		p.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return redfishError("%s", msg)
	}
	return err
}

// GetSupportedPowerStates returns the states Ironic's redfish power maps.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff}, nil
}

// waitFor is conductor.utils.node_wait_for_power_state: the power state
// read a second after the change, then again with oslo's backing-off
// interval (×1.5 on average, jittered), until it is target or timeout
// (zero: [conductor]power_state_change_timeout) would be exceeded
// (PowerStateFailure).
func (p *Power) waitFor(ctx context.Context, task drivers.Task, target states.Power, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = p.c.cfg.PowerStateChangeTimeout
	}
	if err := p.c.sleep(ctx, time.Second); err != nil {
		return err
	}
	interval, waited := 1.0, 0.0
	limit := timeout.Seconds()
	for {
		cur, err := p.GetPowerState(ctx, task)
		if err != nil {
			return err
		}
		if cur == target {
			return nil
		}
		jitter := math.Abs(0.75 + 0.1*p.c.normal())
		idle := min(max(interval*2*jitter, 0.001), 300)
		interval = max(interval*2*0.75, 0.001)
		if limit > 0 && waited+idle > limit {
			p.c.log.ErrorContext(ctx, "Timed out waiting for the power state", "timeout", timeout, "state", target,
				"node", task.NodeUUID())
			return ironic.Errorf(ironic.PowerStateFailure, "Failed to set node power state to %s.", target)
		}
		waited += idle
		if err := p.c.sleep(ctx, time.Duration(idle*float64(time.Second))); err != nil {
			return err
		}
	}
}

// normal is a standard normal deviate from the core's random source.
func (c *core) normal() float64 {
	if c.cfg.Rand == nil {
		return rand.NormFloat64()
	}
	// Box-Muller from two uniform numbers.
	u1, u2 := max(c.rand(), 1e-12), c.rand()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
