package ipa

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Ironic's image_checksum
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/fakeipa"
	"github.com/goironic/ironic/test/internal/cluster"
)

// budget bounds each scenario.
const budget = 50 * time.Second

// startAllInOne runs our all-in-one (cmd/ironic, built once by
// TestAgent) with the given extra configuration and returns its URL.
func startAllInOne(ctx context.Context, t *testing.T, extra string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ironic.sqlite")
	s := cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Config: func(port int) string {
		return fmt.Sprintf(`[DEFAULT]
host = goironic-ipa-test
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake
enabled_deploy_interfaces = fake,direct,custom-agent,ramdisk
enabled_management_interfaces = fake
enabled_power_interfaces = fake
enabled_network_interfaces = noop
enabled_vendor_interfaces = fake,no-vendor
enabled_rescue_interfaces = fake,no-rescue,agent

[api]
host_ip = 127.0.0.1
port = %d

[database]
connection = sqlite:///%s

[dhcp]
dhcp_provider = none

%s
`, port, db, extra)
	}})
	return s.URL
}

func TestMain(m *testing.M) { cluster.Main(m) }

// TestAgent builds the all-in-one once and runs each scenario against a
// server of its own.
func TestAgent(t *testing.T) {
	cluster.Build(t, cluster.AllInOne)
	for _, sc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"direct-deploy-and-clean", testDirectDeployWithAgent},
		{"direct-deploy-checksum-failure", testDirectDeployChecksumFailure},
		{"custom-agent-deploy", testCustomAgentDeploy},
		{"ramdisk-cleaning", testRamdiskDeployCleaning},
		{"rescue", testAgentRescue},
	} {
		t.Run(sc.name, func(t *testing.T) { sc.fn(t) })
	}
}

// client is the REST API of a scenario's server.
type client struct {
	t   *testing.T
	url string
}

// call sends a request at 1.82 and fails c.t unless it succeeds; it
// returns the answer's JSON object.
func (c client) call(method, path string, body any) map[string]any {
	c.t.Helper()
	rest := cluster.NewClient(c.url, "1.82")
	rest.HTTP.Timeout = 10 * time.Second
	return rest.Object(context.Background(), c.t, method, path, body)
}

