package fake_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/states"
)

func impl[T any](t *testing.T, cfg fake.Config, k drivers.Kind) T {
	t.Helper()
	for _, im := range fake.Implementations(cfg) {
		if im.Kind == k {
			return im.Impl.(T)
		}
	}
	t.Fatalf("no fake %s interface", k)
	var zero T
	return zero
}

func newTask() *fake.Task {
	return &fake.Task{Node: &fake.Node{UUID: "3f1b7d43-0b43-4a43-9a4a-6c2b7f8e5d11", Driver: "fake-hardware", PowerState: states.PowerOff}}
}

func TestImplementationsCoverEveryKind(t *testing.T) {
	var kinds []drivers.Kind
	for _, im := range fake.Implementations(fake.Config{}) {
		if im.Name != "fake" {
			t.Errorf("%s implementation named %q", im.Kind, im.Name)
		}
		kinds = append(kinds, im.Kind)
	}
	for _, k := range drivers.Kinds() {
		if k != drivers.Network && !slices.Contains(kinds, k) {
			t.Errorf("no fake %s interface", k)
		}
	}
}

func TestPower(t *testing.T) {
	ctx := context.Background()
	p := impl[drivers.PowerInterface](t, fake.Config{}, drivers.Power)
	task := newTask()
	if err := p.SetPowerState(ctx, task, states.PowerOn, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := p.GetPowerState(ctx, task); got != states.PowerOn {
		t.Errorf("power state %q after power on", got)
	}
	err := p.SetPowerState(ctx, task, states.Rebooting, 0)
	if !ironic.IsClass(err, ironic.InvalidParameterValue) || err.Error() != "set_power_state called with an invalid power state: rebooting." {
		t.Errorf("reboot through SetPowerState: %v", err)
	}
	if task.Node.PowerState != states.PowerOn {
		t.Errorf("invalid request changed the power state to %q", task.Node.PowerState)
	}
	states, _ := p.GetSupportedPowerStates(ctx, task)
	if len(states) != 5 {
		t.Errorf("supported power states %v", states)
	}
}

func TestManagement(t *testing.T) {
	ctx := context.Background()
	m := impl[drivers.ManagementInterface](t, fake.Config{}, drivers.Management)
	task := newTask()
	if err := m.SetBootDevice(ctx, task, drivers.BootDevicePXE, true); err != nil {
		t.Error(err)
	}
	if err := m.SetBootDevice(ctx, task, drivers.BootDeviceDisk, true); err == nil || err.Error() != "Invalid boot device disk specified." {
		t.Errorf("disk: %v", err)
	}
	bd, _ := m.GetBootDevice(ctx, task)
	if bd.Device != drivers.BootDevicePXE || bd.Persistent == nil || *bd.Persistent {
		t.Errorf("boot device %+v", bd)
	}
	ind, _ := m.GetSupportedIndicators(ctx, task, drivers.ComponentSystem)
	if len(ind) != 1 || ind[drivers.ComponentSystem]["led"].ReadOnly {
		t.Errorf("system indicators %+v", ind)
	}
	if s, err := m.GetIndicatorState(ctx, task, drivers.ComponentChassis, "led-0"); err != nil || s != drivers.IndicatorOn {
		t.Errorf("led-0: %q %v", s, err)
	}
	if _, err := m.GetIndicatorState(ctx, task, "gpu", "led"); err == nil || err.Error() != "Invalid component gpu specified." {
		t.Errorf("unknown component: %v", err)
	}
	if _, err := m.GetIndicatorState(ctx, task, drivers.ComponentSystem, "led-9"); err == nil || err.Error() != "Invalid indicator led-9 specified." {
		t.Errorf("unknown indicator: %v", err)
	}
	// Ironic's fake management doesn't implement these.
	err := m.SetIndicatorState(ctx, task, drivers.ComponentSystem, "led", drivers.IndicatorOff)
	if !ironic.IsClass(err, ironic.UnsupportedDriverExtension) ||
		err.Error() != "Driver fake-hardware does not support set_indicator_state (disabled or not implemented)." {
		t.Errorf("SetIndicatorState: %v", err)
	}
	if err := m.InjectNMI(ctx, task); !ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
		t.Errorf("InjectNMI: %v", err)
	}
}

