package fakeneutron_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakeneutron"
)

// newServer is a fake with predictable IDs and time.
func newServer(t *testing.T) *fakeneutron.TestServer {
	t.Helper()
	n := 0
	return fakeneutron.ForTest(t, fakeneutron.Options{
		NewID: func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) },
		Now:   func() time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC) },
	})
}

type answer struct {
	status int
	body   map[string]any
}

func do(t *testing.T, s *fakeneutron.TestServer, method, path string, body any) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.URL+path, r)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a.body); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return a
}

func neutronError(typ, msg string) map[string]any {
	return map[string]any{"NeutronError": map[string]any{"type": typ, "message": msg, "detail": ""}}
}

func TestErrorsHaveNeutronsShape(t *testing.T) {
	s := newServer(t)
	for name, tc := range map[string]struct {
		method, path string
		body         any
		want         answer
	}{
		"port not found":    {"GET", "/v2.0/ports/nope", nil, answer{404, neutronError("PortNotFound", "Port nope could not be found.")}},
		"network not found": {"GET", "/v2.0/networks/nope", nil, answer{404, neutronError("NetworkNotFound", "Network nope could not be found.")}},
		"delete missing":    {"DELETE", "/v2.0/ports/nope", nil, answer{404, neutronError("PortNotFound", "Port nope could not be found.")}},
		"port on missing network": {"POST", "/v2.0/ports", map[string]any{"port": map[string]any{"network_id": "nope"}},
			answer{404, neutronError("NetworkNotFound", "Network nope could not be found.")}},
		"port without network": {"POST", "/v2.0/ports", map[string]any{"port": map[string]any{}},
			answer{400, neutronError("HTTPBadRequest", "Failed to parse request. Required attribute 'network_id' not specified")}},
		"unknown attribute": {"POST", "/v2.0/networks", map[string]any{"network": map[string]any{"colour": "red"}},
			answer{400, neutronError("HTTPBadRequest", "Unrecognized attribute(s) 'colour'")}},
		"unknown filter": {"GET", "/v2.0/networks?colour=red", nil,
			answer{400, neutronError("HTTPBadRequest", "colour is invalid attribute for filtering")}},
		"unknown resource": {"GET", "/v2.0/routers", nil,
			answer{404, neutronError("HTTPNotFound", "The resource could not be found.")}},
	} {
		t.Run(name, func(t *testing.T) {
			got := do(t, s, tc.method, tc.path, tc.body)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPortLifecycle(t *testing.T) {
	s := newServer(t)
	net := do(t, s, "POST", "/v2.0/networks", map[string]any{"network": map[string]any{"name": "tenant"}})
	if net.status != 201 {
		t.Fatalf("create network: %+v", net)
	}
	netID := net.body["network"].(map[string]any)["id"].(string)
	created := do(t, s, "POST", "/v2.0/ports", map[string]any{"port": map[string]any{"network_id": netID, "device_id": "d1"}})
	if created.status != 201 {
		t.Fatalf("create port: %+v", created)
	}
	port := created.body["port"].(map[string]any)
	id := port["id"].(string)
	for k, want := range map[string]any{"binding:vnic_type": "normal", "binding:host_id": "", "binding:vif_type": "unbound",
		"mac_address": "fa:16:3e:00:00:01", "status": "DOWN", "device_id": "d1", "network_id": netID} {
		if port[k] != want {
			t.Errorf("new port %s = %v, want %v", k, port[k], want)
		}
	}
	if sgs := port["security_groups"].([]any); len(sgs) != 1 {
		t.Errorf("new port security_groups = %v, want the default group", sgs)
	}

	// Filters: equality, repeated keys (any of), fields.
	other := do(t, s, "POST", "/v2.0/ports", map[string]any{"port": map[string]any{"network_id": netID}})
	otherMAC := other.body["port"].(map[string]any)["mac_address"].(string)
	got := do(t, s, "GET", "/v2.0/ports?device_id=d1&fields=id&fields=device_id", nil)
	if diff := cmp.Diff(map[string]any{"ports": []any{map[string]any{"id": id, "device_id": "d1"}}}, got.body); diff != "" {
		t.Errorf("filtered list (-want +got):\n%s", diff)
	}
	got = do(t, s, "GET", "/v2.0/ports?fields=id&mac_address=fa:16:3e:00:00:01&mac_address="+otherMAC+"&network_id="+netID, nil)
	if n := len(got.body["ports"].([]any)); n != 2 {
		t.Errorf("ports with either MAC: %d, want 2", n)
	}

	// Binding, then a MAC change of the bound port is refused.
	upd := do(t, s, "PUT", "/v2.0/ports/"+id, map[string]any{"port": map[string]any{
		"binding:host_id": "node-1", "binding:vnic_type": "baremetal", "mac_address": "52:54:00:00:00:01",
		"binding:profile": map[string]any{"local_link_information": []any{map[string]any{}}}}})
	if upd.status != 200 || upd.body["port"].(map[string]any)["binding:vif_type"] != "other" {
		t.Fatalf("bind: %+v", upd)
	}
	refused := do(t, s, "PUT", "/v2.0/ports/"+id, map[string]any{"port": map[string]any{"binding:host_id": "", "mac_address": "52:54:00:00:00:02"}})
	want := neutronError("PortBound", "Unable to complete operation on port "+id+
		", port is already bound, port type: other, old_mac 52:54:00:00:00:01, new_mac 52:54:00:00:00:02.")
	if refused.status != 409 || !cmp.Equal(refused.body, want) {
		t.Errorf("MAC change of a bound port: %+v", refused)
	}
	if p, _ := s.Port(id); p["binding:host_id"] != "node-1" {
		t.Errorf("a refused update changed the port: %v", p["binding:host_id"])
	}
	// Unbound first, the MAC may be reset (null: Neutron picks one) or
	// set, unless another port of the network has it.
	for _, step := range []map[string]any{{"binding:host_id": "", "binding:profile": map[string]any{}}, {"mac_address": nil}} {
		if a := do(t, s, "PUT", "/v2.0/ports/"+id, map[string]any{"port": step}); a.status != 200 {
			t.Fatalf("PUT %v: %+v", step, a)
		}
	}
	if p, _ := s.Port(id); p["mac_address"] == "52:54:00:00:00:01" || p["binding:vif_type"] != "unbound" {
		t.Errorf("after unbind and MAC reset: %v %v", p["mac_address"], p["binding:vif_type"])
	}
	inUse := do(t, s, "PUT", "/v2.0/ports/"+id, map[string]any{"port": map[string]any{"mac_address": otherMAC}})
	if inUse.status != 409 || inUse.body["NeutronError"].(map[string]any)["type"] != "MacAddressInUse" {
		t.Errorf("MAC of another port: %+v", inUse)
	}
	ro := do(t, s, "PUT", "/v2.0/ports/"+id, map[string]any{"port": map[string]any{"network_id": "x"}})
	if diff := cmp.Diff(neutronError("HTTPBadRequest", "Cannot update read-only attribute network_id"), ro.body); diff != "" {
		t.Errorf("read-only attribute (-want +got):\n%s", diff)
	}

	// A network with ports in use can't go; without them it can.
	if a := do(t, s, "DELETE", "/v2.0/networks/"+netID, nil); a.status != 409 {
		t.Errorf("delete network in use: %+v", a)
	}
	for _, p := range []string{id, other.body["port"].(map[string]any)["id"].(string)} {
		if a := do(t, s, "DELETE", "/v2.0/ports/"+p, nil); a.status != 204 || a.body != nil {
			t.Errorf("delete port: %+v", a)
		}
	}
	if a := do(t, s, "DELETE", "/v2.0/networks/"+netID, nil); a.status != 204 {
		t.Errorf("delete network: %+v", a)
	}
}

func TestSubnetsAllocateAddresses(t *testing.T) {
	s := newServer(t)
	n, _ := s.CreateNetwork(map[string]any{"name": "n"})
	sn, err := s.CreateSubnet(map[string]any{"network_id": n["id"], "cidr": "10.0.0.0/24", "ip_version": 4})
	if err != nil {
		t.Fatal(err)
	}
	if sn["gateway_ip"] != "10.0.0.1" {
		t.Errorf("gateway %v", sn["gateway_ip"])
	}
	p1, _ := s.CreatePort(map[string]any{"network_id": n["id"]})
	p2, _ := s.CreatePort(map[string]any{"network_id": n["id"]})
	p3, _ := s.CreatePort(map[string]any{"network_id": n["id"], "fixed_ips": []any{}})
	ip := func(p map[string]any) any {
		if l := p["fixed_ips"].([]any); len(l) > 0 {
			return l[0].(map[string]any)["ip_address"]
		}
		return nil
	}
	if ip(p1) != "10.0.0.2" || ip(p2) != "10.0.0.3" || ip(p3) != nil {
		t.Errorf("addresses %v %v %v", ip(p1), ip(p2), ip(p3))
	}
}

func TestDiscoveryDocuments(t *testing.T) {
	s := newServer(t)
	root := do(t, s, "GET", "/", nil)
	v := root.body["versions"].([]any)[0].(map[string]any)
	if v["id"] != "v2.0" || v["status"] != "CURRENT" || !strings.HasSuffix(v["links"].([]any)[0].(map[string]any)["href"].(string), "/v2.0/") {
		t.Errorf("version document: %v", root.body)
	}
	exts := do(t, s, "GET", "/v2.0/extensions", nil)
	found := false
	for _, e := range exts.body["extensions"].([]any) {
		found = found || e.(map[string]any)["alias"] == "binding"
	}
	if !found {
		t.Errorf("no binding extension: %v", exts.body)
	}
	sgs := do(t, s, "GET", "/v2.0/security-groups?project_id=p1&name=default", nil)
	if l := sgs.body["security_groups"].([]any); len(l) != 1 || l[0].(map[string]any)["project_id"] != "p1" {
		t.Errorf("default security group of p1: %v", sgs.body)
	}
}

func TestRequestLog(t *testing.T) {
	s := newServer(t)
	do(t, s, "GET", "/v2.0/networks?name="+fakeneutron.CleaningNetworkName, nil)
	do(t, s, "PUT", "/v2.0/ports/nope", map[string]any{"port": map[string]any{"mac_address": nil}})
	got := s.Requests()
	want := []fakeneutron.Request{
		{Method: "GET", Path: "/v2.0/networks", Query: "name=ironic-cleaning", Status: 200},
		{Method: "PUT", Path: "/v2.0/ports/nope", Body: json.RawMessage(`{"port":{"mac_address":null}}`), Status: 404},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
}

// The handler is usable without a listener too.
func TestHandler(t *testing.T) {
	s := fakeneutron.New(fakeneutron.Options{Networks: []map[string]any{fakeneutron.CleaningNetwork()}})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/v2.0/networks/"+fakeneutron.CleaningNetworkID, nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"name":"ironic-cleaning"`) {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

func TestRequestLogOverHTTP(t *testing.T) {
	s := newServer(t)
	do(t, s, "GET", "/v2.0/ports/nope", nil)
	req, _ := http.NewRequest("GET", s.URL+fakeneutron.RequestsPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	want := []map[string]any{{"method": "GET", "path": "/v2.0/ports/nope", "status": float64(404)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if a := do(t, s, "DELETE", fakeneutron.RequestsPath, nil); a.status != 204 || len(s.Requests()) != 0 {
		t.Errorf("reset: %+v %v", a, s.Requests())
	}
}

// Security groups created by a test are listed by ID, as Ironic's
// _verify_security_groups asks (?id=a&id=b); an unknown ID lists nothing.
func TestSecurityGroupsByID(t *testing.T) {
	s := newServer(t)
	const id = "5eed0000-0000-4000-8000-0000000000b1"
	if _, err := s.CreateSecurityGroup(map[string]any{"id": id, "name": "prov"}); err != nil {
		t.Fatal(err)
	}
	a := do(t, s, "GET", "/v2.0/security-groups?id="+id+"&id=5eed0000-0000-4000-8000-0000000000ff", nil)
	l, _ := a.body["security_groups"].([]any)
	if a.status != 200 || len(l) != 1 || l[0].(map[string]any)["id"] != id {
		t.Errorf("list by id: %d %v", a.status, a.body)
	}
	if _, err := s.CreateSecurityGroup(map[string]any{"id": id, "bogus": 1}); err == nil {
		t.Errorf("a security group with an unknown attribute was created")
	}
}
