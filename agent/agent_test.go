package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/agent/disk"
)

// Regenerate the goldens with: go test ./agent -update
var update = flag.Bool("update", false, "rewrite the goldens under testdata")

// fakeClock starts at a fixed time; After advances it by d at once, so
// loops run without waiting.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// fakeDisks records calls; gate, when set, holds WriteImage until closed.
type fakeDisks struct {
	mu    sync.Mutex
	calls []string
	gate  chan struct{}
	fail  error
}

func (d *fakeDisks) rec(s string) {
	d.mu.Lock()
	d.calls = append(d.calls, s)
	d.mu.Unlock()
}

func (d *fakeDisks) BlockDevices(context.Context) ([]disk.BlockDevice, error) {
	return []disk.BlockDevice{{Name: "/dev/sda", Size: 10 << 30}}, nil
}

func (d *fakeDisks) RootDevice(_ context.Context, hints map[string]any) (disk.BlockDevice, error) {
	d.rec(fmt.Sprintf("root %v", hints))
	return disk.BlockDevice{Name: "/dev/sda"}, nil
}

func (d *fakeDisks) WriteImage(_ context.Context, dev string, img disk.ImageInfo) error {
	if d.gate != nil {
		<-d.gate
	}
	d.rec("write " + dev + " " + img.ID)
	return d.fail
}

func (d *fakeDisks) WriteConfigDrive(_ context.Context, dev, cd string) error {
	d.rec("configdrive " + dev + " " + cd)
	return nil
}

func (d *fakeDisks) PartitionUUIDs(context.Context, string) (map[string]any, error) {
	return map[string]any{"root uuid": "0x12345678"}, nil
}

func (d *fakeDisks) EraseMetadata(_ context.Context, devs []disk.BlockDevice) error {
	d.rec(fmt.Sprintf("erase %d", len(devs)))
	return nil
}

func (d *fakeDisks) Sync(context.Context) error { d.rec("sync"); return nil }

type fakePower struct{ off, reboots int }

func (p *fakePower) PowerOff(context.Context) error { p.off++; return nil }
func (p *fakePower) Reboot(context.Context) error   { p.reboots++; return nil }

func newTestAgent(t *testing.T, d *fakeDisks) *Agent {
	n := 0
	a := New(Config{
		AgentToken: strings.Repeat("t", 40), Disks: d, Power: &fakePower{}, Clock: newFakeClock(),
		NewID: func() string {
			n++
			return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		},
		RescuePasswordFile: filepath.Join(t.TempDir(), "pw"),
		Root:               filepath.Join("hardware", "testdata", "root"),
	})
	a.startedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return a
}

// exchange is one request to the command API and its answer.
type exchange struct {
	method, path, body string
}

