package conductor_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
)

// brokenConsole is the fake console failing to start.
type brokenConsole struct{ fake.Console }

func (brokenConsole) StartConsole(context.Context, drivers.Task) error {
	return ironic.Errorf(ironic.ConsoleError, "socat died")
}

func TestConsoleMode(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withManualManagement())
		n := h.node(t, "fake-hardware", db.Values{"last_error": "old"})

		_, err := h.m.GetConsoleInformation(ctx, "", n.UUID)
		wantFault(t, "info while disabled", err, ironic.NodeConsoleNotEnabled, "Console access is not enabled on node "+n.UUID)

		if err := h.m.SetConsoleMode(ctx, "", n.UUID, true); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if !got.ConsoleEnabled || got.LastError != nil || got.Reservation != nil {
			t.Fatalf("after enabling: console %v last_error %v reservation %v", got.ConsoleEnabled, got.LastError, got.Reservation)
		}
		info, err := h.m.GetConsoleInformation(ctx, "", n.UUID)
		if err != nil || info == nil || len(info) != 0 {
			t.Errorf("fake console info: %v %v", info, err)
		}

		// Asking for the current mode needs no exclusive lock; changing it does.
		release := h.lockElsewhere(t, n)
		if err := h.m.SetConsoleMode(ctx, "", n.UUID, true); err != nil {
			t.Errorf("enable again under a foreign lock: %v", err)
		}
		if err := h.m.SetConsoleMode(ctx, "", n.UUID, false); !ironic.IsClass(err, ironic.NodeLocked) {
			t.Errorf("disable under a foreign lock: %v", err)
		}
		release()
		if err := h.m.SetConsoleMode(ctx, "", n.UUID, false); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.reload(t, n); got.ConsoleEnabled {
			t.Error("console still enabled")
		}

		// no-console refuses.
		mm := h.node(t, "manual-management", nil)
		wantFault(t, "no-console", h.m.SetConsoleMode(ctx, "", mm.UUID, true), ironic.UnsupportedDriverExtension,
			"Driver manual-management does not support console (disabled or not implemented).")
	})
}

func TestConsoleStartFailure(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withImpl(drivers.Console, "fake", &brokenConsole{}))
		n := h.node(t, "fake-hardware", nil)
		if err := h.m.SetConsoleMode(ctx, "", n.UUID, true); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		want := "Error enabling the console on node " + n.UUID + ". Reason: socat died"
		if got.ConsoleEnabled || models.Deref(got.LastError) != want || got.Reservation != nil {
			t.Fatalf("after a failed start: console %v last_error %q reservation %v", got.ConsoleEnabled, models.Deref(got.LastError), got.Reservation)
		}
		hist, err := store.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 1 || models.Deref(hist[0].Event) != want || models.Deref(hist[0].EventType) != "console" ||
			models.Deref(hist[0].Severity) != "ERROR" || models.Deref(hist[0].Conductor) != "c1" {
			t.Errorf("history: %+v", hist)
		}
	})
}
