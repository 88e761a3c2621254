// Package fake implements Ironic's "fake" interfaces of every kind: they
// touch no hardware, accept every node, and behave as Ironic's fake driver
// modules do (fake power keeps the state it is asked for, fake management
// always boots from PXE, fake BIOS writes the settings it is given into the
// node's cache, ...). Operations can be slowed down by the [fake] *_delay
// options. The package also holds Task, an in-memory drivers.Task for
// tests.
package fake

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// Delay is one [fake]*_delay option: operations sleep between Min and Max
// (a triangular distribution weighted towards Min, as Ironic's fake driver
// does); zero means no delay.
type Delay struct {
	Min, Max time.Duration
}

// ParseDelay parses a *_delay option: "<seconds>" or "<min>,<max>".
func ParseDelay(s string) (Delay, error) {
	if strings.TrimSpace(s) == "" {
		return Delay{}, nil
	}
	parts := strings.Split(s, ",")
	a := parts[0]
	b := a
	if len(parts) > 1 {
		b = parts[1]
	}
	x, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return Delay{}, fmt.Errorf("invalid fake delay %q: %w", s, err)
	}
	y, err := strconv.Atoi(strings.TrimSpace(b))
	if err != nil {
		return Delay{}, fmt.Errorf("invalid fake delay %q: %w", s, err)
	}
	return Delay{Min: time.Duration(x) * time.Second, Max: time.Duration(y) * time.Second}, nil
}

// Config holds the [fake] options.
type Config struct {
	PowerDelay      Delay
	BootDelay       Delay
	DeployDelay     Delay
	VendorDelay     Delay
	ManagementDelay Delay
	InspectDelay    Delay
	RAIDDelay       Delay
	BIOSDelay       Delay
	StorageDelay    Delay
	RescueDelay     Delay

	// Rand returns a number in [0, 1) for the random delays; nil uses
	// math/rand/v2.
	Rand func() float64
	// Sleep waits d or until ctx ends; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

type sleeper struct {
	delay Delay
	rnd   func() float64
	sleep func(context.Context, time.Duration) error
}

func (c Config) sleeper(d Delay) sleeper {
	s := sleeper{delay: d, rnd: c.Rand, sleep: c.Sleep}
	if s.rnd == nil {
		s.rnd = rand.Float64
	}
	if s.sleep == nil {
		s.sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return s
}

// wait sleeps for the configured delay.
func (s sleeper) wait(ctx context.Context) error {
	lo, hi := s.delay.Min, s.delay.Max
	if lo == 0 && hi == 0 {
		return nil
	}
	d := lo
	if hi != lo {
		// triangular(lo, hi, mode=lo)
		d = hi - time.Duration(float64(hi-lo)*math.Sqrt(1-s.rnd()))
	}
	return s.sleep(ctx, d)
}

// Implementations returns every fake implementation under its Ironic name,
// "fake", for drivers.NewRegistry.
func Implementations(cfg Config) []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.BIOS, Name: "fake", Impl: &BIOS{s: cfg.sleeper(cfg.BIOSDelay)}},
		{Kind: drivers.Boot, Name: "fake", Impl: &Boot{s: cfg.sleeper(cfg.BootDelay)}},
		{Kind: drivers.Console, Name: "fake", Impl: &Console{}},
		{Kind: drivers.Deploy, Name: "fake", Impl: &Deploy{s: cfg.sleeper(cfg.DeployDelay)}},
		{Kind: drivers.Inspect, Name: "fake", Impl: &Inspect{s: cfg.sleeper(cfg.InspectDelay)}},
		{Kind: drivers.Management, Name: "fake", Impl: &Management{s: cfg.sleeper(cfg.ManagementDelay)}},
		{Kind: drivers.Power, Name: "fake", Impl: &Power{s: cfg.sleeper(cfg.PowerDelay)}},
		{Kind: drivers.RAID, Name: "fake", Impl: &RAID{s: cfg.sleeper(cfg.RAIDDelay)}},
		{Kind: drivers.Rescue, Name: "fake", Impl: &Rescue{s: cfg.sleeper(cfg.RescueDelay)}},
		{Kind: drivers.Storage, Name: "fake", Impl: &Storage{s: cfg.sleeper(cfg.StorageDelay)}},
		{Kind: drivers.Vendor, Name: "fake", Impl: &VendorB{s: cfg.sleeper(cfg.VendorDelay)}},
	}
}