func do(t *testing.T, h http.Handler, e exchange) (int, string) {
	t.Helper()
	req := httptest.NewRequest(e.method, "http://192.0.2.1:9999"+e.path, strings.NewReader(e.body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

const token = "agent_token=tttttttttttttttttttttttttttttttttttttttt"

// TestCommandAPIGolden runs IPA's API through its routes, commands and
// refusals and compares every answer with testdata/api.golden.
func TestCommandAPIGolden(t *testing.T) {
	d := &fakeDisks{}
	a := newTestAgent(t, d)
	h := a.Handler()
	node := `{"uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123","properties":{"root_device":{"name":"/dev/sda"}}}`
	steps := []exchange{
		{"GET", "/", ""},
		{"GET", "/v1/", ""},
		{"GET", "/v1/status", ""},
		{"GET", "/v1/commands/", ""},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"deploy.get_deploy_steps","params":{"node":` + node + `,"ports":[]}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"clean.get_clean_steps","params":{"node":` + node + `,"ports":[]}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"deploy.execute_deploy_step","params":{"node":` + node + `,"ports":[],"deploy_version":{"generic_hardware_manager":"1.1"},"step":{"step":"write_image","interface":"deploy","priority":80,"args":{"image_info":{"id":"img","urls":["http://192.0.2.2/img"],"checksum":"abc","stream_raw_images":true,"disk_format":"raw"},"configdrive":"H4sI"}}}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"standby.get_partition_uuids","params":{}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"image.install_bootloader","params":{"root_uuid":null,"efi_system_part_uuid":null,"prep_boot_part_uuid":null,"target_boot_mode":"uefi"}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"image.install_bootloader","params":{"root_uuid":"0x12345678","efi_system_part_uuid":null,"prep_boot_part_uuid":null,"target_boot_mode":"uefi"}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"clean.execute_clean_step","params":{"node":` + node + `,"ports":[],"clean_version":{"generic_hardware_manager":"1.1"},"step":{"step":"erase_devices_metadata","interface":"deploy","priority":99}}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"clean.execute_clean_step","params":{"node":` + node + `,"ports":[],"step":{"step":"erase_devices","interface":"deploy","priority":10}}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"standby.sync","params":{}}`},
		{"POST", "/v1/commands/?wait=true&" + token, `{"name":"standby.power_off","params":{}}`},
		{"GET", "/v1/commands/00000000-0000-4000-8000-000000000003", ""},
		{"GET", "/v1/commands/nope", ""},
		{"POST", "/v1/commands/?" + token, `{"name":"nope.nothing","params":{}}`},
		{"POST", "/v1/commands/?" + token, `{"name":"standby.nothing","params":{}}`},
		{"POST", "/v1/commands/?" + token, `{"name":"nodot","params":{}}`},
		{"POST", "/v1/commands/?" + token, `{"name":"deploy.get_deploy_steps"}`},
		{"POST", "/v1/commands/?" + token, `{"name":"deploy.get_deploy_steps","params":{}}`},
		{"POST", "/v1/commands/?" + token, `{"name":"deploy.execute_deploy_step","params":{"node":{},"ports":[],"step":"x"}}`},
		{"POST", "/v1/commands/?" + token, `{"name":"standby.prepare_image","params":{"image_info":{"id":"x"}}}`},
		{"POST", "/v1/commands/?" + token, `not json`},
		{"POST", "/v1/commands/?agent_token=wrong", `{"name":"standby.sync","params":{}}`},
		// No token while one is known and not required: IPA lets it
		// through (a cluster mid-upgrade).
		{"POST", "/v1/commands/", `{"name":"standby.sync","params":{}}`},
		{"DELETE", "/v1/commands/", ""},
		{"GET", "/v2/", ""},
		{"GET", "/status", ""},
		{"POST", "/v1/commands?" + token, `{"name":"standby.sync","params":{}}`},
	}
	var out bytes.Buffer
	for _, e := range steps {
		code, body := do(t, h, e)
		fmt.Fprintf(&out, "%s %s %s\n=> %d %s\n\n", e.method, e.path, e.body, code, body)
	}
	// The async commands ran in order; the disk saw the root device
	// hints of the cached node and the config drive.
	wantCalls := "root map[name:/dev/sda], write /dev/sda img, configdrive /dev/sda H4sI, root map[name:/dev/sda], root map[name:/dev/sda], erase 1, sync, sync, sync"
	if got := strings.Join(d.calls, ", "); got != wantCalls {
		t.Errorf("disk calls %s\nwant %s", got, wantCalls)
	}
	checkGolden(t, "api.golden", out.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-golden +got):\n%s", path, d)
	}
}

// TestBusyAgent: while an asynchronous command runs, another command is
// refused with 409 AgentIsBusy; afterwards it runs.
func TestBusyAgent(t *testing.T) {
	d := &fakeDisks{gate: make(chan struct{})}
	a := newTestAgent(t, d)
	h := a.Handler()
	code, body := do(t, h, exchange{"POST", "/v1/commands/?" + token,
		`{"name":"standby.prepare_image","params":{"image_info":{"id":"img","urls":["http://x/y"],"checksum":"abc"}}}`})
	if code != 200 || !strings.Contains(body, `"command_status": "RUNNING"`) {
		t.Fatalf("prepare_image: %d %s", code, body)
	}
	code, body = do(t, h, exchange{"POST", "/v1/commands/?" + token, `{"name":"standby.sync","params":{}}`})
	if want := `{"faultcode": "Client", "faultstring": "Agent is busy: executing command prepare_image"}`; code != 409 || body != want {
		t.Errorf("busy: %d %s, want 409 %s", code, body, want)
	}
	close(d.gate)
	code, body = do(t, h, exchange{"GET", "/v1/commands/00000000-0000-4000-8000-000000000001?wait=true", ""})
	if code != 200 || !strings.Contains(body, `"command_result": {"result": "prepare_image: image (img) written to device /dev/sda root_uuid=0x12345678"}`) {
		t.Errorf("prepare_image result: %d %s", code, body)
	}
	if code, body = do(t, h, exchange{"POST", "/v1/commands/?" + token, `{"name":"standby.sync","params":{}}`}); code != 200 {
		t.Errorf("after the command: %d %s", code, body)
	}
}

// TestTokenChecks is validate_agent_token's table.
func TestTokenChecks(t *testing.T) {
	tok := strings.Repeat("a", 40)
	for _, c := range []struct {
		name           string
		agentToken     string
		required       bool
		token          string
		given, allowed bool
	}{
		{"no token anywhere", "", false, "", false, true},
		{"none known, one given", "", false, tok, true, false},
		{"none known, empty given", "", false, "", true, false},
		{"known, matching", tok, false, tok, true, true},
		{"known, wrong", tok, false, "b", true, false},
		{"known, none given, not required (mid-upgrade)", tok, false, "", false, true},
		{"known, none given, required", tok, true, "", false, false},
		{"known, empty given, required", tok, true, "", true, false},
	} {
		a := New(Config{AgentToken: c.agentToken, AgentTokenRequired: c.required})
		if got := a.validToken(c.token, c.given); got != c.allowed {
			t.Errorf("%s: allowed %v, want %v", c.name, got, c.allowed)
		}
	}
}

// fakeIronic is the lookup and heartbeat API, recording requests with
// the agent's clock.
type fakeIronic struct {
	mu        sync.Mutex
	clock     *fakeClock
	lookups   int
	failFirst int
	reqs      []string
	beats     []time.Time
	onBeat    func(n int)
}

func (f *fakeIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.reqs = append(f.reqs, fmt.Sprintf("%s %s version=%s request-id=%s %s", r.Method, r.URL.RequestURI(),
		r.Header.Get("X-OpenStack-Ironic-API-Version"), r.Header.Get("X-OpenStack-Request-ID"), bytes.TrimSpace(body)))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/":
		_, _ = io.WriteString(w, `{"default_version":{"version":"1.82"}}`)
	case r.URL.Path == "/v1/lookup":
		f.lookups++
		if f.lookups <= f.failFirst {
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"error_message":"{\"faultstring\":\"Node not found\"}"}`)
			return
		}
		_, _ = io.WriteString(w, `{"node":{"uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123","properties":{}},"config":{"heartbeat_timeout":100,"agent_token":"`+strings.Repeat("k", 43)+`","agent_token_required":true}}`)
	case strings.HasPrefix(r.URL.Path, "/v1/heartbeat/"):
		f.beats = append(f.beats, f.clock.Now())
		w.WriteHeader(http.StatusAccepted)
		if f.onBeat != nil {
			f.onBeat(len(f.beats))
		}
	default:
		w.WriteHeader(404)
	}
}

