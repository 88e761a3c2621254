package inspector

import (
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/inspector"
)

// inspect starts inspecting a node inspector boots (BMC 192.0.2.10) and
// waits until inspector has rebooted it into its ramdisk.
func (e *env) inspect(extra map[string]any) string {
	e.t.Helper()
	uuid := e.node("192.0.2.10", extra)
	e.api.Must(e.ctx, e.t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
	e.waitState(uuid, "inspect wait", 30*time.Second)
	waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
	return uuid
}

// wantLastError fails unless the scenario's last_error has want.
func (e *env) wantLastError(want string) {
	e.t.Helper()
	if !strings.Contains(e.lastError, want) {
		e.t.Errorf("last_error = %q, want it to have %q", e.lastError, want)
	}
}

// TestRamdiskError: the ramdisk reports an error; inspector refuses the
// data (400) but cannot record the error (its state machine has no such
// transition from "waiting"), so the node waits on, until the operator
// aborts it.
func TestRamdiskError(t *testing.T) {
	run(t, "ramdisk_error", options{}, nil, func(e *env) {
		uuid := e.inspect(nil)
		m := machine("192.0.2.10")
		m.Error = "the disks are on fire"
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, m.Data())
		if err != nil || status != 400 {
			t.Fatalf("/v1/continue: %d %s %v, want 400", status, body, err)
		}
		// Inspector 11.1 answers "Can not transition from state
		// 'waiting' on event 'error'" and leaves the introspection
		// waiting.
		time.Sleep(2 * time.Second) // two status polls
		e.waitState(uuid, "inspect wait", time.Second)
		e.abort(uuid)
		e.wantLastError("Inspection was aborted by request.")
	})
}

// TestAbort: abort in inspect wait asks inspector to abort and fails the
// node; inspector then ignores the ramdisk.
func TestAbort(t *testing.T) {
	run(t, "abort", options{}, nil, func(e *env) {
		uuid := e.inspect(nil)
		e.abort(uuid)
		e.wantLastError("Inspection was aborted by request.")
	})
}

// TestRootDeviceHintUnsatisfied: a root device hint no disk satisfies
// fails the introspection in inspector's root_disk_selection hook.
func TestRootDeviceHintUnsatisfied(t *testing.T) {
	run(t, "root_device_hint", options{}, nil, func(e *env) {
		uuid := e.inspect(map[string]any{"properties": map[string]any{"root_device": map[string]any{"size": 1000}}})
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data())
		if err != nil || status != 400 {
			t.Fatalf("/v1/continue: %d %s %v, want 400", status, body, err)
		}
		e.waitState(uuid, "inspect failed", 30*time.Second)
		e.wantLastError("No disks satisfied root device hints")
	})
}

// TestUnknownMachine: data no node matches is refused (400) and changes
// nothing; the node waits until it is aborted.
func TestUnknownMachine(t *testing.T) {
	run(t, "unknown_machine", options{}, nil, func(e *env) {
		uuid := e.inspect(nil)
		m := machine("192.0.2.99")
		m.MACs = []string{"52:54:00:99:99:99"}
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, m.Data())
		if err != nil || status != 400 {
			t.Fatalf("/v1/continue: %d %s %v, want 400", status, body, err)
		}
		time.Sleep(3 * time.Second) // three status polls
		n := e.waitState(uuid, "inspect wait", time.Second)
		if p := n["properties"].(map[string]any); len(p) != 0 {
			t.Errorf("properties = %v, want none", p)
		}
		e.abort(uuid)
	})
}
