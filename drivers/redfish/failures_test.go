package redfish_test

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

func wantFault(t *testing.T, err error, class ironic.Class, msg string) {
	t.Helper()
	if !ironic.IsClass(err, class) || !strings.HasPrefix(err.Error(), msg) {
		t.Fatalf("error %v, want %s %q", err, class, msg)
	}
}

// A wrong password: the session is refused, sushy's auto mode falls back
// to basic authentication, which the BMC refuses too: RedfishError, and
// the connection is not kept (the next call authenticates again).
func TestWrongPassword(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	r.task.Node.DriverInfo.Set("redfish_password", "wrong")
	ctx := context.Background()
	for range 2 {
		_, err := r.drv.Power.GetPowerState(ctx, r.task)
		wantFault(t, err, ironic.RedfishError, "Redfish exception occurred. Error: HTTP GET "+r.ts.URL+"/redfish/v1/Systems/1 returned code 401. Base.1.16.0.GeneralError: ")
		r.wantRequests(
			"GET /redfish/v1/",
			`POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`,
			"GET /redfish/v1/Systems/1",
		)
	}
}

func TestAuthTypes(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.AuthType = "basic" })
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	r.wantRequests("GET /redfish/v1/", "GET /redfish/v1/Systems/1")

	// Session only: the refused session is the error.
	r = newRig(t, redfishbmc.SystemSpec{})
	r.task.Node.DriverInfo.Set("redfish_auth_type", "session")
	r.task.Node.DriverInfo.Set("redfish_password", "wrong")
	_, err := r.drv.Power.GetPowerState(ctx, r.task)
	wantFault(t, err, ironic.RedfishError, "Redfish exception occurred. Error: HTTP POST "+r.ts.URL+"/redfish/v1/SessionService/Sessions returned code 401.")
	r.wantRequests("GET /redfish/v1/", `POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`)
}

// A BMC that forgot the session (restarted): the 401 makes a new session,
// and the request is sent again.
func TestSessionLostReauthenticates(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	r.requests()
	r.ts.Default().SetCredentials("admin", "password") // ends every session
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	r.wantRequests(
		"GET /redfish/v1/Systems/1",
		`POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`,
		"GET /redfish/v1/Systems/1",
	)
}

// A BMC answering 5xx: sushy retries a GET ten times, three seconds apart;
// the error is sushy's, with the BMC's message.
func TestServerErrorRetriedOnGET(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	r.ts.Default().SetFault(redfishbmc.Fault{Status: 503})
	_, err := r.drv.Power.GetPowerState(context.Background(), r.task)
	wantFault(t, err, ironic.IronicException, "HTTP GET "+r.ts.URL+"/redfish/v1/ returned code 503.")
	if got := len(r.requests()); got != 11 {
		t.Errorf("%d requests, want 11", got)
	}
	if len(r.slept) != 10 || r.slept[0] != 3*time.Second {
		t.Errorf("slept %v", r.slept)
	}
}

// An address nothing listens on: connection_attempts tries,
// connection_retry_interval apart, then RedfishConnectionError.
func TestUnreachableBMC(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	r.task.Node.DriverInfo.Set("redfish_address", "http://"+addr)
	_, err = r.drv.Power.GetPowerState(context.Background(), r.task)
	wantFault(t, err, ironic.RedfishConnectionError, "Redfish connection failed for node "+r.task.Node.UUID+": Unable to connect to http://"+addr+"/redfish/v1/. Error: ")
	want := []time.Duration{4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}
	if len(r.slept) != len(want) || r.slept[0] != want[0] {
		t.Errorf("slept %v, want %v", r.slept, want)
	}
}

