package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/redfishbmc"
)

var update = flag.Bool("update", false, "re-record testdata/reference.json from a live Python Ironic")

const (
	// apiVersion is what the CLI asks for: Debian's python-ironicclient
	// knows versions up to 1.78.
	apiVersion = "1.78"
	// budget bounds one implementation's run of the scenario.
	budget = 8 * time.Minute
	// settle bounds the wait for an asynchronous action to end.
	settle = 90 * time.Second
	// goldenPath holds the reference's results.
	goldenPath = "testdata/reference.json"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// config is the ironic.conf both servers run with: noauth, in-process RPC,
// the redfish hardware type enabled, no periodic power sync (it would
// talk to the BMC at moments of its own).
func config(t testing.TB, host, stateDir, dbURL string, port int, extra ...cluster.INI) string {
	return cluster.INI{
		"DEFAULT": {
			"host":                          host,
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "none",
			"use_stderr":                    "true",
			"debug":                         "true",
			"enabled_hardware_types":        "redfish,fake-hardware",
			"enabled_bios_interfaces":       "no-bios,redfish,fake",
			"enabled_boot_interfaces":       "fake,ipxe,pxe,redfish-virtual-media",
			"enabled_console_interfaces":    "no-console",
			"enabled_deploy_interfaces":     "fake,direct,ramdisk",
			"enabled_inspect_interfaces":    "no-inspect,redfish",
			"enabled_management_interfaces": "redfish,fake",
			"enabled_network_interfaces":    "noop",
			"default_network_interface":     "noop",
			"enabled_power_interfaces":      "redfish,fake",
			"enabled_raid_interfaces":       "no-raid,redfish",
			"enabled_rescue_interfaces":     "no-rescue",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "no-vendor,redfish",
		},
		"api":       {"host_ip": "127.0.0.1", "port": strconv.Itoa(port), "api_workers": "1"},
		"database":  {"connection": dbURL},
		"dhcp":      {"dhcp_provider": "none"},
		"conductor": {"automated_clean": "false", "sync_power_state_interval": "0", "power_state_change_timeout": "30"},
		"redfish":   {"connection_attempts": "2", "connection_retry_interval": "1"},
		// Python's agent lookups need the API's URL.
		"service_catalog": {"endpoint_override": "http://127.0.0.1:" + strconv.Itoa(port)},
	}.Merged(append([]cluster.INI{cluster.StateConfig(t, stateDir)}, extra...)...).String()
}

// run is one implementation's results: per step, the BMC's requests and
// the node's fields.
type run struct {
	Steps []stepResult `json:"steps"`
}

type stepResult struct {
	Name     string         `json:"name"`
	Requests []string       `json:"requests"`
	Node     map[string]any `json:"node,omitempty"`
	// Output is what the step chose to record of the CLI's answer.
	Output any `json:"output,omitempty"`
}

// env is one implementation's scenario in progress.
type env struct {
	t       *testing.T
	ctx     context.Context
	impl    string
	cli     *osc.CLI
	rest    *cluster.Client
	bmc     *redfishbmc.TestServer
	sys     *redfishbmc.System
	out     *run
	nodeIDs map[string]string // node UUID -> its name in the results
	// images is the URL of the image server (deploy and instance images).
	images string
	// extra are further replacements (a URL and its stand-in).
	extra [][2]string
}

// startServer runs our all-in-one or Python's with a fresh SQLite
// database.
func startServer(ctx context.Context, t *testing.T, python bool, extra ...func(dir string) cluster.INI) *cluster.Service {
	t.Helper()
	dir := t.TempDir()
	var more []cluster.INI
	for _, x := range extra {
		more = append(more, x(dir))
	}
	db := "sqlite:///" + filepath.Join(dir, "ironic.sqlite")
	prog := cluster.Ours(cluster.AllInOne)
	host := "goironic-redfish"
	if python {
		prog, host = cluster.Python(cluster.AllInOne), "pyironic-redfish"
		conf := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(conf, []byte(config(t, host, dir, db, 0, more...)), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := cluster.Run(ctx, t, cluster.Python(cluster.DBSync), "--config-file", conf, "create_schema"); r.Code != 0 {
			t.Fatalf("dbsync: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	return cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, StartTimeout: time.Minute, LogTail: 6000,
		Config: func(port int) string { return config(t, host, dir, db, port, more...) }})
}

// newEmulator is a fresh BMC with deterministic IDs and tokens, so both
// runs see the same answers.
func newEmulator(t *testing.T) *redfishbmc.TestServer {
	var ids, tokens atomic.Int64
	return redfishbmc.ForTest(t, redfishbmc.Options{
		NewID:    func() string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids.Add(1)) },
		NewToken: func() string { return fmt.Sprintf("token-%d", tokens.Add(1)) },
	})
}

// requests returns the BMC's requests since the last call, normalised,
// and forgets them.
func (e *env) requests() []string {
	reqs := e.bmc.Requests()
	e.bmc.ResetRequests()
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		line := r.Method + " " + r.Path
		if r.Query != "" {
			line += "?" + r.Query
		}
		if len(r.Body) > 0 {
			line += " " + e.normalize(string(r.Body))
		}
		if r.Status >= 400 {
			line += " -> " + strconv.Itoa(r.Status)
		}
		out = append(out, line)
	}
	return out
}

