package conductor_test

import (
	"context"
	"testing"
	"time"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/drivers/fake"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

func TestCreateNodeFillsDefaultInterfaces(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		m := newHarness(t, store).m
		n, err := m.CreateNode(context.Background(), "", &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		if models.Deref(n.PowerInterface) != "fake" || models.Deref(n.NetworkInterface) != "noop" {
			t.Errorf("interfaces: power %v network %v", models.Deref(n.PowerInterface), models.Deref(n.NetworkInterface))
		}
		bad := "bogus"
		_, err = m.CreateNode(context.Background(), "", &models.Node{Driver: "fake-hardware", DeployInterface: &bad})
		if !ironic.IsClass(err, ironic.InterfaceNotFoundInEntrypoint) {
			t.Errorf("bogus interface: %v", err)
		}
	})
}

func TestBusyLockIsNodeLocked(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		m := newHarness(t, store).m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		// Another conductor holds the node.
		if _, err := store.ReserveNode(ctx, "other-host", db.ByID(n.ID)); err != nil {
			t.Fatal(err)
		}
		err = m.DestroyNode(ctx, "", n.UUID)
		if !ironic.IsClass(err, ironic.NodeLocked) || ironic.AsFault(err).HTTPStatus() != 409 {
			t.Fatalf("destroy of a locked node: %v", err)
		}
		if err := store.ReleaseNode(ctx, "other-host", db.ByID(n.ID)); err != nil {
			t.Fatal(err)
		}
		if err := m.DestroyNode(ctx, "", n.UUID); err != nil {
			t.Fatalf("destroy after release: %v", err)
		}
	})
}

func TestUpdateNodeRules(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		m := newHarness(t, store).m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		// Protected only in active/rescue.
		upd := *n
		upd.Protected = true
		_, err = m.UpdateNode(ctx, "", rpc.NodeUpdate{Node: upd, Changes: []string{"protected"}}, false)
		if !ironic.IsClass(err, ironic.InvalidState) {
			t.Errorf("protect in enroll: %v", err)
		}
		// Leaving maintenance clears its reason and fault.
		upd = *n
		upd.Maintenance, upd.MaintenanceReason = true, models.Ptr("r")
		got, err := m.UpdateNode(ctx, "", rpc.NodeUpdate{Node: upd, Changes: []string{"maintenance", "maintenance_reason"}}, false)
		if err != nil || !got.Maintenance || models.Deref(got.MaintenanceReason) != "r" {
			t.Fatalf("maintenance on: %v %+v", err, got)
		}
		upd = *got
		upd.Maintenance = false
		got, err = m.UpdateNode(ctx, "", rpc.NodeUpdate{Node: upd, Changes: []string{"maintenance"}}, false)
		if err != nil || got.Maintenance || got.MaintenanceReason != nil {
			t.Fatalf("maintenance off: %v %+v", err, got)
		}
		// Interfaces change only in the allowed states.
		if _, err := store.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": states.Active}); err != nil {
			t.Fatal(err)
		}
		upd = *got
		upd.ProvisionState = models.Ptr(states.Active)
		upd.BootInterface = models.Ptr("fake")
		_, err = m.UpdateNode(ctx, "", rpc.NodeUpdate{Node: upd, Changes: []string{"boot_interface"}}, false)
		if !ironic.IsClass(err, ironic.InvalidState) {
			t.Errorf("interface change while active: %v", err)
		}
	})
}

func TestPowerActionsAndVolumeRule(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		m := newHarness(t, store).m
		n, err := m.CreateNode(ctx, "", &models.Node{Driver: "fake-hardware"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := store.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &n.ID, Type: models.Ptr("iqn"), ConnectorID: models.Ptr("iqn.x")})
		if err != nil {
			t.Fatal(err)
		}
		// Power state unknown: volume changes are refused.
		if err := m.DestroyVolumeConnector(ctx, "", c); !ironic.IsClass(err, ironic.InvalidStateRequested) {
			t.Fatalf("destroy with power None: %v", err)
		}
		if err := m.ChangeNodePowerState(ctx, "", n.UUID, states.PowerOff, 0); err != nil {
			t.Fatal(err)
		}
		m.Wait()
		got, _ := store.GetNodeByUUID(ctx, n.UUID)
		if models.Deref(got.PowerState) != states.PowerOff || got.TargetPowerState != nil || got.Reservation != nil {
			t.Fatalf("after power off: power %v target %v reservation %v", models.Deref(got.PowerState), got.TargetPowerState, got.Reservation)
		}
		if err := m.DestroyVolumeConnector(ctx, "", c); err != nil {
			t.Fatalf("destroy when off: %v", err)
		}
	})
}

