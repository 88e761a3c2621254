package inspector

import (
	"fmt"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/inspector"
)

const gib = 1 << 30

// machine is the hardware the played ramdisk reports.
func machine(bmc string) inspector.Machine {
	return inspector.Machine{MACs: []string{"52:54:00:12:34:56", "52:54:00:12:34:57"}, BMCAddress: bmc,
		DiskSizes: []int64{20 * gib, 10 * gib}, CPUs: 2, MemoryMB: 2048}
}

// run runs a scenario on ours and compares the requests with the
// golden recorded from Python Ironic 21.4 (with -record: runs it on the
// reference and rewrites the golden).
func run(t *testing.T, name string, o options, departures map[string]string, fn func(e *env)) {
	o.python = *record
	e := start(t, o)
	fn(e)
	e.check(name, departures)
}

// TestInspectorManagedBoot: inspect → inspect wait → inspector boots the
// node through the API → the ramdisk's data (looked up by BMC address) →
// inspector PATCHes the node and creates its PXE port → the status poll
// stores the inventory → manageable.
func TestInspectorManagedBoot(t *testing.T) {
	run(t, "inspector_managed_boot", options{}, nil, func(e *env) {
		uuid := e.node("192.0.2.10", nil)
		e.api.Must(e.ctx, t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
		e.waitState(uuid, "inspect wait", 30*time.Second)
		// Inspector reboots the node into its ramdisk.
		waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
		status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data())
		if err != nil || status != 200 {
			t.Fatalf("/v1/continue: %d %s %v", status, body, err)
		}
		n := e.waitState(uuid, "manageable", 30*time.Second)
		props := n["properties"].(map[string]any)
		for k, want := range map[string]any{"cpus": 2.0, "memory_mb": 2048.0, "cpu_arch": "x86_64", "local_gb": 19.0} {
			if fmt.Sprint(props[k]) != fmt.Sprint(want) {
				t.Errorf("properties[%s] = %v, want %v (%v)", k, props[k], want, props)
			}
		}
		if n["last_error"] != nil {
			t.Errorf("last_error = %v", n["last_error"])
		}
		ports := e.api.Object(e.ctx, t, "GET", "/v1/ports?node="+uuid, nil)["ports"].([]any)
		if len(ports) != 1 || ports[0].(map[string]any)["address"] != "52:54:00:12:34:56" {
			t.Errorf("ports = %v, want the PXE NIC's", ports)
		}
		inv := e.api.Object(e.ctx, t, "GET", "/v1/nodes/"+uuid+"/inventory", nil)
		cpu, _ := inv["inventory"].(map[string]any)["cpu"].(map[string]any)
		if fmt.Sprint(cpu["count"]) != "2" {
			t.Errorf("inventory = %v", inv)
		}
		if pd, _ := inv["plugin_data"].(map[string]any); pd["root_disk"] == nil {
			t.Errorf("plugin_data has no root_disk: %v", pd)
		}
	})
}
