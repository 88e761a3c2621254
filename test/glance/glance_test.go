package glance

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Ironic's image_checksum
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/test/fakeglance"
	"github.com/goironic/ironic/test/fakeipa"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

var update = flag.Bool("update", false, "run the scenario against Python Ironic 21.4 and rewrite testdata/reference.json")

// budget bounds one implementation's scenario.
const budget = 4 * time.Minute

func TestMain(m *testing.M) { cluster.Main(m) }

// The images of the scenario, the same on every run.
const (
	wholeDiskID = "3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	partitionID = "4c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	kernelID    = "6e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b"
	ramdiskID   = "7f5a6b7c-8d9e-4f0a-8b1c-2d3e4f5a6b7c"
	privateID   = "5d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
	queuedID    = "8a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
	noSumID     = "9b7c8d9e-0f1a-4b2c-8d3e-4f5a6b7c8d9e"
	missingID   = "0c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f"
	qcow2ID     = "1d9e0f1a-2b3c-4d4e-8f5a-6b7c8d9e0f1a"
	wrongFmtID  = "2e0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b"
	account     = "AUTH_0123456789abcdef0123456789abcdef"
	tempURLKey  = "goironic-temp-url-key"
)

var diskImage = bytes.Repeat([]byte("goironic glance image\n"), 2048)

// step is one case's outcome, as compared with the reference's.
type step struct {
	Name string `json:"name"`
	// Deploy is the API's answer to the deploy request ("202" or
	// "<status> <faultstring>").
	Deploy string `json:"deploy"`
	// State and LastError are the node's after the deployment settled.
	State     string `json:"provision_state"`
	LastError any    `json:"last_error"`
	// InstanceInfo is the node's instance_info then (URLs, signatures
	// and UUIDs normalised); IsWholeDisk its driver_internal_info's
	// is_whole_disk_image.
	InstanceInfo map[string]any `json:"instance_info"`
	IsWholeDisk  any            `json:"is_whole_disk_image"`
	// ImageInfo is the image_info of the agent's write_image (normalised).
	ImageInfo map[string]any `json:"image_info,omitempty"`
	// Files tells which of the images the conductor serves exist when
	// the deployment settled and, for a deployed node, after it was torn
	// down: the link under [deploy]http_root and the copy under
	// [pxe]images_path.
	Files []string `json:"files,omitempty"`
}

// departures are the cases where this service differs on purpose
// (docs/departures.md), with the provision state ours must reach: a
// file:// image without a checksum, which 21.4's get_checksum_and_algo
// fails on with "'NoneType' object has no attribute 'startswith'", is
// deployed (its checksum computed once it is cached).
var departures = map[string]string{
	"file-no-checksum": "active",
}

// TestAgainstReference deploys nodes whose image_source is a Glance
// image (Swift store: temp URL; whole disk and partition; private,
// missing, queued, without checksums; image_download_source http), an
// http URL (with and without checksum) and file:// paths (allowed, not
// allowed, missing) on our all-in-one and compares what happens with
// Python Ironic 21.4's run against the same fake Glance, recorded in
// testdata/reference.json (go test ./test/glance -update re-records it).
func TestAgainstReference(t *testing.T) {
	golden := filepath.Join("testdata", "reference.json")
	var want []step
	if *update {
		cluster.RequirePython(t, "ironic.common.glance_service.image_service", "python3-ironic python3-glanceclient python3-swiftclient")
		want = scenario(t, true)
		b, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		want = nil
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
	}
	cluster.Build(t, cluster.AllInOne)
	got := scenario(t, false)
	// Compared as the golden holds them (numbers as float64).
	if b, err := json.Marshal(got); err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d steps, the reference has %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Name != g.Name {
			t.Fatalf("step %d is %q, the reference's %q", i, g.Name, w.Name)
		}
		if state, ok := departures[g.Name]; ok {
			if g.State != state || g.LastError != nil {
				t.Errorf("%s (a departure): state %s, last_error %v; want %s", g.Name, g.State, g.LastError, state)
			}
			continue
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("step %q (-reference +ours):\n%s", g.Name, diff)
		}
	}
}

