package conductor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// BenchmarkPowerSync10k is one power sync pass over 10,000 fake nodes on
// SQLite, all in sync (the steady state): one discovery query, then one
// driver read per node and no writes. Ironic's budget is one
// sync_power_state_interval (60 s).
func BenchmarkPowerSync10k(b *testing.B) {
	ctx := context.Background()
	store := dbtest.SQLite(b)
	m := newHarness(b, store).m
	const nodes = 10000
	for i := range nodes {
		ps := states.PowerOn
		if i%2 == 1 {
			ps = states.PowerOff
		}
		if _, err := store.CreateNode(ctx, &models.Node{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Driver: "fake-hardware",
			ProvisionState: models.Ptr(states.Active), PowerState: &ps, PowerInterface: models.Ptr("fake"),
			DriverInfo: models.DictOf("ipmi_address", "192.0.2.1")}); err != nil {
			b.Fatal(err)
		}
	}
	items, err := m.DiscoverPowerSync(ctx)
	if err != nil || len(items) != nodes {
		b.Fatalf("discovery: %v, %d", err, len(items))
	}
	b.ResetTimer()
	for range b.N {
		if err := m.SyncPowerStates(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n, _ := store.ListNodes(ctx, db.NodeFilter{Maintenance: models.Ptr(true)}, db.ListOpts{}); len(n) != 0 {
		b.Fatalf("%d nodes went to maintenance", len(n))
	}
}

// BenchmarkDeployUndeploy is one fake-hardware deploy (with a 4 KiB config
// drive) and undeploy of a node, each run to its end on a worker, on a
// SQLite file: the conductor's share of the lifecycle benchmark.
func BenchmarkDeployUndeploy(b *testing.B) {
	ctx := context.Background()
	h := newHarness(b, dbtest.SQLite(b), withConfig(func(c *conductor.Config) { c.AutomatedClean = false }))
	n := h.node(b, "fake-hardware", db.Values{"provision_state": states.Available})
	cd := strings.Repeat("A", 4096)
	b.ResetTimer()
	for range b.N {
		if err := h.m.DoNodeDeploy(ctx, "", n.UUID, false, cd, nil); err != nil {
			b.Fatal(err)
		}
		h.m.Wait()
		if err := h.m.DoNodeTearDown(ctx, "", n.UUID); err != nil {
			b.Fatal(err)
		}
		h.m.Wait()
	}
	b.StopTimer()
	if got := h.reload(b, n); models.Deref(got.ProvisionState) != states.Available || got.LastError != nil {
		b.Fatalf("ended in %q: %v", models.Deref(got.ProvisionState), got.LastError)
	}
}
