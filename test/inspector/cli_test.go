package inspector

import (
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/osc"
)

// TestCLI: `openstack baremetal node inspect --wait` as a new user runs
// it, against our service and the real inspector; the CLI returns once
// the node is manageable again.
func TestCLI(t *testing.T) {
	bin := cluster.RequireCLI(t)
	e := start(t, options{})
	uuid := e.node("192.0.2.10", nil)
	cli := osc.New(e.ctx, bin, t.TempDir(), e.ironic.URL, "1.78")
	done := make(chan osc.Result, 1)
	go func() {
		r, err := cli.Exec([]string{"node", "inspect", uuid, "--wait", "90"})
		if err != nil {
			r.Stderr += err.Error()
		}
		done <- r
	}()
	waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
	if status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data()); err != nil || status != 200 {
		t.Fatalf("/v1/continue: %d %s %v", status, body, err)
	}
	select {
	case r := <-done:
		if r.Code != 0 {
			t.Fatalf("openstack baremetal node inspect --wait: %s", r)
		}
	case <-time.After(100 * time.Second):
		t.Fatal("the CLI did not return")
	}
	var n map[string]any
	cli.JSON(t, &n, "node", "show", uuid, "-f", "json")
	if n["provision_state"] != "manageable" {
		t.Errorf("after the CLI: %v", n["provision_state"])
	}
}