// run is one implementation's scenario.
type run struct {
	t      *testing.T
	ctx    context.Context
	python bool
	dir    string
	db     string
	glance *fakeglance.TestServer
	files  *httptest.Server // http image server and [deploy]http_url
	svc    *cluster.Service
	allow  string // [conductor]file_url_allowed_paths
	macs   int
	// ks, when set, is the Keystone whose catalog names Glance: [glance]
	// authenticates with the password plugin and has no endpoint_override.
	ks *keystone.Keystone
	// only, when set, names the cases to run.
	only map[string]bool
}

func scenario(t *testing.T, python bool) []step {
	return scenarioWith(t, &run{python: python})
}

// scenarioWith runs r's scenario (r gives python, ks and only).
func scenarioWith(t *testing.T, r *run) []step {
	ctx := cluster.TestContext(t, budget, 30*time.Second)
	r.t, r.ctx, r.dir = t, ctx, t.TempDir()
	python := r.python
	r.db = filepath.Join(r.dir, "ironic.sqlite")
	r.allow = filepath.Join(r.dir, "allowed")
	if err := os.MkdirAll(r.allow, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.allow, "disk.raw"), diskImage, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(r.dir, "outside.raw")
	if err := os.WriteFile(outside, diskImage, 0o644); err != nil {
		t.Fatal(err)
	}
	img := func(id string, fields map[string]any) fakeglance.Image {
		return fakeglance.Image{ID: id, Data: diskImage, Fields: fields}
	}
	qcow2 := qcow2Image(t, r.dir)
	r.glance = fakeglance.ForTest(t, fakeglance.Options{TempURLKey: tempURLKey, RequireToken: r.ks != nil},
		fakeglance.Image{ID: qcow2ID, Data: qcow2, Fields: map[string]any{"name": "qcow2", "disk_format": "qcow2"}},
		img(wrongFmtID, map[string]any{"name": "says-qcow2", "disk_format": "qcow2"}),
		img(wholeDiskID, map[string]any{"name": "whole-disk", "tags": []any{"ci"}, "hw_firmware_type": "uefi",
			"direct_url": "swift+config://ref1/glance/" + wholeDiskID, "stores": "swift"}),
		img(partitionID, map[string]any{"name": "partition", "kernel_id": kernelID, "ramdisk_id": ramdiskID}),
		img(kernelID, map[string]any{"name": "kernel", "disk_format": "aki", "container_format": "aki"}),
		img(ramdiskID, map[string]any{"name": "ramdisk", "disk_format": "ari", "container_format": "ari"}),
		img(privateID, map[string]any{"name": "private", "visibility": "private"}),
		img(queuedID, map[string]any{"name": "queued", "status": "queued"}),
		img(noSumID, map[string]any{"name": "no-checksum", "checksum": nil, "os_hash_algo": nil, "os_hash_value": nil}),
	)
	// The http image server also serves [deploy]http_root at
	// [deploy]http_url, where the reference publishes the images it
	// caches.
	mux := http.NewServeMux()
	mux.HandleFunc("/images/disk.raw", func(w http.ResponseWriter, rq *http.Request) {
		http.ServeContent(w, rq, "disk.raw", time.Time{}, bytes.NewReader(diskImage))
	})
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(r.dir, "http"))))
	r.files = httptest.NewServer(mux)
	t.Cleanup(r.files.Close)

	if r.ks != nil {
		if err := r.ks.SetService(ctx, "image", "glance", r.glance.URL); err != nil {
			t.Fatal(err)
		}
	}
	if python {
		r.dbsync()
	}
	r.svc = cluster.Start(ctx, t, cluster.Spec{Program: r.program(), Name: "ironic", Dir: r.dir, LogTail: 8000,
		Config: func(port int) string { return r.config(port) }})

	md5sum := md5.Sum(diskImage) //nolint:gosec
	sha := sha256.Sum256(diskImage)
	swift := map[string]any{"image_download_source": "swift"}
	with := func(ii map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range ii {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name  string
		ii    map[string]any
		agent bool
	}{
		{"glance-swift-whole-disk", with(swift, "image_source", wholeDiskID), true},
		{"glance-uri-swift", with(swift, "image_source", "glance://"+wholeDiskID), true},
		{"glance-swift-partition", with(swift, "image_source", partitionID, "root_gb", 10), true},
		{"glance-no-checksum", with(swift, "image_source", noSumID), true},
		{"glance-private", with(swift, "image_source", privateID), false},
		{"glance-missing", with(swift, "image_source", missingID), false},
		{"glance-queued", with(swift, "image_source", queuedID), false},
		{"glance-http", map[string]any{"image_source": wholeDiskID, "image_download_source": "http"}, true},
		{"glance-http-qcow2", map[string]any{"image_source": qcow2ID, "image_download_source": "http"}, true},
		{"glance-http-wrong-format", map[string]any{"image_source": wrongFmtID, "image_download_source": "http"}, false},
		{"glance-local", map[string]any{"image_source": wholeDiskID, "image_download_source": "local"}, true},
		{"http-url", map[string]any{"image_source": r.files.URL + "/images/disk.raw",
			"image_checksum": hex.EncodeToString(md5sum[:]), "image_os_hash_algo": "sha256", "image_os_hash_value": hex.EncodeToString(sha[:])}, true},
		{"http-url-no-checksum", map[string]any{"image_source": r.files.URL + "/images/disk.raw"}, false},
		{"http-url-404", map[string]any{"image_source": r.files.URL + "/images/missing.raw", "image_checksum": hex.EncodeToString(md5sum[:])}, false},
		{"http-url-local", map[string]any{"image_source": r.files.URL + "/images/disk.raw", "image_download_source": "local",
			"image_checksum": hex.EncodeToString(md5sum[:])}, true},
		{"http-url-local-bad-checksum", map[string]any{"image_source": r.files.URL + "/images/disk.raw", "image_download_source": "local",
			"image_checksum": "0123456789abcdef0123456789abcdef"}, false},
		{"file-allowed", map[string]any{"image_source": "file://" + filepath.Join(r.allow, "disk.raw"), "image_checksum": hex.EncodeToString(md5sum[:])}, true},
		{"file-allowed-sha256", map[string]any{"image_source": "file://" + filepath.Join(r.allow, "disk.raw"),
			"image_os_hash_algo": "sha256", "image_os_hash_value": hex.EncodeToString(sha[:]), "image_disk_format": "raw"}, true},
		{"file-no-checksum", map[string]any{"image_source": "file://" + filepath.Join(r.allow, "disk.raw")}, true},
		{"file-not-allowed", map[string]any{"image_source": "file://" + outside}, false},
		{"file-traversal", map[string]any{"image_source": "file://" + r.allow + "/../outside.raw"}, false},
		{"file-missing", map[string]any{"image_source": "file://" + filepath.Join(r.allow, "missing.raw")}, false},
	}
	var steps []step
	for _, c := range cases {
		if r.only == nil || r.only[c.name] {
			steps = append(steps, r.deploy(c.name, c.ii, c.agent))
		}
	}
	// Every Swift download carried a valid signature.
	for _, rq := range r.glance.Requests() {
		if strings.HasPrefix(rq.Path, "/v1/") && rq.Status != http.StatusOK {
			t.Errorf("fake Swift answered %d to %s %s?%s", rq.Status, rq.Method, rq.Path, rq.Query)
		}
	}
	return steps
}

