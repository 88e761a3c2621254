package apiv1_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakeneutron"
)

// flatSetup is the API over nodes whose network interface is "flat",
// talking to a fake Neutron without authentication, as the shared
// harness's reference Ironic is configured (reference-ironic.sh).
func flatSetup(t *testing.T) (*Setup, *fakeneutron.TestServer) {
	t.Helper()
	n := 0
	neutron := fakeneutron.ForTest(t, fakeneutron.Options{
		NewID:    func() string { n++; return fmt.Sprintf("0e000000-0000-4000-8000-%012d", n) },
		Networks: []map[string]any{fakeneutron.CleaningNetwork()},
	})
	s := NewSetup(t,
		WithConf("DEFAULT.default_network_interface", "flat"),
		WithConf("conductor.automated_clean", "false"),
		WithConf("neutron.auth_type", "none"),
		WithConf("neutron.endpoint_override", neutron.URL),
		WithConf("neutron.cleaning_network", fakeneutron.CleaningNetworkName))
	return s, neutron
}

// neutronCalls returns the requests the fake answered since the last
// call, as "METHOD path[?query] status [body]" lines.
func neutronCalls(n *fakeneutron.TestServer) []string {
	var out []string
	for _, r := range n.Requests() {
		line := r.Method + " " + r.Path
		if r.Query != "" {
			line += "?" + r.Query
		}
		line += fmt.Sprintf(" %d", r.Status)
		if r.Body != nil {
			var v any
			_ = json.Unmarshal(r.Body, &v)
			b, _ := json.Marshal(v)
			line += " " + string(b)
		}
		out = append(out, line)
	}
	n.ResetRequests()
	return out
}

