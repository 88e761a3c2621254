package redfishbmc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/test/redfishbmc"
)

// do sends one request with basic credentials (user "admin" unless
// given) and returns the status, headers and decoded body.
func do(t *testing.T, method, url, body string, header ...string) (int, http.Header, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("admin", "password")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Authorization" && header[i+1] == "" {
			req.Header.Del("Authorization")
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, url, raw, err)
		}
	}
	return resp.StatusCode, resp.Header, m
}

// extended is the first @Message.ExtendedInfo entry of an error body.
func extended(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	e, _ := body["error"].(map[string]any)
	infos, _ := e["@Message.ExtendedInfo"].([]any)
	if len(infos) == 0 {
		t.Fatalf("no @Message.ExtendedInfo in %v", body)
	}
	return infos[0].(map[string]any)
}

func TestErrors(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	ts.AddSystem(redfishbmc.SystemSpec{})
	sysURL := ts.URL + "/redfish/v1/Systems/1"
	for _, tc := range []struct {
		name, method, path, body string
		header                   []string
		status                   int
		messageID                string
		// resolution, when set, must appear in the Resolution.
		resolution string
	}{
		{name: "bad reset type", method: "POST", path: "/Actions/ComputerSystem.Reset", body: `{"ResetType":"Explode"}`,
			status: 400, messageID: "ActionParameterValueNotInList", resolution: "'On', 'ForceOff'"},
		{name: "reset without type", method: "POST", path: "/Actions/ComputerSystem.Reset", body: `{}`,
			status: 400, messageID: "ActionParameterMissing"},
		{name: "reset type not a string", method: "POST", path: "/Actions/ComputerSystem.Reset", body: `{"ResetType":1}`,
			status: 400, messageID: "ActionParameterValueTypeError"},
		{name: "bad boot target", method: "PATCH", path: "", body: `{"Boot":{"BootSourceOverrideTarget":"Tape"}}`,
			status: 400, messageID: "PropertyValueNotInList", resolution: "'Pxe'"},
		{name: "bad boot enabled", method: "PATCH", path: "", body: `{"Boot":{"BootSourceOverrideEnabled":"Twice"}}`,
			status: 400, messageID: "PropertyValueNotInList", resolution: "'Once', 'Continuous'"},
		{name: "unknown property", method: "PATCH", path: "", body: `{"Colour":"red"}`,
			status: 400, messageID: "PropertyUnknown"},
		{name: "read-only property", method: "PATCH", path: "", body: `{"PowerState":"On"}`,
			status: 400, messageID: "PropertyNotWritable"},
		{name: "malformed JSON", method: "PATCH", path: "", body: `{"Boot":`,
			status: 400, messageID: "MalformedJSON"},
		{name: "stale ETag", method: "PATCH", path: "", body: `{"IndicatorLED":"Lit"}`, header: []string{"If-Match", `W/"0"`},
			status: 412, messageID: "PreconditionFailed"},
		{name: "no credentials", method: "GET", path: "", header: []string{"Authorization", ""},
			status: 401, messageID: "NoValidSession"},
		{name: "bad token", method: "GET", path: "", header: []string{"X-Auth-Token", "nope"},
			status: 401, messageID: "NoValidSession"},
		{name: "no such system", method: "GET", path: "/../2",
			status: 404, messageID: "ResourceMissingAtURI"},
		{name: "delete a system", method: "DELETE", path: "",
			status: 405, messageID: "OperationNotAllowed"},
		{name: "unknown BIOS attribute", method: "PATCH", path: "/Bios/Settings", body: `{"Attributes":{"Warp":"9"}}`,
			status: 400, messageID: "PropertyUnknown"},
		{name: "read-only BIOS attribute", method: "PATCH", path: "/Bios/Settings", body: `{"Attributes":{"SerialNumber":"x"}}`,
			status: 400, messageID: "PropertyNotWritable"},
		{name: "bad RAID type", method: "POST", path: "/Storage/1/Volumes", body: `{"RAIDType":"RAID7"}`,
			status: 400, messageID: "PropertyValueNotInList", resolution: "'RAID1'"},
		{name: "too few drives", method: "POST", path: "/Storage/1/Volumes", body: `{"RAIDType":"RAID5"}`,
			status: 400, messageID: "PropertyValueConflict"},
		{name: "volume too large", method: "POST", path: "/Storage/1/Volumes", body: `{"RAIDType":"RAID0","CapacityBytes":1000000000000000}`,
			status: 400, messageID: "PropertyValueOutOfRange"},
		{name: "bad reset keys", method: "POST", path: "/SecureBoot/Actions/SecureBoot.ResetKeys", body: `{"ResetKeysType":"Forget"}`,
			status: 400, messageID: "ActionParameterValueNotInList"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := sysURL + tc.path
			if strings.HasPrefix(tc.path, "/..") {
				url = ts.URL + "/redfish/v1/Systems/2"
			}
			status, _, body := do(t, tc.method, url, tc.body, tc.header...)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			info := extended(t, body)
			if id := info["MessageId"]; id != "Base.1.16.0."+tc.messageID {
				t.Errorf("MessageId %v, want %s", id, tc.messageID)
			}
			if res, _ := info["Resolution"].(string); !strings.Contains(res, tc.resolution) {
				t.Errorf("Resolution %q lacks %q", res, tc.resolution)
			}
		})
	}
}

