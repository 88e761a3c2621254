package redfishbmc_test

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
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/redfishbmc"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata")

// counter returns a deterministic ID source ("<prefix>-1", ...).
func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s-%d", prefix, n.Add(1)) }
}

// formatRequests renders a request log one request a line, with the
// given URLs replaced by names, for goldens.
func formatRequests(reqs []redfishbmc.Request, replace ...string) string {
	var b strings.Builder
	for _, r := range reqs {
		auth := r.Auth
		if auth == "" {
			auth = "-"
		}
		fmt.Fprintf(&b, "%s %s %d %s", r.Method, r.Path, r.Status, auth)
		if r.Body != nil {
			fmt.Fprintf(&b, " %s", r.Body)
		}
		b.WriteString("\n")
	}
	return strings.NewReplacer(replace...).Replace(b.String())
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./test/redfishbmc -run %s -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./test/redfishbmc -run %s -update rewrites it):\n%s", name, t.Name(), diff)
	}
}

// TestSushy runs Python's sushy (Debian's python3-sushy 4.3, Ironic
// 21.4's client) through every resource Ironic's redfish interfaces
// use (testdata/sushy_client.py): everything succeeds, what sushy read
// and the requests it sent are goldens, and the BMC's state shows the
// effects.
//
//	go test ./test/redfishbmc -run TestSushy -update   # rewrites the goldens
func TestSushy(t *testing.T) {
	cluster.RequirePython(t, "sushy", "python3-sushy")
	clk := newClock()
	ts := redfishbmc.ForTest(t, redfishbmc.Options{Now: clk.Now, NewID: counter("id"), NewToken: counter("token")})
	sys := ts.AddSystem(redfishbmc.SystemSpec{})

	image := bytes.Repeat([]byte("boot image "), 10000)
	var imageGets atomic.Int32
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		imageGets.Add(1)
		_, _ = w.Write(image)
	}))
	t.Cleanup(images.Close)
	var mu sync.Mutex
	var events []string
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		events = append(events, string(body))
		mu.Unlock()
	}))
	t.Cleanup(sink.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cluster.PythonBin, "testdata/sushy_client.py",
		ts.URL, images.URL+"/boot.iso", sink.URL+"/events")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sushy_client.py: %v\n%s", err, cluster.Tail(stderr.Bytes(), 4000))
	}
	names := []string{ts.URL, "http://BMC", images.URL, "http://IMAGES", sink.URL, "http://EVENTS"}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, bytes.TrimSpace(out), "", "  "); err != nil {
		t.Fatalf("sushy_client.py printed %q: %v", out, err)
	}
	golden(t, "sushy_output.golden.json", strings.NewReplacer(names...).Replace(pretty.String())+"\n")
	golden(t, "sushy_requests.golden", formatRequests(ts.Requests(), names...))

	wantResets := []redfishbmc.ResetType{"On", "Nmi", "ForceOff", "On", "ForceRestart"}
	if got := sys.Resets(); !slices.Equal(got, wantResets) {
		t.Errorf("resets %v, want %v", got, wantResets)
	}
	if sys.NMIs() != 1 || sys.PowerState() != redfishbmc.PowerOn || !sys.SecureBoot() {
		t.Errorf("nmis %d, power %s, secure boot %v", sys.NMIs(), sys.PowerState(), sys.SecureBoot())
	}
	if got := sys.KeyResets(); !slices.Equal(got, []string{"ResetAllKeysToDefault"}) {
		t.Errorf("key resets %v", got)
	}
	if imageGets.Load() != 1 {
		t.Errorf("the image was fetched %d times, want once", imageGets.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 || !strings.Contains(events[0], `"Context":"ctx"`) {
		t.Errorf("events delivered: %q", events)
	}
}
