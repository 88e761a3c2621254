package conductor_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

func TestStuckNodesFailOnStart(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		m := h.m
		want := map[states.Provision]states.Provision{states.Deploying: states.DeployFailed, states.Cleaning: states.CleanFailed,
			states.Verifying: states.Enroll, states.Deleting: states.Error, states.DeployWait: states.DeployWait}
		uuids := map[states.Provision]string{}
		for from := range want {
			n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(from)})
			if err != nil {
				t.Fatal(err)
			}
			uuids[from] = n.UUID
		}
		// The conductor restarts.
		h = newHarness(t, store)
		for from, to := range want {
			got := h.byUUID(t, uuids[from])
			if models.Deref(got.ProvisionState) != to {
				t.Errorf("%s: now %q, want %q", from, models.Deref(got.ProvisionState), to)
			}
			if from == to {
				continue
			}
			msg := fmt.Sprintf("The %s state can't be resumed by conductor c1. Moving to fail state.", from)
			if models.Deref(got.LastError) != msg {
				t.Errorf("%s: last_error %q", from, models.Deref(got.LastError))
			}
		}
	})
}

func TestProvisionTimeouts(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withClock(clk))
		m := h.m
		mk := func(state, target states.Provision, extra db.Values) string {
			n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware"})
			if err != nil {
				t.Fatal(err)
			}
			v := db.Values{"provision_state": state, "target_provision_state": target}
			for k, x := range extra {
				v[k] = x
			}
			if _, err := store.UpdateNode(ctx, db.ByID(n.ID), v); err != nil {
				t.Fatal(err)
			}
			return n.UUID
		}
		deploy := mk(states.DeployWait, states.Active, nil)
		clean := mk(states.CleanWait, states.Manageable, db.Values{"clean_step": pyjson.DictOf("interface", "deploy", "step", "erase_devices")})
		rescue := mk(states.RescueWait, states.Rescue, nil)
		inspect := mk(states.Inspecting, states.Manageable, nil)
		if _, err := store.UpdateNode(ctx, db.ByUUID(inspect), db.Values{"provision_state": states.InspectWait}); err != nil {
			t.Fatal(err)
		}
		// Not yet timed out.
		clk.Advance(29 * time.Minute)
		// The conductor heartbeats meanwhile (Run would).
		if err := store.TouchConductor(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
		if err := m.CheckProvisionTimeouts(ctx); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		if got := h.byUUID(t, deploy); models.Deref(got.ProvisionState) != states.DeployWait {
			t.Fatalf("deploy wait failed before its timeout: %q", models.Deref(got.ProvisionState))
		}
		clk.Advance(2 * time.Minute)
		if err := store.TouchConductor(ctx, "c1"); err != nil {
			t.Fatal(err)
		}
		if err := m.CheckProvisionTimeouts(ctx); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		for _, c := range []struct {
			uuid          string
			state, target states.Provision
			lastError     string
			maintenance   bool
		}{
			{deploy, states.DeployFailed, states.Active, "Timeout reached while waiting for callback for node " + deploy, false},
			{clean, states.CleanFailed, states.Manageable, "Timeout reached while cleaning the node. Please check if the ramdisk responsible for the cleaning is running on the node. Failed on step {'interface': 'deploy', 'step': 'erase_devices'}.", true},
			{rescue, states.RescueFailed, states.Rescue, "Timeout reached while waiting for rescue ramdisk callback for node", false},
			{inspect, states.InspectFailed, states.Manageable, "timeout reached while inspecting the node", false},
		} {
			got := h.byUUID(t, c.uuid)
			if models.Deref(got.ProvisionState) != c.state || models.Deref(got.TargetProvisionState) != c.target ||
				models.Deref(got.LastError) != c.lastError || got.Maintenance != c.maintenance || got.Reservation != nil {
				t.Errorf("%s: state %q target %q last_error %q maintenance %v", c.state, models.Deref(got.ProvisionState),
					models.Deref(got.TargetProvisionState), models.Deref(got.LastError), got.Maintenance)
			}
		}
		if got := h.byUUID(t, clean); models.Deref(got.Fault) != "clean failure" {
			t.Errorf("clean timeout fault: %q", models.Deref(got.Fault))
		}
	}, db.WithClock(clk))
}

