package nova

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

var update = flag.Bool("update", false, "re-record "+goldenFake+" from Python Ironic 21.4 (TestFakeHardwareReference)")

const (
	// goldenFake is what Nova sent to Python Ironic 21.4 in the
	// fake-hardware scenario. Re-record: go test ./test/nova -run
	// TestFakeHardwareReference -update
	goldenFake = "testdata/requests-fake-hardware.json"
	// budget bounds one scenario with its servers' start.
	budget = 5 * time.Minute
)

// Fixed identities, so that the requests Nova sends are the same in
// every run and against every implementation.
const (
	nodeA    = "0a0a0a0a-0000-4000-8000-00000000000a" // available: Nova's
	nodeB    = "0b0b0b0b-0000-4000-8000-00000000000b" // manageable: reported, reserved
	instance = "1c1c1c1c-0000-4000-8000-000000000001"
	image    = "5e5e5e5e-0000-4000-8000-000000000001" // a Glance image id; nothing reads it
)

// ironicConfig is the ironic.conf of the fake-hardware deployments:
// fake interfaces (rescue among them), noop network, no automated
// cleaning and no periodic power sync.
func ironicConfig(host string) cluster.INI {
	return cluster.INI{
		"DEFAULT": {
			"host":                          host,
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "none",
			"debug":                         "true",
			"use_stderr":                    "true",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_bios_interfaces":       "fake,no-bios",
			"enabled_boot_interfaces":       "fake",
			"enabled_console_interfaces":    "fake,no-console",
			"enabled_deploy_interfaces":     "fake",
			"enabled_inspect_interfaces":    "fake,no-inspect",
			"enabled_management_interfaces": "fake",
			"enabled_network_interfaces":    "noop",
			"default_network_interface":     "noop",
			"enabled_power_interfaces":      "fake",
			"enabled_raid_interfaces":       "fake,no-raid",
			"enabled_rescue_interfaces":     "fake,no-rescue",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "fake,no-vendor",
		},
		"api":       {"host_ip": "127.0.0.1", "api_workers": "1"},
		"dhcp":      {"dhcp_provider": "none"},
		"conductor": {"automated_clean": "false", "sync_power_state_interval": "0"},
	}
}

// startAllInOne runs our all-in-one (python false) or Python Ironic's
// with conf on a fresh SQLite database.
func startAllInOne(ctx context.Context, t *testing.T, python bool, conf cluster.INI) *cluster.Service {
	t.Helper()
	dir := t.TempDir()
	conf = conf.Merged(cluster.StateConfig(t, dir), cluster.INI{"database": {"connection": "sqlite:///" + filepath.Join(dir, "ironic.sqlite")}})
	prog := cluster.Ours(cluster.AllInOne)
	if python {
		prog = cluster.Python(cluster.AllInOne)
		path := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(path, []byte(conf.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := cluster.Run(ctx, t, cluster.Python(cluster.DBSync), "--config-file", path, "create_schema"); r.Code != 0 {
			t.Fatalf("python ironic-dbsync create_schema: exit %d\n%s", r.Code, cluster.Tail([]byte(r.Stderr), 3000))
		}
	}
	return cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, LogTail: 8000, Config: func(port int) string {
		return conf.Merged(cluster.INI{"api": {"port": strconv.Itoa(port)}}).String()
	}})
}

// TestFakeHardware runs the scenario on our all-in-one and requires the
// requests of Python Ironic's run.
func TestFakeHardware(t *testing.T) {
	requireNova(t)
	ctx := cluster.TestContext(t, budget, 20*time.Second)
	cluster.Build(t, cluster.AllInOne)
	s := startNoauth(ctx, t, false, ironicConfig("goironic-nova"))
	fakeScenario(s)
	compareGolden(t, s.steps, true)
}

// TestFakeHardwareReference runs the scenario on Python Ironic 21.4 and
// compares with the golden; with -update it records the golden instead.
func TestFakeHardwareReference(t *testing.T) {
	requireNova(t)
	cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
	ctx := cluster.TestContext(t, budget, 20*time.Second)
	s := startNoauth(ctx, t, true, ironicConfig("pyironic-nova"))
	fakeScenario(s)
	if *update {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s.steps); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFake, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goldenFake)
		return
	}
	compareGolden(t, s.steps, true)
}