// TestLookupAndHeartbeats: lookups retried until Ironic knows the node,
// with IPA's headers; the token from the lookup; heartbeats at once,
// then every heartbeat_timeout × (0.3 + 0.3 × rand), checked every 5 s;
// a finished command forces one 5 s after the last.
func TestLookupAndHeartbeats(t *testing.T) {
	clock := newFakeClock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var a *Agent
	f := &fakeIronic{clock: clock, failFirst: 2}
	f.onBeat = func(n int) {
		switch n {
		case 3:
			// A command finished: IPA forces a heartbeat.
			a.forceHeartbeat()
		case 5:
			cancel()
		}
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	a = New(Config{APIURL: srv.URL, MACs: []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}, AdvertiseHost: "192.0.2.9",
		ListenAddress: "127.0.0.1:0", GlobalRequestID: "req-1", Clock: clock, Rand: func() float64 { return 0.5 }})
	if err := a.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lookups != 3 {
		t.Errorf("%d lookups, want 3", f.lookups)
	}
	if !a.validToken(strings.Repeat("k", 43), true) || a.validToken("", false) {
		t.Errorf("the lookup's token (required) is not the agent's")
	}
	wantReqs := []string{
		"GET / version= request-id=req-1 ",
		"GET /v1/lookup?addresses=52%3A54%3A00%3A00%3A00%3A01%2C52%3A54%3A00%3A00%3A00%3A02 version=1.62 request-id=req-1 ",
		`POST /v1/heartbeat/1be26c0b-03f2-4d2e-ae87-c02d7f33c123 version=1.68 request-id=req-1 {"agent_token":"` + strings.Repeat("k", 43) + `","agent_version":"9.4.1","callback_url":"http://192.0.2.9:9999"}`,
	}
	if d := cmp.Diff(wantReqs, []string{f.reqs[0], f.reqs[1], f.reqs[4]}); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	// Interval 100 × (0.3 + 0.3 × 0.5) = 44.999… s (float arithmetic, as
	// in Python), noticed at the 5 s check at 45 s. The forced heartbeat
	// after the third comes at the first check more than 5 s later.
	var gaps []time.Duration
	for i := 1; i < len(f.beats); i++ {
		gaps = append(gaps, f.beats[i].Sub(f.beats[i-1]))
	}
	if want := []time.Duration{45 * time.Second, 45 * time.Second, 10 * time.Second, 45 * time.Second}; !cmp.Equal(gaps, want) {
		t.Errorf("heartbeat gaps %v, want %v", gaps, want)
	}
}

