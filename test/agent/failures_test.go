package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/test/internal/cluster"
)

// failure is one deploy that must fail as Ironic 21.4's does with IPA.
type failure struct {
	name string
	// diskSize is the machine's one disk, /dev/vda (sysfs and file).
	diskSize int64
	// hints are the node's root_device properties (nil: none).
	hints map[string]any
	// image is the path of instance_info's image_source on the test's
	// image server (see failureImages).
	image string
	// diskFormat is instance_info's image_disk_format ("raw" streams
	// the image onto the disk).
	diskFormat string
	// badChecksum gives instance_info a checksum the image does not
	// have.
	badChecksum bool
	// stopHeartbeats: the agent's heartbeats after its first never
	// reach Ironic (the [conductor]deploy_callback_timeout path).
	stopHeartbeats bool
}

// failures are issue 13's failure paths.
var failures = []failure{
	// The image does not match its checksum (downloaded to the cache
	// first, retried, then ImageChecksumError).
	{name: "checksum-mismatch", diskSize: 8 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/disk.raw", badChecksum: true},
	// Ironic's own HEAD of the image URL fails the deploy request.
	{name: "image-404", diskSize: 8 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/missing.raw"},
	// The URL passes Ironic's HEAD, the agent's GET gets a 404:
	// ImageDownloadError.
	{name: "image-gone", diskSize: 8 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/gone.raw"},
	// No hints and no disk of 4 GiB: DeviceNotFound.
	{name: "disk-too-small", diskSize: 8 << 20, image: "/images/disk.raw"},
	// Hints no disk matches: DeviceNotFound naming them.
	{name: "hints-no-match", diskSize: 8 << 20, hints: map[string]any{"serial": "no-such-serial"}, image: "/images/disk.raw"},
	// An image larger than the disk the hints chose: written by
	// qemu-img in IPA (ImageWriteError), streamed when raw
	// (ImageDownloadError with ENOSPC).
	{name: "image-larger-than-disk", diskSize: 1 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/big.raw"},
	{name: "raw-image-larger-than-disk", diskSize: 1 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/big.raw", diskFormat: "raw"},
	// The agent stops heartbeating after its first heartbeat.
	{name: "heartbeats-stop", diskSize: 8 << 20, hints: map[string]any{"name": "/dev/vda"}, image: "/images/disk.raw", stopHeartbeats: true},
}

// callbackTimeout is both servers' [conductor]deploy_callback_timeout.
const callbackTimeout = 6

// TestDeployFailures runs each failure against Python Ironic 21.4's
// all-in-one and ours with the same agent (package agent on
// agent/disk's Manager over a fake sysfs tree and a file as /dev/vda),
// and compares the node afterwards and the commands Ironic sent with
// testdata/failures.golden, recorded from Python
// (go test -count=1 -p 1 ./test/agent -run TestDeployFailures -update).
func TestDeployFailures(t *testing.T) {
	againstPython(t, filepath.Join("testdata", "failures.golden"), "failed deploys", runFailures)
}

// failureImages serves the images: disk.raw (256 KiB), big.raw (2 MiB),
// gone.raw (HEAD answers as for an image of 256 KiB, GET 404) and 404
// for anything else.
func failureImages(img, big []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/images/disk.raw":
			http.ServeContent(w, r, "disk.raw", time.Time{}, bytes.NewReader(img))
		case "/images/big.raw":
			http.ServeContent(w, r, "big.raw", time.Time{}, bytes.NewReader(big))
		case "/images/gone.raw":
			if r.Method == http.MethodHead {
				w.Header().Set("Content-Length", strconv.Itoa(len(img)))
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

func runFailures(t *testing.T, python bool) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ironic.sqlite")
	conf := func(port int) string {
		return configINI(dir, db, port, true).Merged(cluster.INI{"conductor": {
			"deploy_callback_timeout":        strconv.Itoa(callbackTimeout),
			"check_provision_state_interval": "1",
		}}).String()
	}
	prog := cluster.Ours(cluster.AllInOne)
	if python {
		prog = cluster.Python(cluster.AllInOne)
		dbConf := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(dbConf, []byte(conf(0)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: true}, "--config-file", dbConf, "create_schema")
		if res.Code != 0 {
			t.Fatalf("dbsync: %d\n%s", res.Code, cluster.Tail([]byte(res.Stderr), 3000))
		}
	}
	svc := cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, LogTail: 6000, Config: conf})
	c := client{t: t, url: svc.URL}

	files := httptest.NewServer(failureImages(imageContent("/images/disk.raw"), imageContent("/images/big.raw")))
	defer files.Close()

	var out []string
	for i, f := range failures {
		start := time.Now()
		out = append(out, runFailure(ctx, t, c, f, i, files.URL)...)
		t.Logf("%s: %s", f.name, time.Since(start).Round(time.Millisecond))
	}
	return out
}

// runFailure deploys one node into failure f and returns the golden's
// lines for it.
func runFailure(ctx context.Context, t *testing.T, c client, f failure, i int, imagesURL string) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), f.name)
	mgr := fakeMachineDisks(t, dir, f.diskSize)
	agentLog, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer agentLog.Close()
	mac := fmt.Sprintf("52:54:00:12:35:%02x", i)
	apiURL, dropped := c.url, (*atomic.Int32)(nil)
	if f.stopHeartbeats {
		apiURL, dropped = heartbeatOnce(t, c.url)
	}
	m := &machine{t: t, apiURL: apiURL, mac: mac, disks: mgr, dir: dir, logOut: agentLog}
	defer m.halt()
	defer func() {
		if t.Failed() {
			data, _ := os.ReadFile(agentLog.Name())
			t.Logf("%s: agent log:\n%s", f.name, cluster.Tail(data, 6000))
		}
	}()

	props := map[string]any{"capabilities": "boot_mode:uefi"}
	if f.hints != nil {
		props["root_device"] = f.hints
	}
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "fail-" + f.name,
		"deploy_interface": "direct", "boot_interface": "fake", "properties": props})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 20*time.Second)
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/automated_clean", "value": false}})
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 20*time.Second)
	sum := sha256.Sum256(imageContent(f.image))
	if f.badChecksum {
		sum = sha256.Sum256([]byte("not the image"))
	}
	ii := map[string]any{
		"image_source":   imagesURL + f.image,
		"image_checksum": hex.EncodeToString(sum[:]), "image_os_hash_algo": "sha256", "image_os_hash_value": hex.EncodeToString(sum[:]),
	}
	if f.diskFormat != "" {
		ii["image_disk_format"] = f.diskFormat
	}
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/instance_info", "value": ii}})

	m.boot(ctx)
	rest := cluster.NewClient(c.url, "1.82")
	resp, err := rest.Do(ctx, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "active"})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"== " + f.name, fmt.Sprintf("deploy request: %d%s", resp.Status, faultString(resp.Body, uuid, imagesURL))}
	if resp.Status == http.StatusAccepted {
		within := 60 * time.Second
		if f.stopHeartbeats {
			within = (callbackTimeout + 30) * time.Second
		}
		n = settle(t, c, uuid, within)
	} else {
		n = c.call("GET", "/v1/nodes/"+uuid, nil)
	}
	m.halt()
	if dropped != nil && dropped.Load() == 0 {
		t.Errorf("%s: no heartbeat was dropped: the agent stopped by itself", f.name)
	}
	scrub := func(s string) string {
		// IPA caches images in tempfile.gettempdir().
		return strings.ReplaceAll(scrubMessage(s, uuid, imagesURL), filepath.Join(dir, "tmp"), "/tmp")
	}
	for _, k := range []string{"provision_state", "target_provision_state", "last_error", "maintenance", "maintenance_reason", "fault", "power_state"} {
		v := n[k]
		if s, ok := v.(string); ok {
			v = scrub(s)
		}
		lines = append(lines, k+": "+jsonText(v))
	}
	for _, l := range normalise(m.commands(), uuid, imagesURL) {
		lines = append(lines, "command: "+l)
	}
	return lines
}

