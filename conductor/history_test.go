package conductor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
)

// TestManageNodeHistory: the clean-up job keeps the newest
// node_history_max_entries events of the nodes this conductor owns,
// leaves other conductors' nodes alone, respects the batch count and
// node_history_minimum_days.
func TestManageNodeHistory(t *testing.T) {
	clk := newClock()
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		harness := func(minDays, batch int) *harness {
			return newHarness(t, store, withClock(clk), withConfig(func(c *conductor.Config) {
				c.NodeHistoryMaxEntries, c.NodeHistoryCleanupBatchCount, c.NodeHistoryMinimumDays = 3, batch, minDays
			}))
		}
		h := harness(0, 1000)
		self, err := store.GetConductor(ctx, "c1", false)
		if err != nil {
			t.Fatal(err)
		}
		elsewhere, err := store.RegisterConductor(ctx, &models.Conductor{Hostname: "c2"}, false)
		if err != nil {
			t.Fatal(err)
		}
		mkNode := func(affinity int64, events int) *models.Node {
			n := h.node(t, "fake-hardware", db.Values{"conductor_affinity": affinity})
			for i := range events {
				clk.Advance(time.Second)
				if _, err := store.CreateNodeHistory(ctx, &models.NodeHistory{NodeID: &n.ID, UUID: fmt.Sprintf("%08d-0000-4000-8000-%012d", n.ID, i),
					Event: models.Ptr(fmt.Sprintf("event %d", i))}); err != nil {
					t.Fatal(err)
				}
			}
			return n
		}
		events := func(n *models.Node) []string {
			hs, err := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range hs {
				out = append(out, models.Deref(e.Event))
			}
			return out
		}
		mine, few, other := mkNode(self.ID, 5), mkNode(self.ID, 2), mkNode(elsewhere.ID, 5)
		if err := h.m.ManageNodeHistory(ctx); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(events(mine)); got != "[event 2 event 3 event 4]" {
			t.Errorf("own node: %s", got)
		}
		if got := len(events(few)); got != 2 {
			t.Errorf("node under the limit: %d events", got)
		}
		if got := len(events(other)); got != 5 {
			t.Errorf("another conductor's node: %d events", got)
		}

		// Only events older than node_history_minimum_days count.
		h = harness(1, 1000)
		recent := mkNode(self.ID, 5)
		if err := h.m.ManageNodeHistory(ctx); err != nil {
			t.Fatal(err)
		}
		if got := len(events(recent)); got != 5 {
			t.Errorf("recent events: %d, want all 5 kept", got)
		}
		clk.Advance(48 * time.Hour)
		if err := h.m.ManageNodeHistory(ctx); err != nil {
			t.Fatal(err)
		}
		if got := len(events(recent)); got != 3 {
			t.Errorf("old events: %d, want 3 kept", got)
		}

		// The batch count stops the run after the node that reaches it.
		h = harness(0, 1)
		a, b := mkNode(self.ID, 5), mkNode(self.ID, 5)
		if err := h.m.ManageNodeHistory(ctx); err != nil {
			t.Fatal(err)
		}
		if la, lb := len(events(a)), len(events(b)); la != 3 || lb != 5 {
			t.Errorf("batch of 1: %d and %d events, want 3 and 5", la, lb)
		}
	}, db.WithClock(clk))
}