// qcow2Image is a 1 MiB qcow2 image made by qemu-img (its bytes are the
// same on every run).
func qcow2Image(t *testing.T, dir string) []byte {
	t.Helper()
	if _, err := exec.LookPath("qemu-img"); err != nil {
		cluster.Missing(t, cluster.RequirePythonEnv, "qemu-img is not installed (apt-get install qemu-utils)")
	}
	p := filepath.Join(dir, "image.qcow2")
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", p, "1M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v\n%s", err, out)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (r *run) program() cluster.Program {
	if r.python {
		return cluster.Python(cluster.AllInOne)
	}
	return cluster.Ours(cluster.AllInOne)
}

func (r *run) config(port int) string {
	glance := map[string]string{
		"auth_type":               "none",
		"endpoint_override":       r.glance.URL,
		"swift_temp_url_key":      tempURLKey,
		"swift_endpoint_url":      r.glance.URL + "/v1/" + account,
		"swift_account":           account,
		"swift_container":         "glance",
		"swift_temp_url_duration": "1200",
	}
	if r.ks != nil {
		delete(glance, "endpoint_override")
		for k, v := range map[string]string{"auth_type": "password", "auth_url": r.ks.AuthURL(), "username": "ironic",
			"password": keystone.ServicePassword, "project_name": "service", "user_domain_name": "Default",
			"project_domain_name": "Default", "region_name": keystone.Region} {
			glance[k] = v
		}
	}
	return cluster.INI{
		"DEFAULT": {
			"host":                          "glance-test",
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "none",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_boot_interfaces":       "fake",
			"enabled_deploy_interfaces":     "direct,fake",
			"enabled_management_interfaces": "fake",
			"enabled_power_interfaces":      "fake",
			"enabled_network_interfaces":    "noop",
			"enabled_vendor_interfaces":     "no-vendor",
			"tempdir":                       r.dir,
		},
		"api": {"host_ip": "127.0.0.1", "port": strconv.Itoa(port)},
		// The API's URL for the agent (Python's build_agent_options).
		"service_catalog": {"auth_type": "none", "endpoint_override": fmt.Sprintf("http://127.0.0.1:%d", port)},
		"database":        {"connection": "sqlite:///" + r.db},
		"dhcp":            {"dhcp_provider": "none"},
		"conductor":       {"automated_clean": "false", "file_url_allowed_paths": r.allow},
		"agent": {"command_wait_interval": "1", "post_deploy_get_power_state_retries": "1",
			"post_deploy_get_power_state_retry_interval": "1"},
		"glance": glance,
	}.Merged(cluster.StateConfig(r.t, r.dir), cluster.INI{"deploy": {"http_url": r.files.URL}}).String()
}