func TestVendor(t *testing.T) {
	ctx := context.Background()
	v := impl[drivers.VendorInterface](t, fake.Config{}, drivers.Vendor)
	task := newTask()
	if _, err := drivers.ResolveVendorMethod(v.Routes(), "first_method", "POST"); err == nil || err.Error() != "No handler for method first_method" {
		t.Errorf("first_method on the fake vendor: %v", err)
	}
	if _, err := drivers.ResolveVendorMethod(v.Routes(), "second_method", "get"); err == nil || err.Error() != "The method second_method does not support HTTP GET" {
		t.Errorf("GET second_method: %v", err)
	}
	vm, err := drivers.ResolveVendorMethod(v.Routes(), "third_method_sync", "post")
	if err != nil || vm.Async {
		t.Errorf("third_method_sync: %+v %v", vm, err)
	}
	err = v.Validate(ctx, task, "fourth_method_shared_lock", "POST", map[string]any{})
	if !ironic.IsClass(err, ironic.MissingParameterValue) || err.Error() != "Parameter 'bar' not passed to method 'fourth_method_shared_lock'." {
		t.Errorf("missing bar: %v", err)
	}
	for method, magic := range map[string]string{"second_method": "kazoo", "third_method_sync": "meow", "fourth_method_shared_lock": "woof"} {
		if got, _ := v.Call(ctx, task, method, "POST", map[string]any{"bar": magic}); got != true {
			t.Errorf("%s(%s) = %v", method, magic, got)
		}
		if got, _ := v.Call(ctx, task, method, "POST", map[string]any{"bar": "baz"}); got != false {
			t.Errorf("%s(baz) = %v", method, got)
		}
	}
	a := fake.NewVendorA(fake.Config{})
	if got, _ := a.Call(ctx, task, "first_method", "POST", map[string]any{"bar": "baz"}); got != true {
		t.Errorf("first_method(baz) = %v", got)
	}
	if err := a.Validate(ctx, task, "first_method", "POST", nil); err == nil || err.Error() != "Parameter 'bar' not passed to method 'first_method'." {
		t.Errorf("first_method without bar: %v", err)
	}
}

