package authz

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

var update = flag.Bool("update", false, "record testdata/matrix.json from the reference named by "+referenceEnv)

const (
	// referenceEnv names the shared harness's reference-ironic.sh; with
	// -update the matrix is recorded from the Python Ironic it starts.
	referenceEnv = "IRONIC_AUTHZ_REFERENCE"
	// apiVersion is the microversion every call asks for: the newest
	// both servers speak.
	apiVersion = "1.82"

	testBudget   = 15 * time.Minute
	startTimeout = 90 * time.Second
	callTimeout  = 30 * time.Second
)

// persona is one caller of the matrix: a Keystone user ("" for none) or a
// literal token.
type persona struct {
	name  string
	who   string // keystone.Keystone.Token's who
	token string // used when who is ""
}

func personas() []persona {
	return []persona{
		{name: "no-token"},
		{name: "bad-token", token: "gAAAAABnot-a-real-token-at-all"},
		{name: "system-admin", who: "system-admin"},
		{name: "system-reader", who: "system-reader"},
		{name: "owner-member", who: "demo-member"},
		{name: "lessee-reader", who: "alt-reader"},
		{name: "other-project", who: "other-domain-member"},
		{name: "service", who: "ironic"},
	}
}

// world is the server under test and the objects the calls refer to.
type world struct {
	t        *testing.T
	ctx      context.Context
	base     string
	ks       *keystone.Keystone
	admin    string // a system-scoped admin token, for set-up
	owner    string // project id of demo (the nodes' owner)
	lessee   string // project id of alt-demo (the nodes' lessee)
	tokens   map[string]string
	seq      int
	readOnly refs // objects shared by the calls that change nothing
}

// refs are the identifiers a route's path and body refer to.
type refs struct {
	Node, Port, Portgroup, Chassis, Connector, Target, Allocation, Template, Conductor, VIF string
}

// route is one call of the matrix. Calls that change something get fresh
// objects for each persona (fresh), so that one persona's success does
// not change what the next one sees.
type route struct {
	method, path string
	body         func(r refs) any
	fresh        bool
	// note tells apart calls of one route with different bodies.
	note string
}

