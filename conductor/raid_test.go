package conductor_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/internal/pyjson"
)

func TestSetTargetRAIDConfig(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withManualManagement())
		n := h.node(t, "fake-hardware", nil)
		valid := pyjson.DictOf("logical_disks", []any{
			pyjson.DictOf("raid_level", "1", "size_gb", int64(100), "is_root_volume", true),
			pyjson.DictOf("raid_level", "0", "size_gb", "MAX"),
		})
		if err := h.m.SetTargetRAIDConfig(ctx, "", n.UUID, valid); err != nil {
			t.Fatal(err)
		}
		got := h.reload(t, n)
		if disks, _ := got.TargetRAIDConfig.Get("logical_disks").([]any); len(disks) != 2 {
			t.Fatalf("stored target: %v", got.TargetRAIDConfig)
		}

		for name, tc := range map[string]struct {
			config *pyjson.Dict
			msg    string
		}{
			"missing size": {pyjson.DictOf("logical_disks", []any{pyjson.DictOf("raid_level", "1")}),
				"RAID config validation error: 'size_gb' is a required property"},
			"two roots": {pyjson.DictOf("logical_disks", []any{
				pyjson.DictOf("raid_level", "1", "size_gb", int64(10), "is_root_volume", true),
				pyjson.DictOf("raid_level", "0", "size_gb", "MAX", "is_root_volume", true),
			}), "Raid config cannot have more than one root volume. 2 root volumes were specified"},
			"no disks key": {pyjson.DictOf("foo", int64(1)), "RAID config validation error: 'logical_disks' is a required property"},
		} {
			wantFault(t, name, h.m.SetTargetRAIDConfig(ctx, "", n.UUID, tc.config), ironic.InvalidParameterValue, tc.msg)
		}
		if got := h.reload(t, n); got.TargetRAIDConfig.Len() == 0 {
			t.Error("a refused configuration cleared the target")
		}

		// An empty configuration clears the target.
		if err := h.m.SetTargetRAIDConfig(ctx, "", n.UUID, pyjson.DictOf()); err != nil {
			t.Fatal(err)
		}
		if got := h.reload(t, n); got.TargetRAIDConfig.Len() != 0 || got.Reservation != nil {
			t.Errorf("after clearing: %v, reservation %v", got.TargetRAIDConfig, got.Reservation)
		}

		// no-raid refuses a configuration but lets one clear it.
		mm := h.node(t, "manual-management", nil)
		wantFault(t, "no-raid", h.m.SetTargetRAIDConfig(ctx, "", mm.UUID, valid), ironic.UnsupportedDriverExtension,
			"Driver manual-management does not support raid (disabled or not implemented).")
		if err := h.m.SetTargetRAIDConfig(ctx, "", mm.UUID, pyjson.DictOf()); err != nil {
			t.Errorf("no-raid clearing: %v", err)
		}
	})
}