// provision asks for a provision state change and waits (bounded) until
// the node reaches want.
func (c client) provision(uuid string, req map[string]any, want string, within time.Duration) map[string]any {
	c.t.Helper()
	c.call("PUT", "/v1/nodes/"+uuid+"/states/provision", req)
	deadline := time.Now().Add(within)
	for {
		n := c.call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == want {
			return n
		}
		if s, _ := n["provision_state"].(string); strings.HasSuffix(s, "failed") || time.Now().After(deadline) {
			c.t.Fatalf("node %s: provision state %v (last_error %v), want %s", uuid, n["provision_state"], n["last_error"], want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// images serves one image and records requests.
type images struct {
	mu   sync.Mutex
	seen []string
	data []byte
}

func (f *images) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.URL.Path != "/images/disk.raw" {
		http.NotFound(w, r)
		return
	}
	http.ServeContent(w, r, "disk.raw", time.Time{}, bytes.NewReader(f.data))
}

func (f *images) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

func testDirectDeployWithAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	img := &images{data: bytes.Repeat([]byte("goironic disk image\n"), 4096)}
	md5sum := md5.Sum(img.data) //nolint:gosec
	shasum := sha256.Sum256(img.data)
	files := httptest.NewServer(img)
	defer files.Close()

	url := startAllInOne(ctx, t, `[conductor]
automated_clean = true

[agent]
command_wait_interval = 1
post_deploy_get_power_state_retries = 1
post_deploy_get_power_state_retry_interval = 1
`)
	c := client{t: t, url: url}
	const mac = "52:54:00:12:34:56"
	// Ironic's fake management accepts only pxe as boot device, so
	// configure_local_boot's "boot from disk" fails on fake hardware (in
	// Ironic too) unless the node is a Lenovo in UEFI mode, for which
	// Ironic leaves the boot device alone.
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "ipa-node",
		"deploy_interface": "direct", "boot_interface": "fake", "properties": map[string]any{"vendor": "Lenovo"}})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	// Providing from manageable cleans too: the agent is not running
	// yet, so skip it for the first provide.
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/automated_clean", "value": false}})
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 10*time.Second)
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{
		{"op": "remove", "path": "/automated_clean"},
		{"op": "add", "path": "/instance_info", "value": map[string]any{
			"image_source":        files.URL + "/images/disk.raw",
			"image_checksum":      hex.EncodeToString(md5sum[:]),
			"image_os_hash_algo":  "sha256",
			"image_os_hash_value": hex.EncodeToString(shasum[:]),
		}},
	})

	ipa := fakeipa.New(fakeipa.Options{APIURL: url, MACs: []string{mac}, Interval: 100 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	n = c.provision(uuid, map[string]any{"target": "active"}, "active", 30*time.Second)
	t.Logf("deployed in %s", time.Since(start).Round(time.Millisecond))
	if n["power_state"] != "power on" {
		t.Errorf("power state %v after deploy", n["power_state"])
	}
	dii, _ := n["driver_internal_info"].(map[string]any)
	if dii["root_uuid_or_disk_id"] != "0x12345678" || dii["agent_version"] != "9.4.1" || dii["agent_last_heartbeat"] == nil {
		t.Errorf("driver_internal_info %v", dii)
	}
	if _, ok := dii["agent_secret_token"]; ok {
		t.Errorf("agent token kept after deploy: %v", dii)
	}

	var names []string
	var writeImage map[string]any
	for _, r := range ipa.Commands() {
		name := r.Name
		if step, ok := r.Params["step"].(map[string]any); ok {
			name += ":" + fmt.Sprint(step["step"])
			if step["step"] == "write_image" {
				writeImage = step
			}
		}
		names = append(names, name)
	}
	want := "deploy.get_deploy_steps deploy.execute_deploy_step:write_image standby.get_partition_uuids image.install_bootloader standby.power_off"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("agent commands:\n%s\nwant\n%s", got, want)
	}
	// The node parameter is node.as_dict(secure=True): every Node field
	// in Ironic's field order (instance_info last), secrets masked, the
	// configuration drive not masked for deploy steps.
	var nodeKeys []string
	var nodeParam pyjson.Object
	for _, r := range ipa.Commands() {
		if r.Name != "deploy.execute_deploy_step" {
			continue
		}
		v, err := pyjson.DecodeOrdered(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		params, _ := v.(pyjson.Object).Get("params")
		np, _ := params.(pyjson.Object).Get("node")
		nodeParam = np.(pyjson.Object)
		ports, _ := params.(pyjson.Object).Get("ports")
		var portKeys []string
		for _, m := range ports.([]any)[0].(pyjson.Object) {
			portKeys = append(portKeys, m.Key)
		}
		const ironicPortFields = "id uuid node_id node_uuid address extra local_link_connection portgroup_id pxe_enabled internal_info physical_network is_smartnic name created_at updated_at"
		if got := strings.Join(portKeys, " "); got != ironicPortFields {
			t.Errorf("port fields:\n%s\nwant (Ironic's Port.fields)\n%s", got, ironicPortFields)
		}
		for _, m := range nodeParam {
			nodeKeys = append(nodeKeys, m.Key)
		}
	}
	const ironicNodeFields = "id uuid name chassis_id instance_uuid driver driver_info driver_internal_info clean_step deploy_step raid_config target_raid_config properties reservation conductor_affinity conductor_group power_state target_power_state provision_state provision_updated_at target_provision_state maintenance maintenance_reason fault console_enabled last_error resource_class inspection_finished_at inspection_started_at extra automated_clean protected protected_reason allocation_id bios_interface boot_interface console_interface deploy_interface inspect_interface management_interface network_interface power_interface raid_interface rescue_interface storage_interface vendor_interface traits owner lessee description retired retired_reason network_data boot_mode secure_boot shard created_at updated_at instance_info"
	if got := strings.Join(nodeKeys, " "); got != ironicNodeFields {
		t.Errorf("node parameter fields:\n%s\nwant (Ironic's Node.fields)\n%s", got, ironicNodeFields)
	}
	if dii, _ := nodeParam.Get("driver_internal_info"); !strings.Contains(fmt.Sprint(dii), "agent_secret_token ******") {
		t.Errorf("driver_internal_info not masked: %v", dii)
	}
	if ca, _ := nodeParam.Get("created_at"); len(fmt.Sprint(ca)) != len("2006-01-02T15:04:05.000000") {
		t.Errorf("created_at %v", ca)
	}
	args, _ := writeImage["args"].(map[string]any)
	info, _ := args["image_info"].(map[string]any)
	for k, v := range map[string]any{
		"id": "disk.raw", "urls": []any{files.URL + "/images/disk.raw"}, "checksum": hex.EncodeToString(md5sum[:]),
		"os_hash_algo": "sha256", "os_hash_value": hex.EncodeToString(shasum[:]), "node_uuid": uuid,
		"stream_raw_images": true, "disk_format": nil, "container_format": nil,
	} {
		if fmt.Sprint(info[k]) != fmt.Sprint(v) {
			t.Errorf("image_info[%s] = %v, want %v", k, info[k], v)
		}
	}
	// Two HEADs, as in Ironic: update_image_type's is_source_a_path and
	// build_instance_info_for_deploy's validate_href; then the agent's
	// download.
	if reqs := strings.Join(img.requests(), ","); reqs != "HEAD /images/disk.raw,HEAD /images/disk.raw,GET /images/disk.raw" {
		t.Errorf("image server saw %s", reqs)
	}

	// Undeploy: automated cleaning through the agent.
	before := len(ipa.Commands())
	start = time.Now()
	c.provision(uuid, map[string]any{"target": "deleted"}, "available", 30*time.Second)
	t.Logf("undeployed and cleaned in %s", time.Since(start).Round(time.Millisecond))
	names = nil
	for _, r := range ipa.Commands()[before:] {
		name := r.Name
		if step, ok := r.Params["step"].(map[string]any); ok {
			name += ":" + fmt.Sprint(step["step"])
		}
		names = append(names, name)
	}
	want = "clean.get_clean_steps clean.execute_clean_step:erase_devices_metadata clean.execute_clean_step:erase_devices"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("agent commands while cleaning:\n%s\nwant\n%s", got, want)
	}
	n = c.call("GET", "/v1/nodes/"+uuid, nil)
	if n["power_state"] != "power off" || n["last_error"] != nil {
		t.Errorf("after cleaning: power %v, last_error %v", n["power_state"], n["last_error"])
	}

	// Manual cleaning with an in-band step, validated once the agent
	// reported its steps.
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	before = len(ipa.Commands())
	c.provision(uuid, map[string]any{"target": "clean", "clean_steps": []map[string]any{
		{"interface": "deploy", "step": "erase_pstore"}}}, "manageable", 20*time.Second)
	names = nil
	for _, r := range ipa.Commands()[before:] {
		name := r.Name
		if step, ok := r.Params["step"].(map[string]any); ok {
			name += ":" + fmt.Sprint(step["step"])
		}
		names = append(names, name)
	}
	want = "clean.get_clean_steps clean.execute_clean_step:erase_pstore"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("agent commands while cleaning manually:\n%s\nwant\n%s", got, want)
	}
	if n = c.call("GET", "/v1/nodes/"+uuid, nil); n["last_error"] != nil {
		t.Errorf("after manual cleaning: last_error %v", n["last_error"])
	}
}