// dbsync creates Python's schema.
func (r *run) dbsync() {
	conf := filepath.Join(r.dir, "dbsync.conf")
	if err := os.WriteFile(conf, []byte(r.config(0)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	res := cluster.Run(r.ctx, r.t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", conf, "create_schema")
	if res.Code != 0 {
		r.t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
	}
}

func (r *run) call(method, path string, body any) cluster.Response {
	r.t.Helper()
	rest := cluster.NewClient(r.svc.URL, "1.82")
	rest.HTTP.Timeout = 20 * time.Second
	resp, err := rest.Do(r.ctx, method, path, body)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func (r *run) object(method, path string, body any) map[string]any {
	r.t.Helper()
	resp := r.call(method, path, body)
	if resp.Status >= 300 {
		r.t.Fatalf("%s %s: %s", method, path, resp)
	}
	var m map[string]any
	if len(resp.Body) > 0 {
		if err := json.Unmarshal(resp.Body, &m); err != nil {
			r.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return m
}

// waitState waits (bounded) for the node to leave transient states.
func (r *run) waitState(uuid string, within time.Duration) map[string]any {
	deadline := time.Now().Add(within)
	for {
		n := r.object("GET", "/v1/nodes/"+uuid, nil)
		switch n["provision_state"] {
		case "active", "deploy failed", "available", "manageable", "enroll", "error", "clean failed":
			return n
		}
		if n["target_provision_state"] == nil || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// deploy enrolls a node, makes it available, sets its instance_info and
// deploys it (with a fake agent when agent), and returns the outcome.
func (r *run) deploy(name string, ii map[string]any, agent bool) step {
	r.t.Helper()
	r.macs++
	mac := fmt.Sprintf("52:54:00:aa:00:%02x", r.macs)
	n := r.object("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": name,
		"deploy_interface": "direct", "boot_interface": "fake", "properties": map[string]any{"vendor": "Lenovo"}})
	uuid := n["uuid"].(string)
	r.object("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	for _, target := range []string{"manage", "provide"} {
		r.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target})
		if n := r.waitState(uuid, 20*time.Second); n["last_error"] != nil {
			r.t.Fatalf("%s: %s: %v", name, target, n["last_error"])
		}
	}
	r.object("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": ii}})
	var ipa *fakeipa.Agent
	if agent {
		actx, cancel := context.WithCancel(r.ctx)
		defer cancel()
		ipa = fakeipa.New(fakeipa.Options{APIURL: r.svc.URL, MACs: []string{mac}, Interval: 200 * time.Millisecond})
		if err := ipa.Start(actx); err != nil {
			r.t.Fatal(err)
		}
	}
	resp := r.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "active"})
	st := step{Name: name, Deploy: strconv.Itoa(resp.Status)}
	if resp.Status >= 300 {
		var body struct {
			Error string `json:"error_message"`
		}
		_ = json.Unmarshal(resp.Body, &body)
		var fault struct {
			Faultstring string `json:"faultstring"`
		}
		_ = json.Unmarshal([]byte(body.Error), &fault)
		st.Deploy += " " + fault.Faultstring
	}
	n = r.waitState(uuid, 60*time.Second)
	st.State, _ = n["provision_state"].(string)
	norm := r.normaliser(uuid)
	st.Deploy = norm(st.Deploy).(string)
	st.LastError = norm(n["last_error"])
	st.InstanceInfo, _ = norm(n["instance_info"]).(map[string]any)
	if dii, ok := n["driver_internal_info"].(map[string]any); ok {
		st.IsWholeDisk = dii["is_whole_disk_image"]
	}
	if ipa != nil {
		for _, c := range ipa.Commands() {
			if s, ok := c.Params["step"].(map[string]any); ok && s["step"] == "write_image" {
				args, _ := s["args"].(map[string]any)
				st.ImageInfo, _ = norm(args["image_info"]).(map[string]any)
			}
		}
	}
	st.Files = append(st.Files, r.servedFiles("deployed", uuid)...)
	if st.State == "active" {
		r.call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "deleted"})
		if n := r.waitState(uuid, 30*time.Second); n["provision_state"] != "available" {
			r.t.Errorf("%s: undeploy: %v, %v", name, n["provision_state"], n["last_error"])
		}
		st.Files = append(st.Files, r.servedFiles("torn down", uuid)...)
	}
	r.t.Logf("%s: %s, %v", name, st.State, st.LastError)
	return st
}

