package inspector

import (
	"flag"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/inspector"
)

var benchPython = flag.Bool("bench-python", false, "run BenchmarkInspectToManageable on Python Ironic 21.4")

// BenchmarkInspectToManageable is the time from `inspect` to
// manageable with [inspector]status_check_period = 2, the ramdisk posting
// its data as soon as inspector has rebooted the node (inspector-managed
// boot, one node inspected again and again):
//
//	go test -count=1 -p 1 -run XXX -bench InspectToManageable -benchtime 5x ./test/inspector [-bench-python]
func BenchmarkInspectToManageable(b *testing.B) {
	e := start(b, options{statusCheckPeriod: 2, python: *benchPython})
	uuid := e.node("192.0.2.10", nil)
	b.ResetTimer()
	for range b.N {
		e.toIronic.Reset()
		e.api.Must(e.ctx, b, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
		waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
		if status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data()); err != nil || status != 200 {
			b.Fatalf("/v1/continue: %d %s %v", status, body, err)
		}
		e.waitState(uuid, "manageable", 30*time.Second)
	}
}
