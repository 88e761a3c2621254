package inspector

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/keystone"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// env is one scenario's services: ironic-inspector and our all-in-one,
// each reached through a recording proxy (toInspector records what the
// service sends inspector, toIronic what inspector sends the service).
type env struct {
	t           testing.TB
	ctx         context.Context
	api         *cluster.Client
	ironic      *cluster.Service
	insp        *inspector.Inspector
	toInspector *inspector.Proxy
	toIronic    *inspector.Proxy
	// lastError is the node's last_error the scenario ended with, which
	// the golden holds too.
	lastError string
}

// options shape a scenario's services.
type options struct {
	// ourExtra is appended to our ironic.conf; inspectorExtra to
	// inspector.conf.
	ourExtra, inspectorExtra string
	// inspectorOpts are more [inspector] lines of our ironic.conf.
	inspectorOpts string
	// statusCheckPeriod is [inspector]status_check_period (seconds).
	statusCheckPeriod int
	// ipxe enables the ipxe boot interface (with [deploy]http_root and
	// http_url, which Python's needs).
	ipxe bool
	// keystone puts both services behind this Keystone (service user
	// "ironic" for both).
	keystone *keystone.Keystone
	// python runs the reference, Python Ironic 21.4, instead of ours.
	python bool
}

// start runs inspector and our all-in-one for one scenario.
func start(t testing.TB, o options) *env {
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
	io := inspector.Options{IronicURL: e.toIronic.URL, Port: inspPort, Extra: o.inspectorExtra}
	authStrategy, inspAuth, authtoken := "noauth", "auth_type = none", ""
	if k := o.keystone; k != nil {
		io.Keystone = &inspector.Keystone{AuthURL: k.AuthURL(), Username: "ironic", Password: keystone.ServicePassword, Project: "service"}
		authStrategy, authtoken = "keystone", k.AuthtokenSection()
		inspAuth = fmt.Sprintf("auth_type = password\nauth_url = %s\nusername = ironic\npassword = %s\nproject_name = service\nuser_domain_name = Default\nproject_domain_name = Default",
			k.AuthURL(), keystone.ServicePassword)
	}
	e.insp = inspector.Start(ctx, t, io)
	period := o.statusCheckPeriod
	if period == 0 {
		period = 1
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ironic.sqlite")
	boots, deploy := "fake", ""
	if o.ipxe {
		boots = "fake,ipxe"
		deploy = fmt.Sprintf("[deploy]\nhttp_root = %s\nhttp_url = http://192.0.2.1:8080\n[pxe]\ntftp_root = %s\n", filepath.Join(dir, "http"), filepath.Join(dir, "tftp"))
		for _, d := range []string{"http", "tftp"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	conf := func(port int) string {
		return fmt.Sprintf(`[DEFAULT]
host = goironic-inspector-test
auth_strategy = %s
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = %s
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

%s
[inspector]
%s
endpoint_override = %s
status_check_period = %d
%s

%s
%s
`, authStrategy, boots, port, db, authtoken, inspAuth, e.toInspector.URL, period, o.inspectorOpts, deploy, o.ourExtra)
	}
	prog := cluster.Ours(cluster.AllInOne)
	if o.python {
		cluster.RequirePython(t, "ironic.drivers.modules.inspector", "python3-ironic")
		prog = cluster.Python(cluster.AllInOne)
		path := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(path, []byte(conf(ourPort)), 0o600); err != nil {
			t.Fatal(err)
		}
		if res := cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", path, "create_schema"); res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	e.ironic = cluster.Start(ctx, t, cluster.Spec{Program: prog, Port: ourPort, Dir: dir, LogTail: 6000, StartTimeout: 2 * time.Minute, Config: conf})
	e.api = cluster.NewClient(e.ironic.URL, "1.82")
	if k := o.keystone; k != nil {
		tok, err := k.Token(ctx, "admin")
		if err != nil {
			t.Fatal(err)
		}
		e.api.Header = http.Header{"X-Auth-Token": {tok}}
	}
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
	e.lastError, _ = n["last_error"].(string)
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

// inspected waits until the node is manageable and the service has
// fetched inspector's data for it (after manageable, as Ironic does), so
// that the scenario's requests are complete.
func (e *env) inspected(uuid string) map[string]any { return e.inspectedN(uuid, 1) }

// inspectedN is inspected for the n-th inspection of the node.
func (e *env) inspectedN(uuid string, n int) map[string]any {
	e.t.Helper()
	node := e.waitState(uuid, "manageable", 30*time.Second)
	path := "/v1/introspection/" + uuid + "/data"
	cluster.Eventually(e.ctx, e.t, 10*time.Second, fmt.Sprintf("%d GET %s", n, path), func() (bool, string) {
		seen := 0
		for _, r := range e.toInspector.Requests() {
			if r.Method == "GET" && r.Path == path {
				seen++
			}
		}
		return seen >= n, fmt.Sprint(seen)
	})
	time.Sleep(500 * time.Millisecond) // the data stored
	return node
}

// abort aborts the node's inspection and waits until it failed and
// inspector, told to abort, has powered the node off.
func (e *env) abort(uuid string) {
	e.t.Helper()
	e.api.Must(e.ctx, e.t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "abort"})
	e.waitState(uuid, "inspect failed", 30*time.Second)
	path := "/v1/nodes/" + uuid + "/states/power"
	cluster.Eventually(e.ctx, e.t, 30*time.Second, "inspector's power off after the abort", func() (bool, string) {
		for _, r := range e.toIronic.Requests() {
			if r.Method == "PUT" && r.Path == path && strings.Contains(r.Body, "power off") {
				return true, ""
			}
		}
		return false, fmt.Sprint(summary(e.toIronic.Requests()))
	})
	// Inspector's power off clears last_error (change_node_power_state
	// does, in 21.4 as in ours), so what waitState saw depends on whether
	// that PUT came first. The abort's message is the newest error of the
	// node's history either way.
	var h struct {
		History []struct {
			Event    string `json:"event"`
			Severity string `json:"severity"`
		} `json:"history"`
	}
	e.api.JSON(e.ctx, e.t, 200, "GET", "/v1/nodes/"+uuid+"/history?detail=true", nil, &h)
	for i := len(h.History) - 1; i >= 0; i-- {
		if h.History[i].Severity == "ERROR" {
			e.lastError = h.History[i].Event
			return
		}
	}
	e.t.Errorf("no error in node %s's history after the abort: %+v", uuid, h.History)
}