// Under drivers.SingleAttempt (the power sync's reads) neither the 5xx
// retries nor the connection attempts run: one request, no sleep.
func TestSingleAttempt(t *testing.T) {
	ctx := drivers.SingleAttempt(context.Background())
	r := newRig(t, redfishbmc.SystemSpec{})
	r.ts.Default().SetFault(redfishbmc.Fault{Status: 503})
	_, err := r.drv.Power.GetPowerState(ctx, r.task)
	wantFault(t, err, ironic.IronicException, "HTTP GET "+r.ts.URL+"/redfish/v1/ returned code 503.")
	r.wantRequests("GET /redfish/v1/")
	if len(r.slept) != 0 {
		t.Errorf("slept %v", r.slept)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	r.task.Node.DriverInfo.Set("redfish_address", "http://"+addr)
	_, err = r.drv.Power.GetPowerState(ctx, r.task)
	wantFault(t, err, ironic.RedfishConnectionError, "Redfish connection failed for node "+r.task.Node.UUID+": Unable to connect to http://"+addr+"/redfish/v1/. Error: ")
	if len(r.slept) != 0 {
		t.Errorf("slept %v", r.slept)
	}
}

// A BMC that never answers: every request ends at the request timeout,
// the node's operation fails, and nothing is left running.
func TestHangingBMCLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		r := newRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) {
			c.RequestTimeout = 100 * time.Millisecond
			c.ConnectionAttempts = 2
		})
		r.ts.Default().SetFault(redfishbmc.Fault{Hang: true})
		for range 3 {
			_, err := r.drv.Power.GetPowerState(context.Background(), r.task)
			wantFault(t, err, ironic.RedfishConnectionError, "Redfish connection failed for node")
		}
		redfish.CloseImplementations(r.drv)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// A reset the BMC accepts and ignores: the power state is polled with
// backing-off intervals until power_state_change_timeout, then
// PowerStateFailure.
func TestResetNeverTakesEffect(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff})
	r.ts.Default().SetFault(redfishbmc.Fault{IgnoreReset: true})
	err := r.drv.Power.SetPowerState(context.Background(), r.task, states.PowerOn, 30*time.Second)
	wantFault(t, err, ironic.PowerStateFailure, "Failed to set node power state to power on.")
	var total time.Duration
	for _, d := range r.slept {
		total += d
	}
	if total > 31*time.Second || len(r.slept) < 4 || r.slept[0] != time.Second {
		t.Errorf("slept %v (%v in all)", r.slept, total)
	}
}

// A system id that doesn't exist: RedfishError naming the resource.
func TestBadSystemID(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	r.task.Node.DriverInfo.Set("redfish_system_id", "/redfish/v1/Systems/nope")
	_, err := r.drv.Power.GetPowerState(context.Background(), r.task)
	wantFault(t, err, ironic.RedfishError, "Redfish exception occurred. Error: Resource "+r.ts.URL+"/redfish/v1/Systems/nope not found")
}

// Without redfish_system_id, the only system is found; with two, sushy's
// error.
func TestSystemDiscovery(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	r.task.Node.DriverInfo.Delete("redfish_system_id")
	ctx := context.Background()
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	r.wantRequests("GET /redfish/v1/", `POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`,
		"GET /redfish/v1/Systems", "GET /redfish/v1/Systems/1", "GET /redfish/v1/Systems/1")
	r.ts.AddSystem(redfishbmc.SystemSpec{})
	_, err := r.drv.Power.GetPowerState(ctx, r.task)
	wantFault(t, err, ironic.IronicException, `Failed at determining default for "ComputerSystem": System count is not exactly one`)
}

// The connection cache keeps connection_cache_size sessions; the oldest
// is closed on its BMC when a new one would exceed the bound.
func TestConnectionCacheBound(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.ConnectionCacheSize = 1 })
	other, err := r.ts.AddBMC("b2", redfishbmc.BMCSpec{})
	if err != nil {
		t.Fatal(err)
	}
	other.AddSystem(redfishbmc.SystemSpec{})
	url2 := r.ts.ListenBMC(other)
	ctx := context.Background()
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	if n := r.ts.Default().Sessions(); n != 1 {
		t.Fatalf("%d sessions", n)
	}
	r.task.Node.DriverInfo.Set("redfish_address", url2)
	if _, err := r.drv.Power.GetPowerState(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.ts.Default().Sessions() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := r.ts.Default().Sessions(); n != 0 {
		t.Errorf("the evicted session is still open (%d)", n)
	}
	if n := other.Sessions(); n != 1 {
		t.Errorf("%d sessions on the second BMC", n)
	}
}

// Without redfish_password Ironic 21.4 fails before any request (it
// hashes the password for its cache key: 'NoneType' object has no
// attribute 'encode'); ours tries the BMC, which refuses.
func TestNoPassword(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	r.task.Node.DriverInfo.Delete("redfish_password")
	_, err := r.drv.Power.GetPowerState(context.Background(), r.task)
	wantFault(t, err, ironic.RedfishError, "Redfish exception occurred. Error: HTTP GET "+r.ts.URL+"/redfish/v1/Systems/1 returned code 401.")
	r.wantRequests("GET /redfish/v1/", `POST /redfish/v1/SessionService/Sessions {"Password":"***","UserName":"admin"}`, "GET /redfish/v1/Systems/1")
}
