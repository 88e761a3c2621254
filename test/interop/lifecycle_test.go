package interop

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
)

// TestPythonAPIGoConductor: Python's ironic-api sends every conductor call
// of the lifecycle to our ironic-conductor, on a schema created by
// Python's ironic-dbsync.
func TestPythonAPIGoConductor(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	d.createSchema(true)
	cond := d.startConductor(false, "go-cond-lc")
	api := d.startAPI(true, "py-api-lc")
	lifecycle(t, d, api, cond, "9a1d3c1e-5b0e-4f7e-8d2a-6f1c0b7e4a01")
}

// TestGoAPIPythonConductor: our ironic-api sends every conductor call of
// the lifecycle to Python's ironic-conductor, on a schema created by our
// ironic-dbsync.
func TestGoAPIPythonConductor(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	d.createSchema(false)
	cond := d.startConductor(true, "py-cond-lc")
	api := d.startAPI(false, "go-api-lc")
	lifecycle(t, d, api, cond, "4c7f2e9b-1d3a-4b6c-9e8f-2a5d7c0b3e02")
}

// lifecycle takes one fake-hardware node through everything an operator
// does with the CLI, through api, whose only conductor is cond, checking
// each result through the CLI, the REST API and the database.
func lifecycle(t *testing.T, d *deployment, api, cond *cluster.Service, uuid string) {
	cli := d.cli(api)
	start := time.Now()
	step := func(name string, f func()) {
		t.Helper()
		s := time.Now()
		f()
		t.Logf("%-28s %s", name, time.Since(s).Round(time.Millisecond))
	}
	// provision runs a provisioning action with --wait and checks the
	// state reached through the API, and that the lock is released with
	// no error recorded. Python's conductor finishes an action in a
	// worker after it answered the call, so the CLI's first poll still
	// sees the transient state and the next comes 10 s later: each such
	// step takes about 12 s against Python's conductor, 3 s against ours.
	provision := func(want string, args ...string) {
		t.Helper()
		cli.OK(t, append(append([]string{"node"}, args...), "--wait", waitSeconds)...)
		if got := d.getNode(t, api, uuid)["provision_state"]; got != want {
			t.Fatalf("after %v: provision_state %v, want %s", args, got, want)
		}
		if r := d.waitReleased(t, uuid); r.lastError.Valid || r.provisionState != want || r.targetState.Valid {
			t.Fatalf("after %v: database has provision_state %q, target %v, last_error %v",
				args, r.provisionState, r.targetState, r.lastError)
		}
	}

	if got := d.conductors(t, api); !slices.Equal(got, []string{cond.Name}) {
		t.Fatalf("alive conductors = %v, want only %s", got, cond.Name)
	}
	step("create", func() {
		n := cli.Object(t, "node", "create", "--driver", "fake-hardware", "--uuid", uuid,
			"--name", "interop-"+cond.Name, "--property", "cpus=2", "--property", "cpu_arch=x86_64",
			"--property", "memory_mb=512", "--extra", "origin=interop")
		if n["uuid"] != uuid || n["provision_state"] != "enroll" || n["deploy_interface"] != "fake" ||
			n["network_interface"] != "noop" || n["conductor"] != cond.Name {
			t.Fatalf("created node: %v", n)
		}
		// Whichever side wrote it, the dict is stored as json.dumps wrote
		// the client's: keys in the order given.
		var props string
		if err := d.db.QueryRowContext(d.Ctx, "SELECT properties FROM nodes WHERE uuid = ?", uuid).Scan(&props); err != nil {
			t.Fatal(err)
		}
		if want := `{"cpus": 2, "cpu_arch": "x86_64", "memory_mb": 512}`; props != want {
			t.Errorf("nodes.properties = %s, want %s", props, want)
		}
	})
	step("manage", func() { provision("manageable", "manage", uuid) })
	step("inspect", func() {
		provision("manageable", "inspect", uuid)
		if n := d.getNode(t, api, uuid); n["inspection_finished_at"] == nil {
			t.Fatalf("inspected node has no inspection_finished_at: %v", n)
		}
	})
	step("provide (cleaning)", func() { provision("available", "provide", uuid) })

	configDrive := writeConfigDrive(t, uuid)
	step("deploy with config drive", func() {
		provision("active", "deploy", uuid, "--config-drive", configDrive.path)
		r := d.nodeRow(t, uuid)
		if got := r.instanceInfo["configdrive"]; got != configDrive.value {
			t.Errorf("instance_info.configdrive = %.60v..., want the CLI's %.60s...", got, configDrive.value)
		}
		if r.affinityHost.String != cond.Name {
			t.Errorf("conductor_affinity is conductor %v, want %s", r.affinityHost, cond.Name)
		}
	})
	step("rebuild", func() { provision("active", "rebuild", uuid) })
	step("rescue", func() { provision("rescue", "rescue", uuid, "--rescue-password", "interop-secret") })
	step("unrescue", func() { provision("active", "unrescue", uuid) })

	step("power off/on", func() {
		for _, p := range []struct{ cmd, want string }{{"off", "power off"}, {"on", "power on"}} {
			cli.OK(t, "node", "power", p.cmd, uuid)
			d.poll(t, pollTimeout, cond, "power state "+p.want, func() (bool, error) {
				n := d.getNode(t, api, uuid)
				return n["power_state"] == p.want && n["target_power_state"] == nil, nil
			})
		}
		if n := d.getNode(t, api, uuid); n["last_error"] != nil {
			t.Fatalf("last_error after power off/on: %v", n["last_error"])
		}
	})
	step("set/unset", func() {
		cli.OK(t, "node", "set", uuid, "--property", "cpus=4", "--property", "memory_mb=1024", "--extra", "rack=r1")
		n := d.getNode(t, api, uuid)
		props, extra := n["properties"].(map[string]any), n["extra"].(map[string]any)
		// The CLI sends values that parse as JSON as such: 4, not "4".
		if props["cpus"] != 4.0 || props["memory_mb"] != 1024.0 || extra["rack"] != "r1" || extra["origin"] != "interop" {
			t.Fatalf("after set: properties %v, extra %v", props, extra)
		}
		cli.OK(t, "node", "unset", uuid, "--property", "memory_mb", "--extra", "rack")
		n = d.getNode(t, api, uuid)
		props, extra = n["properties"].(map[string]any), n["extra"].(map[string]any)
		if _, ok := props["memory_mb"]; ok || props["cpus"] != 4.0 {
			t.Fatalf("after unset: properties %v", props)
		}
		if _, ok := extra["rack"]; ok || extra["origin"] != "interop" {
			t.Fatalf("after unset: extra %v", extra)
		}
	})
	step("traits", func() {
		cli.OK(t, "node", "add", "trait", uuid, "CUSTOM_INTEROP_A", "CUSTOM_INTEROP_B")
		if got := d.traits(t, api, uuid); !slices.Equal(got, []string{"CUSTOM_INTEROP_A", "CUSTOM_INTEROP_B"}) {
			t.Fatalf("traits after add = %v", got)
		}
		cli.OK(t, "node", "remove", "trait", uuid, "CUSTOM_INTEROP_A")
		if got := d.traits(t, api, uuid); !slices.Equal(got, []string{"CUSTOM_INTEROP_B"}) {
			t.Fatalf("traits after remove = %v", got)
		}
	})
	step("validate", func() {
		rows := cli.Rows(t, "node", "validate", uuid)
		for _, iface := range []string{"boot", "deploy", "management", "power", "inspect", "rescue", "network"} {
			i := slices.IndexFunc(rows, func(r osc.Object) bool { return r["Interface"] == iface })
			if i < 0 || rows[i]["Result"] != true {
				t.Errorf("validate %s: %v", iface, rows)
			}
		}
	})
	step("boot device", func() {
		cli.OK(t, "node", "boot", "device", "set", uuid, "pxe", "--persistent")
		if got := cli.Object(t, "node", "boot", "device", "show", uuid); got["boot_device"] != "pxe" {
			t.Fatalf("boot device show = %v", got)
		}
		got := d.get(t, api, "/v1/nodes/"+uuid+"/management/boot_device/supported")
		if devs, _ := got["supported_boot_devices"].([]any); !slices.Equal(devs, []any{"pxe"}) {
			t.Fatalf("supported boot devices = %v", got)
		}
		// Fake management refuses any other device, in the conductor.
		cli.Fails(t, []string{"Invalid boot device disk specified"}, "node", "boot", "device", "set", uuid, "disk")
	})
	step("vendor passthru", func() {
		rows := cli.Rows(t, "node", "passthru", "list", uuid)
		for _, m := range []string{"second_method", "third_method_sync", "fourth_method_shared_lock"} {
			if !hasRow(rows, "Name", m) {
				t.Errorf("passthru list lacks %s: %v", m, rows)
			}
		}
		// A synchronous call returns the method's result through the RPC.
		// Through the REST API: `passthru call` of python-ironicclient
		// 5.0.1 fails to print any result that is not an object ("'bool'
		// object has no attribute 'items'"), whichever conductor answers.
		for bar, want := range map[string]string{"meow": "true", "woof": "false"} {
			got := d.request(t, api, http.MethodPost, "/v1/nodes/"+uuid+"/vendor_passthru/third_method_sync",
				map[string]string{"bar": bar}, http.StatusOK)
			if string(bytes.TrimSpace(got)) != want {
				t.Errorf("third_method_sync(bar=%s) = %s, want %s", bar, got, want)
			}
		}
		// A call the driver refuses fails in the conductor's validate.
		cli.Fails(t, []string{"Parameter 'bar' not passed to method 'third_method_sync'"},
			"node", "passthru", "call", uuid, "third_method_sync")
	})
	step("port create/delete", func() {
		p := cli.Object(t, "port", "create", "52:54:00:1f:2e:3d", "--node", uuid, "--extra", "slot=1")
		portUUID, _ := p["uuid"].(string)
		if p["node_uuid"] != uuid || p["address"] != "52:54:00:1f:2e:3d" || portUUID == "" {
			t.Fatalf("created port: %v", p)
		}
		if ports, _ := d.get(t, api, "/v1/nodes/"+uuid+"/ports")["ports"].([]any); len(ports) != 1 ||
			ports[0].(map[string]any)["uuid"] != portUUID {
			t.Fatalf("ports of the node = %v", ports)
		}
		// update_port returns the port too, which the API shows.
		cli.OK(t, "port", "set", portUUID, "--extra", "slot=2")
		p = d.get(t, api, "/v1/ports/"+portUUID)
		if p["node_uuid"] != uuid || p["extra"].(map[string]any)["slot"] != 2.0 {
			t.Fatalf("port after set: %v", p)
		}
		cli.OK(t, "port", "delete", portUUID)
		if ports, _ := d.get(t, api, "/v1/nodes/"+uuid+"/ports")["ports"].([]any); len(ports) != 0 {
			t.Fatalf("ports of the node after delete = %v", ports)
		}
	})
	step("maintenance set/unset", func() {
		cli.OK(t, "node", "maintenance", "set", uuid, "--reason", "interop check")
		if r := d.nodeRow(t, uuid); !r.maintenance || r.maintenanceReason.String != "interop check" {
			t.Fatalf("after maintenance set: %+v", r)
		}
		cli.OK(t, "node", "maintenance", "unset", uuid)
		if r := d.nodeRow(t, uuid); r.maintenance || r.maintenanceReason.Valid {
			t.Fatalf("after maintenance unset: %+v", r)
		}
	})
	step("undeploy (cleaning)", func() { provision("available", "undeploy", uuid) })
	step("final state", func() {
		n := d.getNode(t, api, uuid)
		for k, want := range map[string]any{
			"provision_state": "available", "target_provision_state": nil, "last_error": nil,
			"reservation": nil, "maintenance": false, "conductor": cond.Name,
			// Fake deploy and cleaning leave the power alone.
			"power_state": "power on",
		} {
			if n[k] != want {
				t.Errorf("final %s = %v, want %v", k, n[k], want)
			}
		}
		if r := d.nodeRow(t, uuid); len(r.instanceInfo) != 0 {
			t.Errorf("instance_info after undeploy = %v, want empty", r.instanceInfo)
		}
	})
	step("delete", func() {
		cli.OK(t, "node", "delete", uuid)
		cli.Fails(t, []string{"could not be found"}, "node", "show", uuid)
	})
	t.Logf("lifecycle through %s and %s took %s", api, cond, time.Since(start).Round(time.Second))
}

// configDrive is a config drive file for the CLI and the string it sends.
type configDrive struct{ path, value string }

// writeConfigDrive writes a gzipped, base64-encoded config drive for the
// CLI's --config-drive. The fake deploy interface never reads it, so its
// content only has to be distinct: the conductor stores it verbatim in
// instance_info.
func writeConfigDrive(t *testing.T, uuid string) configDrive {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprintf(zw, "config drive of node %s\n", uuid)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	value := base64.StdEncoding.EncodeToString(buf.Bytes())
	path := filepath.Join(t.TempDir(), "configdrive")
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		t.Fatal(err)
	}
	return configDrive{path: path, value: value}
}

// traits lists a node's traits through the REST API, sorted.
func (d *deployment) traits(t *testing.T, api *cluster.Service, uuid string) []string {
	t.Helper()
	var got []string
	for _, tr := range d.get(t, api, "/v1/nodes/"+uuid+"/traits")["traits"].([]any) {
		got = append(got, tr.(string))
	}
	slices.Sort(got)
	return got
}

// hasRow reports whether a row of a CLI listing has column equal to value.
func hasRow(rows []osc.Object, column, value string) bool {
	return slices.ContainsFunc(rows, func(r osc.Object) bool { return r[column] == value })
}