// TestDirectDeployChecksumFailure: the agent finds the image doesn't
// match its checksum; the deployment fails with Ironic's message for a
// failed in-band step.
func testDirectDeployChecksumFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	img := &images{data: []byte("another image\n")}
	files := httptest.NewServer(img)
	defer files.Close()
	logs := t.TempDir()
	url := startAllInOne(ctx, t, "[conductor]\nautomated_clean = false\n\n[agent]\ndeploy_logs_local_path = "+logs+"\n")
	c := client{t: t, url: url}
	const mac = "52:54:00:12:34:57"
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "deploy_interface": "direct",
		"boot_interface": "fake", "properties": map[string]any{"vendor": "Lenovo"},
		"instance_info": map[string]any{"image_source": files.URL + "/images/disk.raw", "image_checksum": "0123456789abcdef0123456789abcdef"}})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 10*time.Second)
	ipa := fakeipa.New(fakeipa.Options{APIURL: url, MACs: []string{mac}, Interval: 100 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "active"})
	deadline := time.Now().Add(20 * time.Second)
	for {
		n = c.call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == "deploy failed" {
			break
		}
		if time.Now().After(deadline) || n["provision_state"] == "active" {
			t.Fatalf("provision state %v, last_error %v", n["provision_state"], n["last_error"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	want := "Deploy step deploy.write_image failed on node " + uuid + ". Image failed to verify against checksum. location: disk.raw; image ID: disk.raw; image checksum: "
	if le, _ := n["last_error"].(string); !strings.HasPrefix(le, want) {
		t.Errorf("last_error %q\nwant prefix %q", le, want)
	}
	// deploying_error_handler leaves the power alone (the agent keeps
	// running for the operator to look at).

	// The agent's logs were collected ([agent]deploy_logs_collect =
	// on_failure) and stored as <node>_<time>.tar.gz.
	cmds := ipa.Commands()
	if last := cmds[len(cmds)-1]; last.Name != "log.collect_system_logs" {
		t.Errorf("last agent command %s, want log.collect_system_logs", last.Name)
	}
	files2, _ := filepath.Glob(filepath.Join(logs, uuid+"_*.tar.gz"))
	if len(files2) != 1 {
		t.Errorf("stored logs: %v", files2)
	}
}

// TestCustomAgentDeploy: "custom-agent" boots the agent, waits for it and
// runs the out-of-band steps (no image is written); the agent is told to
// power off.
func testCustomAgentDeploy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	url := startAllInOne(ctx, t, "[conductor]\nautomated_clean = false\n\n[agent]\npost_deploy_get_power_state_retries = 1\npost_deploy_get_power_state_retry_interval = 1\n")
	c := client{t: t, url: url}
	const mac = "52:54:00:12:34:58"
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "deploy_interface": "custom-agent", "boot_interface": "fake"})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 10*time.Second)
	ipa := fakeipa.New(fakeipa.Options{APIURL: url, MACs: []string{mac}, Interval: 100 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}
	n = c.provision(uuid, map[string]any{"target": "active"}, "active", 20*time.Second)
	var names []string
	for _, r := range ipa.Commands() {
		names = append(names, r.Name)
	}
	if got, want := strings.Join(names, " "), "deploy.get_deploy_steps standby.power_off"; got != want {
		t.Errorf("agent commands %s, want %s", got, want)
	}
	if n["power_state"] != "power on" || n["last_error"] != nil {
		t.Errorf("after deploy: power %v, last_error %v", n["power_state"], n["last_error"])
	}
}

