package apiv1_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// TestConcurrentPatchAndProvision sends 16 concurrent calls to one node:
// PATCHes that each add their own extra key, and inspections (fake inspect
// finishes on a worker that holds the node's lock). Every call either
// succeeds or is refused with 409, and every acknowledged PATCH is in the
// node afterwards: no lost update.
func TestConcurrentPatchAndProvision(t *testing.T) {
	s := NewSetup(t)
	uuid := s.Must(201, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"}).JSON.(map[string]any)["uuid"].(string)
	s.Must(202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "manage"})

	const n = 16
	var wg sync.WaitGroup
	status := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				status[i] = s.Do("PATCH", "/v1/nodes/"+uuid,
					[]any{map[string]any{"op": "add", "path": fmt.Sprintf("/extra/k%d", i), "value": i}}).Status
			} else {
				status[i] = s.Do("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"}).Status
			}
		}()
	}
	wg.Wait()
	node := s.Must(200, "GET", "/v1/nodes/"+uuid, nil).JSON.(map[string]any)
	extra := node["extra"].(map[string]any)
	patched := 0
	for i, st := range status {
		switch {
		case i%2 == 0 && st == http.StatusOK:
			patched++
			if _, ok := extra[fmt.Sprintf("k%d", i)]; !ok {
				t.Errorf("PATCH %d answered 200 but its key is lost: extra = %v", i, extra)
			}
		case i%2 == 1 && st == http.StatusAccepted, st == http.StatusConflict:
		default:
			t.Errorf("call %d answered %d; only success or 409 are allowed", i, st)
		}
	}
	if patched == 0 {
		t.Errorf("no PATCH succeeded: %v", status)
	}
	if node["provision_state"] != "manageable" || node["reservation"] != nil {
		t.Errorf("node ends %v, reserved by %v", node["provision_state"], node["reservation"])
	}
	t.Logf("statuses: %v", status)
}
