package conductor_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// TestConcurrentActionLimit: [conductor]max_concurrent_deploy and
// max_concurrent_clean refuse a deploy, a manual clean or a tear down
// while that many nodes deploy or clean (_concurrent_action_limit).
func TestConcurrentActionLimit(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withConfig(func(c *conductor.Config) { c.MaxConcurrentDeploy, c.MaxConcurrentClean = 1, 2 }))
		avail := h.node(t, "fake-hardware", db.Values{"provision_state": states.Available, "power_state": states.PowerOff})
		manageable := h.node(t, "fake-hardware", db.Values{"provision_state": states.Manageable, "power_state": states.PowerOff})
		active := h.node(t, "fake-hardware", db.Values{"provision_state": states.Active, "power_state": states.PowerOn})
		busy := h.node(t, "fake-hardware", db.Values{"provision_state": states.DeployWait})
		msg := func(action string) string {
			return "Unable to process request at this time. The concurrent action limit for " + action +
				" has been reached. Please contact your administrator and try again later."
		}
		err := h.m.DoNodeDeploy(ctx, "", avail.UUID, false, nil, nil)
		wantFault(t, "deploy", err, ironic.ConcurrentActionLimit, msg("provisioning"))
		if f := ironic.AsFault(err); f.HTTPStatus() != 500 {
			t.Errorf("status %d, want the reference's 500", f.HTTPStatus())
		}
		// One cleaning node is below the clean limit of 2.
		h.node(t, "fake-hardware", db.Values{"provision_state": states.CleanWait})
		if err := h.m.DoNodeTearDown(ctx, "", active.UUID); err != nil {
			t.Fatalf("tear down below the limit: %v", err)
		}
		h.m.Wait()
		h.node(t, "fake-hardware", db.Values{"provision_state": states.Deleting})
		wantFault(t, "clean", h.m.DoNodeClean(ctx, "", manageable.UUID, []*pyjson.Dict{pyjson.DictOf("interface", "deploy", "step", "erase_devices")}, nil),
			ironic.ConcurrentActionLimit, msg("cleaning"))
		wantFault(t, "tear down", h.m.DoNodeTearDown(ctx, "", active.UUID), ironic.ConcurrentActionLimit, msg("unprovisioning"))
		// The deploy limit counts deploying nodes only.
		if _, err := store.UpdateNode(ctx, db.ByID(busy.ID), db.Values{"provision_state": states.DeployFailed}); err != nil {
			t.Fatal(err)
		}
		if err := h.m.DoNodeDeploy(ctx, "", avail.UUID, false, nil, nil); err != nil {
			t.Errorf("deploy below the limit: %v", err)
		}
		h.m.Wait()
	})
}