// A call waiting for a lock this conductor holds retries as soon as the
// lock is released, not at the next retry interval (an hour here).
func TestLockWaitEndsAtRelease(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	fc := fake.Config{DeployDelay: fake.Delay{Min: time.Second, Max: time.Second},
		Sleep: func(context.Context, time.Duration) error { <-gate; return nil }}
	h := newHarness(t, dbtest.SQLite(t), withFake(fc), withConfig(func(c *conductor.Config) {
		c.AutomatedClean, c.NodeLockedRetryInterval, c.ReplyLinger = false, time.Hour, -1
	}))
	n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available})
	if err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, nil, nil); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- h.m.DoNodeTearDown(ctx, "", n.UUID) }()
	time.Sleep(50 * time.Millisecond) // let the tear down find the node locked
	close(gate)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("tear down after the deployment released the node: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the tear down still waits for its lock retry interval")
	}
}

// A wait that ends at a release but finds the lock taken again (another
// waiter was faster) is not one of Ironic's attempts: a caller gives up
// only at the last node_locked_retry_interval tick, as Ironic's retry
// loop does, however often the lock changes hands before it. Here three
// inspections wait behind a fourth on one node, and each holds the lock
// until the test lets it go; with an hour between attempts, none may
// fail with NodeLocked.
func TestLockWaitLostToAnotherWaiterIsNoAttempt(t *testing.T) {
	ctx := context.Background()
	holding, gate, stop := make(chan struct{}), make(chan struct{}), make(chan struct{})
	fc := fake.Config{InspectDelay: fake.Delay{Min: time.Second, Max: time.Second},
		Sleep: func(context.Context, time.Duration) error {
			select {
			case holding <- struct{}{}:
			case <-stop:
				return nil
			}
			select {
			case <-gate:
			case <-stop:
			}
			return nil
		}}
	h := newHarness(t, dbtest.SQLite(t), withFake(fc), withConfig(func(c *conductor.Config) {
		c.NodeLockedRetryAttempts, c.NodeLockedRetryInterval, c.ReplyLinger = 3, time.Hour, -1
	}))
	t.Cleanup(func() { close(stop) }) // runs before the harness waits for its workers
	n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Manageable})
	if err := h.m.InspectHardware(ctx, "", n.UUID); err != nil {
		t.Fatal(err)
	}
	<-holding
	const waiters = 3
	errc := make(chan error, waiters)
	for range waiters {
		go func() { errc <- h.m.InspectHardware(ctx, "", n.UUID) }()
	}
	time.Sleep(50 * time.Millisecond) // let the waiters find the node locked
	deadline := time.After(30 * time.Second)
	for done := 0; done <= waiters; done++ {
		select {
		case gate <- struct{}{}: // the holder finishes and releases the lock
		case <-deadline:
			t.Fatal("the lock holder never finished")
		}
		if done == waiters {
			break
		}
		// One waiter gets the lock: its call returns nil (the worker
		// carries on) and its worker holds the lock; the others wait again.
		var err error
		select {
		case <-holding:
			err = <-errc
		case err = <-errc:
			if err == nil {
				<-holding
			}
		case <-deadline:
			t.Fatal("no waiter took the released lock")
		}
		if err != nil {
			t.Fatalf("a waiter gave up after %d release(s), an hour before Ironic's last attempt: %v", done+1, err)
		}
	}
	h.m.Wait()
	if got := h.reload(t, n); models.Deref(got.ProvisionState) != states.Manageable || got.Reservation != nil {
		t.Errorf("node ends %s, reserved by %v", models.Deref(got.ProvisionState), got.Reservation)
	}
}