// servedFiles names the node's served image files that exist, prefixed with
// when.
func (r *run) servedFiles(when, uuid string) []string {
	var out []string
	for label, p := range map[string]string{
		"http_root link":   filepath.Join(r.dir, "http", "agent_images", uuid),
		"images_path copy": filepath.Join(r.dir, "images", uuid, "disk"),
	} {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, when+": "+label)
		}
	}
	sort.Strings(out)
	return out
}

var (
	sigRE = regexp.MustCompile(`temp_url_sig=[0-9a-f]{64}&temp_url_expires=[0-9]{10}`)
)

// normaliser returns a function that replaces what differs between
// runs in strings: the servers' URLs, the node's UUID, the test's
// directory and (after checking it) a temp URL's signature and expiry.
func (r *run) normaliser(uuid string) func(any) any {
	var norm func(any) any
	norm = func(v any) any {
		switch x := v.(type) {
		case string:
			for _, m := range sigRE.FindAllString(x, -1) {
				u, _ := url.Parse("http://x" + strings.SplitN(x[strings.Index(x, "/v1/"):], "?", 2)[0] + "?" + m)
				if !glance.ValidTempURL(u, http.MethodGet, tempURLKey, time.Now().Add(-time.Hour)) {
					r.t.Errorf("invalid temp URL signature in %s", x)
				}
			}
			x = sigRE.ReplaceAllString(x, "temp_url_sig={sig}&temp_url_expires={expires}")
			x = strings.ReplaceAll(x, r.glance.URL, "{glance}")
			x = strings.ReplaceAll(x, r.files.URL, "{files}")
			x = strings.ReplaceAll(x, r.dir, "{dir}")
			return strings.ReplaceAll(x, uuid, "{node}")
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = norm(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = norm(e)
			}
			return out
		}
		return v
	}
	return norm
}

// TestGlanceThroughKeystone finds Glance in a real Keystone's catalog
// ([glance] auth_type password, no endpoint_override) on ours and on the
// reference, which must deploy a Glance image alike; every image API
// request carries a token.
func TestGlanceThroughKeystone(t *testing.T) {
	ks := keystone.ForTest(t, keystone.Options{})
	cluster.RequirePython(t, "ironic.common.glance_service.image_service", "python3-ironic python3-glanceclient python3-swiftclient")
	cluster.Build(t, cluster.AllInOne)
	only := map[string]bool{"glance-swift-whole-disk": true, "glance-http": true, "glance-missing": true}
	want := scenarioWith(t, &run{python: true, ks: ks, only: only})
	got := scenarioWith(t, &run{ks: ks, only: only})
	if len(want) != len(only) {
		t.Fatalf("reference: %d steps", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-reference +ours):\n%s", diff)
	}
	for _, s := range got {
		if s.Name != "glance-missing" && s.State != "active" {
			t.Errorf("%s: %s, %v", s.Name, s.State, s.LastError)
		}
	}
}
