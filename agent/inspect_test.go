package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/agent/hardware"
)

// diskList is a fixed list of block devices.
type diskList []disk.BlockDevice

func (d diskList) BlockDevices(context.Context) ([]disk.BlockDevice, error) { return d, nil }

// testInventory is hardware's recorded machine (one NIC 02:fc:00:00:00:01,
// booted from it) with three disks: guess_root_disk picks the 8 GiB one.
func testInventory(addrs func(string) ([]net.Addr, error)) hardware.Reader {
	serial := "QM00001"
	if addrs == nil {
		addrs = func(string) ([]net.Addr, error) {
			return []net.Addr{&net.IPNet{IP: net.IPv4(192, 0, 2, 10), Mask: net.CIDRMask(24, 32)}}, nil
		}
	}
	return hardware.Reader{
		Root: filepath.Join("hardware", "testdata", "root"),
		Disks: diskList{
			{Name: "/dev/vdb", Size: 20 << 30, Rotational: true},
			{Name: "/dev/vda", Size: 8 << 30, Rotational: true, Serial: &serial},
			{Name: "/dev/sr0", Size: 1 << 30},
		},
		BootIF: "01-02-fc-00-00-00-01",
		Arch:   "x86_64",
		Addrs:  addrs,
	}
}

// fakeInspector records the bodies posted to /v1/continue and answers
// with status and answer.
type fakeInspector struct {
	mu     sync.Mutex
	bodies [][]byte
	status int
	answer string
}

func (f *fakeInspector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/continue" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	f.bodies = append(f.bodies, body)
	w.Header().Set("Content-Type", "application/json")
	if f.status != 0 {
		w.WriteHeader(f.status)
	}
	_, _ = io.WriteString(w, f.answer)
}

func (f *fakeInspector) posted() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies
}

// flakyTransport fails the first n requests as a refused connection
// would, then passes them on.
type flakyTransport struct {
	mu sync.Mutex
	n  int
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	}
	return http.DefaultTransport.RoundTrip(r)
}

func inspectAgent(url string, clock *fakeClock, mod func(*Config)) *Agent {
	cfg := Config{InspectionCallbackURL: url, Inventory: testInventory(nil), Clock: clock, BootIF: "02:fc:00:00:00:01",
		InspectionDHCPWaitTimeout: 60 * time.Second, ListenAddress: "127.0.0.1:0", Root: filepath.Join("hardware", "testdata", "root")}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg)
}

// TestInspectionBodyGolden: the body posted to inspector is the one IPA
// 9.4 posts for the same inventory. The golden is written by
// testdata/ipa_inspection_body.py (IPA's collect_default and
// call_inspector) from the inventory: go test ./agent -run
// TestInspectionBodyGolden -update (needs /usr/bin/python3).
func TestInspectionBodyGolden(t *testing.T) {
	f := &fakeInspector{answer: `{"uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}`}
	srv := httptest.NewServer(f)
	defer srv.Close()
	a := inspectAgent(srv.URL+"/v1/continue", newFakeClock(), nil)
	uuid, err := a.Inspect(context.Background())
	if err != nil || uuid != "1be26c0b-03f2-4d2e-ae87-c02d7f33c123" {
		t.Fatalf("Inspect = %q, %v", uuid, err)
	}
	bodies := f.posted()
	if len(bodies) != 1 {
		t.Fatalf("%d posts, want 1", len(bodies))
	}
	var got bytes.Buffer
	if err := json.Indent(&got, bodies[0], "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	golden := filepath.Join("testdata", "inspection.golden.json")
	if *update {
		inv, err := testInventory(nil).Inventory(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(inv)
		cmd := exec.Command("/usr/bin/python3", filepath.Join("testdata", "ipa_inspection_body.py"))
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ipa_inspection_body.py: %v", err)
		}
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("inspection body (-IPA +ours):\n%s", d)
	}
}

// TestInspectionThenLookup: inspector unreachable four times (IPA
// retries connection errors 5 times, 5 s apart), then its answer's UUID
// is the lookup's node_uuid; heartbeats follow. An ipmi_setup_credentials
// in the answer is ignored, as IPA 9.4 does.
func TestInspectionThenLookup(t *testing.T) {
	clock := newFakeClock()
	f := &fakeInspector{answer: `{"uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123","ipmi_setup_credentials":true,"ipmi_username":"u","ipmi_password":"p"}`}
	insp := httptest.NewServer(f)
	defer insp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ir := &fakeIronic{clock: clock, onBeat: func(int) { cancel() }}
	ironic := httptest.NewServer(ir)
	defer ironic.Close()
	a := inspectAgent(insp.URL+"/v1/continue", clock, func(c *Config) {
		c.APIURL = ironic.URL
		c.AdvertiseHost = "192.0.2.9"
		c.HTTP = &http.Client{Transport: &flakyTransport{n: 4}}
		c.Rand = func() float64 { return 0.5 }
	})
	start := clock.Now()
	if err := a.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if len(f.posted()) != 1 {
		t.Fatalf("%d posts, want 1", len(f.posted()))
	}
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if len(ir.reqs) < 2 || !strings.Contains(ir.reqs[1], "node_uuid=1be26c0b-03f2-4d2e-ae87-c02d7f33c123") {
		t.Errorf("the lookup does not carry inspector's UUID: %q", ir.reqs)
	}
	if got := ir.beats[0].Sub(start); got != 20*time.Second {
		t.Errorf("first heartbeat %v after the start, want 20s (4 retries 5 s apart)", got)
	}
}

// TestInspectionGivesUp: inspector never reachable: after 5 attempts the
// run ends with the connection error (IPA's process dies and is
// restarted), having looked nothing up.
func TestInspectionGivesUp(t *testing.T) {
	clock := newFakeClock()
	a := inspectAgent("http://192.0.2.1:5050/v1/continue", clock, func(c *Config) {
		c.APIURL = "http://192.0.2.1:6385"
		c.HTTP = &http.Client{Transport: &flakyTransport{n: 1 << 30}}
	})
	start := clock.Now()
	err := a.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run = %v, want the connection error", err)
	}
	if got := clock.Now().Sub(start); got != 20*time.Second {
		t.Errorf("gave up after %v, want 20s", got)
	}
}