// TestSplitKeystone runs the scenario on the split deployment (ironic-api
// and ironic-conductor on MariaDB and RabbitMQ) with auth_strategy
// keystone, Nova authenticating with a password and finding the
// baremetal endpoint in Keystone's catalog, as deployed Novas do. The
// requests Nova sends to the Bare Metal API are the same as without
// authentication, but for version discovery: with the endpoint from the
// catalog, keystoneauth reads only the root document, and
// python-ironicclient does not negotiate at GET /v1 before its first
// request.
func TestSplitKeystone(t *testing.T) {
	requireNova(t)
	ctx := cluster.TestContext(t, budget, 20*time.Second)
	cluster.Build(t, cluster.API, cluster.Conductor, cluster.DBSync)
	db := cluster.NewDatabase(t, nil, "nova")
	broker := rabbittest.Shared(t)
	rec := newRecorder(t)
	ks := keystone.ForTest(t, keystone.Options{BaremetalURL: rec.URL})

	conf := ironicConfig("").Merged(cluster.INI{
		"DEFAULT":  {"auth_strategy": "keystone", "rpc_transport": "oslo", "transport_url": broker.TransportURL()},
		"database": {"connection": db.URL()},
		"keystone_authtoken": {
			"auth_type": "password", "auth_url": ks.AuthURL(), "www_authenticate_uri": ks.AuthURL(),
			"username": "ironic", "password": keystone.ServicePassword, "user_domain_name": "Default",
			"project_name": "service", "project_domain_name": "Default",
		},
	})
	delete(conf["DEFAULT"], "host")
	d := cluster.NewDeployment(ctx, t, conf)
	d.DBSync(cluster.Ours(cluster.DBSync), "create_schema")
	cond := d.Start(cluster.Ours(cluster.Conductor), "nova-conductor-1")
	d.WaitLog(cond, "serving RPC", 1, time.Minute)
	api := d.Start(cluster.Ours(cluster.API), "nova-api")
	rec.setTarget(t, api.URL)

	token, err := ks.Token(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(ctx, t, rec, api.URL, map[string]string{
		"auth_type": "password", "auth_url": ks.AuthURL(),
		"username": "admin", "password": keystone.AdminPassword, "user_domain_name": "Default",
		"project_name": "admin", "project_domain_name": "Default",
		"region_name": keystone.Region, "valid_interfaces": "internal,public",
	}, http.Header{"X-Auth-Token": {token}})
	fakeScenario(s)
	compareGolden(t, s.steps, false)
}

// withoutDiscovery is steps without the version discovery requests (GET
// of the root and of /v1).
func withoutDiscovery(steps []step) []step {
	out := make([]step, len(steps))
	for i, st := range steps {
		out[i] = step{Name: st.Name, Requests: slices.DeleteFunc(slices.Clone(st.Requests), func(r string) bool {
			return r == "GET /" || r == "GET /v1" || r == "GET /v1/"
		})}
	}
	return out
}

// compareGolden requires steps to be the golden's, step by step; with
// discovery false, version discovery requests are left out of both.
func compareGolden(t *testing.T, steps []step, discovery bool) {
	t.Helper()
	data, err := os.ReadFile(goldenFake)
	if err != nil {
		t.Fatalf("%v (record it: go test ./test/nova -run TestFakeHardwareReference -update)", err)
	}
	var golden []step
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatalf("%s: %v", goldenFake, err)
	}
	if !discovery {
		golden, steps = withoutDiscovery(golden), withoutDiscovery(steps)
	}
	for i := 0; i < max(len(golden), len(steps)); i++ {
		var g, s step
		if i < len(golden) {
			g = golden[i]
		}
		if i < len(steps) {
			s = steps[i]
		}
		if !reflect.DeepEqual(g, s) {
			t.Errorf("step %d: Nova sent\n  %s: %s\nthe reference's (%s)\n  %s: %s", i,
				s.Name, strings.Join(s.Requests, "\n    "), goldenFake, g.Name, strings.Join(g.Requests, "\n    "))
		}
	}
}

// flavor is the flavor of the scenario's instance: the node's resource
// class, a required trait and a capability, as baremetal flavors have.
var flavor = map[string]any{
	"flavorid": "bm.gold", "name": "bm.gold", "vcpus": 8, "memory_mb": 16384,
	"root_gb": 100, "ephemeral_gb": 0, "swap": 0,
	"extra_specs": map[string]string{
		"resources:CUSTOM_BAREMETAL_GOLD": "1",
		"resources:VCPU":                  "0",
		"trait:CUSTOM_GOLD":               "required",
		"capabilities:boot_mode":          "uefi",
	},
}