func TestPowerSync(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withClock(clk), withConfig(func(c *conductor.Config) { c.ForcePowerStateDuringSync = false }))
		m := h.m
		unknown, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available)})
		on, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
			PowerState: models.Ptr(states.PowerOn)})
		enrolled, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Enroll),
			PowerState: models.Ptr(states.PowerOn)})
		items, err := m.DiscoverPowerSync(ctx)
		if err != nil || len(items) != 3 {
			t.Fatalf("discovery: %v, %d items", err, len(items))
		}
		before := h.byUUID(t, on.UUID)
		if err := m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		// The fake power reads the recorded state: nothing to correct, and
		// nothing written.
		if got := h.byUUID(t, on.UUID); got.UpdatedAt != before.UpdatedAt || models.Deref(got.PowerState) != states.PowerOn {
			t.Errorf("in-sync node written: %v → %v", before.UpdatedAt, got.UpdatedAt)
		}
		if got := h.byUUID(t, unknown.UUID); got.PowerState != nil {
			t.Errorf("unknown power state became %q", models.Deref(got.PowerState))
		}
		_ = enrolled
	}, db.WithClock(clk))
}

// TestPowerSyncMaxRetries fails the power reads of a node until it goes to
// maintenance, then lets the recovery job bring it back.
func TestPowerSyncMaxRetries(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		failing := true
		fc := fake.Config{PowerDelay: fake.Delay{Min: time.Second, Max: time.Second},
			Sleep: func(ctx context.Context, _ time.Duration) error {
				if failing {
					return fmt.Errorf("BMC unreachable")
				}
				return nil
			}}
		nova := &recNova{}
		h := newHarness(t, store, withClock(clk), withFake(fc), withConfig(func(c *conductor.Config) { c.Nova = nova }))
		m := h.m
		n, _ := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Active),
			PowerState: models.Ptr(states.PowerOn), InstanceUUID: models.Ptr("1c1c1c1c-0000-4000-8000-000000000001")})
		for i := 1; i <= 3; i++ {
			if err := m.SyncPowerStates(ctx); err != nil {
				t.Fatal(err)
			}
			if got := h.byUUID(t, n.UUID); got.Maintenance {
				t.Fatalf("maintenance after %d failures", i)
			}
		}
		if err := m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		got := h.byUUID(t, n.UUID)
		want := "During sync_power_state, max retries exceeded for node " + n.UUID +
			", node state None does not match expected state 'power on'. Updating DB state to 'None' Switching node to maintenance mode. Error: BMC unreachable"
		if !got.Maintenance || models.Deref(got.Fault) != "power failure" || models.Deref(got.MaintenanceReason) != want ||
			models.Deref(got.LastError) != want || got.PowerState != nil {
			t.Fatalf("after max retries: maintenance %v fault %q reason %q power %v", got.Maintenance, models.Deref(got.Fault),
				models.Deref(got.MaintenanceReason), got.PowerState)
		}
		hist, _ := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
		if len(hist) != 1 || models.Deref(hist[0].EventType) != "monitoring" {
			t.Errorf("history: %+v", hist)
		}
		// Still unreachable: recovery leaves it alone.
		if err := m.PowerFailureRecovery(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.byUUID(t, n.UUID); !got.Maintenance {
			t.Fatal("recovered while unreachable")
		}
		failing = false
		if err := m.PowerFailureRecovery(ctx); err != nil {
			t.Fatal(err)
		}
		got = h.byUUID(t, n.UUID)
		if got.Maintenance || got.Fault != nil || got.MaintenanceReason != nil {
			t.Errorf("after recovery: maintenance %v fault %v reason %v", got.Maintenance, got.Fault, got.MaintenanceReason)
		}
		// Nova was told of the change to the unknown state, as Ironic
		// tells it (its client then refuses it: "Invalid Power State
		// None."); the fake power reads the recorded state back at
		// recovery, no change.
		if want := "1c1c1c1c-0000-4000-8000-000000000001 None"; nova.String() != want {
			t.Errorf("Nova told %q, want %q", nova.String(), want)
		}
	}, db.WithClock(clk))
}

// recNova records power notifications.
type recNova struct {
	mu     sync.Mutex
	events []string
}

func (r *recNova) PowerUpdate(_ context.Context, inst string, st states.Power) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st == "" {
		st = "None"
	}
	r.events = append(r.events, inst+" "+string(st))
}

func (r *recNova) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, ", ")
}