// Power is the fake power interface: it reports the node's recorded power
// state and records the state it is asked for.
type Power struct{ s sleeper }

// GetProperties returns none.
func (*Power) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Power) Validate(context.Context, drivers.Task) error { return nil }

// GetPowerState returns the node's recorded power state.
func (p *Power) GetPowerState(ctx context.Context, task drivers.Task) (states.Power, error) {
	if err := p.s.wait(ctx); err != nil {
		return "", err
	}
	return task.PowerState(), nil
}

// Reboot does nothing.
func (p *Power) Reboot(ctx context.Context, _ drivers.Task, _ time.Duration) error {
	return p.s.wait(ctx)
}

// SetPowerState records state on the node; only power on/off and the soft
// variants are accepted.
func (p *Power) SetPowerState(ctx context.Context, task drivers.Task, state states.Power, _ time.Duration) error {
	if err := p.s.wait(ctx); err != nil {
		return err
	}
	switch state {
	case states.PowerOn, states.PowerOff, states.SoftRebooting, states.SoftPowerOff:
	default:
		return drivers.InvalidParameter("set_power_state called with an invalid power state: %s.", state)
	}
	task.SetPowerState(state)
	return nil
}

// GetSupportedPowerStates returns every power state.
func (*Power) GetSupportedPowerStates(context.Context, drivers.Task) ([]states.Power, error) {
	return []states.Power{states.PowerOn, states.PowerOff, states.Rebooting, states.SoftRebooting, states.SoftPowerOff}, nil
}

// Boot is the fake boot interface; it does nothing.
type Boot struct {
	drivers.BootBase
	s sleeper
}

// GetProperties returns none.
func (*Boot) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Boot) Validate(context.Context, drivers.Task) error { return nil }

// Capabilities are ipxe_boot and pxe_boot, as Ironic's fake boot declares.
func (*Boot) Capabilities() []string { return []string{"ipxe_boot", "pxe_boot"} }

// PrepareRamdisk does nothing.
func (b *Boot) PrepareRamdisk(ctx context.Context, _ drivers.Task, _ map[string]any, _ drivers.RamdiskMode) error {
	return b.s.wait(ctx)
}

// CleanUpRamdisk does nothing.
func (b *Boot) CleanUpRamdisk(ctx context.Context, _ drivers.Task, _ drivers.RamdiskMode) error {
	return b.s.wait(ctx)
}

// PrepareInstance does nothing.
func (b *Boot) PrepareInstance(ctx context.Context, _ drivers.Task) error { return b.s.wait(ctx) }

// CleanUpInstance does nothing.
func (b *Boot) CleanUpInstance(ctx context.Context, _ drivers.Task) error { return b.s.wait(ctx) }

// Deploy is the fake deploy interface: deploying completes at once.
type Deploy struct {
	drivers.DeployBase
	s sleeper
}

// GetProperties returns none.
func (*Deploy) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Deploy) Validate(context.Context, drivers.Task) error { return nil }

// Deploy completes synchronously.
func (d *Deploy) Deploy(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	return "", d.s.wait(ctx)
}

// TearDown returns StateDeleted.
func (d *Deploy) TearDown(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	if err := d.s.wait(ctx); err != nil {
		return "", err
	}
	return states.Deleted, nil
}

// Prepare does nothing.
func (d *Deploy) Prepare(ctx context.Context, _ drivers.Task) error { return d.s.wait(ctx) }

// CleanUp does nothing.
func (d *Deploy) CleanUp(ctx context.Context, _ drivers.Task) error { return d.s.wait(ctx) }

// TakeOver does nothing.
func (d *Deploy) TakeOver(ctx context.Context, _ drivers.Task) error { return d.s.wait(ctx) }

// Steps declares the "deploy" deploy step, priority 100.
func (*Deploy) Steps() []drivers.Step {
	return []drivers.Step{{Phase: drivers.DeployStep, Interface: drivers.Deploy, Name: "deploy", Priority: 100}}
}

// ExecuteStep runs the "deploy" step.
func (d *Deploy) ExecuteStep(ctx context.Context, task drivers.Task, name string, _ map[string]any) (states.Provision, error) {
	if name != "deploy" {
		return "", unknownStep(name)
	}
	return d.Deploy(ctx, task)
}

