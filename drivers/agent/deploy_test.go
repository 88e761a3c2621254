package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// recStorage is a storage interface that records what the deploy
// interfaces ask of it; write says what ShouldWriteImage answers.
type recStorage struct {
	generic.NoopStorage
	write bool
	calls *[]string
}

func (s recStorage) AttachVolumes(context.Context, drivers.Task) error {
	*s.calls = append(*s.calls, "attach")
	return nil
}

func (s recStorage) DetachVolumes(context.Context, drivers.Task) error {
	*s.calls = append(*s.calls, "detach")
	return nil
}

func (s recStorage) ShouldWriteImage(context.Context, drivers.Task) (bool, error) {
	return s.write, nil
}

// recMgmt is the fake management interface recording boot devices.
type recMgmt struct {
	fake.Management
	calls *[]string
}

func (m *recMgmt) SetBootDevice(_ context.Context, _ drivers.Task, dev string, persistent bool) error {
	*m.calls = append(*m.calls, "boot device "+dev+map[bool]string{true: " persistent", false: " once"}[persistent])
	return nil
}

// bfvTask is a deploying ipxe node whose boot volume is an iSCSI target.
func bfvTask(deploy string, write bool, calls *[]string) *fake.Task {
	boot := pxe.NewBoot(pxe.Config{HTTPURL: "http://h", HTTPRoot: "/r"}, true)
	tk := &fake.Task{
		Node: &fake.Node{UUID: "n1", Driver: "fake-hardware", ProvisionState: "deploying", PowerState: states.PowerOn,
			Interfaces: map[drivers.Kind]string{drivers.Deploy: deploy},
			Properties: pyjson.DictOf("capabilities", "iscsi_boot:True"),
			DriverInfo: pyjson.DictOf("deploy_kernel", "http://h/k", "deploy_ramdisk", "http://h/r")},
		PortList: []drivers.Port{{UUID: "p", Address: "52:54:00:00:00:01"}},
		Vols: &fake.VolumeStore{TargetList: []drivers.VolumeTarget{
			{UUID: "t0", VolumeType: "iscsi", VolumeID: "v0", BootIndex: 0},
			{UUID: "t1", VolumeType: "iscsi", VolumeID: "v1", BootIndex: 1},
		}},
	}
	impls := fake.Implementations(fake.Config{})
	var power drivers.PowerInterface
	for _, im := range impls {
		if im.Kind == drivers.Power {
			power = im.Impl.(drivers.PowerInterface)
		}
	}
	tk.Drv = &drivers.Driver{Power: power, Boot: boot, Management: &recMgmt{calls: calls},
		Network: generic.NoopNetwork{}, Storage: recStorage{write: write, calls: calls}}
	return tk
}

func runSteps(ctx context.Context, t *testing.T, st drivers.Stepper, tk *fake.Task) []string {
	t.Helper()
	var names []string
	steps := st.Steps()
	slices.SortStableFunc(steps, func(a, b drivers.Step) int { return b.Priority - a.Priority })
	for _, s := range steps {
		res, err := st.ExecuteStep(ctx, tk, s.Name, nil)
		if err != nil {
			t.Fatalf("step %s: %v", s.Name, err)
		}
		names = append(names, s.Name+"="+string(res))
	}
	return names
}

