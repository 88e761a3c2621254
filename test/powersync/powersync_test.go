// Package powersync_test holds the conductor's periodic power sync to
// Ironic 21.4's on the Redfish BMC emulator, with the redfish power and
// management interfaces: what each pass asks the BMCs, how nodes whose BMC
// fails or hangs end up, and (BenchmarkPowerSync1000) how long a pass over
// 1,000 nodes takes. dev/bench-power-sync.sh measures the same pass
// against the reference.
package powersync_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

// instant makes the driver's retry delays take no time, so that a test's
// duration doesn't depend on whether the driver retries.
func instant(c *redfish.Config) {
	c.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
}

// requestsOf lists "METHOD path status" of what BMC b received, in order.
func requestsOf(emu *redfishbmc.TestServer, b *redfishbmc.BMC) []string {
	var out []string
	for _, r := range emu.Requests() {
		if r.BMC == b.Name() {
			out = append(out, fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status))
		}
	}
	return out
}

// Ironic 21.4's reads in one pass of a node whose BMC answers, as
// recorded from the reference by dev/bench-power-sync.sh: the session
// (first pass only), get_power_state, then node_cache_boot_mode's
// get_boot_mode and get_secure_boot_state, each of which reads the
// system again (sushy's get_system). The vendor is cached, so
// node_cache_vendor reads nothing.
var (
	ironicFirstPass = []string{
		"GET /redfish/v1/ 200", "POST /redfish/v1/SessionService/Sessions 201",
		"GET /redfish/v1/Systems/1 200", "GET /redfish/v1/Systems/1 200",
		"GET /redfish/v1/Systems/1 200", "GET /redfish/v1/Systems/1/SecureBoot 200",
	}
	ironicNextPass = ironicFirstPass[2:]
)

// internalError is the error of a GET of the service root that the
// emulator answers 500, as Ironic 21.4 words it in the maintenance reason
// (recorded by MAX_RETRIES=0 dev/bench-power-sync.sh ref); %s is the
// BMC's address.
const internalError = "HTTP GET %s/redfish/v1/ returned code 500. Base.1.16.0.GeneralError: The request failed due to an " +
	"internal service error.  The service is still operational. Extended information: [{'@odata.type': " +
	"'#Message.v1_1_1.Message', 'Message': 'The request failed due to an internal service error.  The service is " +
	"still operational.', 'MessageArgs': [], 'MessageId': 'Base.1.16.0.InternalError', 'MessageSeverity': 'Critical', " +
	"'Resolution': 'Resubmit the request.  If the problem persists, consider resetting the service.', 'Severity': 'Critical'}]"

// failingPass is what a BMC answering 500 receives in one pass: a single
// GET of the service root, where sushy would send eleven (a departure:
// docs/departures.md, "Power sync").
var failingPass = []string{"GET /redfish/v1/ 500"}

// maxRetriesReason is handle_sync_power_state_max_retries_exceeded's
// message for a node whose BMC kept failing.
func maxRetriesReason(n *models.Node, recorded states.Power, err string) string {
	return fmt.Sprintf("During sync_power_state, max retries exceeded for node %s, node state None does not match expected state '%s'. "+
		"Updating DB state to 'None' Switching node to maintenance mode. Error: %s", n.UUID, recorded, err)
}