func unknownStep(name string) error {
	return drivers.InvalidParameter("Step %s is not supported by this interface.", name)
}

// Console is the fake console interface; the console is always there.
type Console struct{}

// GetProperties returns none.
func (*Console) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Console) Validate(context.Context, drivers.Task) error { return nil }

// StartConsole does nothing.
func (*Console) StartConsole(context.Context, drivers.Task) error { return nil }

// StopConsole does nothing.
func (*Console) StopConsole(context.Context, drivers.Task) error { return nil }

// GetConsole returns an empty console description.
func (*Console) GetConsole(context.Context, drivers.Task) (map[string]any, error) {
	return map[string]any{}, nil
}

// Management is the fake management interface: the node boots from PXE,
// has no sensors and two LEDs.
type Management struct {
	drivers.ManagementBase
	s sleeper
}

// GetProperties returns none.
func (*Management) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Management) Validate(context.Context, drivers.Task) error { return nil }

// GetSupportedBootDevices returns pxe only.
func (*Management) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootDevicePXE}, nil
}

// SetBootDevice accepts pxe only.
func (m *Management) SetBootDevice(ctx context.Context, _ drivers.Task, device string, _ bool) error {
	if err := m.s.wait(ctx); err != nil {
		return err
	}
	if device != drivers.BootDevicePXE {
		return drivers.InvalidParameter("Invalid boot device %s specified.", device)
	}
	return nil
}

// GetBootDevice returns pxe, not persistent.
func (m *Management) GetBootDevice(ctx context.Context, _ drivers.Task) (drivers.BootDevice, error) {
	if err := m.s.wait(ctx); err != nil {
		return drivers.BootDevice{}, err
	}
	persistent := false
	return drivers.BootDevice{Device: drivers.BootDevicePXE, Persistent: &persistent}, nil
}

// GetSensorsData returns no sensors.
func (m *Management) GetSensorsData(ctx context.Context, _ drivers.Task) (map[string]any, error) {
	if err := m.s.wait(ctx); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

func fakeIndicators() map[string]map[string]drivers.Indicator {
	return map[string]map[string]drivers.Indicator{
		drivers.ComponentChassis: {
			"led-0": {ReadOnly: true, States: []string{drivers.IndicatorOff, drivers.IndicatorOn}},
		},
		drivers.ComponentSystem: {
			"led": {ReadOnly: false, States: []string{drivers.IndicatorBlinking, drivers.IndicatorOff, drivers.IndicatorOn}},
		},
	}
}

// GetSupportedIndicators returns a read-only chassis LED "led-0" and a
// system LED "led".
func (m *Management) GetSupportedIndicators(ctx context.Context, _ drivers.Task, component string) (map[string]map[string]drivers.Indicator, error) {
	if err := m.s.wait(ctx); err != nil {
		return nil, err
	}
	all := fakeIndicators()
	if component == "" {
		return all, nil
	}
	out := map[string]map[string]drivers.Indicator{}
	if ind, ok := all[component]; ok {
		out[component] = ind
	}
	return out, nil
}

// GetIndicatorState returns "on" for every known indicator.
func (m *Management) GetIndicatorState(ctx context.Context, _ drivers.Task, component, indicator string) (string, error) {
	if err := m.s.wait(ctx); err != nil {
		return "", err
	}
	all := fakeIndicators()
	ind, ok := all[component]
	if !ok {
		return "", drivers.InvalidParameter("Invalid component %s specified.", component)
	}
	if _, ok := ind[indicator]; !ok {
		return "", drivers.InvalidParameter("Invalid indicator %s specified.", indicator)
	}
	return drivers.IndicatorOn, nil
}

// Inspect is the fake inspect interface: inspection completes at once.
type Inspect struct {
	drivers.InspectBase
	s sleeper
}

// GetProperties returns none.
func (*Inspect) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Inspect) Validate(context.Context, drivers.Task) error { return nil }

// InspectHardware returns StateManageable.
func (i *Inspect) InspectHardware(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	if err := i.s.wait(ctx); err != nil {
		return "", err
	}
	return states.Manageable, nil
}

// RAID is the fake RAID interface: it validates configurations against
// Ironic's schema and builds nothing.
type RAID struct {
	drivers.RAIDBase
	s sleeper
}

