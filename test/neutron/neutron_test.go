package neutron

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Ironic's legacy image checksum
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakeipa"
	"github.com/goironic/ironic/test/fakeneutron"
	"github.com/goironic/ironic/test/internal/cluster"
)

var update = flag.Bool("update", false, "run the scenarios against Python Ironic 21.4 and rewrite the goldens in testdata")

// budget bounds one implementation's scenario.
const budget = 4 * time.Minute

func TestMain(m *testing.M) { cluster.Main(m) }

// The Neutron state both implementations start from.
const (
	provisionID = "5eed0000-0000-4000-8000-0000000000a1"
	tenantID    = "5eed0000-0000-4000-8000-0000000000a2"
	subnetID    = "5eed0000-0000-4000-8000-0000000000a3"
	mac1        = "52:54:00:aa:01:01"
	mac2        = "52:54:00:aa:01:02"
	macPG       = "52:54:00:aa:01:aa"
)

var diskImage = bytes.Repeat([]byte("goironic neutron test image\n"), 2048)

func networks() []map[string]any {
	return []map[string]any{
		fakeneutron.CleaningNetwork(),
		{"id": provisionID, "name": "ironic-provision"},
		{"id": tenantID, "name": "tenant", "provider:physical_network": "physnet1", "provider:network_type": "vlan", "mtu": 9000},
		{"id": "5eed0000-0000-4000-8000-0000000000d1", "name": "dup"},
		{"id": "5eed0000-0000-4000-8000-0000000000d2", "name": "dup"},
	}
}