// TestDeadConductorTakeover: a conductor stops heartbeating while holding
// a deploying node; the survivor clears its lock, fails the deployment
// and takes its active nodes over.
func TestDeadConductorTakeover(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		dead := newHarness(t, store, withHost("dead"), withClock(clk)).m
		deploying, _ := dead.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Deploying),
			TargetProvisionState: models.Ptr(states.Active), TargetPowerState: models.Ptr(states.PowerOn)})
		active, _ := dead.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Active)})
		if _, err := store.ReserveNode(ctx, "dead", db.ByID(deploying.ID)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Minute)
		h := newHarness(t, store, withHost("alive"), withClock(clk))
		alive := h.m
		orphans, err := alive.DiscoverOrphanNodes(ctx)
		if err != nil || len(orphans) != 1 || orphans[0].UUID != deploying.UUID {
			t.Fatalf("orphans: %v %+v", err, orphans)
		}
		if err := alive.ProcessOrphanNode(ctx, orphans[0]); err != nil {
			t.Fatal(err)
		}
		alive.Wait()
		got := h.byUUID(t, deploying.UUID)
		if got.Reservation != nil || models.Deref(got.ProvisionState) != states.DeployFailed || got.TargetPowerState != nil ||
			models.Deref(got.LastError) != "Operation was aborted due to conductor take over" {
			t.Fatalf("orphan after take over: reservation %v state %q target power %v last_error %q", got.Reservation,
				models.Deref(got.ProvisionState), got.TargetPowerState, models.Deref(got.LastError))
		}
		take, err := alive.DiscoverTakeovers(ctx)
		if err != nil || len(take) != 1 || take[0].UUID != active.UUID {
			t.Fatalf("takeovers: %v %+v", err, take)
		}
		if err := alive.SyncLocalState(ctx); err != nil {
			t.Fatal(err)
		}
		alive.Wait()
		c, _ := store.GetConductor(ctx, "alive", false)
		if got := h.byUUID(t, active.UUID); got.ConductorAffinity == nil || *got.ConductorAffinity != c.ID {
			t.Errorf("affinity after take over: %v, want %d", got.ConductorAffinity, c.ID)
		}
		if take, _ := alive.DiscoverTakeovers(ctx); len(take) != 0 {
			t.Errorf("still to take over: %d", len(take))
		}
	}, db.WithClock(clk))
}

// bmcPower is the fake power interface in front of a BMC that reports
// its own power state, whatever the node records.
type bmcPower struct {
	fake.Power
	mu    sync.Mutex
	state states.Power
	reads int
	// hold and entered, when set, hold SetPowerState (see there).
	hold, entered chan struct{}
}

func (p *bmcPower) GetPowerState(context.Context, drivers.Task) (states.Power, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads++
	return p.state, nil
}

// SetPowerState waits for hold, when set (after telling entered), and
// leaves the BMC's state alone.
func (p *bmcPower) SetPowerState(ctx context.Context, _ drivers.Task, _ states.Power, _ time.Duration) error {
	if p.hold != nil {
		p.entered <- struct{}{}
		select {
		case <-p.hold:
		case <-ctx.Done():
		}
	}
	return nil
}

func (p *bmcPower) readCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads
}

// eventually polls cond until it holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRun drives the periodic jobs through Run on the real clock with
// short intervals: the heartbeat moves the conductor's updated_at, the
// power sync corrects a node's recorded power state from the BMC, and
// cancelling Run's context stops it cleanly, the conductor offline and
// its locks released.
func TestRun(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		bmc := &bmcPower{state: states.PowerOff, hold: make(chan struct{}), entered: make(chan struct{}, 1)}
		h := newHarness(t, store, withImpl(drivers.Power, "fake", bmc), withConfig(func(c *conductor.Config) {
			c.HeartbeatInterval = 50 * time.Millisecond
			c.SyncPowerStateInterval = 50 * time.Millisecond
			c.CheckProvisionStateInterval = 50 * time.Millisecond
			// Correct the record rather than drive the BMC back.
			c.ForcePowerStateDuringSync = false
		}))
		drifted := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOn})
		locked := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOff})
		// A task of this conductor holds locked: a power action the BMC
		// takes its time over.
		if err := h.m.ChangeNodePowerState(ctx, "", locked.UUID, states.PowerOn, 0); err != nil {
			t.Fatal(err)
		}
		<-bmc.entered
		registered, err := store.GetConductor(ctx, "c1", false)
		if err != nil {
			t.Fatal(err)
		}
		if !registered.Online || !registered.UpdatedAt.Valid() {
			t.Fatalf("registered conductor: online %v updated_at %v", registered.Online, registered.UpdatedAt)
		}

		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- h.m.Run(runCtx) }()
		stopped := false
		t.Cleanup(func() {
			// A failed check ends the test early: stop Run before the
			// store closes.
			if !stopped {
				cancel()
				if err := <-done; err != nil {
					t.Logf("Run: %v", err)
				}
			}
		})

		// (a) The heartbeat advances updated_at.
		eventually(t, "heartbeat", func() bool {
			c, err := store.GetConductor(ctx, "c1", false)
			if err != nil {
				t.Fatal(err)
			}
			return c.Online && c.UpdatedAt.After(registered.UpdatedAt.Time)
		})
		// (b) A power sync pass records the BMC's state.
		eventually(t, "power sync", func() bool {
			return models.Deref(h.reload(t, drifted).PowerState) == states.PowerOff
		})
		if got := h.reload(t, drifted); got.Maintenance || got.LastError != nil || got.TargetPowerState != nil || got.Reservation != nil {
			t.Errorf("synced node: maintenance %v last_error %v target %v reservation %v", got.Maintenance,
				models.Deref(got.LastError), got.TargetPowerState, got.Reservation)
		}
		if bmc.readCount() == 0 {
			t.Error("the BMC was never read")
		}
		// The sync leaves a node locked here alone, and Run holds its lock
		// while it runs.
		if got := h.reload(t, locked); models.Deref(got.Reservation) != "c1" || models.Deref(got.TargetPowerState) != states.PowerOn {
			t.Fatalf("locked node while running: reservation %v target power %v", models.Deref(got.Reservation), models.Deref(got.TargetPowerState))
		}

		// (c) Cancelling stops Run, which waits for the tasks, marks the
		// conductor offline and releases its locks.
		cancel()
		close(bmc.hold)
		select {
		case err := <-done:
			stopped = true
			if err != nil {
				t.Fatalf("Run returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10 s of its context ending")
		}
		c, err := store.GetConductor(ctx, "c1", false)
		if err != nil {
			t.Fatal(err)
		}
		if c.Online {
			t.Error("conductor still online after Run returned")
		}
		if got := h.reload(t, locked); got.Reservation != nil {
			t.Errorf("reservation left after Run returned: %v", *got.Reservation)
		}
		if _, err := store.GetConductor(ctx, "c1", true); err == nil {
			t.Error("the conductor is still listed among the online ones")
		}
	})
}

