package conductor_test

import (
	"context"
	"testing"
	"time"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/states"
)

// TestReconcileReservations: a node left reserved by this conductor with
// no task behind it (a release the database refused, during an outage)
// is released, and failed when its state is transient; a node a task of
// this conductor holds, another conductor's node and a reserved node in a
// stable state keep what they have (the last only loses the stale lock).
func TestReconcileReservations(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		release := make(chan struct{})
		entered := make(chan struct{}, 1)
		fc := fake.Config{PowerDelay: fake.Delay{Min: time.Second, Max: time.Second},
			Sleep: func(ctx context.Context, _ time.Duration) error {
				entered <- struct{}{}
				<-release
				return nil
			}}
		h := newHarness(t, store, withFake(fc))
		m := h.m
		orphan := h.node(t, "fake-hardware", db.Values{"provision_state": string(states.Deploying), "target_provision_state": string(states.Active)})
		stable := h.node(t, "fake-hardware", db.Values{"provision_state": string(states.Available)})
		busy := h.node(t, "fake-hardware", db.Values{"provision_state": string(states.Available)})
		other := h.node(t, "fake-hardware", db.Values{"provision_state": string(states.Cleaning)})
		// What a failed release leaves: the reservation of this host.
		for _, n := range []*models.Node{orphan, stable} {
			if _, err := store.ReserveNode(ctx, "c1", db.ByID(n.ID)); err != nil {
				t.Fatal(err)
			}
		}
		h.lockElsewhere(t, other)
		// A task of ours holds busy (a power action in progress).
		if err := m.ChangeNodePowerState(ctx, "", busy.UUID, states.PowerOn, 0); err != nil {
			t.Fatal(err)
		}
		<-entered
		if err := m.ReconcileReservations(ctx); err != nil {
			t.Fatal(err)
		}
		got := h.reload(t, orphan)
		if got.Reservation != nil || models.Deref(got.ProvisionState) != states.DeployFailed ||
			models.Deref(got.LastError) != "The deploying state can't be resumed by conductor c1. Moving to fail state." {
			t.Errorf("orphan: reservation %v state %s last_error %q", got.Reservation, models.Deref(got.ProvisionState), models.Deref(got.LastError))
		}
		if got := h.reload(t, stable); got.Reservation != nil || models.Deref(got.ProvisionState) != states.Available {
			t.Errorf("stable: reservation %v state %s", got.Reservation, models.Deref(got.ProvisionState))
		}
		if got := h.reload(t, busy); models.Deref(got.Reservation) != "c1" {
			t.Errorf("busy: reservation %v, want c1 (its task runs)", got.Reservation)
		}
		if got := h.reload(t, other); models.Deref(got.Reservation) != "other-host" || models.Deref(got.ProvisionState) != states.Cleaning {
			t.Errorf("other: reservation %v state %s", got.Reservation, models.Deref(got.ProvisionState))
		}
		close(release)
		m.Wait()
		if got := h.reload(t, busy); got.Reservation != nil || models.Deref(got.PowerState) != states.PowerOn {
			t.Errorf("busy after its task: reservation %v power %v", got.Reservation, got.PowerState)
		}
		// Nothing left to reconcile.
		if err := m.ReconcileReservations(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.reload(t, busy); got.Reservation != nil {
			t.Errorf("busy reserved again: %v", got.Reservation)
		}
	})
}
