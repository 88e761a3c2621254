package agent

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Ironic's image_checksum
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/agent"
	"github.com/goironic/ironic/test/internal/cluster"
)

var update = flag.Bool("update", false, "rewrite testdata/commands.golden and failures.golden from Python Ironic's runs")

// budget bounds one implementation's scenario.
const budget = 3 * time.Minute

func TestMain(m *testing.M) { cluster.Main(m) }

// TestAgentWithIronic runs the scenario against our all-in-one and
// against Python Ironic 21.4's, and compares the requests each sent to
// the agent with the golden (recorded from Python).
func TestAgentWithIronic(t *testing.T) {
	againstPython(t, filepath.Join("testdata", "commands.golden"), "Ironic's requests to the agent", scenario)
}

// againstPython runs run (which returns its golden's lines) against
// Python Ironic 21.4's all-in-one and ours, rewrites golden from
// Python's with -update, and compares both with it; what names the
// lines in a failure.
func againstPython(t *testing.T, golden, what string, run func(t *testing.T, python bool) []string) {
	results := map[string][]string{}
	for _, impl := range []string{"python", "go"} {
		t.Run(impl, func(t *testing.T) {
			if impl == "python" {
				cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
			} else {
				cluster.Build(t, cluster.AllInOne)
			}
			results[impl] = run(t, impl == "python")
		})
	}
	if py, ok := results["python"]; ok && *update {
		if err := os.WriteFile(golden, []byte(strings.Join(py, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	for impl, got := range results {
		if d := cmp.Diff(strings.Split(strings.TrimSpace(string(want)), "\n"), got); d != "" {
			t.Errorf("%s %s differ from %s (-golden +%s):\n%s", impl, what, golden, impl, d)
		}
	}
}

// config is both implementations' ironic.conf.
// manageAgentBoot is [agent]manage_agent_boot: true to deploy (the node
// then boots from disk through the management interface), false to
// rescue (the fake boot interface cannot boot a rescue ramdisk, so
// Ironic must not manage the agent's boot).
func config(dir, db string, port int, manageAgentBoot bool) string {
	return configINI(dir, db, port, manageAgentBoot).String()
}

// configINI is config as sections, for tests that set more options.
func configINI(dir, db string, port int, manageAgentBoot bool) cluster.INI {
	return cluster.INI{
		"DEFAULT": {
			"host": "agent-test", "auth_strategy": "noauth", "rpc_transport": "none", "debug": "true",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_boot_interfaces":       "fake",
			"enabled_deploy_interfaces":     "direct,fake",
			"enabled_management_interfaces": "fake",
			"enabled_power_interfaces":      "fake",
			"enabled_network_interfaces":    "noop",
			"enabled_vendor_interfaces":     "fake,no-vendor",
			"enabled_rescue_interfaces":     "agent,no-rescue",
			"tempdir":                       dir,
		},
		"api":      {"host_ip": "127.0.0.1", "port": strconv.Itoa(port), "ramdisk_heartbeat_timeout": "4"},
		"database": {"connection": "sqlite:///" + db},
		"dhcp":     {"dhcp_provider": "none"},
		// Ironic's own URL, for the agent's ipa-api-url.
		"service_catalog": {"endpoint_override": fmt.Sprintf("http://127.0.0.1:%d", port)},
		"conductor":       {"automated_clean": "true"},
		"agent": {
			"deploy_logs_local_path": filepath.Join(dir, "deploy-logs"),
			"command_wait_interval":  "1", "manage_agent_boot": strconv.FormatBool(manageAgentBoot),
			"post_deploy_get_power_state_retries": "1", "post_deploy_get_power_state_retry_interval": "1",
		},
	}
}

// machine is the node's hardware as the agent sees it: a disk file,
// and an agent booted when the test powers it on into the ramdisk; the
// agent's standby.power_off ends it.
type machine struct {
	t      *testing.T
	apiURL string
	mac    string
	disks  agent.Disks
	dir    string
	logOut *os.File

	mu     sync.Mutex
	cmdLog bytes.Buffer
	cancel context.CancelFunc
	done   chan struct{}
}

func (m *machine) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cmdLog.Write(p)
}

func (m *machine) commands() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(m.cmdLog.String()), "\n") {
		if l == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			m.t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// boot starts the agent (after the previous one ended).
func (m *machine) boot(ctx context.Context) {
	m.t.Helper()
	m.halt()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		m.t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var onLookup func(string)
	if n, ok := m.disks.(interface{ SetNodeUUID(string) }); ok {
		// agent/disk's Manager names the node in IPA's messages.
		onLookup = n.SetNodeUUID
	}
	a := agent.New(agent.Config{
		APIURL: m.apiURL, MACs: []string{m.mac}, AdvertiseHost: "127.0.0.1", AdvertisePort: port,
		LookupTimeout: time.Minute, LookupInterval: 200 * time.Millisecond, MaxLookupInterval: time.Second,
		RescuePasswordFile: filepath.Join(m.dir, "ipa-rescue-password"),
		CommandLog:         m, Disks: m.disks, Power: machinePower{m}, OnLookup: onLookup,
		// The test's image has no boot loader to register (IPA's
		// ipa-ignore-bootloader-failure).
		IgnoreBootloaderFailure: true,
		Logger:                  slog.New(slog.NewTextHandler(m.logOut, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	m.mu.Lock()
	m.cancel, m.done = cancel, done
	m.mu.Unlock()
	go func() {
		defer close(done)
		if err := a.Run(ctx, ln); err != nil && ctx.Err() == nil {
			fmt.Fprintf(m.logOut, "agent ended: %v\n", err)
		}
	}()
}

// halt stops the running agent, if any, and waits for it.
func (m *machine) halt() {
	m.mu.Lock()
	cancel, done := m.cancel, m.done
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

type machinePower struct{ m *machine }

func (p machinePower) PowerOff(context.Context) error {
	p.m.mu.Lock()
	cancel := p.m.cancel
	p.m.mu.Unlock()
	// The machine goes down once the command is done.
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	return nil
}

func (p machinePower) Reboot(ctx context.Context) error { return p.PowerOff(ctx) }

type client struct {
	t   *testing.T
	url string
}

func (c client) call(method, path string, body any) map[string]any {
	c.t.Helper()
	rest := cluster.NewClient(c.url, "1.82")
	rest.HTTP.Timeout = 30 * time.Second
	return rest.Object(context.Background(), c.t, method, path, body)
}

func (c client) provision(uuid string, req map[string]any, want string, within time.Duration) map[string]any {
	c.t.Helper()
	c.call("PUT", "/v1/nodes/"+uuid+"/states/provision", req)
	deadline := time.Now().Add(within)
	for {
		n := c.call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == want && n["target_provision_state"] == nil {
			return n
		}
		if s, _ := n["provision_state"].(string); strings.HasSuffix(s, "failed") || time.Now().After(deadline) {
			c.t.Fatalf("node %s: provision state %v (last_error %v), want %s", uuid, n["provision_state"], n["last_error"], want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scenario deploys, rescues, unrescues and undeploys a node with the
// agent, then fails a deploy on a bad checksum, against Python Ironic or
// ours; it returns the agent's command log, normalised.
func scenario(t *testing.T, python bool) []string {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ironic.sqlite")
	prog := cluster.Ours(cluster.AllInOne)
	if python {
		prog = cluster.Python(cluster.AllInOne)
		conf := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(conf, []byte(config(dir, db, 0, true)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", conf, "create_schema")
		if res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	svc := cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, LogTail: 6000,
		Config: func(port int) string { return config(dir, db, port, true) }})
	c := client{t: t, url: svc.URL}

	img := bytes.Repeat([]byte("goironic agent test image\n"), 8192)
	md5sum := md5.Sum(img) //nolint:gosec
	shasum := sha256.Sum256(img)
	files := serveImage(t, img)
	const diskSize = 8 << 20
	const mac = "52:54:00:12:34:66"
	m := newMachine(t, dir, svc.URL, mac, diskSize)
	disks := m.disks.(*fileDisks)
	diskPath := disks.path

	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "agent-node",
		"deploy_interface": "direct", "boot_interface": "fake", "rescue_interface": "agent",
		"properties": map[string]any{"vendor": "Lenovo", "capabilities": "boot_mode:uefi", "root_device": map[string]any{"name": fakeDev}}})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 20*time.Second)
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/automated_clean", "value": false}})
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 20*time.Second)
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{
		// Python Ironic answers 500 (KeyError) to a remove here.
		{"op": "replace", "path": "/automated_clean", "value": nil},
		{"op": "add", "path": "/instance_info", "value": map[string]any{
			"image_source":        files.URL + "/images/disk.raw",
			"image_checksum":      hex.EncodeToString(md5sum[:]),
			"image_os_hash_algo":  "sha256",
			"image_os_hash_value": hex.EncodeToString(shasum[:]),
		}},
	})

	// Deploy: the machine boots the agent ramdisk.
	m.boot(ctx)
	start := time.Now()
	n = c.provision(uuid, map[string]any{"target": "active"}, "active", 90*time.Second)
	t.Logf("deployed in %s", time.Since(start).Round(time.Millisecond))
	got, err := os.ReadFile(diskPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:len(img)], img) {
		t.Errorf("the disk does not hold the image")
	}
	dii, _ := n["driver_internal_info"].(map[string]any)
	wantID := fmt.Sprintf("0x%02x%02x%02x%02x", img[443], img[442], img[441], img[440])
	if dii["root_uuid_or_disk_id"] != wantID || dii["agent_version"] != agent.Version {
		t.Errorf("driver_internal_info %v, want root_uuid_or_disk_id %s", dii, wantID)
	}
	m.halt()

	// Rescue: Ironic restarted without managing the agent's boot; the
	// machine boots the ramdisk again; finalize_rescue ends the agent.
	if err := svc.Stop(); err != nil {
		t.Fatal(err)
	}
	svc = cluster.Start(ctx, t, cluster.Spec{Program: prog, Name: "ironic-rescue", Dir: dir, LogTail: 6000,
		Config: func(port int) string { return config(dir, db, port, false) }})
	c.url, m.apiURL = svc.URL, svc.URL
	m.boot(ctx)
	c.provision(uuid, map[string]any{"target": "rescue", "rescue_password": "s3cret"}, "rescue", 60*time.Second)
	pw, err := os.ReadFile(filepath.Join(dir, "ipa-rescue-password"))
	if err != nil || !strings.HasPrefix(string(pw), "$5$") {
		t.Errorf("rescue password file: %q, %v", pw, err)
	}
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		t.Errorf("the agent still runs after finalize_rescue")
	}
	c.provision(uuid, map[string]any{"target": "unrescue"}, "active", 60*time.Second)

	// Undeploy with automated cleaning through the agent.
	m.boot(ctx)
	start = time.Now()
	n = c.provision(uuid, map[string]any{"target": "deleted"}, "available", 90*time.Second)
	t.Logf("undeployed and cleaned in %s", time.Since(start).Round(time.Millisecond))
	if n["last_error"] != nil {
		t.Errorf("last_error %v", n["last_error"])
	}
	got, _ = os.ReadFile(diskPath)
	if !bytes.Equal(got[:1<<20], make([]byte, 1<<20)) {
		t.Errorf("erase_devices_metadata left the disk's start")
	}
	if calls := strings.Join(disks.Calls(), ", "); calls != "write_image /dev/vda, erase_metadata /dev/vda" {
		t.Errorf("disk calls: %s", calls)
	}
	m.halt()

	// A deploy whose image does not match its checksum: the agent's
	// ImageChecksumError becomes Ironic's last_error, and Ironic
	// collects the agent's logs.
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": map[string]any{
		"image_source": files.URL + "/images/disk.raw", "image_checksum": strings.Repeat("0", 32)}}})
	m.boot(ctx)
	c.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "active"})
	deadline := time.Now().Add(60 * time.Second)
	for {
		n = c.call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == "deploy failed" || n["provision_state"] == "active" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	lastError, _ := n["last_error"].(string)
	want := "Deploy step deploy.write_image failed on node " + uuid + ". Image failed to verify against checksum. location: disk.raw; image ID: disk.raw; image checksum: "
	if n["provision_state"] != "deploy failed" || !strings.HasPrefix(lastError, want) {
		t.Errorf("provision state %v, last_error %q\nwant prefix %q", n["provision_state"], lastError, want)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		stored, _ := filepath.Glob(filepath.Join(dir, "deploy-logs", uuid+"_*.tar.gz"))
		if len(stored) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("stored deploy logs: %v", stored)
			break
		}
	}
	m.halt()
	return normalise(m.commands(), uuid, files.URL)
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{40,}$`)
	timeRE  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)
)

// normalise turns the command log into comparable lines: the command,
// wait, whether a token came, and its parameters with the node and ports
// reduced to their keys and run-specific values (UUIDs, URLs, tokens,
// times, hashes) replaced.
func normalise(recs []map[string]any, uuid, imagesURL string) []string {
	var out []string
	for _, r := range recs {
		params, _ := r["params"].(map[string]any)
		p := map[string]any{}
		for k, v := range params {
			switch k {
			case "node":
				p[k] = "keys: " + strings.Join(keys(v), " ")
			case "ports":
				var ks []string
				for _, port := range v.([]any) {
					ks = append(ks, "keys: "+strings.Join(keys(port), " "))
				}
				p[k] = ks
			default:
				p[k] = scrub(v, uuid, imagesURL)
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(p)
		data := bytes.TrimSpace(buf.Bytes())
		_, tok := r["agent_token"]
		out = append(out, fmt.Sprintf("%s wait=%v token=%v %s", r["name"], r["wait"], tok, data))
	}
	return out
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func scrub(v any, uuid, imagesURL string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = scrub(e, uuid, imagesURL)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scrub(e, uuid, imagesURL)
		}
		return out
	case string:
		s := strings.ReplaceAll(x, imagesURL, "<images>")
		s = strings.ReplaceAll(s, uuid, "<node>")
		s = uuidRE.ReplaceAllString(s, "<uuid>")
		switch {
		case strings.HasPrefix(s, "$5$") || strings.HasPrefix(s, "$6$"):
			return s[:3] + "<hash>"
		case tokenRE.MatchString(s), timeRE.MatchString(s):
			return "<volatile>"
		case len(s) == 32 || len(s) == 64 || len(s) == 128:
			if _, err := hex.DecodeString(s); err == nil {
				return "<checksum>"
			}
		}
		return s
	}
	return v
}
