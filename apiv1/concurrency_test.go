package apiv1_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestConcurrentPatchAndProvision sends 16 concurrent calls to one node:
// PATCHes that each add their own extra key, and inspections (fake inspect
// finishes on a worker that holds the node's lock). Every answer is
// success or 409, and no update is lost: every acknowledged PATCH is in
// the node afterwards.
//
// A PATCH that reads the node while an inspection runs is refused at
// once ("Cannot update node ... while it is in state inspecting"), as in
// Ironic, and inspections can run back to back for the whole burst; so,
// like a client, a refused PATCH is sent again (for up to 10 s), and every PATCH
// must get through in the end.
func TestConcurrentPatchAndProvision(t *testing.T) {
	s := NewSetup(t)
	uuid := s.Must(201, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"}).JSON.(map[string]any)["uuid"].(string)
	s.Must(202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "manage"})

	// Do waits for the conductor's workers after each call, and a
	// sync.WaitGroup may not be waited on while other goroutines add to
	// it: the calls below don't wait, and the test waits once after them.
	settle := s.settle
	s.settle = nil
	const n = 16
	deadline := time.Now().Add(10 * time.Second)
	var wg sync.WaitGroup
	status := make([][]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 1 {
				status[i] = []int{s.Do("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"}).Status}
				return
			}
			for {
				st := s.Do("PATCH", "/v1/nodes/"+uuid,
					[]any{map[string]any{"op": "add", "path": fmt.Sprintf("/extra/k%d", i), "value": i}}).Status
				status[i] = append(status[i], st)
				if st != http.StatusConflict || time.Now().After(deadline) {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	settle()
	s.settle = settle
	node := s.Must(200, "GET", "/v1/nodes/"+uuid, nil).JSON.(map[string]any)
	extra := node["extra"].(map[string]any)
	for i, sts := range status {
		for _, st := range sts {
			switch {
			case i%2 == 0 && st == http.StatusOK, i%2 == 1 && st == http.StatusAccepted, st == http.StatusConflict:
			default:
				t.Errorf("call %d answered %d; only success or 409 are allowed", i, st)
			}
		}
		if i%2 == 1 {
			continue
		}
		if last := sts[len(sts)-1]; last != http.StatusOK {
			t.Errorf("PATCH %d still answered %d after %d tries", i, last, len(sts))
		} else if _, ok := extra[fmt.Sprintf("k%d", i)]; !ok {
			t.Errorf("PATCH %d answered 200 but its key is lost: extra = %v", i, extra)
		}
	}
	if node["provision_state"] != "manageable" || node["reservation"] != nil {
		t.Errorf("node ends %v, reserved by %v", node["provision_state"], node["reservation"])
	}
	t.Logf("statuses: %v", status)
}