func TestBIOS(t *testing.T) {
	ctx := context.Background()
	b := impl[drivers.BIOSInterface](t, fake.Config{}, drivers.BIOS)
	stepper := b.(drivers.Stepper)
	task := newTask()
	args := map[string]any{"settings": []any{
		map[string]any{"name": "ProcVirtualization", "value": "Enabled"},
		map[string]any{"name": "BootMode", "value": "Uefi"},
	}}
	if _, err := stepper.ExecuteStep(ctx, task, "apply_configuration", args); err != nil {
		t.Fatal(err)
	}
	got, _ := task.BIOSSettings().List(ctx)
	want := []drivers.BIOSSetting{{Name: "BootMode", Value: "Uefi"}, {Name: "ProcVirtualization", Value: "Enabled"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	// Applying again replaces: settings not given are deleted.
	args["settings"] = []any{map[string]any{"name": "BootMode", "value": "Bios"}}
	if _, err := stepper.ExecuteStep(ctx, task, "apply_configuration", args); err != nil {
		t.Fatal(err)
	}
	got, _ = task.BIOSSettings().List(ctx)
	if diff := cmp.Diff([]drivers.BIOSSetting{{Name: "BootMode", Value: "Bios"}}, got); diff != "" {
		t.Errorf("settings after second apply (-want +got):\n%s", diff)
	}
	if _, err := stepper.ExecuteStep(ctx, task, "factory_reset", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ = task.BIOSSettings().List(ctx); len(got) != 0 {
		t.Errorf("settings after factory reset: %v", got)
	}
	if _, err := stepper.ExecuteStep(ctx, task, "apply_configuration", map[string]any{"settings": "x"}); !ironic.IsClass(err, ironic.InvalidParameterValue) {
		t.Errorf("bad settings: %v", err)
	}
	var names []string
	for _, s := range stepper.Steps() {
		if s.Phase != drivers.CleanStep || s.Priority != 0 || s.Interface != drivers.BIOS {
			t.Errorf("step %+v", s)
		}
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"apply_configuration", "cache_bios_settings", "factory_reset"}) {
		t.Errorf("steps %v", names)
	}
}

func TestDeployAndOthers(t *testing.T) {
	ctx := context.Background()
	task := newTask()
	d := impl[drivers.DeployInterface](t, fake.Config{}, drivers.Deploy)
	steps := d.(drivers.Stepper).Steps()
	if len(steps) != 1 || steps[0].Name != "deploy" || steps[0].Priority != 100 || steps[0].Phase != drivers.DeployStep {
		t.Errorf("deploy steps %+v", steps)
	}
	if st, err := d.(drivers.Stepper).ExecuteStep(ctx, task, "deploy", nil); st != "" || err != nil {
		t.Errorf("deploy step: %q %v", st, err)
	}
	if st, _ := d.TearDown(ctx, task); st != states.Deleted {
		t.Errorf("tear down -> %q", st)
	}
	r := impl[drivers.RescueInterface](t, fake.Config{}, drivers.Rescue)
	if st, _ := r.Rescue(ctx, task); st != states.Rescue {
		t.Errorf("rescue -> %q", st)
	}
	if st, _ := r.Unrescue(ctx, task); st != states.Active {
		t.Errorf("unrescue -> %q", st)
	}
	i := impl[drivers.InspectInterface](t, fake.Config{}, drivers.Inspect)
	if st, _ := i.InspectHardware(ctx, task); st != states.Manageable {
		t.Errorf("inspect -> %q", st)
	}
	b := impl[drivers.BootInterface](t, fake.Config{}, drivers.Boot)
	if !slices.Equal(b.Capabilities(), []string{"ipxe_boot", "pxe_boot"}) {
		t.Errorf("boot capabilities %v", b.Capabilities())
	}
	if err := b.ValidateRescue(ctx, task); !ironic.IsClass(err, ironic.UnsupportedDriverExtension) {
		t.Errorf("fake boot ValidateRescue: %v", err)
	}
	raid := impl[drivers.RAIDInterface](t, fake.Config{}, drivers.RAID)
	task.Node.TargetRAIDConfig = map[string]any{"logical_disks": []any{}}
	if err := raid.Validate(ctx, task); err == nil || err.Error() != "RAID config validation error: [] is too short" {
		t.Errorf("raid validate: %v", err)
	}
	s := impl[drivers.StorageInterface](t, fake.Config{}, drivers.Storage)
	if w, _ := s.ShouldWriteImage(ctx, task); !w {
		t.Error("fake storage doesn't write images")
	}
}

func TestDelay(t *testing.T) {
	d, err := fake.ParseDelay("1,3")
	if err != nil || d != (fake.Delay{Min: time.Second, Max: 3 * time.Second}) {
		t.Fatalf("ParseDelay: %+v %v", d, err)
	}
	if d, _ := fake.ParseDelay("2"); d != (fake.Delay{Min: 2 * time.Second, Max: 2 * time.Second}) {
		t.Errorf("constant delay %+v", d)
	}
	if _, err := fake.ParseDelay("x"); err == nil {
		t.Error("bad delay accepted")
	}
	var slept []time.Duration
	cfg := fake.Config{
		PowerDelay: d,
		Rand:       func() float64 { return 0.75 },
		Sleep: func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			return nil
		},
	}
	p := impl[drivers.PowerInterface](t, cfg, drivers.Power)
	_, _ = p.GetPowerState(context.Background(), newTask())
	// triangular(1, 3, mode=1) with u=0.75: 3 - 2*sqrt(0.25) = 2s
	if !slices.Equal(slept, []time.Duration{2 * time.Second}) {
		t.Errorf("slept %v", slept)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	slow := impl[drivers.PowerInterface](t, fake.Config{PowerDelay: fake.Delay{Min: time.Hour, Max: time.Hour}}, drivers.Power)
	if _, err := slow.GetPowerState(ctx, newTask()); err == nil {
		t.Error("a cancelled context didn't stop the delay")
	}
}
