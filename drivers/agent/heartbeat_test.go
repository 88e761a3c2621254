package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/fakeipa"
)

// condTask is a fake.Task whose conductor side records only the calls
// that change the flow (not touch_provisioning), can refuse the lock and
// computes the cleaning steps as the conductor would.
type condTask struct {
	*fake.Task
	calls    []string
	lockErr  error
	stepList []map[string]any
	d        drivers.DeployInterface
}

func (c *condTask) UpgradeLock(context.Context) error {
	c.calls = append(c.calls, "upgrade lock")
	return c.lockErr
}
func (c *condTask) SetCleaningSteps(context.Context) error {
	c.calls = append(c.calls, "set cleaning steps")
	c.stepList = c.d.(interface {
		InbandSteps(drivers.Task, drivers.StepPhase) []map[string]any
	}).InbandSteps(c, drivers.CleanStep)
	return nil
}
func (c *condTask) ContinueSteps(_ context.Context, p drivers.StepPhase) error {
	c.calls = append(c.calls, "continue "+string(p))
	return nil
}
func (c *condTask) FailSteps(_ context.Context, p drivers.StepPhase, msg string) {
	c.calls = append(c.calls, "fail "+string(p)+": "+msg)
}

func heartbeatSetup(t *testing.T, state states.Provision, opts fakeipa.Options) (*condTask, drivers.DeployInterface, *fakeipa.Agent) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.Token = "tok"
	opts.CommandDelay = time.Millisecond
	ipa := fakeipa.New(opts)
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := agent.DefaultConfig()
	cfg.AllowProvisioningInMaintenance = false // maintenance aborts cleaning
	cfg.Clock = clock(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))
	cfg.Client = agent.NewClient(agent.ClientConfig{CommandTimeout: 5 * time.Second})
	cfg.DeployLogsLocalPath = t.TempDir()
	d := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "direct")
	tk := &condTask{Task: &fake.Task{Node: &fake.Node{UUID: "n1", Driver: "fake-hardware", ProvisionState: state,
		DriverInternalInfo: map[string]any{"agent_secret_token": "tok"}}}, d: d}
	return tk, d, ipa
}

func waitIdle(t *testing.T, ipa *fakeipa.Agent) {
	t.Helper()
	time.Sleep(20 * time.Millisecond)
}

// TestHeartbeatDeployWait: the first heartbeat records the agent, caches
// its deploy steps and, the agent being freshly booted, continues the
// deployment; a later one finds the running step finished (or failed).
func TestHeartbeatDeployWait(t *testing.T) {
	ctx := context.Background()
	tk, d, ipa := heartbeatSetup(t, states.DeployWait, fakeipa.Options{FailSteps: []string{"erase_devices_metadata"}})
	hb := drivers.Heartbeat{CallbackURL: ipa.URL(), AgentVersion: "9.4.1"}
	if err := d.Heartbeat(ctx, tk, hb); err != nil {
		t.Fatal(err)
	}
	dii := tk.Node.DriverInternalInfo
	if dii["agent_url"] != ipa.URL() || dii["agent_version"] != "9.4.1" || dii["agent_last_heartbeat"] != "2024-05-01T12:00:00" {
		t.Errorf("recorded %v", dii)
	}
	cached, _ := dii["agent_cached_deploy_steps"].(map[string]any)
	if len(cached["deploy"].([]any)) != 2 || len(cached["raid"].([]any)) != 1 || dii["hardware_manager_version"] == nil {
		t.Errorf("cached steps %v", cached)
	}
	if want := []string{"upgrade lock", "continue deploy"}; !slices.Equal(tk.calls, want) {
		t.Errorf("calls %v, want %v", tk.calls, want)
	}
	// The conductor runs an in-band step: the agent does it.
	tk.Node.DeployStep = map[string]any{"interface": "deploy", "step": "erase_devices_metadata", "priority": 0}
	st, err := d.(drivers.Stepper).ExecuteStep(ctx, tk, "erase_devices_metadata", nil)
	if err != nil || st != states.DeployWait {
		t.Fatalf("in-band step: %q %v", st, err)
	}
	waitIdle(t, ipa)
	tk.calls = nil
	if err := d.Heartbeat(ctx, tk, hb); err != nil {
		t.Fatal(err)
	}
	want := []string{"upgrade lock", "fail deploy: Deploy step deploy.erase_devices_metadata failed on node n1. erase_devices_metadata failed on purpose"}
	if !slices.Equal(tk.calls, want) {
		t.Errorf("calls %v, want %v", tk.calls, want)
	}
}

