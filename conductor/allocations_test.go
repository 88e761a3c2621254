package conductor_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// noShuffle keeps the candidates in id order; reverse reverses them.
func noShuffle(int, func(i, j int)) {}

func reverse(n int, swap func(i, j int)) {
	for i := 0; i < n/2; i++ {
		swap(i, n-1-i)
	}
}

// availableNode is a node an allocation may take: available, powered
// off, of resource class rc, with the given traits.
func (h *harness) availableNode(t *testing.T, name, rc string, traits ...string) *models.Node {
	t.Helper()
	n := h.node(t, "fake-hardware", db.Values{
		"name": name, "resource_class": rc, "provision_state": states.Available, "power_state": states.PowerOff,
	})
	if len(traits) > 0 {
		if _, err := h.store.SetNodeTraits(context.Background(), n.ID, traits); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// allocate creates an allocation, waits for it to be processed and
// returns it as stored.
func (h *harness) allocate(t *testing.T, a *models.Allocation) *models.Allocation {
	t.Helper()
	ctx := context.Background()
	created, err := h.m.CreateAllocation(ctx, "", a)
	if err != nil {
		t.Fatalf("create allocation: %v", err)
	}
	if created.State != "allocating" || created.ConductorAffinity == nil || created.NodeID != nil {
		t.Errorf("created allocation: state %q affinity %v node %v", created.State, created.ConductorAffinity, created.NodeID)
	}
	h.m.Wait()
	got, err := h.store.GetAllocationByUUID(ctx, created.UUID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantAllocated(t *testing.T, h *harness, a *models.Allocation, n *models.Node) {
	t.Helper()
	if a.State != "active" || a.NodeID == nil || *a.NodeID != n.ID || a.LastError != nil {
		t.Fatalf("allocation: state %q node %v (want %d) last_error %v", a.State, a.NodeID, n.ID, models.Deref(a.LastError))
	}
	got := h.reload(t, n)
	if got.AllocationID == nil || *got.AllocationID != a.ID || models.Deref(got.InstanceUUID) != a.UUID || got.Reservation != nil {
		t.Errorf("node: allocation_id %v instance_uuid %v reservation %v", got.AllocationID, models.Deref(got.InstanceUUID), got.Reservation)
	}
}

func wantAllocationError(t *testing.T, a *models.Allocation, reason string) {
	t.Helper()
	want := "Failed to process allocation " + a.UUID + ": " + reason + "."
	if a.State != "error" || a.NodeID != nil || models.Deref(a.LastError) != want {
		t.Errorf("allocation: state %q node %v last_error %q, want %q", a.State, a.NodeID, models.Deref(a.LastError), want)
	}
}

func TestAllocationPicksMatchingNode(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		h := newHarness(t, store)
		conductor.SetShuffle(h.m, noShuffle)
		// Nodes that must never be picked, whatever the order.
		h.availableNode(t, "other-class", "silver", "CUSTOM_A")
		h.availableNode(t, "no-traits", "gold")
		h.node(t, "fake-hardware", db.Values{"resource_class": "gold", "provision_state": states.Available}) // no power state
		h.node(t, "fake-hardware", db.Values{"resource_class": "gold", "provision_state": states.Manageable, "power_state": states.PowerOff})
		h.node(t, "fake-hardware", db.Values{"resource_class": "gold", "provision_state": states.Available, "power_state": states.PowerOff, "maintenance": true})
		h.node(t, "fake-hardware", db.Values{"resource_class": "gold", "provision_state": states.Available, "power_state": states.PowerOff,
			"instance_uuid": "7a9bb5b8-4b3c-4fa0-a1cb-d3cd8d2b2e16"})
		want := h.availableNode(t, "good", "gold", "CUSTOM_A", "CUSTOM_B")

		a := h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), Traits: models.JSONList{"CUSTOM_A"}})
		wantAllocated(t, h, a, want)
		if traits, _ := h.reload(t, want).InstanceInfo["traits"].([]any); !slices.Equal(traits, []any{"CUSTOM_A"}) {
			t.Errorf("instance_info traits: %v", traits)
		}

		// The only suitable node is taken now.
		a = h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), Traits: models.JSONList{"CUSTOM_A"}})
		wantAllocationError(t, a, "no suitable nodes have the requested traits CUSTOM_A")
		a = h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("bronze")})
		wantAllocationError(t, a, "no available nodes match the resource class bronze")
		a = h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), CandidateNodes: models.JSONList{want.UUID}})
		wantAllocationError(t, a, "none of the requested nodes are available and match the resource class gold")
	})
}