// CreateConfiguration does nothing.
func (r *RAID) CreateConfiguration(ctx context.Context, _ drivers.Task, _ drivers.RAIDCreateOptions) (states.Provision, error) {
	return "", r.s.wait(ctx)
}

// DeleteConfiguration does nothing.
func (r *RAID) DeleteConfiguration(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	return "", r.s.wait(ctx)
}

// BIOS is the fake BIOS interface: applying settings makes them the node's
// cached settings, a factory reset empties the cache.
type BIOS struct{ s sleeper }

// GetProperties returns none.
func (*BIOS) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*BIOS) Validate(context.Context, drivers.Task) error { return nil }

// ApplyConfiguration replaces the node's cached settings with settings.
func (b *BIOS) ApplyConfiguration(ctx context.Context, task drivers.Task, settings []drivers.BIOSSetting) error {
	if err := b.s.wait(ctx); err != nil {
		return err
	}
	return task.BIOSSettings().Replace(ctx, settings)
}

// FactoryReset deletes the node's cached settings.
func (b *BIOS) FactoryReset(ctx context.Context, task drivers.Task) error {
	if err := b.s.wait(ctx); err != nil {
		return err
	}
	return task.BIOSSettings().Replace(ctx, nil)
}

// CacheBIOSSettings does nothing.
func (b *BIOS) CacheBIOSSettings(ctx context.Context, _ drivers.Task) error { return b.s.wait(ctx) }

// Steps declares the clean steps apply_configuration, cache_bios_settings
// and factory_reset, all with priority 0.
func (*BIOS) Steps() []drivers.Step {
	step := func(name string, args []drivers.StepArg) drivers.Step {
		return drivers.Step{Phase: drivers.CleanStep, Interface: drivers.BIOS, Name: name, ArgsInfo: args, RequiresRamdisk: true}
	}
	return []drivers.Step{
		step("apply_configuration", []drivers.StepArg{{
			Name:        "settings",
			Description: "List of BIOS settings, each item needs to contain a dictionary with name/value pairs",
			Required:    true,
		}}),
		step("cache_bios_settings", nil),
		step("factory_reset", nil),
	}
}

// ExecuteStep runs one of the BIOS clean steps.
func (b *BIOS) ExecuteStep(ctx context.Context, task drivers.Task, name string, args map[string]any) (states.Provision, error) {
	switch name {
	case "apply_configuration":
		settings, err := drivers.ParseBIOSSettings(args["settings"])
		if err != nil {
			return "", err
		}
		return "", b.ApplyConfiguration(ctx, task, settings)
	case "factory_reset":
		return "", b.FactoryReset(ctx, task)
	case "cache_bios_settings":
		return "", b.CacheBIOSSettings(ctx, task)
	}
	return "", unknownStep(name)
}

// Storage is the fake storage interface: nothing to attach, the image is
// written locally.
type Storage struct{ s sleeper }

// GetProperties returns none.
func (*Storage) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Storage) Validate(context.Context, drivers.Task) error { return nil }

// AttachVolumes does nothing.
func (s *Storage) AttachVolumes(ctx context.Context, _ drivers.Task) error { return s.s.wait(ctx) }

// DetachVolumes does nothing.
func (s *Storage) DetachVolumes(ctx context.Context, _ drivers.Task) error { return s.s.wait(ctx) }

// ShouldWriteImage returns true.
func (*Storage) ShouldWriteImage(context.Context, drivers.Task) (bool, error) { return true, nil }

// Rescue is the fake rescue interface: rescuing completes at once.
type Rescue struct{ s sleeper }

// GetProperties returns none.
func (*Rescue) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (*Rescue) Validate(context.Context, drivers.Task) error { return nil }

// Rescue returns StateRescue.
func (r *Rescue) Rescue(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	if err := r.s.wait(ctx); err != nil {
		return "", err
	}
	return states.Rescue, nil
}

// Unrescue returns StateActive.
func (r *Rescue) Unrescue(ctx context.Context, _ drivers.Task) (states.Provision, error) {
	if err := r.s.wait(ctx); err != nil {
		return "", err
	}
	return states.Active, nil
}

// CleanUp does nothing.
func (*Rescue) CleanUp(context.Context, drivers.Task) error { return nil }
