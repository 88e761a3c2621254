package conductor_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// TestRescueAbort: abort in rescue wait ends in rescue failed with no
// last_error and an INFO history row, as manager._do_node_rescue_abort.
func TestRescueAbort(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		n := h.node(t, "fake-hardware", db.Values{"provision_state": states.RescueWait, "target_provision_state": states.Rescue,
			"driver_internal_info": map[string]any{"agent_url": "http://192.0.2.9:9999"}})
		if err := h.m.DoProvisioningAction(ctx, "", n.UUID, states.EventAbort); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if models.Deref(got.ProvisionState) != states.RescueFailed || got.LastError != nil || got.Reservation != nil {
			t.Errorf("after abort: state %q last_error %v reservation %v", models.Deref(got.ProvisionState), got.LastError, got.Reservation)
		}
		if _, ok := got.DriverInternalInfo["agent_url"]; ok {
			t.Errorf("agent_url kept: %v", got.DriverInternalInfo)
		}
		hist, err := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 1 || models.Deref(hist[0].Event) != "By request, the rescue operation was aborted." ||
			models.Deref(hist[0].Severity) != "INFO" || models.Deref(hist[0].EventType) != "rescue" {
			t.Errorf("history: %+v", hist)
		}
	})
}
