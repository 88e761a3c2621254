package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/cluster"
)

// TestFastTrack runs manage → provide (automated cleaning through the
// agent) → deploy with [deploy]fast_track on and off, against Python
// Ironic 21.4 and our all-in-one. With fast track the agent that cleaned
// the node stays up and heartbeating (its token still valid, the node
// powered on and available) and deploys it without a reboot or a second
// lookup; without it the node is powered off after cleaning, the agent's
// token is forgotten (its heartbeats are refused) and the deploy boots
// the ramdisk again. The power actions (Ironic's "Successfully set node
// ... power state" log lines) and the commands sent to the agent, per
// phase, are compared between both implementations and with
// testdata/fasttrack.golden, recorded from Python:
//
//	go test -count=1 -p 1 -run TestFastTrack ./test/agent -update
func TestFastTrack(t *testing.T) {
	results := map[string][]string{}
	for _, fast := range []bool{true, false} {
		for _, impl := range []string{"python", "go"} {
			name := fmt.Sprintf("%s/fast_track=%v", impl, fast)
			t.Run(name, func(t *testing.T) {
				if impl == "python" {
					cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
				} else {
					cluster.Build(t, cluster.AllInOne)
				}
				results[name] = fastTrackScenario(t, impl == "python", fast)
			})
		}
	}
	golden := filepath.Join("testdata", "fasttrack.golden")
	record := func(impl string) []string {
		var out []string
		for _, fast := range []bool{true, false} {
			out = append(out, fmt.Sprintf("# fast_track=%v", fast))
			out = append(out, results[fmt.Sprintf("%s/fast_track=%v", impl, fast)]...)
		}
		return out
	}
	if len(results) == 4 && *update {
		if err := os.WriteFile(golden, []byte(strings.Join(record("python"), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range []string{"python", "go"} {
		if _, ok := results[impl+"/fast_track=true"]; !ok {
			continue
		}
		if d := cmp.Diff(strings.Split(strings.TrimSpace(string(want)), "\n"), record(impl)); d != "" {
			t.Errorf("%s Ironic's power actions and agent commands differ from %s (-golden +%s):\n%s", impl, golden, impl, d)
		}
	}
}

// powerLineRE is node_power_action's success line, as both
// implementations log it.
var powerLineRE = regexp.MustCompile(`Successfully set node [0-9a-f-]{36} power state to (power on|power off) by (power on|power off|rebooting|soft rebooting|soft power off)\.`)

// powerActions are the power actions logged so far, as "power <target>
// by <action>".
func powerActions(t *testing.T, svc *cluster.Service) []string {
	t.Helper()
	data, err := os.ReadFile(svc.Log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range powerLineRE.FindAllStringSubmatch(string(data), -1) {
		out = append(out, fmt.Sprintf("power: %s by %s", m[1], m[2]))
	}
	return out
}

// fastTrackScenario returns the power actions and agent commands of each
// phase (provide, the state after cleaning, deploy), normalised.
func fastTrackScenario(t *testing.T, python, fast bool) []string {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ironic.sqlite")
	conf := func(port int) string {
		return config(dir, db, port, true) + fmt.Sprintf("\n[deploy]\nfast_track = %v\nfast_track_timeout = 60\n", fast)
	}
	prog := cluster.Ours(cluster.AllInOne)
	if python {
		prog = cluster.Python(cluster.AllInOne)
		path := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(path, []byte(conf(0)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", path, "create_schema")
		if res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	svc := cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, LogTail: 8000, Config: conf})
	c := client{t: t, url: svc.URL}

	img := bytes.Repeat([]byte("goironic fast track image\n"), 4096)
	shasum := sha256.Sum256(img)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/images/disk.raw" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "disk.raw", time.Time{}, bytes.NewReader(img))
	}))
	defer files.Close()

	diskPath := filepath.Join(dir, "vda.img")
	const diskSize = 4 << 20
	if err := os.WriteFile(diskPath, bytes.Repeat([]byte{0xAA}, diskSize), 0o600); err != nil {
		t.Fatal(err)
	}
	agentLog, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer agentLog.Close()
	agentLogText := func() string {
		data, _ := os.ReadFile(agentLog.Name())
		return string(data)
	}
	const mac = "52:54:00:12:34:67"
	m := &machine{t: t, apiURL: svc.URL, mac: mac, disks: &fileDisks{path: diskPath, size: diskSize}, dir: dir, logOut: agentLog}
	defer m.halt()
	defer func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", cluster.Tail([]byte(agentLogText()), 8000))
		}
	}()

	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "fast-node",
		"deploy_interface": "direct", "boot_interface": "fake",
		"properties": map[string]any{"vendor": "Lenovo", "capabilities": "boot_mode:uefi", "root_device": map[string]any{"name": fakeDev}}})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 20*time.Second)

	var out []string
	seenPower, seenCmds := 0, 0
	phase := func(name string) {
		p := powerActions(t, svc)
		cmds := m.commands()
		out = append(out, "## "+name)
		out = append(out, p[seenPower:]...)
		for _, r := range cmds[seenCmds:] {
			line := fmt.Sprintf("agent: %s wait=%v token=%v", r["name"], r["wait"], r["agent_token"] != nil)
			if params, _ := r["params"].(map[string]any); params != nil {
				if step, _ := params["step"].(map[string]any); step != nil {
					line += fmt.Sprintf(" step=%s.%s", step["interface"], step["step"])
				}
			}
			out = append(out, line)
		}
		seenPower, seenCmds = len(p), len(cmds)
	}
	phase("manage")

	// provide: the cleaning reboots the node into the agent ramdisk
	// (the fake power interface boots nothing: the test does).
	m.boot(ctx)
	start := time.Now()
	n = c.provision(uuid, map[string]any{"target": "provide"}, "available", 60*time.Second)
	t.Logf("cleaned in %s", time.Since(start).Round(time.Millisecond))
	phase("provide")
	dii, _ := n["driver_internal_info"].(map[string]any)
	if fast {
		if n["power_state"] != "power on" || dii["agent_url"] == nil || dii["agent_secret_token"] == nil {
			t.Errorf("available with fast track: power_state %v, agent_url %v, agent_secret_token %v; want power on and both kept",
				n["power_state"], dii["agent_url"], dii["agent_secret_token"])
		}
		// The agent keeps heartbeating, and Ironic keeps accepting its
		// token: agent_last_heartbeat moves on while the node waits.
		last := dii["agent_last_heartbeat"]
		cluster.Eventually(ctx, t, 15*time.Second, "a heartbeat while available", func() (bool, string) {
			n := c.call("GET", "/v1/nodes/"+uuid, nil)
			d, _ := n["driver_internal_info"].(map[string]any)
			return d["agent_last_heartbeat"] != last && n["power_state"] == "power on",
				fmt.Sprintf("agent_last_heartbeat %v, power_state %v", d["agent_last_heartbeat"], n["power_state"])
		})
	} else {
		if n["power_state"] != "power off" || dii["agent_url"] != nil || dii["agent_secret_token"] != nil {
			t.Errorf("available without fast track: power_state %v, agent_url %v, agent_secret_token %v; want power off and both wiped",
				n["power_state"], dii["agent_url"], dii["agent_secret_token"])
		}
		// A machine that stayed up would have its heartbeats refused:
		// its token is gone.
		cluster.Eventually(ctx, t, 15*time.Second, "a refused heartbeat", func() (bool, string) {
			return strings.Contains(agentLogText(), "error sending heartbeat"), "no refused heartbeat in the agent log"
		})
		m.halt()
	}

	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": map[string]any{
		"image_source": files.URL + "/images/disk.raw", "image_os_hash_algo": "sha256",
		"image_os_hash_value": hex.EncodeToString(shasum[:])}}})
	if !fast {
		// The deploy powers the node off and reboots it into the ramdisk.
		m.boot(ctx)
	}
	start = time.Now()
	n = c.provision(uuid, map[string]any{"target": "active"}, "active", 60*time.Second)
	t.Logf("deployed in %s", time.Since(start).Round(time.Millisecond))
	phase("deploy")
	if n["power_state"] != "power on" {
		t.Errorf("active node: power_state %v", n["power_state"])
	}
	got, err := os.ReadFile(diskPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:len(img)], img) {
		t.Errorf("the disk does not hold the image")
	}
	if calls := strings.Join(m.disks.Calls(), ", "); calls != "erase_metadata /dev/vda, write_image /dev/vda" {
		t.Errorf("disk calls: %s", calls)
	}
	logText := agentLogText()
	lookups := strings.Count(logText, "lookup succeeded")
	wantLookups := 2
	if fast {
		wantLookups = 1
		if strings.Contains(logText, "error sending heartbeat") {
			t.Errorf("with fast track, a heartbeat was refused")
		}
	}
	if lookups != wantLookups {
		t.Errorf("the agent looked the node up %d times, want %d", lookups, wantLookups)
	}
	out = append(out, fmt.Sprintf("lookups: %d", lookups))
	return out
}