// uefiManagement is the fake management interface on hardware that
// reports UEFI without secure boot.
type uefiManagement struct{ fake.Management }

func (*uefiManagement) GetBootMode(context.Context, drivers.Task) (string, error) {
	return drivers.BootModeUEFI, nil
}

func (*uefiManagement) GetSecureBootState(context.Context, drivers.Task) (bool, error) {
	return false, nil
}

// TestPowerSyncCachesBootMode: the power sync records the boot mode and
// secure boot state the hardware reports (node_cache_boot_mode), once.
func TestPowerSyncCachesBootMode(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withClock(clk), withImpl(drivers.Management, "fake", &uefiManagement{}))
		n, _ := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
			PowerState: models.Ptr(states.PowerOn)})
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		got := h.byUUID(t, n.UUID)
		if models.Deref(got.BootMode) != "uefi" || got.SecureBoot == nil || *got.SecureBoot {
			t.Fatalf("boot_mode %v secure_boot %v, want uefi false", got.BootMode, got.SecureBoot)
		}
		if got.Reservation != nil {
			t.Errorf("node left reserved by %s", *got.Reservation)
		}
		clk.Advance(time.Minute)
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		if again := h.byUUID(t, n.UUID); again.UpdatedAt != got.UpdatedAt {
			t.Errorf("unchanged boot mode written again: %v → %v", got.UpdatedAt, again.UpdatedAt)
		}
	}, db.WithClock(clk))
}

// countingManagement is the fake management interface (no boot mode
// support) counting the boot mode reads.
type countingManagement struct {
	fake.Management
	reads *atomic.Int32
}

func (c *countingManagement) GetBootMode(ctx context.Context, t drivers.Task) (string, error) {
	c.reads.Add(1)
	return c.Management.GetBootMode(ctx, t)
}

// TestPowerSyncAsksUnsupportedBootModeOnce: a management implementation
// that can't tell the boot mode is not asked again once it said so.
func TestPowerSyncAsksUnsupportedBootModeOnce(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		var reads atomic.Int32
		h := newHarness(t, store, withImpl(drivers.Management, "fake", &countingManagement{reads: &reads}))
		for i := 0; i < 3; i++ {
			if _, err := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
				PowerState: models.Ptr(states.PowerOn)}); err != nil {
				t.Fatal(err)
			}
		}
		// The first pass syncs nodes in parallel: each worker that starts
		// before the first answer is remembered may ask once.
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		first := reads.Load()
		if first < 1 || first > 3 {
			t.Fatalf("first pass read the boot mode %d times, want 1 to 3 (one per node at most)", first)
		}
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		if n := reads.Load() - first; n != 0 {
			t.Errorf("second pass read the boot mode %d times, want 0", n)
		}
	})
}

