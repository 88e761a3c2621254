package inspector

import (
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/keystone"
)

// TestKeystone: the inspector-managed inspection with both services
// behind a real Keystone: ours asks inspector with the ironic service
// user's token, inspector calls ours with a token of its service user,
// each validates the other's tokens. The requests both ways are held to
// Python Ironic 21.4's under the same Keystone (testdata/golden/keystone.json,
// recorded with -record).
func TestKeystone(t *testing.T) {
	ks := keystone.ForTest(t, keystone.Options{})
	run(t, "keystone", options{keystone: ks}, nil, func(e *env) {
		uuid := e.node("192.0.2.10", nil)
		e.api.Must(e.ctx, t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
		e.waitState(uuid, "inspect wait", 30*time.Second)
		waitRequest(e, e.toIronic, "PUT", "/v1/nodes/"+uuid+"/states/power", 60*time.Second)
		if status, body, err := inspector.Continue(e.ctx, e.insp.URL, machine("192.0.2.10").Data()); err != nil || status != 200 {
			t.Fatalf("/v1/continue: %d %s %v", status, body, err)
		}
		n := e.inspected(uuid)
		if p := n["properties"].(map[string]any); p["memory_mb"] == nil {
			t.Errorf("properties = %v", p)
		}
		e.api.Must(e.ctx, t, 200, "GET", "/v1/nodes/"+uuid+"/inventory", nil)
		for name, p := range map[string]*inspector.Proxy{"to inspector": e.toInspector, "to ironic": e.toIronic} {
			for _, r := range p.Requests() {
				if r.Path != "/" && r.Path != "/v1/" && r.Header.Get("X-Auth-Token") == "" { // version discovery is public
					t.Errorf("%s: %s %s without a token", name, r.Method, r.Path)
				}
				if r.Status == 401 || r.Status == 403 {
					t.Errorf("%s: %s %s answered %d", name, r.Method, r.Path, r.Status)
				}
			}
		}
	})
}
