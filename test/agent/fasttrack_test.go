package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	for _, v := range fastTrackVariants {
		for _, impl := range []string{"python", "go"} {
			t.Run(impl+"/"+v.name, func(t *testing.T) {
				if impl == "python" {
					cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
				} else {
					cluster.Build(t, cluster.AllInOne)
				}
				results[impl+"/"+v.name] = fastTrackScenario(t, impl == "python", v)
			})
		}
	}
	golden := filepath.Join("testdata", "fasttrack.golden")
	record := func(impl string) []string {
		var out []string
		for _, v := range fastTrackVariants {
			out = append(out, "# "+v.name)
			out = append(out, results[impl+"/"+v.name]...)
		}
		return out
	}
	if len(results) == 2*len(fastTrackVariants) && *update {
		if err := os.WriteFile(golden, []byte(strings.Join(record("python"), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]string{}
	var cur string
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		if name, ok := strings.CutPrefix(l, "# "); ok {
			cur = name
			continue
		}
		sections[cur] = append(sections[cur], l)
	}
	for name, got := range results {
		impl, variant, _ := strings.Cut(name, "/")
		if d := cmp.Diff(sections[variant], got); d != "" {
			t.Errorf("%s Ironic's power actions and agent commands (%s) differ from %s (-golden +%s):\n%s", impl, variant, golden, impl, d)
		}
	}
}

// fastTrackVariant is one run of the scenario: fast is [deploy]fast_track;
// early boots the agent while the node is manageable (powered on by the
// test, as after an in-band inspection), so that cleaning starts without
// a reboot.
type fastTrackVariant struct {
	name        string
	fast, early bool
}

var fastTrackVariants = []fastTrackVariant{
	{name: "fast_track=true", fast: true},
	{name: "fast_track=false"},
	{name: "fast_track=true, agent up while manageable", fast: true, early: true},
}

// fastTrackKeys are the driver_internal_info keys whose presence after
// each phase the golden holds.
var fastTrackKeys = []string{"agent_url", "agent_secret_token", "agent_last_heartbeat", "agent_cached_clean_steps",
	"agent_cached_deploy_steps", "clean_steps", "deploy_steps", "steps_validated"}

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

// waitProvision waits until the node is in state with no target, or fails.
func waitProvision(ctx context.Context, t *testing.T, c client, uuid string, state string) map[string]any {
	t.Helper()
	var n map[string]any
	cluster.Eventually(ctx, t, 60*time.Second, "provision state "+state, func() (bool, string) {
		n = c.call("GET", "/v1/nodes/"+uuid, nil)
		s, _ := n["provision_state"].(string)
		if strings.HasSuffix(s, "failed") {
			t.Fatalf("node %s: provision state %s (last_error %v), want %s", uuid, s, n["last_error"], state)
		}
		return s == state, fmt.Sprintf("provision state %s, last_error %v", s, n["last_error"])
	})
	return n
}

// fastTrackScenario returns the power actions and agent commands of each
// phase (provide, the state after cleaning, deploy), normalised.
func fastTrackScenario(t *testing.T, python bool, v fastTrackVariant) []string {
	fast := v.fast
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
	files := serveImage(t, img)
	const mac = "52:54:00:12:34:67"
	m := newMachine(t, dir, svc.URL, mac, 4<<20)
	diskPath, agentLogText := m.disks.(*fileDisks).path, m.agentLog

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
		n := c.call("GET", "/v1/nodes/"+uuid, nil)
		d, _ := n["driver_internal_info"].(map[string]any)
		var kept []string
		for _, k := range fastTrackKeys {
			if v, ok := d[k]; ok && v != nil {
				kept = append(kept, k)
			}
		}
		out = append(out, fmt.Sprintf("node: %v, %v; driver_internal_info has %s", n["provision_state"], n["power_state"], strings.Join(kept, " ")))
	}
	if v.early {
		// The node is powered on and its agent looks it up and
		// heartbeats while it is manageable (fast track allows both).
		c.call("PUT", "/v1/nodes/"+uuid+"/states/power", map[string]any{"target": "power on"})
		cluster.Eventually(ctx, t, 10*time.Second, "power on", func() (bool, string) {
			n := c.call("GET", "/v1/nodes/"+uuid, nil)
			return n["power_state"] == "power on" && n["target_power_state"] == nil, fmt.Sprintf("power_state %v", n["power_state"])
		})
		m.boot(ctx)
		cluster.Eventually(ctx, t, 15*time.Second, "a heartbeat while manageable", func() (bool, string) {
			n := c.call("GET", "/v1/nodes/"+uuid, nil)
			d, _ := n["driver_internal_info"].(map[string]any)
			return d["agent_url"] != nil && d["agent_last_heartbeat"] != nil, fmt.Sprintf("driver_internal_info %v", d)
		})
	}
	phase("manage")

	// provide: the cleaning reboots the node into the agent ramdisk
	// (the fake power interface boots nothing: the test does).
	start := time.Now()
	if v.early {
		n = c.provision(uuid, map[string]any{"target": "provide"}, "available", 60*time.Second)
	} else {
		// The machine boots the ramdisk once Ironic rebooted it: an agent
		// started earlier would look the node up while manageable (fast
		// track allows it) and lose its token to the reboot.
		c.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "provide"})
		waitProvision(ctx, t, c, uuid, "clean wait")
		m.boot(ctx)
		n = waitProvision(ctx, t, c, uuid, "available")
	}
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
	const wantCalls = "erase_metadata /dev/vda, write_image /dev/vda"
	if calls := strings.Join(m.disks.(*fileDisks).Calls(), ", "); calls != wantCalls {
		t.Errorf("disk calls: %s, want %s", calls, wantCalls)
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