// TestDirectBootFromVolume follows Ironic's "direct" deploy of a node
// booting from an iSCSI volume: prepare powers off, attaches and skips
// the agent; the steps write nothing, set the node to boot from the
// network persistently (its iPXE script holds the sanhook) and power it
// on; tear down powers off, detaches and deletes the targets.
func TestDirectBootFromVolume(t *testing.T) {
	ctx := context.Background()
	var calls []string
	cfg := agent.DefaultConfig()
	cfg.After = func(time.Duration) <-chan time.Time { t.Fatal("tear_down_agent waited"); return nil }
	d := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "direct")
	tk := bfvTask("direct", false, &calls)
	if err := d.Prepare(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if got := tk.Node.DriverInternalInfo.Get("boot_from_volume"); got != "t0" {
		t.Errorf("boot_from_volume %v", got)
	}
	if want := []string{"attach"}; !slices.Equal(calls, want) {
		t.Errorf("prepare: %v, want %v (no agent boot)", calls, want)
	}
	steps := runSteps(ctx, t, d.(drivers.Stepper), tk)
	if want := []string{"deploy=", "write_image=", "prepare_instance_boot=", "tear_down_agent=", "switch_to_tenant_network=", "boot_instance="}; !slices.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	if want := []states.Power{states.PowerOff, states.PowerOn}; !slices.Equal(tk.PowerActions, want) {
		t.Errorf("power actions %v, want %v", tk.PowerActions, want)
	}
	if want := []string{"attach", "boot device pxe persistent"}; !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	if got := tk.Node.DriverInternalInfo.Get("deploy_boot_mode"); got != "uefi" {
		t.Errorf("deploy_boot_mode %v", got)
	}
	calls = nil
	tk.Node.ProvisionState = "deleting"
	if err := d.CleanUp(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if st, err := d.TearDown(ctx, tk); err != nil || st != states.Deleted {
		t.Fatalf("tear down: %q %v", st, err)
	}
	if want := []string{"detach"}; !slices.Equal(calls, want) {
		t.Errorf("tear down calls %v, want %v", calls, want)
	}
	if targets, _ := tk.Vols.Targets(ctx); len(targets) != 0 {
		t.Errorf("targets left after tear down: %v", targets)
	}
	if _, ok := tk.Node.DriverInternalInfo.Lookup("boot_from_volume"); ok {
		t.Error("boot_from_volume kept after tear down")
	}
	if got := tk.PowerActions[len(tk.PowerActions)-1]; got != "power off" {
		t.Errorf("last power action %s", got)
	}
}

// TestCustomAgentWaitsForAgent: with an image to write, prepare boots the
// agent ramdisk (boot from the network once) and the deploy step reboots
// the node and waits for the call back.
func TestCustomAgentWaitsForAgent(t *testing.T) {
	ctx := context.Background()
	var calls []string
	d := impl[drivers.DeployInterface](t, agent.DefaultConfig(), drivers.Deploy, "custom-agent")
	tk := bfvTask("custom-agent", true, &calls)
	tk.Vols = &fake.VolumeStore{}
	if err := d.Prepare(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if want := []string{"attach", "boot device pxe once"}; !slices.Equal(calls, want) {
		t.Errorf("prepare: %v, want %v", calls, want)
	}
	res, err := d.Deploy(ctx, tk)
	if err != nil || res != states.DeployWait {
		t.Fatalf("deploy: %q %v", res, err)
	}
	if want := []states.Power{states.PowerOff, states.Rebooting}; !slices.Equal(tk.PowerActions, want) {
		t.Errorf("power actions %v, want %v", tk.PowerActions, want)
	}
	// An earlier step that rebooted says so; the step doesn't reboot again.
	tk.Node.DriverInternalInfo.Set("deployment_reboot", true)
	if res, err := d.Deploy(ctx, tk); err != nil || res != states.DeployWait || len(tk.PowerActions) != 2 {
		t.Errorf("deploy after a reboot: %q %v %v", res, err, tk.PowerActions)
	}
	if _, ok := tk.Node.DriverInternalInfo.Lookup("deployment_reboot"); ok {
		t.Error("deployment_reboot kept")
	}
}

// TestDirectImageSources: "direct" takes http(s) images, validated with
// a HEAD request, and refuses Glance images clearly.
func TestDirectImageSources(t *testing.T) {
	ctx := context.Background()
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead || r.URL.Path != "/img.raw" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	d := impl[drivers.DeployInterface](t, agent.DefaultConfig(), drivers.Deploy, "direct")
	tk := bfvTask("direct", true, &calls)
	tk.Node.InstanceInfo = pyjson.DictOf("image_source", "1be26c0b-03f2-4d2e-ae87-c02d7f33c123")
	if err := d.Prepare(ctx, tk); !ironic.IsClass(err, ironic.InstanceDeployFailure) || !strings.Contains(err.Error(), "is a Glance image") {
		t.Fatalf("glance: %v", err)
	}
	tk.Node.InstanceInfo = pyjson.DictOf("image_source", srv.URL+"/missing")
	want := "Validation of image href " + srv.URL + "/missing failed, reason: Got HTTP code 404 instead of 200 in response to HEAD request."
	if err := d.Prepare(ctx, tk); !ironic.IsClass(err, ironic.ImageRefValidationFailed) || err.Error() != want {
		t.Fatalf("missing image: %v", err)
	}
	tk.Node.InstanceInfo = pyjson.DictOf("image_source", srv.URL+"/img.raw")
	if err := d.Prepare(ctx, tk); err != nil {
		t.Fatal(err)
	}
	ii := tk.Node.InstanceInfo
	if ii.Get("image_url") != srv.URL+"/img.raw" || ii.Get("image_type") != "whole-disk" || tk.Node.DriverInternalInfo.Get("is_whole_disk_image") != true {
		t.Errorf("instance_info %v", ii)
	}
}

// TestTearDownAgentForcesPowerOff: a node still on after the soft
// power-off request (no agent) is polled, then forced off.
func TestTearDownAgentForcesPowerOff(t *testing.T) {
	ctx := context.Background()
	var calls []string
	cfg := agent.DefaultConfig()
	waits := 0
	cfg.After = func(d time.Duration) <-chan time.Time {
		waits++
		if d != 5*time.Second {
			t.Errorf("waited %s", d)
		}
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	d := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "direct")
	tk := bfvTask("direct", false, &calls)
	if _, err := d.(drivers.Stepper).ExecuteStep(ctx, tk, "tear_down_agent", nil); err != nil {
		t.Fatal(err)
	}
	if waits != 6 || !slices.Equal(tk.PowerActions, []states.Power{states.PowerOff}) || tk.Node.PowerState != states.PowerOff {
		t.Errorf("waits %d, power actions %v, state %s", waits, tk.PowerActions, tk.Node.PowerState)
	}
	tk.Node.DriverInfo.Set("deploy_forces_oob_reboot", true)
	_, err := d.(drivers.Stepper).ExecuteStep(ctx, tk, "tear_down_agent", nil)
	if err == nil || err.Error() != "Error rebooting node n1 after deploy. AgentConnectionFailed: Agent driver requires agent_url in driver_internal_info" {
		t.Errorf("oob reboot without agent: %v", err)
	}
	if _, err := d.(drivers.Stepper).ExecuteStep(ctx, tk, "erase_devices", nil); err == nil ||
		!strings.HasPrefix(err.Error(), "Deploy step {'interface': 'deploy', 'step': 'erase_devices'} has not been found.") {
		t.Errorf("in-band step: %v", err)
	}
}

// TestRamdiskDeploy: the ramdisk deploy interface powers off, prepares the
// instance (network boot) and powers on in its single step.
func TestRamdiskDeploy(t *testing.T) {
	ctx := context.Background()
	var calls []string
	d := impl[drivers.DeployInterface](t, agent.DefaultConfig(), drivers.Deploy, "ramdisk")
	tk := bfvTask("ramdisk", true, &calls)
	tk.Vols = &fake.VolumeStore{}
	tk.Node.InstanceInfo = pyjson.DictOf("kernel", "http://h/k", "ramdisk", "http://h/r")
	if err := d.Prepare(ctx, tk); err != nil {
		t.Fatal(err)
	}
	steps := runSteps(ctx, t, d.(drivers.Stepper), tk)
	if !slices.Equal(steps, []string{"deploy="}) {
		t.Errorf("steps %v", steps)
	}
	if want := []states.Power{states.PowerOff, states.PowerOff, states.PowerOn}; !slices.Equal(tk.PowerActions, want) {
		t.Errorf("power actions %v, want %v", tk.PowerActions, want)
	}
	if want := []string{"attach", "boot device pxe persistent"}; !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// TestPrepareCleaningBootsAgent: in-band cleaning records the agent's
// disk erasure options, boots the agent ramdisk (network boot once),
// reboots and waits; tearing it down powers the node off.
func TestPrepareCleaningBootsAgent(t *testing.T) {
	ctx := context.Background()
	var calls []string
	d := impl[drivers.DeployInterface](t, agent.DefaultConfig(), drivers.Deploy, "direct")
	tk := bfvTask("direct", true, &calls)
	tk.Node.ProvisionState = "cleaning"
	st, err := d.PrepareCleaning(ctx, tk)
	if err != nil || st != states.CleanWait {
		t.Fatalf("prepare cleaning: %q %v", st, err)
	}
	dii := tk.Node.DriverInternalInfo
	for k, want := range map[string]any{"agent_erase_devices_iterations": 1, "agent_erase_devices_zeroize": true,
		"agent_continue_if_secure_erase_failed": false, "agent_enable_ata_secure_erase": true, "disk_erasure_concurrency": 4} {
		if dii.Get(k) != want {
			t.Errorf("%s = %v, want %v", k, dii.Get(k), want)
		}
	}
	if want := []string{"boot device pxe once"}; !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	if err := d.TearDownCleaning(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if want := []states.Power{states.Rebooting, states.PowerOff}; !slices.Equal(tk.PowerActions, want) {
		t.Errorf("power actions %v, want %v", tk.PowerActions, want)
	}
}

// TestFastTrackPrepare: a deploying node with fast track, its power on
// and a live agent keeps its power (no power off in prepare, no ramdisk
// prepared); a last_error, a stale heartbeat, power off or fast track
// off each make prepare power the node off, as is_fast_track says.
func TestFastTrackPrepare(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	cfg := agent.DefaultConfig()
	cfg.Clock = clock(now)
	cfg.FastTrack = true
	live := now.Add(-time.Minute).Format("2006-01-02T15:04:05.000000")
	stale := now.Add(-cfg.FastTrackTimeout - time.Second).Format("2006-01-02T15:04:05.000000")
	msg := "boom"
	for _, tc := range []struct {
		name      string
		heartbeat string
		lastError *string
		power     states.Power
		driverFT  any
		fast      bool
	}{
		{name: "fast", heartbeat: live, power: states.PowerOn, fast: true},
		{name: "last error", heartbeat: live, power: states.PowerOn, lastError: &msg},
		{name: "stale heartbeat", heartbeat: stale, power: states.PowerOn},
		{name: "power off", heartbeat: live, power: states.PowerOff},
		{name: "disabled per node", heartbeat: live, power: states.PowerOn, driverFT: "false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []string
			d := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "custom-agent")
			tk := bfvTask("custom-agent", true, &calls)
			tk.Vols = &fake.VolumeStore{}
			tk.Node.PowerState, tk.Node.LastError = tc.power, tc.lastError
			tk.Node.DriverInternalInfo = pyjson.DictOf("agent_url", "http://10.0.0.5:9999", "agent_last_heartbeat", tc.heartbeat)
			if tc.driverFT != nil {
				tk.Node.DriverInfo.Set("fast_track", tc.driverFT)
			}
			if err := d.Prepare(ctx, tk); err != nil {
				t.Fatal(err)
			}
			off := slices.Contains(tk.PowerActions, states.PowerOff)
			if off == tc.fast {
				t.Errorf("power actions %v (fast track %v)", tk.PowerActions, tc.fast)
			}
			if prepared := slices.Contains(calls, "boot device pxe once"); prepared == tc.fast {
				t.Errorf("prepare calls %v (fast track %v)", calls, tc.fast)
			}
		})
	}
}
