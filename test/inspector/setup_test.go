package inspector

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// env is one scenario's services: ironic-inspector and our all-in-one,
// each reached through a recording proxy (toInspector records what the
// service sends inspector, toIronic what inspector sends the service).
type env struct {
	t           *testing.T
	ctx         context.Context
	api         *cluster.Client
	ironic      *cluster.Service
	insp        *inspector.Inspector
	toInspector *inspector.Proxy
	toIronic    *inspector.Proxy
}

// options shape a scenario's services.
type options struct {
	// ourExtra is appended to our ironic.conf; inspectorExtra to
	// inspector.conf.
	ourExtra, inspectorExtra string
	// statusCheckPeriod is [inspector]status_check_period (seconds).
	statusCheckPeriod int
}

// start runs inspector and our all-in-one for one scenario.
func start(t *testing.T, o options) *env {
	t.Helper()
	ctx := cluster.TestContext(t, 4*time.Minute, 20*time.Second)
	cluster.Build(t, cluster.AllInOne)
	ourPort, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	inspPort, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx}
	e.toIronic = inspector.NewProxy(t, fmt.Sprintf("http://127.0.0.1:%d", ourPort))
	e.toInspector = inspector.NewProxy(t, fmt.Sprintf("http://127.0.0.1:%d", inspPort))
	e.insp = inspector.Start(ctx, t, inspector.Options{IronicURL: e.toIronic.URL, Port: inspPort, Extra: o.inspectorExtra})
	period := o.statusCheckPeriod
	if period == 0 {
		period = 1
	}
	db := filepath.Join(t.TempDir(), "ironic.sqlite")
	e.ironic = cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Port: ourPort, Config: func(port int) string {
		return fmt.Sprintf(`[DEFAULT]
host = goironic-inspector-test
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake,ipxe
enabled_deploy_interfaces = fake
enabled_management_interfaces = fake
enabled_power_interfaces = fake
enabled_network_interfaces = noop
enabled_inspect_interfaces = inspector,no-inspect,fake
enabled_vendor_interfaces = fake,no-vendor

[api]
host_ip = 127.0.0.1
port = %d

[database]
connection = sqlite:///%s

[dhcp]
dhcp_provider = none

[inspector]
auth_type = none
endpoint_override = %s
status_check_period = %d

%s
`, port, db, e.toInspector.URL, period, o.ourExtra)
	}})
	e.api = cluster.NewClient(e.ironic.URL, "1.82")
	return e
}

// node creates a manageable fake-hardware node with the inspector
// interface; driver_info ipmi_address is the BMC address inspector
// looks nodes up by.
func (e *env) node(bmc string, extra map[string]any) string {
	e.t.Helper()
	body := map[string]any{"driver": "fake-hardware", "inspect_interface": "inspector",
		"driver_info": map[string]any{"ipmi_address": bmc}}
	for k, v := range extra {
		body[k] = v
	}
	n := e.api.Object(e.ctx, e.t, "POST", "/v1/nodes", body)
	uuid := n["uuid"].(string)
	e.api.Must(e.ctx, e.t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "manage"})
	e.waitState(uuid, "manageable", 30*time.Second)
	return uuid
}

// waitState waits (bounded) until the node is in state.
func (e *env) waitState(uuid, state string, within time.Duration) map[string]any {
	e.t.Helper()
	var n map[string]any
	cluster.Eventually(e.ctx, e.t, within, "node "+uuid+" in "+state, func() (bool, string) {
		n = e.api.Object(e.ctx, e.t, "GET", "/v1/nodes/"+uuid, nil)
		return n["provision_state"] == state, fmt.Sprintf("%v (last_error %v)", n["provision_state"], n["last_error"])
	})
	return n
}

// waitRequest waits (bounded) until p has seen a request with method and
// path.
func waitRequest(e *env, p *inspector.Proxy, method, path string, within time.Duration) {
	e.t.Helper()
	cluster.Eventually(e.ctx, e.t, within, method+" "+path, func() (bool, string) {
		for _, r := range p.Requests() {
			if r.Method == method && r.Path == path {
				return true, ""
			}
		}
		return false, fmt.Sprint(summary(p.Requests()))
	})
}

// summary is "METHOD path" per request.
func summary(reqs []inspector.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, fmt.Sprintf("%s %s -> %d", r.Method, r.Path, r.Status))
	}
	return out
}