// TestPowerSyncAsIronic runs passes over 40 nodes, 4 of whose BMCs answer
// 500: the first pass corrects every stale node that answers and sends the
// BMCs what Ironic sends, and each failing BMC one request; a failing node is left alone until its
// power_state_sync_max_retries+1-th failed pass, which puts it in
// maintenance with fault "power failure" and Ironic's reason; the
// recovery job brings it back once its BMC answers.
func TestPowerSyncAsIronic(t *testing.T) {
	s := newSetup(t, load{nodes: 40, failEvery: 10, fault: redfishbmc.Fault{Status: http.StatusInternalServerError}, redfish: instant})
	ctx := context.Background()
	if got := s.stale(t); got != 4 {
		t.Fatalf("%d healthy nodes stale before the pass, want 4", got)
	}
	s.emu.ResetRequests()
	s.pass(t)
	if got := s.stale(t); got != 0 {
		t.Errorf("%d healthy nodes stale after a pass", got)
	}
	for i, b := range s.bmcs {
		got := requestsOf(s.emu, b)
		if s.failing[i] {
			if !slices.Equal(got, failingPass) {
				t.Errorf("failing BMC %s received %q, want %q: one attempt per pass", b.Name(), got, failingPass)
			}
			continue
		}
		if !slices.Equal(got, ironicFirstPass) {
			t.Errorf("BMC %s, first pass:\n got %q\nwant %q", b.Name(), got, ironicFirstPass)
		}
	}
	for pass := 2; pass <= 4; pass++ {
		for i, n := range s.nodes {
			if got, _ := s.store.GetNodeByID(ctx, n.ID); s.failing[i] && (got.Maintenance || models.Deref(got.PowerState) != states.PowerOff) {
				t.Fatalf("before pass %d: failing node %s maintenance %v power %v", pass, n.UUID, got.Maintenance, got.PowerState)
			}
		}
		s.emu.ResetRequests()
		s.pass(t)
		if pass == 2 {
			for i, b := range s.bmcs {
				want := ironicNextPass
				if s.failing[i] {
					want = failingPass
				}
				if got := requestsOf(s.emu, b); !slices.Equal(got, want) {
					t.Errorf("BMC %s, second pass:\n got %q\nwant %q", b.Name(), got, want)
				}
			}
		}
	}
	for i, n := range s.nodes {
		got, err := s.store.GetNodeByID(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !s.failing[i] {
			if got.Maintenance || got.Fault != nil {
				t.Errorf("healthy node %s: maintenance %v fault %v", n.UUID, got.Maintenance, got.Fault)
			}
			continue
		}
		want := maxRetriesReason(n, states.PowerOff, fmt.Sprintf(internalError, s.urls[i]))
		if !got.Maintenance || models.Deref(got.Fault) != states.PowerFailure || got.PowerState != nil ||
			models.Deref(got.MaintenanceReason) != want || models.Deref(got.LastError) != want {
			t.Errorf("failing node %s after 4 passes: maintenance %v fault %v power %v\nreason %q\n  want %q",
				n.UUID, got.Maintenance, got.Fault, got.PowerState, models.Deref(got.MaintenanceReason), want)
		}
	}

	// The BMC answers again: _power_failure_recovery ends the maintenance.
	s.bmcs[9].SetFault(redfishbmc.Fault{})
	if err := s.m.PowerFailureRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := s.store.GetNodeByID(ctx, s.nodes[9].ID)
	if got.Maintenance || got.Fault != nil || models.Deref(got.PowerState) != states.PowerOff {
		t.Errorf("recovered node: maintenance %v fault %v power %v", got.Maintenance, got.Fault, got.PowerState)
	}
}

// TestPowerSyncHangingBMC: BMCs that accept connections and never answer
// fail the pass for their nodes after PowerSyncReadTimeout, without
// holding the pass (Ironic's sushy sets no timeout: its workers wait
// forever), and go to maintenance after the retries.
func TestPowerSyncHangingBMC(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s := newSetup(t, load{nodes: 20, failEvery: 10, fault: redfishbmc.Fault{Hang: true}, redfish: instant,
		tune: func(c *conductor.Config) { c.PowerSyncReadTimeout, c.SyncPowerStateWorkers = timeout, 2 }})
	for pass := 1; pass <= 4; pass++ {
		took, _ := s.pass(t)
		// Each worker meets one hanging BMC at most once.
		if took > 2*timeout+5*time.Second {
			t.Fatalf("pass %d took %v", pass, took)
		}
		if pass == 1 {
			if got := s.stale(t); got != 0 {
				t.Errorf("%d healthy nodes stale", got)
			}
		}
	}
	for i, n := range s.nodes {
		got, err := s.store.GetNodeByID(context.Background(), n.ID)
		if err != nil {
			t.Fatal(err)
		}
		prefix := maxRetriesReason(n, states.PowerOff, "")
		if s.failing[i] != got.Maintenance || s.failing[i] && (models.Deref(got.Fault) != states.PowerFailure ||
			!strings.HasPrefix(models.Deref(got.MaintenanceReason), prefix)) {
			t.Errorf("node %s (hanging %v): maintenance %v fault %v reason %q", n.UUID, s.failing[i], got.Maintenance,
				got.Fault, models.Deref(got.MaintenanceReason))
		}
	}
}

// BenchmarkPowerSync1000 is one power sync pass over 1,000 redfish nodes
// on the in-process emulator with 50 ms of latency per request and a
// tenth of the BMCs answering 500, at Ironic's default worker settings
// ([conductor]sync_power_state_workers and periodic_max_workers 8) and
// the driver's own timing (sushy's retry delays are real). "first" is
// the pass after the conductor starts (sessions are established), "next"
// a pass after it. Besides ns/op: the requests the BMCs received per
// pass, and plain-ms, the time a plain Go loop takes to send as many
// requests to the same BMCs from as many goroutines (the physical limit
// of a pass), with x-plain the ratio. A pass that leaves a healthy node
// with a stale power state fails the benchmark.
//
// heap-growth-MiB is how much the heap in use (after a GC) grew over the
// last pass, goroutines how many run right after it; -heapprofile FILE
// writes the heap profile after the "first" pass (go tool pprof
// -sample_index=inuse_space FILE).
//
//	go test ./test/powersync -run '^$' -bench PowerSync1000 -benchtime 1x
func BenchmarkPowerSync1000(b *testing.B) {
	l := load{nodes: 1000, latency: 50 * time.Millisecond, failEvery: 10, fault: redfishbmc.Fault{Status: http.StatusInternalServerError}}
	workers := min(conductor.DefaultConfig().SyncPowerStateWorkers, conductor.DefaultConfig().PeriodicMaxWorkers)
	report := func(b *testing.B, s *setup, total time.Duration, requests int64, mem memAfter) {
		if got := s.stale(b); got != 0 {
			b.Fatalf("%d healthy nodes stale after the pass", got)
		}
		b.StopTimer()
		perOp := int(requests) / b.N
		plain := s.plainLoop(b, perOp, workers)
		b.ReportMetric(float64(perOp), "requests/op")
		b.ReportMetric(float64(plain.Milliseconds()), "plain-ms")
		b.ReportMetric(float64(total)/float64(b.N)/float64(plain), "x-plain")
		b.ReportMetric(mem.heapGrowth/(1<<20), "heap-growth-MiB")
		b.ReportMetric(float64(mem.goroutines), "goroutines")
	}
	b.Run("first", func(b *testing.B) {
		var total time.Duration
		var requests int64
		var s *setup
		var mem memAfter
		for range b.N {
			b.StopTimer()
			s = newSetup(b, l)
			before := measure(b, "")
			b.StartTimer()
			d, r := s.pass(b)
			b.StopTimer()
			s.sentToEveryBMC(b, r)
			mem = measure(b, *heapProfile)
			mem.heapGrowth -= before.heapGrowth
			b.StartTimer()
			total += d
			requests += r
		}
		report(b, s, total, requests, mem)
	})
	b.Run("next", func(b *testing.B) {
		s := newSetup(b, l)
		s.pass(b)
		b.ResetTimer()
		var total time.Duration
		var requests int64
		var mem memAfter
		for range b.N {
			b.StopTimer()
			before := measure(b, "")
			b.StartTimer()
			d, r := s.pass(b)
			b.StopTimer()
			s.sentToEveryBMC(b, r)
			mem = measure(b, "")
			mem.heapGrowth -= before.heapGrowth
			b.StartTimer()
			total += d
			requests += r
		}
		report(b, s, total, requests, mem)
	})
}

// TestPowerSyncLeavesNoGoroutines: passes over healthy, failing (500) and
// hanging BMCs leave behind no goroutine once the driver's idle
// connections have timed out, and right after a pass at most the shared
// transport's idle connections (two per BMC, client and server side).
func TestPowerSyncLeavesNoGoroutines(t *testing.T) {
	const (
		nodes       = 30
		idleTimeout = 200 * time.Millisecond
		readTimeout = 300 * time.Millisecond
	)
	s := newSetup(t, load{nodes: nodes, failEvery: 10, fault: redfishbmc.Fault{Status: http.StatusInternalServerError},
		redfish: func(c *redfish.Config) { instant(c); c.IdleConnTimeout = idleTimeout },
		tune:    func(c *conductor.Config) { c.PowerSyncReadTimeout, c.SyncPowerStateWorkers = readTimeout, 4 }})
	for i := 4; i < nodes; i += 10 {
		s.bmcs[i].SetFault(redfishbmc.Fault{Hang: true})
		s.failing[i] = true
	}
	baseline := runtime.NumGoroutine()
	settled := func() int {
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= baseline || time.Now().After(deadline) {
				return n
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for pass := 1; pass <= 3; pass++ {
		s.pass(t)
		// Per healthy BMC at most two idle connections, each a read
		// and a write loop in the driver and a server goroutine.
		if n, bound := runtime.NumGoroutine(), baseline+nodes*2*3; n > bound {
			t.Errorf("pass %d: %d goroutines right after the pass, want at most %d", pass, n, bound)
		}
		if n := settled(); n > baseline {
			buf := make([]byte, 1<<20)
			t.Fatalf("pass %d: %d goroutines %v after the pass, %d before:\n%s", pass, n, 10*time.Second, baseline,
				buf[:runtime.Stack(buf, true)])
		}
	}
	if got := s.stale(t); got != 0 {
		t.Errorf("%d healthy nodes stale", got)
	}
}