// TestVIFsWithFlat replays the VIF and port requests of a session against
// Python Ironic 21.4 (reference-ironic.sh with NETWORK_INTERFACE=flat,
// its Neutron being test/fakeneutron's command) and checks the answers and
// the Neutron requests it recorded: every VIF or port request validates
// the cleaning network (looked up by ID, then by name), attaching sets
// the VIF's MAC, attaching to and detaching from an active node binds and
// unbinds it. openstacksdk's version discovery (GET /, before each
// client's first request) is left out: gophercloud doesn't discover.
func TestVIFsWithFlat(t *testing.T) {
	s, neutron := flatSetup(t)
	net, _ := neutron.CreateNetwork(map[string]any{"name": "tenant"})
	vifPort := func() string {
		p, err := neutron.CreatePort(map[string]any{"network_id": net["id"]})
		if err != nil {
			t.Fatal(err)
		}
		return p["id"].(string)
	}
	node := s.Must(201, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "flat-n1"})
	if ni := node.Field("network_interface"); ni != "flat" {
		t.Fatalf("network_interface %v", ni)
	}
	n := node.Field("uuid").(string)
	port := s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": n, "address": "52:54:00:00:00:01"}).Field("uuid").(string)
	vif1, vif2 := vifPort(), vifPort()
	const unknown = "11111111-2222-3333-4444-555555555555"
	neutronCalls(neutron)

	validate := []string{
		"GET /v2.0/networks/ironic-cleaning 404",
		"GET /v2.0/networks?name=ironic-cleaning 200",
	}
	setMAC := func(vif, mac string) []string {
		return []string{"GET /v2.0/ports/" + vif + " 200", "GET /v2.0/ports/" + vif + " 200",
			"PUT /v2.0/ports/" + vif + ` 200 {"port":{"mac_address":"` + mac + `"}}`}
	}
	then := func(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }
	vifsOf := func(ids ...string) map[string]any {
		l := []any{}
		for _, id := range ids {
			l = append(l, map[string]any{"id": id})
		}
		return map[string]any{"vifs": l}
	}
	type step struct {
		name         string
		method, path string
		body         any
		status       int
		// answer is the JSON answer of a 200, the faultstring of an
		// error.
		answer any
		calls  []string
	}
	vifs := "/v1/nodes/" + n + "/vifs"
	patchPort := func(op, path string, value any) []map[string]any {
		p := map[string]any{"op": op, "path": path}
		if value != nil {
			p["value"] = value
		}
		return []map[string]any{p}
	}
	steps := []step{
		{"list, none", "GET", vifs, nil, 200, vifsOf(), validate},
		{"attach", "POST", vifs, map[string]any{"id": vif1}, 204, nil, then(validate, setMAC(vif1, "52:54:00:00:00:01")...)},
		{"list", "GET", vifs, nil, 200, vifsOf(vif1), validate},
		{"attach again", "POST", vifs, map[string]any{"id": vif1}, 409,
			"Unable to attach VIF because VIF " + vif1 + " is already attached to Ironic Port " + port, validate},
		{"attach without a free port", "POST", vifs, map[string]any{"id": vif2}, 400,
			"Unable to attach VIF " + vif2 + ", not enough free physical ports.", validate},
		{"detach", "DELETE", vifs + "/" + vif1, nil, 204, nil, validate},
		{"detach again", "DELETE", vifs + "/" + vif1, nil, 400,
			"Unable to detach VIF " + vif1 + " from node " + n + " because it is not attached to it.", validate},
		{"attach a VIF Neutron doesn't have", "POST", vifs, map[string]any{"id": unknown}, 500,
			"Unable to attach VIF " + unknown + " because Ironic can not update Neutron port " + unknown +
				" MAC address to match physical MAC address 52:54:00:00:00:01",
			then(validate, "GET /v2.0/ports/"+unknown+" 404")},
		{"port MAC change without VIF", "PATCH", "/v1/ports/" + port, patchPort("replace", "/address", "52:54:00:00:00:02"), 200, nil, validate},
		{"attach to the changed port", "POST", vifs, map[string]any{"id": vif1}, 204, nil, then(validate, setMAC(vif1, "52:54:00:00:00:02")...)},
		{"port MAC change with VIF", "PATCH", "/v1/ports/" + port, patchPort("replace", "/address", "52:54:00:00:00:03"), 200, nil,
			then(validate, setMAC(vif1, "52:54:00:00:00:03")...)},
		{"port extra change with VIF", "PATCH", "/v1/ports/" + port, patchPort("add", "/extra/foo", "bar"), 200, nil, validate},
		{"detach from the changed port", "DELETE", vifs + "/" + vif1, nil, 204, nil, validate},
		{"port on a physical network", "PATCH", "/v1/ports/" + port, patchPort("add", "/physical_network", "physnet1"), 200, nil, validate},
		{"attach, physical networks known", "POST", vifs, map[string]any{"id": vif1}, 204, nil,
			then(validate, then([]string{"GET /v2.0/ports/" + vif1 + " 200", "GET /v2.0/networks/" + net["id"].(string) + " 200"},
				setMAC(vif1, "52:54:00:00:00:03")...)...)},
		{"detach, physical networks known", "DELETE", vifs + "/" + vif1, nil, 204, nil, validate},
		{"attach a VIF Neutron doesn't have, physical networks known", "POST", vifs, map[string]any{"id": unknown}, 400,
			"Neutron port " + unknown + " was not found", then(validate, "GET /v2.0/ports/"+unknown+" 404")},
		{"port off the physical network", "PATCH", "/v1/ports/" + port, patchPort("remove", "/physical_network", nil), 200, nil, validate},
	}
	run := func(steps []step) {
		t.Helper()
		for _, st := range steps {
			r := s.Do(st.method, st.path, st.body)
			if r.Status != st.status {
				t.Fatalf("%s: status %d, want %d: %s", st.name, r.Status, st.status, r.Raw)
			}
			switch want := st.answer.(type) {
			case string:
				if got := errText(t, r); got != want {
					t.Errorf("%s: error\n%s\nwant\n%s", st.name, got, want)
				}
			case map[string]any:
				if diff := cmp.Diff(want, r.JSON); diff != "" {
					t.Errorf("%s: answer (-want +got):\n%s", st.name, diff)
				}
			}
			if diff := cmp.Diff(st.calls, neutronCalls(neutron)); diff != "" {
				t.Errorf("%s: Neutron requests (-want +got):\n%s", st.name, diff)
			}
		}
	}
	run(steps)
	if info := s.Must(200, "GET", "/v1/ports/"+port, nil).Field("internal_info"); !cmp.Equal(info, map[string]any{}) {
		t.Errorf("port internal_info after detach: %v", info)
	}

	// A port group takes the VIF and lends it its MAC.
	pg := s.Must(201, "POST", "/v1/portgroups", map[string]any{"node_uuid": n, "address": "52:54:00:00:00:aa", "name": "pg1"}).Field("uuid").(string)
	run([]step{
		{"port into the group", "PATCH", "/v1/ports/" + port, patchPort("add", "/portgroup_uuid", pg), 200, nil, validate},
		{"attach to the group", "POST", vifs, map[string]any{"id": vif1}, 204, nil, then(validate, setMAC(vif1, "52:54:00:00:00:aa")...)},
		{"group MAC change", "PATCH", "/v1/portgroups/" + pg, patchPort("replace", "/address", "52:54:00:00:00:bb"), 200, nil,
			then(validate, setMAC(vif1, "52:54:00:00:00:bb")...)},
	})
	if info := s.Must(200, "GET", "/v1/portgroups/"+pg, nil).Field("internal_info"); !cmp.Equal(info, map[string]any{"tenant_vif_port_id": vif1}) {
		t.Errorf("port group internal_info: %v", info)
	}
	if info := s.Must(200, "GET", "/v1/ports/"+port, nil).Field("internal_info"); !cmp.Equal(info, map[string]any{}) {
		t.Errorf("member port internal_info: %v", info)
	}
	run([]step{
		{"detach from the group", "DELETE", vifs + "/" + vif1, nil, 204, nil, validate},
		{"port out of the group", "PATCH", "/v1/ports/" + port, patchPort("remove", "/portgroup_uuid", nil), 200, nil, validate},
		{"attach before deploying", "POST", vifs, map[string]any{"id": vif1}, 204, nil, then(validate, setMAC(vif1, "52:54:00:00:00:03")...)},
	})

	// Deploying and tearing down with the fake deploy interface: only the
	// VIF removal of tear down reaches Neutron (the node is deleting: the
	// VIF is unbound).
	for _, target := range []string{"manage", "provide", "active"} {
		s.Must(http.StatusAccepted, "PUT", "/v1/nodes/"+n+"/states/provision", map[string]any{"target": target})
	}
	if st := s.Must(200, "GET", "/v1/nodes/"+n, nil).Field("provision_state"); st != "active" {
		t.Fatalf("provision_state %v", st)
	}
	if calls := neutronCalls(neutron); len(calls) != 0 {
		t.Errorf("deploying called Neutron: %v", calls)
	}
	port2 := s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": n, "address": "52:54:00:00:00:05"}).Field("uuid").(string)
	neutronCalls(neutron)
	bind := "PUT /v2.0/ports/" + vif2 + ` 200 {"port":{"binding:host_id":"` + n +
		`","binding:profile":{"local_link_information":[{}]},"binding:vnic_type":"baremetal","mac_address":"52:54:00:00:00:05"}}`
	unbind := func(vif string) []string {
		return []string{"GET /v2.0/ports/" + vif + " 200",
			"PUT /v2.0/ports/" + vif + ` 200 {"port":{"binding:host_id":"","binding:profile":{}}}`,
			"GET /v2.0/ports/" + vif + " 200",
			"PUT /v2.0/ports/" + vif + ` 200 {"port":{"mac_address":null}}`}
	}
	run([]step{
		{"attach to an active node", "POST", vifs, map[string]any{"id": vif2}, 204, nil,
			then(validate, then(setMAC(vif2, "52:54:00:00:00:05"), "GET /v2.0/ports/"+vif2+" 200", bind)...)},
		{"detach from an active node", "DELETE", vifs + "/" + vif2, nil, 204, nil, then(validate, unbind(vif2)...)},
	})
	if p, _ := neutron.Port(vif2); p["binding:host_id"] != "" || p["mac_address"] == "52:54:00:00:00:05" {
		t.Errorf("VIF still bound after detach: %v", p)
	}
	_ = port2
	s.Must(http.StatusAccepted, "PUT", "/v1/nodes/"+n+"/states/provision", map[string]any{"target": "deleted"})
	if st := s.Must(200, "GET", "/v1/nodes/"+n, nil).Field("provision_state"); st != "available" {
		t.Fatalf("provision_state after tear down %v", st)
	}
	if diff := cmp.Diff(unbind(vif1), neutronCalls(neutron)); diff != "" {
		t.Errorf("tear down: Neutron requests (-want +got):\n%s", diff)
	}
	run([]step{{"list after tear down", "GET", vifs, nil, 200, vifsOf(), validate}})
}

// Without a Neutron the flat interface refuses VIF and port requests, as
// Ironic does.
func TestVIFsWithFlatWithoutCleaningNetwork(t *testing.T) {
	s := NewSetup(t, WithConf("DEFAULT.default_network_interface", "flat"))
	n := s.Must(201, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"}).Field("uuid").(string)
	r := s.Do("GET", "/v1/nodes/"+n+"/vifs", nil)
	wantError(t, r, 400, "UUID or name of cleaning network is not set in configuration")
	r = s.Do("POST", "/v1/nodes/"+n+"/vifs", map[string]any{"id": "v1"})
	wantError(t, r, 400, "UUID or name of cleaning network is not set in configuration")
}
