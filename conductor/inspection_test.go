package conductor_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/inspector"
	"github.com/goironic/ironic/drivers/inspector/inspectorclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// fakeInspector is an in-memory inspector.Client.
type fakeInspector struct {
	mu       sync.Mutex
	calls    []string
	started  chan string
	status   inspector.Status
	startErr error
}

func (f *fakeInspector) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeInspector) StartIntrospection(_ context.Context, uuid string, manageBoot bool) error {
	f.record(fmt.Sprintf("start %v", manageBoot))
	f.started <- uuid
	return f.startErr
}
func (f *fakeInspector) AbortIntrospection(context.Context, string) error {
	f.record("abort")
	return nil
}
func (f *fakeInspector) GetIntrospection(context.Context, string) (inspector.Status, error) {
	f.record("status")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, nil
}
func (f *fakeInspector) GetIntrospectionData(context.Context, string) (*pyjson.Dict, error) {
	f.record("data")
	return pyjson.DictOf("inventory", pyjson.DictOf("cpu", pyjson.DictOf("count", 2)), "root_disk", pyjson.DictOf("name", "/dev/vda")), nil
}
func (f *fakeInspector) Endpoint(context.Context) (string, error) {
	return "http://192.0.2.1:5050", nil
}

// withInspector enables the inspector interface with client c.
func withInspector(c inspector.Client) harnessOpt {
	return func(hc *harnessCfg) {
		hc.drivers.Enabled["inspect"] = append(hc.drivers.Enabled["inspect"], "inspector")
		hc.added = append(hc.added, inspector.Implementations(inspector.Config{Client: c, DataBackend: "database", PowerOff: true, StatusCheckPeriod: 1})...)
	}
}

// Inspection through inspector: the start call runs once the node's lock
// is released; the status poll stores the inventory (replacing the
// previous one) and ends in manageable; an inspector error fails it.
func TestInspectorInspection(t *testing.T) {
	ctx := context.Background()
	store := dbtest.SQLite(t)
	fi := &fakeInspector{started: make(chan string, 1)}
	h := newHarness(t, store, withInspector(fi))
	n := h.node(t, "fake-hardware", db.Values{"provision_state": states.Manageable, "inspect_interface": "inspector"})
	poll := func() {
		t.Helper()
		for _, p := range h.m.NodePeriodicsForTest() {
			if p.Impl == "inspector" {
				if err := h.m.RunNodePeriodic(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for round := range 2 {
		if err := h.m.InspectHardware(ctx, "", n.UUID); err != nil {
			t.Fatal(err)
		}
		if got := <-fi.started; got != n.UUID {
			t.Fatalf("started %s", got)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if ps := models.Deref(got.ProvisionState); ps != states.InspectWait || got.Reservation != nil {
			t.Fatalf("round %d: %s, reservation %v", round, ps, got.Reservation)
		}
		poll() // not finished yet
		if ps := models.Deref(h.reload(t, n).ProvisionState); ps != states.InspectWait {
			t.Fatalf("after an unfinished poll: %s", ps)
		}
		fi.mu.Lock()
		fi.status = inspector.Status{Finished: true}
		fi.mu.Unlock()
		poll()
		got = h.reload(t, n)
		if ps := models.Deref(got.ProvisionState); ps != states.Manageable || got.LastError != nil {
			t.Fatalf("round %d: %s (%v)", round, ps, got.LastError)
		}
		if got.DriverInternalInfo.Dict != nil && got.DriverInternalInfo.Dict.Has("inspector_manage_boot") {
			t.Errorf("driver_internal_info keeps inspector_manage_boot: %v", got.DriverInternalInfo.Dict)
		}
		inv, err := store.GetNodeInventoryByNodeID(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if inv.PluginData.Dict.Get("root_disk") == nil || inv.InventoryData.Dict.Get("cpu") == nil {
			t.Errorf("inventory %v, plugin data %v", inv.InventoryData.Dict, inv.PluginData.Dict)
		}
		fi.mu.Lock()
		fi.status = inspector.Status{}
		fi.mu.Unlock()
	}
	// An error reported by inspector.
	if err := h.m.InspectHardware(ctx, "", n.UUID); err != nil {
		t.Fatal(err)
	}
	<-fi.started
	h.m.Wait()
	fi.mu.Lock()
	fi.status = inspector.Status{Finished: true, Error: "boom"}
	fi.mu.Unlock()
	poll()
	got := h.reload(t, n)
	if ps := models.Deref(got.ProvisionState); ps != states.InspectFailed || models.Deref(got.LastError) != "ironic-inspector inspection failed: boom" {
		t.Fatalf("%s (%v)", ps, models.Deref(got.LastError))
	}
	// A start that fails fails the node once the lock is free again.
	fi.startErr = fmt.Errorf("no")
	if _, err := store.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": states.Manageable}); err != nil {
		t.Fatal(err)
	}
	if err := h.m.InspectHardware(ctx, "", n.UUID); err != nil {
		t.Fatal(err)
	}
	<-fi.started
	h.m.Wait()
	got = h.reload(t, n)
	if ps := models.Deref(got.ProvisionState); ps != states.InspectFailed || models.Deref(got.LastError) != "Failed to start inspection: no" {
		t.Fatalf("%s (%v)", ps, models.Deref(got.LastError))
	}
}

// BenchmarkStatusCheck1000 is one status check pass over 1,000 nodes in
// inspect wait on SQLite, against an inspector (HTTP, on this machine)
// whose introspections are all unfinished: one discovery query, then
// per node a shared task and one GET /v1/introspection/{uuid}, as
// Ironic does (one request per node per status_check_period).
func BenchmarkStatusCheck1000(b *testing.B) {
	ctx := context.Background()
	store := dbtest.SQLite(b)
	var requests int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"finished": false, "error": null, "state": "waiting"}`))
	}))
	defer srv.Close()
	client := inspectorclient.New(inspectorclient.Config{Options: keystoneauth.Options{EndpointOverride: srv.URL}}, nil)
	h := newHarness(b, store, withInspector(client))
	const nodes = 1000
	for i := range nodes {
		if _, err := store.CreateNode(ctx, &models.Node{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Driver: "fake-hardware",
			ProvisionState: models.Ptr(states.InspectWait), InspectInterface: models.Ptr("inspector")}); err != nil {
			b.Fatal(err)
		}
	}
	var p drivers.KindPeriodic
	for _, kp := range h.m.NodePeriodicsForTest() {
		if kp.Impl == "inspector" {
			p = kp
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := h.m.RunNodePeriodic(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	// One version discovery, then one status request per node and pass.
	if want := 1 + nodes*b.N; requests != want {
		b.Fatalf("%d requests to inspector, want %d", requests, want)
	}
	b.ReportMetric(float64(requests-1)/float64(b.N), "requests/pass")
}