// imageContent is the content of an image path as failureImages serves it, for
// its checksum (nil: the path has none).
func imageContent(path string) []byte {
	switch path {
	case "/images/disk.raw", "/images/gone.raw":
		return bytes.Repeat([]byte("goironic agent test image\n"), 10083)[:256<<10]
	case "/images/big.raw":
		return bytes.Repeat([]byte("goironic image larger than its disk\n"), 58255)[:2<<20]
	}
	return nil
}

// settle waits until the node's deploy has ended: the provision state
// is no longer deploying or wait call-back, and a failure's last_error
// is set (Ironic's timeout check moves the node to deploy failed before
// its worker records the error).
func settle(t *testing.T, c client, uuid string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n := c.call("GET", "/v1/nodes/"+uuid, nil)
		switch n["provision_state"] {
		case "deploying", "wait call-back":
		case "deploy failed":
			if n["last_error"] != nil {
				return n
			}
		default:
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s still %v after %s (last_error %v)", uuid, n["provision_state"], within, n["last_error"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// fakeMachineDisks is agent/disk's Manager on a machine with one disk,
// /dev/vda of size bytes: a sysfs tree under dir/sys and a sparse file
// dir/dev/vda. Downloads retry twice without sleeping.
func fakeMachineDisks(t *testing.T, dir string, size int64) *disk.Manager {
	t.Helper()
	files := map[string]string{
		"sys/block/vda/size":                     strconv.FormatInt(size/512, 10),
		"sys/block/vda/queue/rotational":         "1",
		"sys/block/vda/ro":                       "0",
		"sys/block/vda/removable":                "0",
		"sys/block/vda/device/model":             "QEMU HARDDISK",
		"sys/block/vda/device/vendor":            "0x1af4",
		"sys/block/vda/serial":                   "goironic-test-disk",
		"sys/block/vda/device/type":              "0",
		"sys/block/vda/queue/logical_block_size": "512",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "dev", "vda"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	noSleep := func(context.Context, time.Duration) error { return nil }
	return disk.New(disk.Config{SysRoot: filepath.Join(dir, "sys"), DevRoot: filepath.Join(dir, "dev"), TempDir: tmp, DownloadRetries: 2},
		disk.WithClock(time.Now, noSleep))
}

// jsonText is v as JSON, HTML characters unescaped.
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

// heartbeatOnce is a proxy to Ironic's API that passes the agent's
// first heartbeat and drops the others (503, never reaching Ironic), as
// if the agent had stopped heartbeating; it returns the proxy's URL and
// the count of heartbeats dropped.
func heartbeatOnce(t *testing.T, ironicURL string) (string, *atomic.Int32) {
	t.Helper()
	target, err := url.Parse(ironicURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var beats, dropped atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/heartbeat/") && beats.Add(1) > 1 {
			dropped.Add(1)
			http.Error(w, "heartbeat dropped by the test", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &dropped
}

var (
	secondsRE = regexp.MustCompile(`time: [0-9.e-]+ seconds`)
	dateRE    = regexp.MustCompile(`'Date': '[^']*'`)
	portRE    = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// scrubMessage replaces what differs between runs in an error text.
func scrubMessage(s, uuid, imagesURL string) string {
	s = strings.ReplaceAll(s, imagesURL, "<images>")
	s = strings.ReplaceAll(s, uuid, "<node>")
	s = uuidRE.ReplaceAllString(s, "<uuid>")
	s = secondsRE.ReplaceAllString(s, "time: <t> seconds")
	s = dateRE.ReplaceAllString(s, "'Date': <date>")
	return portRE.ReplaceAllString(s, "127.0.0.1:<port>")
}

// faultString is an error answer's message (": <faultstring>"), "" for
// a success.
func faultString(body []byte, uuid, imagesURL string) string {
	var e struct {
		ErrorMessage string `json:"error_message"`
	}
	if json.Unmarshal(body, &e) != nil || e.ErrorMessage == "" {
		return ""
	}
	var inner struct {
		Faultstring string `json:"faultstring"`
	}
	if json.Unmarshal([]byte(e.ErrorMessage), &inner) == nil && inner.Faultstring != "" {
		return ": " + scrubMessage(inner.Faultstring, uuid, imagesURL)
	}
	return ": " + scrubMessage(e.ErrorMessage, uuid, imagesURL)
}