// TestInspectionFailures: what IPA posts and returns when inspector
// answers 4xx, when a collector is unknown, and when the inventory
// cannot be read.
func TestInspectionFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		status     int
		collectors string
		inventory  Inventory
		wantErr    string
		wantBody   string // the posted body's error, or "" to skip
	}{
		"inspector 400": {status: 400, wantErr: "stopping inspection, as inspector returned an error"},
		"unknown collector": {collectors: "default,extra-hardware",
			wantErr:  "The following errors were encountered:\n* Failed to load collector {'extra-hardware'}",
			wantBody: `{"error":"The following errors were encountered:\n* Failed to load collector {'extra-hardware'}"}`},
		"no inventory": {inventory: hardware.Reader{Root: "/nonexistent"},
			wantErr:  "The following errors were encountered:\n* collector default failed: listing network interfaces: open /nonexistent/sys/class/net: no such file or directory",
			wantBody: `{"error":"The following errors were encountered:\n* collector default failed: listing network interfaces: open /nonexistent/sys/class/net: no such file or directory"}`},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeInspector{status: tc.status, answer: `{"error":{"message":"no"}}`}
			srv := httptest.NewServer(f)
			defer srv.Close()
			a := inspectAgent(srv.URL+"/v1/continue", newFakeClock(), func(c *Config) {
				c.InspectionCollectors = tc.collectors
				if tc.inventory != nil {
					c.Inventory = tc.inventory
					c.InspectionDHCPWaitTimeout = 0
				}
			})
			uuid, err := a.Inspect(context.Background())
			var ie *InspectionError
			if !errors.As(err, &ie) || err.Error() != tc.wantErr || uuid != "" {
				t.Fatalf("Inspect = %q, %v; want InspectionError %q", uuid, err, tc.wantErr)
			}
			if b := f.posted(); len(b) != 1 || (tc.wantBody != "" && string(b[0]) != tc.wantBody) {
				t.Errorf("posted %q, want one %s", b, tc.wantBody)
			}
		})
	}
}

// TestInspectionLogsCollector: "logs" adds the system logs (base64
// tar.gz) after the default collector's keys.
func TestInspectionLogsCollector(t *testing.T) {
	f := &fakeInspector{answer: `{"uuid":"u"}`}
	srv := httptest.NewServer(f)
	defer srv.Close()
	a := inspectAgent(srv.URL+"/v1/continue", newFakeClock(), func(c *Config) { c.InspectionCollectors = "default,logs" })
	if _, err := a.Inspect(context.Background()); err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(f.posted()[0]))
	_, _ = dec.Token()
	var body map[string]any
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v any
		_ = dec.Decode(&v)
	}
	_ = json.Unmarshal(f.posted()[0], &body)
	if want := []string{"inventory", "root_disk", "boot_interface", "configuration", "logs", "error"}; !cmp.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if s, _ := body["logs"].(string); !strings.HasPrefix(s, "H4sI") { // gzip, base64
		t.Errorf("logs = %.40q, want a base64 tar.gz", s)
	}
	conf, _ := body["configuration"].(map[string]any)
	if got := conf["collectors"]; !cmp.Equal(got, []any{"default", "logs"}) {
		t.Errorf("configuration.collectors = %v", got)
	}
}

// TestInspectionWaitsForDHCP: the PXE NIC without an IPv4 address is
// looked at every 2 s until it has one, at most
// ipa-inspection-dhcp-wait-timeout; without BOOTIF nothing is waited
// for.
func TestInspectionWaitsForDHCP(t *testing.T) {
	for name, tc := range map[string]struct {
		bootIF     string
		noAddrFor  int
		wantWaited time.Duration
	}{
		"address after 3 looks": {bootIF: "02:fc:00:00:00:01", noAddrFor: 3, wantWaited: 6 * time.Second},
		"never an address":      {bootIF: "02:fc:00:00:00:01", noAddrFor: 1 << 30, wantWaited: 62 * time.Second},
		"no BOOTIF":             {noAddrFor: 1 << 30},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeInspector{answer: `{"uuid":"u"}`}
			srv := httptest.NewServer(f)
			defer srv.Close()
			looks := 0
			clock := newFakeClock()
			a := inspectAgent(srv.URL+"/v1/continue", clock, func(c *Config) {
				c.BootIF = tc.bootIF
				c.Inventory = testInventory(func(string) ([]net.Addr, error) {
					looks++
					if looks <= tc.noAddrFor {
						return nil, nil
					}
					return []net.Addr{&net.IPNet{IP: net.IPv4(192, 0, 2, 10), Mask: net.CIDRMask(24, 32)}}, nil
				})
			})
			start := clock.Now()
			if _, err := a.Inspect(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := clock.Now().Sub(start); got != tc.wantWaited {
				t.Errorf("waited %v, want %v", got, tc.wantWaited)
			}
		})
	}
}