// TestRamdiskDeployCleaning: the "ramdisk" deploy interface cleans
// through the agent too.
func testRamdiskDeployCleaning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	url := startAllInOne(ctx, t, "[conductor]\nautomated_clean = true\n\n[deploy]\nerase_devices_priority = 0\n")
	c := client{t: t, url: url}
	const mac = "52:54:00:12:34:59"
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "deploy_interface": "ramdisk", "boot_interface": "fake"})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	ipa := fakeipa.New(fakeipa.Options{APIURL: url, MACs: []string{mac}, Interval: 100 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}
	n = c.provision(uuid, map[string]any{"target": "provide"}, "available", 20*time.Second)
	var names []string
	for _, r := range ipa.Commands() {
		name := r.Name
		if step, ok := r.Params["step"].(map[string]any); ok {
			name += ":" + fmt.Sprint(step["step"])
		}
		names = append(names, name)
	}
	// [deploy]erase_devices_priority = 0 disables the agent's
	// erase_devices.
	if got, want := strings.Join(names, " "), "clean.get_clean_steps clean.execute_clean_step:erase_devices_metadata"; got != want {
		t.Errorf("agent commands %s, want %s", got, want)
	}
	if n["last_error"] != nil || n["power_state"] != "power off" {
		t.Errorf("after cleaning: power %v, last_error %v", n["power_state"], n["last_error"])
	}
}

// TestAgentRescue: a deployed node is rescued through the agent (rescue
// ramdisk, heartbeat, finalize_rescue with the hashed password), then
// unrescued.
func testAgentRescue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	// The fake boot interface can't boot a rescue ramdisk (no
	// validate_rescue, as in Ironic): the agent's boot is not managed.
	url := startAllInOne(ctx, t, "[conductor]\nautomated_clean = false\n\n[agent]\nmanage_agent_boot = false\npost_deploy_get_power_state_retries = 1\npost_deploy_get_power_state_retry_interval = 1\n")
	c := client{t: t, url: url}
	const mac = "52:54:00:12:34:5a"
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "deploy_interface": "custom-agent",
		"boot_interface": "fake", "rescue_interface": "agent"})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 10*time.Second)
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 10*time.Second)
	ipa := fakeipa.New(fakeipa.Options{APIURL: url, MACs: []string{mac}, Interval: 100 * time.Millisecond})
	if err := ipa.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c.provision(uuid, map[string]any{"target": "active"}, "active", 20*time.Second)
	before := len(ipa.Commands())
	n = c.provision(uuid, map[string]any{"target": "rescue", "rescue_password": "s3cret"}, "rescue", 20*time.Second)
	cmds := ipa.Commands()[before:]
	if len(cmds) != 1 || cmds[0].Name != "rescue.finalize_rescue" || cmds[0].Params["hashed"] != true ||
		!strings.HasPrefix(fmt.Sprint(cmds[0].Params["rescue_password"]), "$5$") {
		t.Errorf("agent commands while rescuing: %+v", cmds)
	}
	if ii, _ := n["instance_info"].(map[string]any); ii["rescue_password"] != nil || ii["hashed_rescue_password"] != nil {
		t.Errorf("rescue password kept: %v", ii)
	}
	n = c.provision(uuid, map[string]any{"target": "unrescue"}, "active", 20*time.Second)
	if n["last_error"] != nil || n["power_state"] != "power on" {
		t.Errorf("after unrescue: power %v, last_error %v", n["power_state"], n["last_error"])
	}
}