func TestAllocationOrderAndOwner(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		n1 := h.availableNode(t, "n1", "gold")
		n2 := h.availableNode(t, "n2", "gold")
		n3 := h.availableNode(t, "n3", "gold")
		if _, err := store.UpdateNode(ctx, db.ByID(n2.ID), db.Values{"lessee": "p1"}); err != nil {
			t.Fatal(err)
		}

		// The injected shuffle decides the order...
		conductor.SetShuffle(h.m, reverse)
		wantAllocated(t, h, h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold")}), n3)
		// ...but a node named as the allocation goes first.
		conductor.SetShuffle(h.m, noShuffle)
		wantAllocated(t, h, h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), Name: models.Ptr("n2")}), n2)
		// An owner takes only nodes it owns or leases.
		a := h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), Owner: models.Ptr("p1")})
		wantAllocationError(t, a, "no available nodes match the resource class gold")
		if _, err := store.UpdateNode(ctx, db.ByID(n1.ID), db.Values{"owner": "p1"}); err != nil {
			t.Fatal(err)
		}
		wantAllocated(t, h, h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold"), Owner: models.Ptr("p1")}), n1)
	})
}

func TestAllocationLockedNode(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		h := newHarness(t, store)
		n := h.availableNode(t, "n", "gold")
		h.lockElsewhere(t, n)
		a := h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold")})
		wantAllocationError(t, a, "could not reserve any of 1 suitable nodes")
		if got := h.reload(t, n); got.AllocationID != nil || models.Deref(got.Reservation) != "other-host" {
			t.Errorf("locked node: allocation %v reservation %v", got.AllocationID, models.Deref(got.Reservation))
		}
	})
}

func TestDestroyAllocation(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		n := h.availableNode(t, "n", "gold")
		a := h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("gold")})
		wantAllocated(t, h, a, n)

		// The node may not lose its allocation while active, or while
		// moving through a state where updates are refused.
		for _, tc := range []struct {
			vals db.Values
			msg  string
		}{
			{db.Values{"provision_state": states.Active},
				"Cannot remove allocation " + a.UUID + " for node " + n.UUID + ", because the node is active (and maintenance mode is off)"},
			{db.Values{"provision_state": states.Deploying, "target_provision_state": states.Active},
				"Cannot remove allocation " + a.UUID + " for node " + n.UUID + ", because the node is in state deploying where updates are not allowed (and maintenance mode is off)"},
		} {
			if _, err := store.UpdateNode(ctx, db.ByID(n.ID), tc.vals); err != nil {
				t.Fatal(err)
			}
			wantFault(t, "destroy", h.m.DestroyAllocation(ctx, "", a), ironic.InvalidState, tc.msg)
		}
		// Maintenance allows everything.
		if _, err := store.UpdateNode(ctx, db.ByID(n.ID), db.Values{"maintenance": true}); err != nil {
			t.Fatal(err)
		}
		if err := h.m.DestroyAllocation(ctx, "", a); err != nil {
			t.Fatal(err)
		}
		got := h.reload(t, n)
		if got.AllocationID != nil || got.InstanceUUID != nil || got.Reservation != nil {
			t.Errorf("node after destroy: allocation %v instance %v reservation %v", got.AllocationID, got.InstanceUUID, got.Reservation)
		}
		if _, err := store.GetAllocationByUUID(ctx, a.UUID); !ironic.IsClass(err, ironic.AllocationNotFound) {
			t.Errorf("allocation still there: %v", err)
		}

		// A failed allocation has no node and goes without a lock.
		failed := h.allocate(t, &models.Allocation{ResourceClass: models.Ptr("none")})
		h.lockElsewhere(t, n)
		if err := h.m.DestroyAllocation(ctx, "", failed); err != nil {
			t.Errorf("destroy a failed allocation: %v", err)
		}
	})
}