// TestHeartbeatCleanWait: a freshly booted agent's clean steps are
// cached (requires_ramdisk set), the cleaning steps set and cleaning
// continued; a finished step continues it again.
func TestHeartbeatCleanWait(t *testing.T) {
	ctx := context.Background()
	tk, d, ipa := heartbeatSetup(t, states.CleanWait, fakeipa.Options{})
	hb := drivers.Heartbeat{CallbackURL: ipa.URL(), AgentVersion: "9.4.1"}
	if err := d.Heartbeat(ctx, tk, hb); err != nil {
		t.Fatal(err)
	}
	if want := []string{"upgrade lock", "set cleaning steps", "continue clean"}; !slices.Equal(tk.calls, want) {
		t.Errorf("calls %v, want %v", tk.calls, want)
	}
	var names []string
	for _, s := range tk.stepList {
		if s["requires_ramdisk"] != true {
			t.Errorf("step %v without requires_ramdisk", s)
		}
		names = append(names, s["step"].(string))
	}
	if want := []string{"erase_devices", "erase_devices_metadata", "erase_pstore"}; !slices.Equal(names, want) {
		t.Errorf("deploy interface clean steps %v, want %v", names, want)
	}
	tk.Node.ProvisionState = "cleaning"
	tk.Node.CleanStep = tk.stepList[1]
	if st, err := d.(drivers.Stepper).ExecuteStep(ctx, tk, "erase_devices_metadata", nil); err != nil || st != states.CleanWait {
		t.Fatalf("clean step: %q %v", st, err)
	}
	tk.Node.ProvisionState = "clean wait"
	waitIdle(t, ipa)
	tk.calls = nil
	if err := d.Heartbeat(ctx, tk, hb); err != nil {
		t.Fatal(err)
	}
	if want := []string{"upgrade lock", "continue clean"}; !slices.Equal(tk.calls, want) {
		t.Errorf("calls %v, want %v", tk.calls, want)
	}
	got := ipa.Commands()
	last := got[len(got)-1]
	if last.Name != "clean.execute_clean_step" || last.Params["step"].(map[string]any)["step"] != "erase_devices_metadata" ||
		last.Params["clean_version"] == nil || last.Params["node"].(map[string]any)["uuid"] != "n1" {
		t.Errorf("execute_clean_step sent %v", last)
	}
}

// TestHeartbeatStates: maintenance aborts cleaning, a locked node or an
// unsupported state is skipped.
func TestHeartbeatStates(t *testing.T) {
	ctx := context.Background()
	tk, d, ipa := heartbeatSetup(t, states.CleanWait, fakeipa.Options{})
	hb := drivers.Heartbeat{CallbackURL: ipa.URL(), AgentVersion: "9.4.1"}
	tk.Node.Maintenance = true
	if err := d.Heartbeat(ctx, tk, hb); err != nil {
		t.Fatal(err)
	}
	if want := []string{"upgrade lock", "fail clean: Cleaning aborted as node is in maintenance mode"}; !slices.Equal(tk.calls, want) {
		t.Errorf("maintenance: %v", tk.calls)
	}
	tk.calls, tk.Node.Maintenance = nil, false
	tk.lockErr = ironic.Errorf(ironic.NodeLocked, "locked")
	if err := d.Heartbeat(ctx, tk, hb); err != nil || !slices.Equal(tk.calls, []string{"upgrade lock"}) {
		t.Errorf("locked: %v %v", err, tk.calls)
	}
	tk.calls, tk.lockErr = nil, nil
	tk.Node.ProvisionState = "active"
	if err := d.Heartbeat(ctx, tk, hb); err != nil || len(tk.calls) != 0 {
		t.Errorf("active: %v %v", err, tk.calls)
	}
	if len(ipa.Commands()) != 0 {
		t.Errorf("commands sent: %v", ipa.Commands())
	}
	// Every task has the conductor's side: a plain fake.Task records
	// what the heartbeat asked of it.
	plain := &fake.Task{Node: &fake.Node{UUID: "n2", Driver: "fake-hardware", ProvisionState: "clean wait", Maintenance: true},
		SharedLock: true}
	if err := d.Heartbeat(ctx, plain, hb); err != nil {
		t.Fatal(err)
	}
	if want := []string{"upgrade lock", "fail clean: Cleaning aborted as node is in maintenance mode"}; !slices.Equal(plain.Flow, want) || plain.SharedLock {
		t.Errorf("plain task: %v (shared %v), want %v", plain.Flow, plain.SharedLock, want)
	}
}