// vendorManagement is the fake management interface with a vendor to
// detect, counting the detections.
type vendorManagement struct {
	fake.Management
	detections *atomic.Int32
}

func (v *vendorManagement) DetectVendor(context.Context, drivers.Task) (string, error) {
	v.detections.Add(1)
	return "montavista software, inc.", nil
}

// TestPowerSyncCachesVendor: the power sync and the verification at
// manage record the vendor the management interface detects
// (node_cache_vendor), and don't ask again once a node has one.
func TestPowerSyncCachesVendor(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		var n atomic.Int32
		h := newHarness(t, store, withImpl(drivers.Management, "fake", &vendorManagement{detections: &n}))
		synced, _ := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
			PowerState: models.Ptr(states.PowerOn)})
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.byUUID(t, synced.UUID); got.Properties.Get("vendor") != "montavista software, inc." || got.Reservation != nil {
			t.Fatalf("properties %v, reservation %v", got.Properties, got.Reservation)
		}
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		if got := n.Load(); got != 1 {
			t.Errorf("detected %d times, want once", got)
		}
		managed, _ := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Enroll)})
		if err := h.m.DoProvisioningAction(ctx, "", managed.UUID, states.EventManage); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.byUUID(t, managed.UUID); models.Deref(got.ProvisionState) != states.Manageable || got.Properties.Get("vendor") != "montavista software, inc." {
			t.Errorf("after manage: %s, properties %v", models.Deref(got.ProvisionState), got.Properties)
		}
	})
}

// ctxPower reports every node off and records, per call, whether the
// context asked for a single attempt and had a deadline.
type ctxPower struct {
	fake.Power
	mu    sync.Mutex
	calls []string
}

func (p *ctxPower) note(ctx context.Context, call string) {
	_, deadline := ctx.Deadline()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf("%s single=%v deadline=%v", call, drivers.IsSingleAttempt(ctx), deadline))
}

func (p *ctxPower) GetPowerState(ctx context.Context, _ drivers.Task) (states.Power, error) {
	p.note(ctx, "get")
	return states.PowerOff, nil
}

func (p *ctxPower) SetPowerState(ctx context.Context, task drivers.Task, state states.Power, timeout time.Duration) error {
	p.note(ctx, "set")
	return p.Power.SetPowerState(ctx, task, state, timeout)
}

// TestPowerSyncReadsOnceWithinDeadline: the sync's reads of the hardware
// ask drivers for a single attempt under a deadline; the power action
// force_power_state_during_sync takes is neither.
func TestPowerSyncReadsOnceWithinDeadline(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		p := &ctxPower{}
		h := newHarness(t, store, withImpl(drivers.Power, "fake", p))
		if _, err := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
			PowerState: models.Ptr(states.PowerOn)}); err != nil {
			t.Fatal(err)
		}
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		// node_power_action reads the state again before it acts.
		want := []string{"get single=true deadline=true", "get single=false deadline=false", "set single=false deadline=false"}
		if fmt.Sprint(p.calls) != fmt.Sprint(want) {
			t.Errorf("calls %q, want %q", p.calls, want)
		}
	})
}

// slowPower never answers before the context ends.
type slowPower struct{ fake.Power }

func (*slowPower) GetPowerState(ctx context.Context, _ drivers.Task) (states.Power, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// TestPowerSyncReadTimeout: a node whose hardware doesn't answer fails
// the pass after PowerSyncReadTimeout and goes to maintenance after the
// retries, as one whose hardware answers with an error.
func TestPowerSyncReadTimeout(t *testing.T) {
	ctx := context.Background()
	store := dbtest.SQLite(t)
	h := newHarness(t, store, withImpl(drivers.Power, "fake", &slowPower{}),
		withConfig(func(c *conductor.Config) { c.PowerSyncReadTimeout = 20 * time.Millisecond }))
	n, _ := h.m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware", ProvisionState: models.Ptr(states.Available),
		PowerState: models.Ptr(states.PowerOn)})
	for i := 1; i <= 4; i++ {
		start := time.Now()
		if err := h.m.SyncPowerStates(ctx); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("pass %d took %v", i, took)
		}
	}
	got := h.byUUID(t, n.UUID)
	want := "During sync_power_state, max retries exceeded for node " + n.UUID +
		", node state None does not match expected state 'power on'. Updating DB state to 'None' Switching node to maintenance mode. Error: context deadline exceeded"
	if !got.Maintenance || models.Deref(got.Fault) != states.PowerFailure || models.Deref(got.MaintenanceReason) != want {
		t.Errorf("maintenance %v fault %v reason %q", got.Maintenance, got.Fault, models.Deref(got.MaintenanceReason))
	}
}