// normalize replaces what differs between runs: the emulator's address
// and the nodes' UUIDs.
func (e *env) normalize(s string) string {
	s = strings.ReplaceAll(s, e.bmc.URL, "http://BMC")
	s = strings.ReplaceAll(s, strings.TrimPrefix(e.bmc.URL, "http://"), "BMC")
	for id, name := range e.nodeIDs {
		s = strings.ReplaceAll(s, id, name)
	}
	for _, x := range e.extra {
		s = strings.ReplaceAll(s, x[0], x[1])
	}
	return s
}

// nodeFields reads the node's fields the steps change, normalised.
func (e *env) nodeFields(uuid string) map[string]any {
	var n map[string]any
	e.rest.JSON(e.ctx, e.t, 200, "GET", "/v1/nodes/"+uuid, nil, &n)
	out := map[string]any{}
	for _, k := range []string{"power_state", "target_power_state", "provision_state", "target_provision_state",
		"last_error", "maintenance", "maintenance_reason", "fault", "boot_mode", "secure_boot", "properties",
		"driver_internal_info", "raid_config", "target_raid_config", "instance_info", "clean_step", "deploy_step"} {
		out[k] = n[k]
	}
	if rc, ok := out["raid_config"].(map[string]any); ok && rc["last_updated"] != nil {
		rc["last_updated"] = "<set>"
	}
	if dii, ok := out["driver_internal_info"].(map[string]any); ok {
		for _, k := range []string{"last_power_state_change", "agent_secret_token", "agent_url",
			"agent_last_heartbeat", "agent_version", "agent_cached_clean_steps_refreshed", "agent_cached_deploy_steps_refreshed"} {
			if _, ok := dii[k]; ok {
				dii[k] = "<set>"
			}
		}
	}
	raw, _ := json.Marshal(out)
	var norm map[string]any
	_ = json.Unmarshal([]byte(e.normalize(string(raw))), &norm)
	return norm
}

// step records one step: do runs it, then the step's requests and the
// node's fields are kept.
func (e *env) step(name, uuid string, do func() any) {
	e.t.Helper()
	e.t.Logf("%s: %s", e.impl, name)
	out := do()
	res := stepResult{Name: name, Requests: e.requests(), Output: out}
	if uuid != "" {
		res.Node = e.nodeFields(uuid)
	}
	e.out.Steps = append(e.out.Steps, res)
}

// waitNode polls the node until cond holds (bounded by settle).
func (e *env) waitNode(uuid, what string, cond func(n map[string]any) bool) {
	e.t.Helper()
	cluster.Eventually(e.ctx, e.t, settle, what, func() (bool, string) {
		var n map[string]any
		e.rest.JSON(e.ctx, e.t, 200, "GET", "/v1/nodes/"+uuid, nil, &n)
		return cond(n), fmt.Sprintf("provision %v/%v power %v/%v last_error %v", n["provision_state"],
			n["target_provision_state"], n["power_state"], n["target_power_state"], n["last_error"])
	})
}

// powerSettled waits until no power change is in progress.
func (e *env) powerSettled(uuid string) {
	e.waitNode(uuid, "power change done", func(n map[string]any) bool { return n["target_power_state"] == nil })
}

// provisionSettled waits until the node is in state (or failed).
func (e *env) provisionSettled(uuid, state string) {
	e.waitNode(uuid, "provision state "+state, func(n map[string]any) bool {
		s, _ := n["provision_state"].(string)
		return strings.HasSuffix(s, "failed") || n["target_provision_state"] == nil && (s == state || s == "enroll")
	})
}

// cliResult is what a step records of a CLI call: its exit status and
// the normalised error message (stderr's last line).
func (e *env) cliResult(r osc.Result) map[string]any {
	out := map[string]any{"code": r.Code}
	if r.Code != 0 {
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		out["error"] = e.normalize(lines[len(lines)-1])
	}
	return out
}

func loadGolden(t *testing.T) *run { t.Helper(); return loadGoldenAt(t, goldenPath) }

func loadGoldenAt(t *testing.T, goldenPath string) *run {
	t.Helper()
	raw, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (record it with -update)", err)
	}
	var r run
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func writeGolden(t *testing.T, r *run) { t.Helper(); writeGoldenAt(t, goldenPath, r) }

func writeGoldenAt(t *testing.T, goldenPath string, r *run) {
	t.Helper()
	norm := &run{}
	for _, st := range r.Steps {
		norm.Steps = append(norm.Steps, normalizeStep(st))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(norm); err != nil {
		t.Fatal(err)
	}
	raw := bytes.TrimSpace(buf.Bytes())
	if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath, append(raw, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// quiet waits until the BMC has received no request for a second (an
// asynchronous vendor method has ended), bounded by settle.
func (e *env) quiet() {
	e.t.Helper()
	last, since := -1, time.Now()
	cluster.Eventually(e.ctx, e.t, settle, "the BMC idle", func() (bool, string) {
		n := len(e.bmc.Requests())
		if n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= time.Second, fmt.Sprintf("%d requests", n)
	})
}

// firstSubscription is the Id of the BMC's first event subscription ("" when none).
func (e *env) firstSubscription() string {
	subs := e.bmc.Default().Subscriptions()
	if len(subs) == 0 {
		return ""
	}
	return subs[0].ID
}