// TestNeutronAgainstReference runs the scenario against Python Ironic
// 21.4 and ours and compares both with the golden (recorded from
// Python).
func TestNeutronAgainstReference(t *testing.T) {
	golden := filepath.Join("testdata", "scenario.golden")
	got := map[string][]string{}
	for _, impl := range []string{"python", "go"} {
		t.Run(impl, func(t *testing.T) {
			if impl == "python" {
				if !*update {
					t.Skip("the reference is the golden; -update runs Python Ironic again")
				}
				cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
			} else {
				cluster.Build(t, cluster.AllInOne)
			}
			got[impl] = (&run{python: impl == "python"}).scenario(t)
		})
	}
	if py, ok := got["python"]; ok && *update {
		if err := os.WriteFile(golden, []byte(strings.Join(py, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	for impl, lines := range got {
		wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
		if impl == "go" {
			wantLines = departed(wantLines)
		}
		if d := cmp.Diff(wantLines, lines); d != "" {
			t.Errorf("%s Ironic differs from %s (-golden +%s):\n%s", impl, golden, impl, d)
		}
	}
}

// departures are the lines where we answer otherwise than 21.4, on
// purpose (docs/departures.md): 21.4's line → ours.
var departures = map[string]string{
	// A Neutron that can't be reached: keystoneauth's DiscoveryFailure
	// reaches 21.4's conductor as a plain Exception; our network
	// interfaces make it a NetworkError with the same text.
	"=> deploy failed Failed to prepare to deploy. Exception: Unable to find a version discovery document at http://neutron, the service is unavailable or misconfigured. Required version range (any - any), version hack disabled.": "=> deploy failed Failed to prepare to deploy: Unable to find a version discovery document at http://neutron, the service is unavailable or misconfigured. Required version range (any - any), version hack disabled.",
}

// departed is the golden with the departures applied; each must occur.
func departed(lines []string) []string {
	out := make([]string, len(lines))
	used := map[string]bool{}
	for i, l := range lines {
		out[i] = l
		if d, ok := departures[l]; ok {
			out[i], used[l] = d, true
		}
	}
	for l := range departures {
		if !used[l] {
			out = append(out, "departure not in the golden: "+l)
		}
	}
	return out
}

// run is one implementation's scenario.
type run struct {
	python bool
	t      *testing.T
	ctx    context.Context
	dir    string
	db     string
	svc    *cluster.Service
	fn     *fakeneutron.Server
	files  *httptest.Server
	// frontURL is Neutron as Ironic reaches it: the fake behind a front
	// that can refuse port creation or play dead.
	frontURL   string
	frontSrv   *httptest.Server
	failCreate atomic.Bool
	out        []string
	seen       map[string]string
}

func (r *run) front(w http.ResponseWriter, rq *http.Request) {
	if r.failCreate.Load() && rq.Method == http.MethodPost && rq.URL.Path == "/v2.0/ports" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"NeutronError": {"type": "MacAddressInUse", "message": "Unable to complete operation for network ironic-provision. The mac address is in use.", "detail": ""}}`))
		return
	}
	r.fn.ServeHTTP(w, rq)
}

func (r *run) config(port int) string {
	return cluster.INI{
		"DEFAULT": {
			"host": "neutron-test", "auth_strategy": "noauth", "rpc_transport": "none", "debug": "true",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_boot_interfaces":       "fake",
			"enabled_deploy_interfaces":     "direct,fake",
			"enabled_management_interfaces": "fake",
			"enabled_power_interfaces":      "fake",
			"enabled_network_interfaces":    "flat,neutron,noop",
			"enabled_vendor_interfaces":     "no-vendor",
			"tempdir":                       r.dir,
		},
		"api":             {"host_ip": "127.0.0.1", "port": strconv.Itoa(port)},
		"service_catalog": {"auth_type": "none", "endpoint_override": fmt.Sprintf("http://127.0.0.1:%d", port)},
		"database":        {"connection": "sqlite:///" + r.db},
		"dhcp":            {"dhcp_provider": "none"},
		"conductor":       {"automated_clean": "true"},
		"agent": {"command_wait_interval": "1", "post_deploy_get_power_state_retries": "1",
			"post_deploy_get_power_state_retry_interval": "1"},
		"neutron": {"auth_type": "none", "endpoint_override": r.frontURL, "cleaning_network": fakeneutron.CleaningNetworkName,
			"provisioning_network": "ironic-provision"},
	}.Merged(cluster.StateConfig(r.t, r.dir), cluster.INI{"deploy": {"http_url": r.files.URL}}).String()
}

// rest is a client of the service under test.
func (r *run) rest() *cluster.Client {
	c := cluster.NewClient(r.svc.URL, "1.82")
	c.HTTP.Timeout = 30 * time.Second
	return c
}

func (r *run) call(method, path string, body any) cluster.Response {
	r.t.Helper()
	resp, err := r.rest().Do(r.ctx, method, path, body)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func (r *run) object(method, path string, body any) map[string]any {
	r.t.Helper()
	return r.rest().Object(r.ctx, r.t, method, path, body)
}

// waitState waits (bounded) for the node to leave transient states.
func (r *run) waitState(uuid string, within time.Duration) map[string]any {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		n := r.object("GET", "/v1/nodes/"+uuid, nil)
		switch n["provision_state"] {
		case "deploy failed", "error", "clean failed":
			// Ironic keeps the target of a failed operation.
			return n
		case "active", "available", "manageable", "enroll":
			if n["target_provision_state"] == nil {
				return n
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("node %s still %v → %v", uuid, n["provision_state"], n["target_provision_state"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// agent starts a fake agent for one phase; the returned func stops it.
func (r *run) agent() func() {
	ctx, cancel := context.WithCancel(r.ctx)
	ipa := fakeipa.New(fakeipa.Options{APIURL: r.svc.URL, MACs: []string{mac1}, Interval: 200 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		r.t.Fatal(err)
	}
	return cancel
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// norm replaces UUIDs by names in the order they first appear (the
// seeded networks keep theirs), and the files server's URL.
func (r *run) norm(s string) string {
	s = strings.ReplaceAll(s, r.files.URL, "http://files")
	s = strings.ReplaceAll(s, r.frontURL, "http://neutron")
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if strings.HasPrefix(u, "5eed0000-") {
			return u
		}
		if n, ok := r.seen[u]; ok {
			return n
		}
		n := fmt.Sprintf("<uuid-%d>", len(r.seen)+1)
		r.seen[u] = n
		return n
	})
}

// phase records the Neutron requests made since the last phase, then
// the outcome lines, under a header.
func (r *run) phase(name string, outcome ...string) {
	r.out = append(r.out, "== "+r.norm(name))
	for _, rq := range r.fn.Requests() {
		// Version discovery and the extension list depend on each
		// client's caching, not on Ironic's logic.
		if rq.Path == "/" || rq.Path == "/v2.0" || rq.Path == "/v2.0/" || rq.Path == "/v2.0/extensions" {
			continue
		}
		line := rq.Method + " " + rq.Path
		if rq.Query != "" {
			q, _ := url.ParseQuery(rq.Query)
			line += "?" + q.Encode()
		}
		if rq.Body != nil {
			var v any
			if json.Unmarshal(rq.Body, &v) == nil {
				b, _ := json.Marshal(v)
				line += " " + string(b)
			}
		}
		r.out = append(r.out, r.norm(line+" -> "+strconv.Itoa(rq.Status)))
	}
	r.fn.ResetRequests()
	for _, o := range outcome {
		r.out = append(r.out, "=> "+r.norm(o))
	}
}

// state is a node's outcome line.
func state(n map[string]any) string {
	return fmt.Sprintf("%v %v", n["provision_state"], n["last_error"])
}

// internal is the *_vif_port_id keys of a port's internal_info.
func (r *run) internal(uuid string) string {
	p := r.object("GET", "/v1/ports/"+uuid, nil)
	ii, _ := p["internal_info"].(map[string]any)
	b, _ := json.Marshal(ii)
	return "port internal_info " + string(b)
}

// faultOf is an API error answer's status and faultstring.
func faultOf(resp cluster.Response) string {
	var body struct {
		Error string `json:"error_message"`
	}
	_ = json.Unmarshal(resp.Body, &body)
	var fault struct {
		Faultstring string `json:"faultstring"`
	}
	if json.Unmarshal([]byte(body.Error), &fault) != nil {
		return fmt.Sprintf("%d %s", resp.Status, body.Error)
	}
	return fmt.Sprintf("%d %s", resp.Status, fault.Faultstring)
}

func (r *run) provision(uuid, target string) cluster.Response {
	r.t.Helper()
	return r.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target})
}

func (r *run) scenario(t *testing.T) []string {
	r.t, r.ctx, r.dir = t, cluster.TestContext(t, budget, 30*time.Second), t.TempDir()
	r.seen = map[string]string{}
	r.db = filepath.Join(r.dir, "ironic.sqlite")
	n := 0
	r.fn = fakeneutron.New(fakeneutron.Options{Networks: networks(),
		NewID: func() string { n++; return fmt.Sprintf("0000%04d-0000-4000-8000-000000000000", n) }})
	if _, err := r.fn.CreateSubnet(map[string]any{"id": subnetID, "network_id": tenantID, "cidr": "10.20.0.0/24", "ip_version": 4,
		"gateway_ip": "10.20.0.1", "dns_nameservers": []any{"10.20.0.53"},
		"host_routes": []any{map[string]any{"destination": "192.168.0.0/16", "nexthop": "10.20.0.254"}}}); err != nil {
		t.Fatal(err)
	}
	r.frontSrv = httptest.NewServer(http.HandlerFunc(r.front))
	t.Cleanup(r.frontSrv.Close)
	r.frontURL = r.frontSrv.URL
	r.files = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, rq *http.Request) {
		http.ServeContent(w, rq, "disk.raw", time.Time{}, bytes.NewReader(diskImage))
	}))
	t.Cleanup(r.files.Close)
	if r.python {
		conf := filepath.Join(r.dir, "dbsync.conf")
		if err := os.WriteFile(conf, []byte(r.config(0)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := cluster.Run(r.ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", conf, "create_schema")
		if res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	prog := cluster.Ours(cluster.AllInOne)
	if r.python {
		prog = cluster.Python(cluster.AllInOne)
	}
	r.svc = cluster.Start(r.ctx, t, cluster.Spec{Program: prog, Name: "ironic", Dir: r.dir, LogTail: 8000, Config: r.config})
	r.fn.ResetRequests()

	// Enrolment: a PXE port and a port group of one more port.
	node := r.object("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "neutron-node",
		"deploy_interface": "direct", "boot_interface": "fake", "network_interface": "neutron",
		"properties": map[string]any{"vendor": "Lenovo"}})
	uuid := node["uuid"].(string)
	llc := func(port string) map[string]any {
		return map[string]any{"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": port, "switch_info": "sw1"}
	}
	pg := r.object("POST", "/v1/portgroups", map[string]any{"node_uuid": uuid, "name": "bond0", "address": macPG,
		"mode": "802.3ad", "properties": map[string]any{"miimon": "100"}})
	p1 := r.object("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac1, "pxe_enabled": true,
		"local_link_connection": llc("Eth1"), "physical_network": "physnet1"})
	r.object("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac2, "pxe_enabled": false,
		"portgroup_uuid": pg["uuid"], "local_link_connection": llc("Eth2"), "physical_network": "physnet1"})
	r.phase("enroll", "node "+uuid)

	// manage → provide: automated cleaning through the cleaning network.
	r.provision(uuid, "manage")
	r.phase("manage", state(r.waitState(uuid, 30*time.Second)))
	stop := r.agent()
	r.provision(uuid, "provide")
	n1 := r.waitState(uuid, 90*time.Second)
	stop()
	r.phase("provide (cleaning)", state(n1), r.internal(p1["uuid"].(string)))

	// Two tenant VIFs: the port group takes the first.
	var vifs []string
	for range 2 {
		p, err := r.fn.CreatePort(map[string]any{"network_id": tenantID})
		if err != nil {
			t.Fatal(err)
		}
		vifs = append(vifs, p["id"].(string))
	}
	r.norm(vifs[0])
	r.norm(vifs[1])
	for _, v := range vifs {
		resp := r.call("POST", "/v1/nodes/"+uuid+"/vifs", map[string]any{"id": v})
		r.phase("attach "+v, strconv.Itoa(resp.Status))
	}

	// Deploy through the provisioning network; the tenant VIFs are
	// bound at the end.
	md5sum := md5.Sum(diskImage) //nolint:gosec
	instanceInfo := map[string]any{"image_source": r.files.URL + "/disk.raw", "image_checksum": hex.EncodeToString(md5sum[:])}
	r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": instanceInfo}})
	r.fn.ResetRequests()
	stop = r.agent()
	resp := r.provision(uuid, "active")
	n1 = r.waitState(uuid, 90*time.Second)
	stop()
	r.phase("deploy", strconv.Itoa(resp.Status), state(n1), r.internal(p1["uuid"].(string)))
	for _, v := range vifs {
		p, _ := r.fn.Port(v)
		b, _ := json.Marshal(map[string]any{"binding:host_id": p["binding:host_id"], "binding:profile": p["binding:profile"],
			"binding:vnic_type": p["binding:vnic_type"], "mac_address": p["mac_address"]})
		r.out = append(r.out, "=> "+r.norm("tenant port "+v+" "+string(b)))
	}

	// Undeploy: the VIFs are unbound, then cleaning again.
	stop = r.agent()
	r.provision(uuid, "deleted")
	n1 = r.waitState(uuid, 90*time.Second)
	stop()
	r.phase("undeploy", state(n1))

	r.badInput(uuid, instanceInfo)
	return r.out
}

// badInput deploys with networks that don't resolve, a port create
// Neutron refuses and a Neutron that doesn't answer.
func (r *run) badInput(uuid string, instanceInfo map[string]any) {
	r.t.Helper()
	r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/automated_clean", "value": false},
		{"op": "add", "path": "/instance_info", "value": instanceInfo}})
	r.fn.ResetRequests()
	for _, net := range []string{"nope", "dup"} {
		r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/driver_info/provisioning_network", "value": net}})
		resp := r.provision(uuid, "active")
		r.phase("deploy with provisioning_network "+net, faultOf(resp), state(r.waitState(uuid, 30*time.Second)))
	}
	r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "remove", "path": "/driver_info/provisioning_network"}})
	r.fn.ResetRequests()

	// Neutron refuses the provisioning port: the deploy fails, the ports
	// are rolled back.
	r.failCreate.Store(true)
	resp := r.provision(uuid, "active")
	n := r.waitState(uuid, 60*time.Second)
	r.failCreate.Store(false)
	lastErr, _ := n["last_error"].(string)
	// 21.4 renders the Ironic ports as their object repr; we name them
	// by UUID (docs/departures.md): compared up to the list.
	if i := strings.Index(lastErr, " ports ["); i >= 0 {
		lastErr = lastErr[:i] + " ports [...]"
	}
	r.phase("deploy with a refused port create", strconv.Itoa(resp.Status), fmt.Sprintf("%v %s", n["provision_state"], lastErr))
	r.provision(uuid, "deleted")
	r.phase("undeploy after the failure", state(r.waitState(uuid, 60*time.Second)))

	// Neutron down (its port closed): the deploy fails in its first
	// Neutron call.
	r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": instanceInfo}})
	r.frontSrv.Close()
	resp = r.provision(uuid, "active")
	n = r.waitState(uuid, 60*time.Second)
	r.phase("deploy with Neutron down", faultOf(resp), state(n))
}