func TestSessions(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	ts.AddSystem(redfishbmc.SystemSpec{})
	status, _, _ := do(t, "POST", ts.URL+"/redfish/v1/SessionService/Sessions", `{"UserName":"admin","Password":"nope"}`)
	if status != 401 {
		t.Fatalf("session with a wrong password: %d", status)
	}
	status, h, body := do(t, "POST", ts.URL+"/redfish/v1/SessionService/Sessions", `{"UserName":"admin","Password":"password"}`,
		"Authorization", "")
	tok, loc := h.Get("X-Auth-Token"), h.Get("Location")
	if status != 201 || tok == "" || !strings.HasPrefix(loc, "/redfish/v1/SessionService/Sessions/") || body["UserName"] != "admin" {
		t.Fatalf("session: %d %v %v", status, h, body)
	}
	if status, _, _ := do(t, "GET", ts.URL+"/redfish/v1/Systems", "", "Authorization", "", "X-Auth-Token", tok); status != 200 {
		t.Fatalf("GET with the token: %d", status)
	}
	ts.Default().SetCredentials("admin", "changed")
	if status, _, _ := do(t, "GET", ts.URL+"/redfish/v1/Systems", "", "Authorization", "", "X-Auth-Token", tok); status != 401 {
		t.Fatalf("GET with the token after a credentials change: %d", status)
	}
	if status, _, _ := do(t, "GET", ts.URL+"/redfish/v1/Systems", ""); status != 401 {
		t.Fatalf("GET with the old password: %d", status)
	}
	// The service root needs no credentials.
	if status, _, _ := do(t, "GET", ts.URL+"/redfish/v1/", "", "Authorization", ""); status != 200 {
		t.Fatalf("service root: %d", status)
	}
	if status, _, body := do(t, "GET", ts.URL+"/redfish", "", "Authorization", ""); status != 200 || body["v1"] != "/redfish/v1/" {
		t.Fatalf("/redfish: %d %v", status, body)
	}
}

// TestETag: a GET's ETag is accepted by a PATCH (weak or strong), and
// goes stale when the resource changes.
func TestETag(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	ts.AddSystem(redfishbmc.SystemSpec{})
	url := ts.URL + "/redfish/v1/Systems/1"
	_, h, _ := do(t, "GET", url, "")
	etag := h.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) || !strings.Contains(h.Get("Allow"), "PATCH") {
		t.Fatalf("ETag %q Allow %q", etag, h.Get("Allow"))
	}
	if status, _, _ := do(t, "PATCH", url, `{"IndicatorLED":"Lit"}`, "If-Match", strings.TrimPrefix(etag, "W/")); status != 204 {
		t.Fatalf("PATCH with the strong form of the ETag: %d", status)
	}
	if status, _, _ := do(t, "PATCH", url, `{"IndicatorLED":"Off"}`, "If-Match", etag); status != 412 {
		t.Fatalf("PATCH with a stale ETag: %d", status)
	}
}

func TestFaults(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	sys := ts.AddSystem(redfishbmc.SystemSpec{})
	url := ts.URL + "/redfish/v1/Systems/1"

	ts.Default().SetFault(redfishbmc.Fault{Status: 503})
	if status, _, body := do(t, "GET", url, ""); status != 503 || extended(t, body)["MessageId"] != "Base.1.16.0.InternalError" {
		t.Fatalf("status %d body %v", status, body)
	}

	ts.Default().SetFault(redfishbmc.Fault{IgnoreReset: true})
	if status, _, _ := do(t, "POST", url+"/Actions/ComputerSystem.Reset", `{"ResetType":"On"}`); status != 204 {
		t.Fatalf("ignored reset answered %d", status)
	}
	if sys.PowerState() != redfishbmc.PowerOff || len(sys.Resets()) != 0 {
		t.Fatalf("an ignored reset took effect: %s %v", sys.PowerState(), sys.Resets())
	}

	ts.Default().SetFault(redfishbmc.Fault{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a hanging BMC answered: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the client waited %v", d)
	}
	ts.Default().SetFault(redfishbmc.Fault{})
	if status, _, _ := do(t, "GET", url, ""); status != 200 {
		t.Fatalf("healed BMC: %d", status)
	}
	// The hung request is in the log, unanswered.
	var hung int
	for _, r := range ts.Requests() {
		if r.Status == 0 {
			hung++
		}
	}
	if hung != 1 {
		t.Fatalf("%d unanswered requests logged, want 1", hung)
	}
}

// TestLatency: the latency goes through Options.Sleep, per BMC and for
// all.
func TestLatency(t *testing.T) {
	var mu sync.Mutex
	var slept []time.Duration
	ts := redfishbmc.ForTest(t, redfishbmc.Options{Latency: 50 * time.Millisecond, Sleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slept = append(slept, d)
		return nil
	}})
	ts.AddSystem(redfishbmc.SystemSpec{})
	ts.Default().SetLatency(time.Second)
	do(t, "GET", ts.URL+"/redfish/v1/", "")
	mu.Lock()
	defer mu.Unlock()
	if len(slept) != 1 || slept[0] != time.Second+50*time.Millisecond {
		t.Fatalf("slept %v", slept)
	}
}