// goldNode is the properties and class of the nodes Nova schedules to.
func goldNode(uuid, name, driver string) nodeSpec {
	return nodeSpec{
		UUID: uuid, Name: name, Driver: driver, ResourceClass: "baremetal-gold",
		Properties: map[string]any{
			"cpus": 8, "memory_mb": 16384, "local_gb": 100, "cpu_arch": "x86_64",
			"capabilities": "boot_mode:uefi,raid:yes",
		},
		Traits: []string{"CUSTOM_GOLD", "HW_CPU_X86_VMX"},
	}
}

// fakeScenario is a fake-hardware node's life under Nova: the resource
// tracker finds it, an instance is spawned on it, powered off and on,
// rebooted, rescued, and destroyed.
func fakeScenario(s *session) {
	t := s.t
	a := goldNode(nodeA, "nova-gold-1", "fake-hardware")
	s.enroll(a)
	b := goldNode(nodeB, "nova-gold-2", "fake-hardware")
	b.Manageable = true
	s.enroll(b)
	inst := map[string]any{"instance": instance}

	resourceTracker(s, []string{nodeA, nodeB}, map[string]int{nodeA: 0, nodeB: 1})
	s.do("create_instance (Nova's database)", "create_instance",
		map[string]any{"uuid": instance, "node": nodeA, "name": "vm-1", "flavor": flavor})
	want(t, "instance_exists before spawn", s.do("", "instance_exists", inst), false, equal)
	want(t, "list_instance_uuids before spawn", s.do("", "list_instance_uuids", nil), []string{}, slices.Equal)

	s.do("", "prepare_for_spawn", inst)
	if n := s.node(nodeA); n["instance_uuid"] != instance {
		t.Fatalf("prepare_for_spawn: node instance_uuid %v, want %s", n["instance_uuid"], instance)
	}
	s.do("", "spawn", map[string]any{"instance": instance, "image_id": image})
	n := s.node(nodeA)
	if n["provision_state"] != "active" {
		t.Fatalf("after spawn: provision_state %v (last_error %v)", n["provision_state"], n["last_error"])
	}
	ii, _ := n["instance_info"].(map[string]any)
	for k, v := range map[string]any{
		"image_source": image, "display_name": "vm-1", "root_gb": "100", "vcpus": "8", "memory_mb": "16384",
		"local_gb": "100", "swap_mb": "0", "nova_host_id": novaHost, "capabilities": `{"boot_mode": "uefi"}`,
	} {
		if ii[k] != v {
			t.Errorf("after spawn: instance_info %s = %v, want %v", k, ii[k], v)
		}
	}
	if tr, _ := ii["traits"].([]any); len(tr) != 1 || tr[0] != "CUSTOM_GOLD" {
		t.Errorf("after spawn: instance_info traits = %v, want [CUSTOM_GOLD]", ii["traits"])
	}
	want(t, "list_instances", s.do("", "list_instances", nil), []string{"instance-00000001"}, slices.Equal)
	want(t, "list_instance_uuids", s.do("", "list_instance_uuids", nil), []string{instance}, slices.Equal)
	want(t, "instance_exists", s.do("", "instance_exists", inst), true, equal)

	powerCycle(s, func(string) {})

	// The fake management interface has no NMI, in Ironic as here.
	if msg := s.fails("", "trigger_crash_dump", inst, "BadRequest"); !strings.Contains(msg, "does not support inject_nmi") {
		t.Errorf("trigger_crash_dump: %s", msg)
	}

	s.do("", "rescue", map[string]any{"instance": instance, "password": "rescue-secret"})
	if n := s.node(nodeA); n["provision_state"] != "rescue" {
		t.Fatalf("after rescue: provision_state %v", n["provision_state"])
	}
	s.do("", "unrescue", inst)
	if n := s.node(nodeA); n["provision_state"] != "active" {
		t.Fatalf("after unrescue: provision_state %v", n["provision_state"])
	}

	s.do("", "destroy", inst)
	n = s.waitNode(nodeA, "available", func(m map[string]any) bool { return m["provision_state"] == "available" })
	if n["instance_uuid"] != nil || len(n["instance_info"].(map[string]any)) != 0 {
		t.Errorf("after destroy: instance_uuid %v instance_info %v, want none", n["instance_uuid"], n["instance_info"])
	}
	want(t, "instance_exists after destroy", s.do("instance_exists after destroy", "instance_exists", inst), false, equal)
	want(t, "list_instance_uuids after destroy", s.do("list_instance_uuids after destroy", "list_instance_uuids", nil), []string{}, slices.Equal)
	want(t, "get_info after destroy", s.do("get_info after destroy", "get_info", map[string]any{"instance": instance, "use_cache": false}), "pending", equal)
}