// TestLookupTimesOut: a node Ironic never knows ends the run with IPA's
// LookupNodeError message once ipa-lookup-timeout has passed.
func TestLookupTimesOut(t *testing.T) {
	clock := newFakeClock()
	f := &fakeIronic{clock: clock, failFirst: 1 << 30}
	srv := httptest.NewServer(f)
	defer srv.Close()
	a := New(Config{APIURL: srv.URL, MACs: []string{"52:54:00:00:00:01"}, Clock: clock, LookupTimeout: 300 * time.Second,
		IronicAPIVersion: "1.82", Rand: func() float64 { return 1 }})
	err := a.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "Could not look up node info") {
		t.Fatalf("err %v", err)
	}
	// Back-off: 1, 2, 4, ... capped at 60 s: at most 300/60+7 attempts.
	if f.lookups < 6 || f.lookups > 14 {
		t.Errorf("%d lookups in 300 s", f.lookups)
	}
}

// TestFinalizeRescue: the hashed password lands in the file; an
// unhashed one is hashed with SHA-512 crypt; the agent stops.
func TestFinalizeRescue(t *testing.T) {
	a := newTestAgent(t, &fakeDisks{})
	a.cfg.Clock = realClock{}
	shadow := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(shadow, []byte("root:*:19000:0:99999:7:::\nrescue:!:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.cfg.ShadowFile = shadow
	code, body := do(t, a.Handler(), exchange{"POST", "/v1/commands/?" + token,
		`{"name":"rescue.finalize_rescue","params":{"rescue_password":"$5$abc$def","hashed":true}}`})
	if code != 200 || !strings.Contains(body, `"command_status": "SUCCEEDED"`) {
		t.Fatalf("%d %s", code, body)
	}
	if pw, _ := os.ReadFile(a.cfg.RescuePasswordFile); string(pw) != "$5$abc$def" {
		t.Errorf("password file %q", pw)
	}
	if sh, _ := os.ReadFile(shadow); string(sh) != "root:*:19000:0:99999:7:::\nrescue:$5$abc$def:19000:0:99999:7:::\n" {
		t.Errorf("shadow %q", sh)
	}
	select {
	case <-a.Stopped():
	case <-time.After(5 * time.Second):
		t.Error("the agent did not stop")
	}
	b := newTestAgent(t, &fakeDisks{})
	if err := b.writeRescuePassword(map[string]any{"rescue_password": "s3cret", "hashed": false}); err != nil {
		t.Fatal(err)
	}
	if pw, _ := os.ReadFile(b.cfg.RescuePasswordFile); !strings.HasPrefix(string(pw), "$6$") || len(pw) != 3+16+1+86 {
		t.Errorf("hashed password %q", pw)
	}
}

// TestCollectSystemLogs: a base64 tar.gz with dmesg, the agent's log
// and /proc files.
func TestCollectSystemLogs(t *testing.T) {
	a := newTestAgent(t, &fakeDisks{})
	logFile := filepath.Join(t.TempDir(), "agent.log")
	if err := os.WriteFile(logFile, []byte("agent log line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.cfg.LogFile = logFile
	a.cfg.Dmesg = func() ([]byte, error) { return []byte("[0.0] Linux version\n"), nil }
	code, body := do(t, a.Handler(), exchange{"POST", "/v1/commands/?wait=true&" + token, `{"name":"log.collect_system_logs","params":{}}`})
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var res struct {
		Result struct {
			Logs string `json:"system_logs"`
		} `json:"command_result"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	files := untar(t, res.Result.Logs)
	if files["dmesg"] != "[0.0] Linux version\n" || files[strings.TrimPrefix(logFile, "/")] != "agent log line\n" ||
		!strings.Contains(files["proc/cpuinfo"], "model name") {
		var names []string
		for n := range files {
			names = append(names, n)
		}
		t.Errorf("tar entries %v", names)
	}
}

// TestOddInputIsNever5xx: malformed bodies and parameters get a 4xx or a
// failed command, never a panic or a 500.
func TestOddInputIsNever5xx(t *testing.T) {
	for _, body := range []string{
		``, `[]`, `null`, `"x"`, `{"name":1,"params":{}}`, `{"name":"a.b","params":[]}`, `{"name":".","params":{}}`,
		`{"name":"deploy.execute_deploy_step","params":{"step":{"step":5},"node":null,"ports":null}}`,
		`{"name":"deploy.execute_deploy_step","params":{"step":{},"node":{},"ports":[]}}`,
		`{"name":"deploy.execute_deploy_step","params":{"step":{"step":"write_image","args":{"image_info":{"id":"x","urls":["u"],"checksum":"c","root_mb":"many"}}},"node":{"properties":"x"},"ports":[]}}`,
		`{"name":"deploy.execute_deploy_step","params":{"step":{"step":"write_image","args":{"image_info":7}},"node":{},"ports":[]}}`,
		`{"name":"standby.prepare_image","params":{"image_info":{"id":"x","urls":[1],"checksum":"c"},"configdrive":5}}`,
		`{"name":"rescue.finalize_rescue","params":{"rescue_password":{"a":1},"hashed":"yes"}}`,
		`{"name":"image.install_bootloader","params":{"root_uuid":5}}`,
		`{"name":"clean.get_clean_steps","params":{"node":5,"ports":5}}`,
	} {
		// Each on a fresh agent: a running command would make the next busy.
		h := newTestAgent(t, &fakeDisks{}).Handler()
		code, out := do(t, h, exchange{"POST", "/v1/commands/?wait=true&" + token, body})
		if code >= 500 {
			t.Errorf("%s: %d %s", body, code, out)
		}
	}
}
