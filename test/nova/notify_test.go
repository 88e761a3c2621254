package nova

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakenova"
	"github.com/goironic/ironic/test/internal/cluster"
)

const goldenNotify = "testdata/power-notifications.json"

// notifyEvent is one request to Nova, as compared with the reference's.
type notifyEvent struct {
	Step string `json:"step"`
	// Body is the request's JSON; Versions its microversion headers;
	// RequestID whether it carried X-OpenStack-Request-ID.
	Body      any               `json:"body"`
	Versions  map[string]string `json:"versions"`
	RequestID bool              `json:"request_id"`
	Status    int               `json:"status"`
}

// TestPowerNotifications: with [nova]send_power_notifications (on by
// default), power changes of a node with an instance are told to Nova
// as power-update events: the same events, bodies and headers as Python
// Ironic 21.4 sends to the same fake Nova (testdata/power-notifications.json;
// go test ./test/nova -run TestPowerNotifications -update re-records it).
// Events go out after the node's lock is released here, and a Nova that
// is down delays no power action.
func TestPowerNotifications(t *testing.T) {
	var want []notifyEvent
	if *update {
		cluster.RequirePython(t, "ironic.common.nova", "python3-ironic")
		want = notifyScenario(t, true)
		b, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenNotify, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		want = nil
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(goldenNotify)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	}
	cluster.Build(t, cluster.AllInOne)
	got := notifyScenario(t, false)
	b, _ := json.Marshal(got)
	got = nil
	_ = json.Unmarshal(b, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests to Nova (-reference +ours):\n%s", diff)
	}
}

func notifyScenario(t *testing.T, python bool) []notifyEvent {
	ctx := cluster.TestContext(t, 3*time.Minute, 20*time.Second)
	dir := t.TempDir()
	const (
		withInstance = "6a6a6a6a-0000-4000-8000-0000000000a1"
		unknownInst  = "6a6a6a6a-0000-4000-8000-0000000000a2"
		instance     = "1c1c1c1c-0000-4000-8000-0000000000a1"
		ghost        = "1c1c1c1c-0000-4000-8000-0000000000a2"
		noInstance   = "6a6a6a6a-0000-4000-8000-0000000000a3"
	)
	nova := fakenova.ForTest(t, fakenova.Options{Servers: []string{instance}})
	db := filepath.Join(dir, "ironic.sqlite")
	config := func(port int) string {
		return cluster.INI{
			"DEFAULT": {"host": "notify-test", "auth_strategy": "noauth", "rpc_transport": "none",
				"enabled_hardware_types": "fake-hardware", "enabled_boot_interfaces": "fake", "enabled_deploy_interfaces": "fake",
				"enabled_management_interfaces": "fake", "enabled_power_interfaces": "fake", "enabled_network_interfaces": "noop",
				"enabled_vendor_interfaces": "no-vendor", "tempdir": dir},
			"api":       {"host_ip": "127.0.0.1", "port": strconv.Itoa(port)},
			"database":  {"connection": "sqlite:///" + db},
			"dhcp":      {"dhcp_provider": "none"},
			"conductor": {"automated_clean": "false", "sync_power_state_interval": "-1"},
			"nova":      {"auth_type": "none", "endpoint_override": nova.URL},
		}.Merged(cluster.StateConfig(t, dir)).String()
	}
	program := cluster.Ours(cluster.AllInOne)
	if python {
		program = cluster.Python(cluster.AllInOne)
		conf := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(conf, []byte(config(0)), 0o644); err != nil {
			t.Fatal(err)
		}
		if res := cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", conf, "create_schema"); res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	svc := cluster.Start(ctx, t, cluster.Spec{Program: program, Name: "ironic", Dir: dir, LogTail: 6000, Config: config})
	rest := cluster.NewClient(svc.URL, "1.82")
	must := func(status int, method, path string, body any) {
		t.Helper()
		resp, err := rest.Do(ctx, method, path, body)
		if err != nil || resp.Status != status {
			t.Fatalf("%s %s: %v %v", method, path, resp, err)
		}
	}
	for _, n := range []struct{ uuid, inst string }{{withInstance, instance}, {unknownInst, ghost}, {noInstance, ""}} {
		must(http.StatusCreated, http.MethodPost, "/v1/nodes", map[string]any{"uuid": n.uuid, "driver": "fake-hardware"})
		if n.inst != "" {
			must(http.StatusOK, http.MethodPatch, "/v1/nodes/"+n.uuid, []map[string]any{{"op": "add", "path": "/instance_uuid", "value": n.inst}})
		}
	}
	power := func(node, target string) {
		t.Helper()
		must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+node+"/states/power", map[string]any{"target": target})
		cluster.Eventually(ctx, t, 30*time.Second, node+" "+target, func() (bool, string) {
			resp, err := rest.Do(ctx, http.MethodGet, "/v1/nodes/"+node, nil)
			if err != nil {
				return false, err.Error()
			}
			var n map[string]any
			_ = json.Unmarshal(resp.Body, &n)
			return n["target_power_state"] == nil && n["power_state"] != nil, fmt.Sprint(n["power_state"], n["target_power_state"])
		})
	}
	var out []notifyEvent
	seen := 0
	collect := func(step string, expect int) {
		t.Helper()
		cluster.Eventually(ctx, t, 20*time.Second, step+": requests to Nova", func() (bool, string) {
			return len(nova.Requests()) >= seen+expect, fmt.Sprintf("%d requests", len(nova.Requests())-seen)
		})
		if expect == 0 {
			time.Sleep(500 * time.Millisecond) // nothing may come
		}
		reqs := nova.Requests()
		for _, r := range reqs[seen:] {
			e := notifyEvent{Step: step, Versions: map[string]string{}, Status: r.Status}
			_ = json.Unmarshal(r.Body, &e.Body)
			for k, v := range r.Headers {
				if strings.Contains(strings.ToLower(k), "version") {
					e.Versions[k] = v
				}
			}
			_, e.RequestID = r.Headers["X-OpenStack-Request-ID"]
			out = append(out, e)
		}
		seen = len(reqs)
	}
	power(withInstance, "power on")
	collect("power on, known instance", 1)
	power(withInstance, "power on")
	collect("power on again (no change)", 0)
	power(withInstance, "rebooting")
	collect("reboot", 1)
	power(withInstance, "power off")
	collect("power off, known instance", 1)
	power(unknownInst, "power on")
	collect("power on, instance Nova doesn't know", 1)
	power(noInstance, "power on")
	collect("power on, no instance", 0)
	nova.SetDown(true)
	start := time.Now()
	power(withInstance, "power on")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("power off with Nova down took %s", d)
	}
	collect("power on, Nova down", 1)
	return out
}