func routes() []route {
	nb := func(v any) func(refs) any { return func(refs) any { return v } }
	patch := func(path string, value any) func(refs) any {
		return nb([]map[string]any{{"op": "replace", "path": path, "value": value}})
	}
	// nodePatch changes one field of a fresh node.
	nodePatch := func(field string, value any) route {
		return route{method: "PATCH", path: "/v1/nodes/{node}", body: patch(field, value), fresh: true, note: field}
	}
	return []route{
		{method: "GET", path: "/"},
		{method: "GET", path: "/v1"},
		{method: "GET", path: "/v1/lookup?addresses=52:54:00:aa:bb:cc"},
		{method: "POST", path: "/v1/heartbeat/{node}", body: nb(map[string]any{"callback_url": "http://127.0.0.1:9999", "agent_token": "x"})},

		{method: "GET", path: "/v1/nodes"},
		{method: "GET", path: "/v1/nodes/detail"},
		{method: "GET", path: "/v1/nodes?owner={owner}"},
		{method: "POST", path: "/v1/nodes", body: nb(map[string]any{"driver": "fake-hardware"}), fresh: true},
		{method: "GET", path: "/v1/nodes/{node}"},
		{method: "GET", path: "/v1/nodes/{node}?fields=uuid,driver_info"},
		nodePatch("/extra/foo", "bar"),
		nodePatch("/driver_info/foo", "bar"),
		nodePatch("/properties/cpus", 4),
		nodePatch("/instance_info/foo", "bar"),
		nodePatch("/name", "renamed"),
		nodePatch("/description", "d"),
		nodePatch("/owner", "someone"),
		nodePatch("/lessee", "someone"),
		nodePatch("/boot_interface", "fake"),
		nodePatch("/conductor_group", "g1"),
		nodePatch("/protected", false),
		nodePatch("/retired", false),
		nodePatch("/shard", "s1"),
		nodePatch("/chassis_uuid", nil),
		{method: "DELETE", path: "/v1/nodes/{node}", fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/validate"},
		{method: "PUT", path: "/v1/nodes/{node}/maintenance", body: nb(map[string]any{"reason": "r"}), fresh: true},
		{method: "DELETE", path: "/v1/nodes/{node}/maintenance", fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/states"},
		{method: "PUT", path: "/v1/nodes/{node}/states/power", body: nb(map[string]any{"target": "power on"}), fresh: true},
		{method: "PUT", path: "/v1/nodes/{node}/states/provision", body: nb(map[string]any{"target": "manage"}), fresh: true},
		{method: "PUT", path: "/v1/nodes/{node}/states/raid", body: nb(map[string]any{"logical_disks": []any{}}), fresh: true},
		{method: "PUT", path: "/v1/nodes/{node}/states/boot_mode", body: nb(map[string]any{"target": "uefi"}), fresh: true},
		{method: "PUT", path: "/v1/nodes/{node}/states/secure_boot", body: nb(map[string]any{"target": false}), fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/states/console"},
		{method: "PUT", path: "/v1/nodes/{node}/states/console", body: nb(map[string]any{"enabled": false}), fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/management/boot_device"},
		{method: "PUT", path: "/v1/nodes/{node}/management/boot_device", body: nb(map[string]any{"boot_device": "pxe"}), fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/management/boot_device/supported"},
		{method: "PUT", path: "/v1/nodes/{node}/management/inject_nmi", body: nb(map[string]any{}), fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/management/indicators"},
		{method: "GET", path: "/v1/nodes/{node}/vendor_passthru/methods"},
		{method: "GET", path: "/v1/nodes/{node}/vifs"},
		{method: "POST", path: "/v1/nodes/{node}/vifs", body: func(r refs) any { return map[string]any{"id": r.VIF} }, fresh: true},
		{method: "DELETE", path: "/v1/nodes/{node}/vifs/{vif}", fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/traits"},
		{method: "PUT", path: "/v1/nodes/{node}/traits", body: nb(map[string]any{"traits": []string{"CUSTOM_A"}}), fresh: true},
		{method: "PUT", path: "/v1/nodes/{node}/traits/CUSTOM_B", fresh: true},
		{method: "DELETE", path: "/v1/nodes/{node}/traits/CUSTOM_T", fresh: true},
		{method: "DELETE", path: "/v1/nodes/{node}/traits", fresh: true},
		{method: "GET", path: "/v1/nodes/{node}/bios"},
		{method: "GET", path: "/v1/nodes/{node}/allocation"},
		{method: "GET", path: "/v1/nodes/{node}/history"},
		{method: "GET", path: "/v1/nodes/{node}/inventory"},
		{method: "GET", path: "/v1/nodes/{node}/ports"},
		{method: "GET", path: "/v1/nodes/{node}/portgroups"},
		{method: "GET", path: "/v1/nodes/{node}/volume"},
		{method: "GET", path: "/v1/nodes/{node}/volume/connectors"},
		{method: "GET", path: "/v1/nodes/{node}/volume/targets"},

		{method: "GET", path: "/v1/ports"},
		{method: "GET", path: "/v1/ports/detail"},
		{method: "GET", path: "/v1/ports/{port}"},
		{method: "POST", path: "/v1/ports", body: func(r refs) any {
			return map[string]any{"node_uuid": r.Node, "address": "52:54:00:00:ff:01"}
		}, fresh: true},
		{method: "PATCH", path: "/v1/ports/{port}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/ports/{port}", fresh: true},
		{method: "GET", path: "/v1/portgroups"},
		{method: "GET", path: "/v1/portgroups/{portgroup}"},
		{method: "GET", path: "/v1/portgroups/{portgroup}/ports"},
		{method: "POST", path: "/v1/portgroups", body: func(r refs) any {
			return map[string]any{"node_uuid": r.Node, "address": "52:54:00:00:ff:02"}
		}, fresh: true},
		{method: "PATCH", path: "/v1/portgroups/{portgroup}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/portgroups/{portgroup}", fresh: true},

		{method: "GET", path: "/v1/chassis"},
		{method: "GET", path: "/v1/chassis/{chassis}"},
		{method: "GET", path: "/v1/chassis/{chassis}/nodes"},
		{method: "POST", path: "/v1/chassis", body: nb(map[string]any{"description": "c"}), fresh: true},
		{method: "PATCH", path: "/v1/chassis/{chassis}", body: patch("/description", "d"), fresh: true},
		{method: "DELETE", path: "/v1/chassis/{chassis}", fresh: true},

		{method: "GET", path: "/v1/drivers"},
		{method: "GET", path: "/v1/drivers/fake-hardware"},
		{method: "GET", path: "/v1/drivers/fake-hardware/properties"},
		{method: "GET", path: "/v1/drivers/fake-hardware/raid/logical_disk_properties"},
		{method: "GET", path: "/v1/drivers/fake-hardware/vendor_passthru/methods"},

		{method: "GET", path: "/v1/volume"},
		{method: "GET", path: "/v1/volume/connectors"},
		{method: "GET", path: "/v1/volume/connectors/{connector}"},
		{method: "POST", path: "/v1/volume/connectors", body: func(r refs) any {
			return map[string]any{"node_uuid": r.Node, "type": "iqn", "connector_id": "iqn.2026-12.org.example:new"}
		}, fresh: true},
		{method: "PATCH", path: "/v1/volume/connectors/{connector}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/volume/connectors/{connector}", fresh: true},
		{method: "GET", path: "/v1/volume/targets"},
		{method: "GET", path: "/v1/volume/targets/{target}"},
		{method: "POST", path: "/v1/volume/targets", body: func(r refs) any {
			return map[string]any{"node_uuid": r.Node, "volume_type": "iscsi", "volume_id": "vol-new", "boot_index": 1}
		}, fresh: true},
		{method: "PATCH", path: "/v1/volume/targets/{target}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/volume/targets/{target}", fresh: true},

		{method: "GET", path: "/v1/allocations"},
		{method: "GET", path: "/v1/allocations/{allocation}"},
		{method: "POST", path: "/v1/allocations", body: nb(map[string]any{"resource_class": "authz-none"}), fresh: true},
		{method: "PATCH", path: "/v1/allocations/{allocation}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/allocations/{allocation}", fresh: true},

		{method: "GET", path: "/v1/deploy_templates"},
		{method: "GET", path: "/v1/deploy_templates/{template}"},
		{method: "POST", path: "/v1/deploy_templates", body: func(r refs) any {
			return map[string]any{"name": "CUSTOM_NEW_" + strings.ToUpper(strings.ReplaceAll(r.Node[:8], "-", "")),
				"steps": []any{map[string]any{"interface": "bios", "step": "apply_configuration", "args": map[string]any{}, "priority": 10}}}
		}, fresh: true},
		{method: "PATCH", path: "/v1/deploy_templates/{template}", body: patch("/extra/foo", "bar"), fresh: true},
		{method: "DELETE", path: "/v1/deploy_templates/{template}", fresh: true},

		{method: "GET", path: "/v1/conductors"},
		{method: "GET", path: "/v1/conductors/{conductor}"},
		{method: "POST", path: "/v1/events", body: nb(map[string]any{"events": []any{map[string]any{
			"event": "network.bind_port", "port_id": "11111111-2222-3333-4444-555555555555", "mac_address": "52:54:00:00:00:01",
			"status": "ACTIVE", "device_id": "11111111-2222-3333-4444-666666666666", "binding:host_id": "11111111-2222-3333-4444-777777777777",
			"binding:vnic_type": "baremetal"}}})},
		{method: "GET", path: "/v1/shards"},
	}
}

func (r route) key() string {
	if r.note != "" {
		return r.method + " " + r.path + " " + r.note
	}
	return r.method + " " + r.path
}

// Matrix is the golden: route key → persona → status code.
type Matrix map[string]map[string]int

// policyMode is one [oslo_policy] setting the matrix is played under.
type policyMode struct {
	name   string
	golden string
	// srbac turns on enforce_scope and enforce_new_defaults (the
	// reference harness's SRBAC=1).
	srbac bool
}

func policyModes() []policyMode {
	return []policyMode{
		{name: "legacy", golden: "testdata/matrix.json"},
		{name: "srbac", golden: "testdata/matrix-srbac.json", srbac: true},
	}
}

func TestMain(m *testing.M) { cluster.Main(m) }

func TestAuthorizationMatrix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testBudget)
	defer cancel()
	ks := keystone.ForTest(t, keystone.Options{})
	ref := os.Getenv(referenceEnv)
	if *update && ref == "" {
		t.Fatalf("-update records from the reference: set %s", referenceEnv)
	}
	for _, mode := range policyModes() {
		t.Run(mode.name, func(t *testing.T) {
			var base string
			if ref != "" {
				base = startReference(ctx, t, ref, ks, mode)
			} else {
				base = startOurs(ctx, t, ks, mode)
			}
			playMatrix(ctx, t, base, ks, mode.golden)
		})
	}
}

// playMatrix calls every route as every persona and compares the status
// codes with the golden (or, with -update, writes it).
func playMatrix(ctx context.Context, t *testing.T, base string, ks *keystone.Keystone, golden string) {
	w := newWorld(ctx, t, base, ks)
	got := Matrix{}
	for _, r := range routes() {
		row := map[string]int{}
		for _, p := range personas() {
			ids := w.readOnly
			if r.fresh {
				ids = w.seed(r.path)
			}
			row[p.name] = w.call(r, ids, p)
		}
		got[r.key()] = row
	}
	if *update {
		data, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want Matrix
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, r := range routes() {
		if _, ok := want[r.key()]; !ok {
			t.Errorf("%s: no reference answers recorded (run with -update)", r.key())
		}
	}
	for k, row := range want {
		row = withDeviations(row)
		if d := cmp.Diff(row, got[k]); d != "" {
			t.Errorf("%s: status per persona differs from the reference (-reference +ours):\n%s", k, d)
		}
	}
}

// withDeviations is the reference's row with the answers we give on
// purpose differently: with enforce_scope on, a token whose scope the
// rule does not allow makes oslo.policy raise InvalidScope, which Ironic
// 21.4's policy.authorize lets escape as a 500 (faultcode Server,
// "... requires a scope of ['system'], request was made with project
// scope."). A 500 on a client's call is a bug; we answer 403 with that
// message, as later Ironic releases do.
func withDeviations(row map[string]int) map[string]int {
	out := make(map[string]int, len(row))
	for p, code := range row {
		if code == http.StatusInternalServerError {
			code = http.StatusForbidden
		}
		out[p] = code
	}
	return out
}

// Each call of the matrix has its own key in the golden.
func TestRouteKeysUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range routes() {
		k := r.key()
		if seen[k] {
			t.Errorf("duplicate route %s", k)
		}
		seen[k] = true
	}
}

func newWorld(ctx context.Context, t *testing.T, base string, ks *keystone.Keystone) *world {
	w := &world{t: t, ctx: ctx, base: base, ks: ks, tokens: map[string]string{},
		owner: ks.ProjectID("demo"), lessee: ks.ProjectID("alt-demo")}
	tok, err := ks.Token(ctx, "admin-system")
	if err != nil {
		t.Fatal(err)
	}
	w.admin = tok
	for _, p := range personas() {
		switch {
		case p.who != "":
			tok, err := ks.Token(ctx, p.who)
			if err != nil {
				t.Fatalf("token of %s: %v", p.who, err)
			}
			w.tokens[p.name] = tok
		case p.token != "":
			w.tokens[p.name] = p.token
		}
	}
	w.readOnly = w.seed("")
	return w
}

// seed creates, as the system admin, what a call of path refers to: a
// node owned by demo and leased to alt-demo (always), and, when path
// names them, a port, a port group, a chassis, a volume connector or
// target, an allocation, a deploy template, a trait or an attached VIF.
// With path "" it creates everything (the objects shared by the reads).
func (w *world) seed(path string) refs {
	w.seq++
	n := w.seq
	needs := func(what string) bool { return path == "" || strings.Contains(path, what) }
	var r refs
	r.Node = w.create("/v1/nodes", map[string]any{"driver": "fake-hardware", "name": fmt.Sprintf("authz-%d", n),
		"owner": w.owner, "lessee": w.lessee, "resource_class": fmt.Sprintf("authz-%d", n)})
	if needs("{chassis}") {
		r.Chassis = w.create("/v1/chassis", map[string]any{"description": fmt.Sprintf("authz-%d", n)})
		if path == "" {
			w.do("PATCH", "/v1/nodes/"+r.Node, w.admin, []map[string]any{{"op": "add", "path": "/chassis_uuid", "value": r.Chassis}}, 200)
		}
	}
	if needs("{portgroup}") {
		r.Portgroup = w.create("/v1/portgroups", map[string]any{"node_uuid": r.Node, "address": fmt.Sprintf("52:54:01:00:%02x:%02x", n/256, n%256)})
	}
	if needs("{port}") {
		r.Port = w.create("/v1/ports", map[string]any{"node_uuid": r.Node, "address": fmt.Sprintf("52:54:02:00:%02x:%02x", n/256, n%256)})
	}
	if needs("{connector}") {
		r.Connector = w.create("/v1/volume/connectors", map[string]any{"node_uuid": r.Node, "type": "iqn",
			"connector_id": fmt.Sprintf("iqn.2026-12.org.example:%d", n)})
	}
	if needs("{target}") {
		r.Target = w.create("/v1/volume/targets", map[string]any{"node_uuid": r.Node, "volume_type": "iscsi",
			"volume_id": fmt.Sprintf("vol-%d", n), "boot_index": 0})
	}
	if needs("{allocation}") {
		r.Allocation = w.create("/v1/allocations", map[string]any{"resource_class": fmt.Sprintf("authz-none-%d", n), "owner": w.owner})
	}
	if needs("{template}") {
		r.Template = w.create("/v1/deploy_templates", map[string]any{"name": fmt.Sprintf("CUSTOM_AUTHZ_%d", n),
			"steps": []any{map[string]any{"interface": "bios", "step": "apply_configuration", "args": map[string]any{}, "priority": 10}}})
	}
	if needs("/traits") {
		w.do("PUT", "/v1/nodes/"+r.Node+"/traits/CUSTOM_T", w.admin, nil, 204)
	}
	r.VIF = fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	if needs("{vif}") {
		w.do("POST", "/v1/nodes/"+r.Node+"/vifs", w.admin, map[string]any{"id": r.VIF}, 204)
	}
	r.Conductor = w.readOnly.Conductor
	if path == "" {
		var cs struct {
			Conductors []struct {
				Hostname string `json:"hostname"`
			} `json:"conductors"`
		}
		w.decode(w.do("GET", "/v1/conductors", w.admin, nil, 200), &cs)
		if len(cs.Conductors) == 0 {
			w.t.Fatal("no conductor registered")
		}
		r.Conductor = cs.Conductors[0].Hostname
	}
	return r
}

func (w *world) create(path string, body any) string {
	var out struct {
		UUID string `json:"uuid"`
	}
	w.decode(w.do("POST", path, w.admin, body, 201), &out)
	return out.UUID
}

func (w *world) decode(data []byte, v any) {
	if err := json.Unmarshal(data, v); err != nil {
		w.t.Fatalf("decoding %s: %v", data, err)
	}
}

// do calls the server as the set-up admin and fails unless it answers
// want.
func (w *world) do(method, path, token string, body any, want int) []byte {
	w.t.Helper()
	code, data := w.send(method, path, token, body)
	if code != want {
		w.t.Fatalf("set-up %s %s: %d, want %d: %s", method, path, code, want, data)
	}
	return data
}

func (w *world) send(method, path, token string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			w.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(w.ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", apiVersion)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("X-Auth-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// call plays route r as persona p on the objects ids.
func (w *world) call(r route, ids refs, p persona) int {
	path := strings.NewReplacer("{node}", ids.Node, "{port}", ids.Port, "{portgroup}", ids.Portgroup,
		"{chassis}", ids.Chassis, "{connector}", ids.Connector, "{target}", ids.Target,
		"{allocation}", ids.Allocation, "{template}", ids.Template, "{conductor}", ids.Conductor,
		"{vif}", ids.VIF, "{owner}", w.owner).Replace(r.path)
	var body any
	if r.body != nil {
		body = r.body(ids)
	}
	code, data := w.send(r.method, path, w.tokens[p.name], body)
	if code >= 500 && code != 503 && !*update {
		w.t.Errorf("%s %s as %s: %d: %s", r.method, path, p.name, code, data)
	}
	return code
}

// startOurs builds and starts our all-in-one server with keystone auth.
func startOurs(ctx context.Context, t *testing.T, ks *keystone.Keystone, mode policyMode) string {
	dir := t.TempDir()
	return cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Dir: dir, StartTimeout: startTimeout,
		Config: func(port int) string {
			return fmt.Sprintf(`[DEFAULT]
host = authz-test
auth_strategy = keystone
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor
default_network_interface = noop
[api]
host_ip = 127.0.0.1
port = %d
[database]
connection = sqlite:///%s
[dhcp]
dhcp_provider = none
%s[oslo_policy]
enforce_scope = %t
enforce_new_defaults = %t
`, port, filepath.Join(dir, "ironic.sqlite"), ks.AuthtokenSection(), mode.srbac, mode.srbac)
		},
	}).URL
}

// startReference starts the shared harness's reference Ironic with
// keystone auth on ks (recording only).
func startReference(ctx context.Context, t *testing.T, script string, ks *keystone.Keystone, mode policyMode) string {
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AUTH=keystone", "NETWORK_INTERFACE=noop", "RESET=1",
		fmt.Sprintf("PORT=%d", port), "KEYSTONE_URL="+strings.TrimSuffix(ks.AuthURL(), "/v3"),
		"IRONIC_SERVICE_PASSWORD="+keystone.ServicePassword)
	if mode.srbac {
		env = append(env, "SRBAC=1")
	}
	run := func(ctx context.Context, verb string) {
		cmd := exec.CommandContext(ctx, script, verb)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", script, verb, err, out)
		}
	}
	run(ctx, "up")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		run(ctx, "down")
	})
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}
