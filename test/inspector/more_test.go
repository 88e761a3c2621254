package inspector

import (
	"fmt"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/inspector"
)

// TestReinspection: a second inspection replaces the node's inventory.
// Python Ironic 21.4.4 (Debian's 21.4.4-0+deb12u3) adds a second row and
// goes on answering the first, stale one on GET /inventory (on MySQL,
// where the order of the rows is not fixed, it may answer either; the
// issue reports a 500); ours answers the new data (docs/departures.md).
func TestReinspection(t *testing.T) {
	run(t, "reinspection", options{}, nil, func(e *env) {
		uuid := e.node("192.0.2.10", nil)
		for i, cpus := range []int{2, 4} {
			if i > 0 {
				e.toIronic.Reset() // wait for the second reboot, not the first
			}
			e.api.Must(e.ctx, t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
			e.waitState(uuid, "inspect wait", 30*time.Second)
			waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
			m := machine("192.0.2.10")
			m.CPUs = cpus
			status, body, err := inspector.Continue(e.ctx, e.insp.URL, m.Data())
			if err != nil || status != 200 {
				t.Fatalf("/v1/continue: %d %s %v", status, body, err)
			}
			e.inspectedN(uuid, i+1)
		}
		inv := e.api.Object(e.ctx, t, "GET", "/v1/nodes/"+uuid+"/inventory", nil)
		cpu, _ := inv["inventory"].(map[string]any)["cpu"].(map[string]any)
		want := map[bool]string{true: "2", false: "4"}[*record]
		if fmt.Sprint(cpu["count"]) != want {
			t.Errorf("inventory after re-inspection has %v CPUs, want %s", cpu["count"], want)
		}
	})
}

// TestInspectorDown: inspector unreachable when inspection starts: the
// node fails inspection with the connection error, never stuck.
func TestInspectorDown(t *testing.T) {
	run(t, "inspector_down", options{}, nil, func(e *env) {
		e.toInspector.SetDown()
		uuid := e.node("192.0.2.10", nil)
		e.api.Must(e.ctx, t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
		e.waitState(uuid, "inspect failed", 60*time.Second)
		e.wantLastError("Failed to start inspection: ")
	})
}

// TestInspectorErrors: in inspect wait, inspector answers 500, then
// hangs past [inspector]timeout; the status poll logs and retries, the
// node waits, and finishes once inspector is back.
func TestInspectorErrors(t *testing.T) {
	run(t, "inspector_errors", options{inspectorOpts: "timeout = 2"}, nil, func(e *env) {
		uuid := e.inspect(nil)
		e.toInspector.SetStatus(500)
		time.Sleep(2500 * time.Millisecond)
		e.toInspector.SetSlow(5 * time.Second)
		time.Sleep(3 * time.Second)
		e.waitState(uuid, "inspect wait", time.Second)
		e.toInspector.SetUp()
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data())
		if err != nil || status != 200 {
			t.Fatalf("/v1/continue: %d %s %v", status, body, err)
		}
		e.inspected(uuid)
	})
}

// TestInspectWaitTimeout: [conductor]inspect_wait_timeout fails a node
// whose ramdisk never calls back.
func TestInspectWaitTimeout(t *testing.T) {
	run(t, "inspect_wait_timeout", options{ourExtra: "[conductor]\ninspect_wait_timeout = 4\ncheck_provision_state_interval = 1\n"}, nil, func(e *env) {
		uuid := e.inspect(nil)
		e.waitState(uuid, "inspect failed", 30*time.Second)
		e.wantLastError("timeout reached while inspecting the node")
	})
}