// TestInsertMediaBounds: a BMC refuses images it can't fetch, too large
// ones, and ones that take too long, with CouldNotEstablishConnection
// or InsufficientStorage, and the device stays empty.
func TestInsertMediaBounds(t *testing.T) {
	release := make(chan struct{})
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big.iso":
			_, _ = w.Write(bytes.Repeat([]byte("x"), 2048))
		case "/slow.iso":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(images.Close)
	t.Cleanup(func() { close(release) })
	ts := redfishbmc.ForTest(t, redfishbmc.Options{MaxImageBytes: 1024, ImageTimeout: 200 * time.Millisecond})
	sys := ts.AddSystem(redfishbmc.SystemSpec{})
	insert := ts.URL + "/redfish/v1/Managers/1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia"
	for _, tc := range []struct{ image, messageID string }{
		{images.URL + "/missing.iso", "CouldNotEstablishConnection"},
		{"ftp://127.0.0.1/x.iso", "CouldNotEstablishConnection"},
		{images.URL + "/big.iso", "InsufficientStorage"},
		{images.URL + "/slow.iso", "CouldNotEstablishConnection"},
	} {
		status, _, body := do(t, "POST", insert, `{"Image":"`+tc.image+`"}`)
		if status != 400 || extended(t, body)["MessageId"] != "Base.1.16.0."+tc.messageID {
			t.Errorf("%s: %d %v", tc.image, status, body)
		}
	}
	if m, _ := sys.VirtualMedia("Cd"); m.Inserted {
		t.Fatalf("cd %+v", m)
	}
	if status, _, body := do(t, "POST", insert, `{}`); status != 400 || extended(t, body)["MessageId"] != "Base.1.16.0.ActionParameterMissing" {
		t.Fatalf("no Image: %d %v", status, body)
	}
}

// TestVirtualMediaViaPatch: without the actions, sushy and gofish PATCH
// Image; the BMC downloads it the same way.
func TestVirtualMediaViaPatch(t *testing.T) {
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("iso")) }))
	t.Cleanup(images.Close)
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	sys := ts.AddSystem(redfishbmc.SystemSpec{VirtualMediaViaPatch: true})
	url := ts.URL + "/redfish/v1/Managers/1/VirtualMedia/Floppy"
	_, h, body := do(t, "GET", url, "")
	if _, ok := body["Actions"]; ok || !strings.Contains(h.Get("Allow"), "PATCH") {
		t.Fatalf("Actions offered (%v) or PATCH not allowed (%q)", body["Actions"], h.Get("Allow"))
	}
	if status, _, b := do(t, "PATCH", url, `{"Image":"`+images.URL+`/u.img","Inserted":true,"WriteProtected":false}`, "If-Match", h.Get("ETag")); status != 204 {
		t.Fatalf("PATCH Image: %d %v", status, b)
	}
	if m, _ := sys.VirtualMedia("Floppy"); !m.Inserted || m.WriteProtected || m.Size != 3 {
		t.Fatalf("floppy %+v", m)
	}
	if status, _, _ := do(t, "PATCH", url, `{"Image":null,"Inserted":false}`); status != 204 {
		t.Fatalf("PATCH eject: %d", status)
	}
	if m, _ := sys.VirtualMedia("Floppy"); m.Inserted {
		t.Fatalf("floppy after eject %+v", m)
	}
}

// TestRequestLogLimit: the log keeps the newest requests, the count all.
func TestRequestLogLimit(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{RequestLogLimit: 2})
	for _, p := range []string{"/redfish/v1/", "/redfish/v1/Systems", "/redfish/v1/Managers"} {
		do(t, "GET", ts.URL+p, "")
	}
	reqs := ts.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/redfish/v1/Systems" || reqs[1].Path != "/redfish/v1/Managers" || ts.RequestCount() != 3 {
		t.Fatalf("log %+v, count %d", reqs, ts.RequestCount())
	}
}