func TestBackfillAllocation(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		n := h.node(t, "fake-hardware", db.Values{"resource_class": "gold", "provision_state": states.Active})
		if _, err := store.SetNodeTraits(ctx, n.ID, []string{"CUSTOM_A"}); err != nil {
			t.Fatal(err)
		}
		a, err := h.m.CreateAllocation(ctx, "", &models.Allocation{ResourceClass: models.Ptr("gold"), NodeID: &n.ID,
			Traits: models.JSONList{"CUSTOM_A"}})
		if err != nil {
			t.Fatal(err)
		}
		wantAllocated(t, h, a, n)

		// A node that doesn't match fails the allocation, saying why.
		bad := h.node(t, "fake-hardware", db.Values{"resource_class": "silver", "provision_state": states.Available})
		al := &models.Allocation{ResourceClass: models.Ptr("gold"), NodeID: &bad.ID, Traits: models.JSONList{"CUSTOM_A"},
			CandidateNodes: models.JSONList{n.UUID}}
		_, backfillErr := h.m.CreateAllocation(ctx, "", al)
		if !ironic.IsClass(backfillErr, ironic.AllocationFailed) {
			t.Fatalf("backfill of an unsuitable node: %v", backfillErr)
		}
		list, err := store.ListAllocations(ctx, db.AllocationFilter{State: models.Ptr(states.AllocationError)}, db.ListOpts{})
		if err != nil || len(list) != 1 {
			t.Fatalf("failed allocations: %v %v", list, err)
		}
		reason := "Cannot backfill an allocation for node " + bad.UUID + `: Node must be in the "active" state, but the current state is "available"; ` +
			"Resource class silver does not match the requested resource class gold; " +
			"List of traits TraitList(created_at=<?>,objects=[],updated_at=<?>) does not match the requested traits ['CUSTOM_A']; " +
			"Candidate nodes must be empty or contain the target node, but got ['" + n.UUID + "']"
		wantAllocationError(t, &list[0], reason)
		if got := ironic.AsFault(backfillErr).Message; got != models.Deref(list[0].LastError) {
			t.Errorf("returned %q, recorded %q", got, models.Deref(list[0].LastError))
		}

		// A node that doesn't exist.
		missing := int64(999999)
		_, err = h.m.CreateAllocation(ctx, "", &models.Allocation{ResourceClass: models.Ptr("gold"), NodeID: &missing})
		wantFault(t, "missing node", err, ironic.NodeNotFound, "Node 999999 could not be found.")
	})
}

func TestOrphanAndResumedAllocations(t *testing.T) {
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		dead, err := store.RegisterConductor(ctx, &models.Conductor{Hostname: "dead"}, true)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Minute)
		h := newHarness(t, store, withClock(clk))
		conductor.SetShuffle(h.m, noShuffle)
		n1 := h.availableNode(t, "n1", "gold")
		n2 := h.availableNode(t, "n2", "gold")

		orphan, err := store.CreateAllocation(ctx, &models.Allocation{ResourceClass: models.Ptr("gold"), ConductorAffinity: &dead.ID})
		if err != nil {
			t.Fatal(err)
		}
		found, err := h.m.DiscoverOrphanAllocations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Allocation.UUID != orphan.UUID || found[0].ConductorID != dead.ID {
			t.Fatalf("orphans: %+v", found)
		}
		if err := h.m.ProcessOrphanAllocation(ctx, found[0]); err != nil {
			t.Fatal(err)
		}
		got, err := store.GetAllocationByUUID(ctx, orphan.UUID)
		if err != nil {
			t.Fatal(err)
		}
		wantAllocated(t, h, got, n1)
		if got.ConductorAffinity == nil || *got.ConductorAffinity == dead.ID {
			t.Errorf("affinity after take over: %v", got.ConductorAffinity)
		}
		// Processing a stale discovery does nothing.
		if err := h.m.ProcessOrphanAllocation(ctx, found[0]); err != nil {
			t.Fatal(err)
		}
		if again, _ := store.GetAllocationByUUID(ctx, orphan.UUID); again.State != "active" || *again.NodeID != n1.ID {
			t.Errorf("stale take over changed the allocation: %+v", again)
		}
		if found, err := h.m.DiscoverOrphanAllocations(ctx); err != nil || len(found) != 0 {
			t.Errorf("orphans after take over: %v %v", found, err)
		}

		// An allocation this conductor left "allocating" is resumed.
		left, err := store.CreateAllocation(ctx, &models.Allocation{ResourceClass: models.Ptr("gold"), ConductorAffinity: got.ConductorAffinity})
		if err != nil {
			t.Fatal(err)
		}
		h.m.StartResumingAllocations(ctx)
		h.m.Wait()
		resumed, err := store.GetAllocationByUUID(ctx, left.UUID)
		if err != nil {
			t.Fatal(err)
		}
		wantAllocated(t, h, resumed, n2)
	}, db.WithClock(clk))
}