// resourceTracker is what nova-compute's resource tracker asks of the
// driver: the nodes it manages (all of nodes), and for each its
// resources and its inventory in Placement (reserved as given: a node
// that is not available is reserved).
func resourceTracker(s *session, nodes []string, reserved map[string]int) {
	t := s.t
	s.do("", "init_host", nil)
	want(t, "get_available_nodes", s.do("", "get_available_nodes", nil), nodes, slices.Equal)
	want(t, "node_is_available", s.do("", "node_is_available", map[string]any{"node": nodes[0]}), true, equal)
	want(t, "node_is_available (unknown)", s.do("node_is_available (unknown)", "node_is_available",
		map[string]any{"node": "ffffffff-0000-4000-8000-000000000000"}), false, equal)
	for _, uuid := range nodes {
		var res struct {
			UUID               string          `json:"uuid"`
			HypervisorHostname string          `json:"hypervisor_hostname"`
			HypervisorType     string          `json:"hypervisor_type"`
			ResourceClass      string          `json:"resource_class"`
			Stats              map[string]any  `json:"stats"`
			SupportedInstances [][]string      `json:"supported_instances"`
			VCPUs              int             `json:"vcpus"`
			Extra              json.RawMessage `json:"-"`
		}
		raw := s.do("get_available_resource", "get_available_resource", map[string]any{"node": uuid})
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		wantStats := map[string]any{"cpu_arch": "x86_64", "boot_mode": "uefi", "raid": "yes"}
		if res.UUID != uuid || res.HypervisorHostname != uuid || res.HypervisorType != "ironic" ||
			res.ResourceClass != "baremetal-gold" || !reflect.DeepEqual(res.Stats, wantStats) ||
			!reflect.DeepEqual(res.SupportedInstances, [][]string{{"x86_64", "baremetal", "hvm"}}) || res.VCPUs != 0 {
			t.Errorf("get_available_resource(%s) = %s", uuid, raw)
		}
		var tree struct {
			Inventory map[string]map[string]float64 `json:"inventory"`
			Traits    []string                      `json:"traits"`
		}
		raw = s.do("update_provider_tree", "update_provider_tree", map[string]any{"node": uuid})
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		inv := tree.Inventory["CUSTOM_BAREMETAL_GOLD"]
		if len(tree.Inventory) != 1 || inv["total"] != 1 || inv["reserved"] != float64(reserved[uuid]) || inv["max_unit"] != 1 {
			t.Errorf("update_provider_tree(%s): inventory %v, want CUSTOM_BAREMETAL_GOLD total 1 reserved %d", uuid, tree.Inventory, reserved[uuid])
		}
		if !slices.Equal(tree.Traits, []string{"CUSTOM_GOLD", "HW_CPU_X86_VMX"}) {
			t.Errorf("update_provider_tree(%s): traits %v", uuid, tree.Traits)
		}
	}
}

// powerCycle is Nova's power calls on the instance, each checked on the
// node and by get_info; after each, bmc checks the BMC (by the step's
// name: "power_off", "power_on", "reboot SOFT", "reboot HARD",
// "power_off soft").
func powerCycle(s *session, bmc func(step string)) {
	t := s.t
	inst := map[string]any{"instance": instance}
	info := map[string]any{"instance": instance, "use_cache": false}
	check := func(step, power, nova string) {
		t.Helper()
		if n := s.node(nodeA); n["power_state"] != power || n["target_power_state"] != nil {
			t.Fatalf("after %s: power_state %v target_power_state %v (last_error %v), want %s",
				step, n["power_state"], n["target_power_state"], n["last_error"], power)
		}
		want(t, "get_info after "+step, s.do("get_info", "get_info", info), nova, equal)
		bmc(step)
	}
	s.do("", "power_on", inst)
	check("power_on", "power on", "running")
	s.do("", "power_off", inst)
	check("power_off", "power off", "shutdown")
	s.do("", "power_on", inst)
	check("power_on", "power on", "running")
	s.do("reboot SOFT", "reboot", map[string]any{"instance": instance, "reboot_type": "SOFT"})
	check("reboot SOFT", "power on", "running")
	s.do("reboot HARD", "reboot", map[string]any{"instance": instance, "reboot_type": "HARD"})
	check("reboot HARD", "power on", "running")
	s.do("power_off soft", "power_off", map[string]any{"instance": instance, "timeout": 30})
	check("power_off soft", "power off", "shutdown")
	s.do("", "power_on", inst)
	check("power_on", "power on", "running")
	want(t, "get_info (cached)", s.do("get_info (cached)", "get_info", inst), "running", equal)
}
