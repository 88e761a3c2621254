package split

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

// TestConcurrentCallsOneNode sends 16 concurrent calls to one node through
// ironic-api and two conductors on MariaDB: PATCHes that each add their own
// extra key, and inspections (the fake inspect runs on a worker holding
// the node's lock). Every call either succeeds or is refused with 409, and
// every acknowledged PATCH is in the node afterwards: no lost update.
func TestConcurrentCallsOneNode(t *testing.T) {
	broker := rabbittest.Shared(t)
	ctx := testContext(t, 3*time.Minute)
	c := startCluster(ctx, t, sharedDatabase(t), broker, cluster.INI{}, "cond-a", "cond-b")
	uuid := nodeUUID(6, 0)
	c.createNodes(uuid)
	c.provision(uuid, "manage", "manageable", time.Minute)

	// A round in which every PATCH lost the race for the lock (all 409) is
	// correct but shows nothing about lost updates: up to three rounds.
	patched := 0
	for round := 0; round < 3 && patched == 0; round++ {
		patched = concurrentRound(t, c, uuid, round)
	}
	if patched == 0 {
		t.Errorf("no PATCH succeeded in three rounds")
	}
	n := c.waitNode(uuid, time.Minute, func(n node) bool { return n.ProvisionState == "manageable" && n.Reservation == nil })
	if n.LastError != nil {
		t.Errorf("node ends with last_error %q", *n.LastError)
	}
	c.requireRunning()
}

// concurrentRound sends the 16 calls of one round (keys k<round>_<i>),
// checks every answer and every acknowledged key, and returns how many
// PATCHes succeeded.
func concurrentRound(t *testing.T, c *splitCluster, uuid string, round int) int {
	const calls = 16
	var wg sync.WaitGroup
	got := make([]cluster.Response, calls)
	errs := make([]error, calls)
	key := func(i int) string { return fmt.Sprintf("k%d_%d", round, i) }
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				got[i], errs[i] = c.do(http.MethodPatch, "/v1/nodes/"+uuid,
					[]any{map[string]any{"op": "add", "path": "/extra/" + key(i), "value": i}})
			} else {
				got[i], errs[i] = c.do(http.MethodPut, "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
			}
		}()
	}
	wg.Wait()
	c.waitNode(uuid, time.Minute, func(n node) bool { return n.ProvisionState == "manageable" && n.Reservation == nil })
	var full struct {
		Extra map[string]any `json:"extra"`
	}
	c.must(http.StatusOK, http.MethodGet, "/v1/nodes/"+uuid, nil, &full)
	patched := 0
	statuses := make([]int, calls)
	for i, r := range got {
		statuses[i] = r.Status
		switch {
		case errs[i] != nil:
			t.Errorf("call %d: %v", i, errs[i])
		case i%2 == 0 && r.Status == http.StatusOK:
			patched++
			if _, ok := full.Extra[key(i)]; !ok {
				t.Errorf("PATCH %d answered 200 but its key is lost: extra = %v", i, full.Extra)
			}
		case i%2 == 1 && r.Status == http.StatusAccepted:
		case r.Status == http.StatusConflict:
			var e struct {
				ErrorMessage string `json:"error_message"`
			}
			if json.Unmarshal(r.Body, &e) != nil || e.ErrorMessage == "" {
				t.Errorf("call %d: 409 without Ironic's error body: %s", i, r)
			}
		default:
			t.Errorf("call %d answered %s; only success or 409 are allowed", i, r)
		}
	}
	t.Logf("round %d statuses (even: PATCH, odd: inspect): %v", round, statuses)
	return patched
}
