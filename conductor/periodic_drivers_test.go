package conductor_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// raidWithPeriodic is the fake RAID interface with a periodic job that
// records the nodes it is given and marks them.
type raidWithPeriodic struct {
	*fake.RAID
	seen []string
}

func (r *raidWithPeriodic) NodePeriodics() []drivers.NodePeriodic {
	return []drivers.NodePeriodic{{
		Name: "test", Interval: 1, ProvisionStates: []states.Provision{states.CleanWait},
		Predicate: func(dii *pyjson.Dict) bool { return dii.Get("pick me") == true },
		Run: func(ctx context.Context, task drivers.Task) error {
			r.seen = append(r.seen, task.NodeUUID())
			if err := task.UpgradeLock(ctx); err != nil {
				return err
			}
			task.DriverInternalInfo().Set("seen", true)
			return task.Save(ctx)
		},
	}}
}

// The conductor runs an implementation's periodic job on the matching
// unreserved nodes it manages.
func TestDriverPeriodics(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		raid := &raidWithPeriodic{RAID: &fake.RAID{}}
		h := newHarness(t, store, withImpl(drivers.RAID, "fake", raid))
		mk := func(state states.Provision, pick bool) *models.Node {
			return h.node(t, "fake-hardware", db.Values{"provision_state": state,
				"driver_internal_info": models.DictFrom(pyjson.DictOf("pick me", pick))})
		}
		yes, no, other := mk(states.CleanWait, true), mk(states.CleanWait, false), mk(states.DeployWait, true)
		locked := mk(states.CleanWait, true)
		release := h.lockElsewhere(t, locked)
		defer release()
		periodics := h.m.NodePeriodicsForTest()
		if len(periodics) != 1 {
			t.Fatalf("%d periodics", len(periodics))
		}
		if err := h.m.RunNodePeriodic(ctx, periodics[0]); err != nil {
			t.Fatal(err)
		}
		if len(raid.seen) != 1 || raid.seen[0] != yes.UUID {
			t.Errorf("seen %v, want only %s", raid.seen, yes.UUID)
		}
		if h.reload(t, yes).DriverInternalInfo.Get("seen") != true {
			t.Error("the job's change was not saved")
		}
		for _, n := range []*models.Node{no, other, locked} {
			if h.reload(t, n).DriverInternalInfo.Has("seen") {
				t.Errorf("node %s was handled", n.UUID)
			}
		}
	})
}
