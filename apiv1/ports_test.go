package apiv1_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goironic/ironic/db"
)

// faultString digs the faultstring out of an error answer.
func faultString(t *testing.T, r Result) string {
	t.Helper()
	em, _ := r.Field("error_message").(string)
	var inner map[string]any
	if err := json.Unmarshal([]byte(em), &inner); err != nil {
		t.Fatalf("error_message is not JSON: %q", em)
	}
	if s, ok := inner["faultstring"].(string); ok {
		return s
	}
	s, _ := inner["description"].(string)
	return s
}

func wantFault(t *testing.T, r Result, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if got := faultString(t, r); got != msg {
		t.Fatalf("fault %q, want %q", got, msg)
	}
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasKey(v any, k string) bool {
	m, _ := v.(map[string]any)
	_, ok := m[k]
	return ok
}

func newNode(s *Setup, name string) string {
	s.T.Helper()
	r := s.Must(201, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": name})
	return r.Field("uuid").(string)
}

func TestPortLifecycle(t *testing.T) {
	s := NewSetup(t)
	node := newNode(s, "n1")

	r := s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:AA:BB:01",
		"local_link_connection": map[string]any{"switch_id": "0A:1B:2C:3D:4E:5F", "port_id": "p1"}})
	port := r.Field("uuid").(string)
	if got := r.Header.Get("Location"); !strings.HasSuffix(got, "/v1/ports/"+port) {
		t.Errorf("Location %q", got)
	}
	if r.Field("address") != "52:54:00:aa:bb:01" || r.Field("pxe_enabled") != true || r.Field("node_uuid") != node {
		t.Errorf("created port: %s", r.Raw)
	}
	if llc := r.Field("local_link_connection").(map[string]any); llc["switch_id"] != "0a:1b:2c:3d:4e:5f" {
		t.Errorf("switch_id not normalised: %v", llc)
	}
	if !strings.Contains(string(r.Raw), `"uuid": "`+port+`", "created_at": `) {
		t.Errorf("key order or separators differ from Ironic's: %s", r.Raw)
	}

	// Version gates hide newer fields.
	old := s.Do("GET", "/v1/ports/"+port, nil, "X-OpenStack-Ironic-API-Version", "1.18")
	for _, k := range []string{"pxe_enabled", "local_link_connection", "portgroup_uuid", "physical_network", "is_smartnic"} {
		if hasKey(old.JSON, k) {
			t.Errorf("1.18 shows %s", k)
		}
	}
	if !hasKey(old.JSON, "internal_info") {
		t.Errorf("1.18 hides internal_info")
	}
	wantFault(t, s.Do("GET", "/v1/ports?fields=pxe_enabled", nil, "X-OpenStack-Ironic-API-Version", "1.18"),
		406, "Request not acceptable.")

	// Lists: default fields, fields, detail, paging.
	s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:02"})
	l := s.Must(200, "GET", "/v1/ports?limit=1", nil)
	items := l.Field("ports").([]any)
	if len(items) != 1 || len(keys(items[0])) != 3 {
		t.Fatalf("list: %s", l.Raw)
	}
	next, _ := l.Field("next").(string)
	if !strings.Contains(next, "/v1/ports?sort_key=id&sort_dir=asc&fields=uuid,address&limit=1&marker="+port) {
		t.Errorf("next %q", next)
	}
	d := s.Must(200, "GET", "/v1/ports/detail", nil)
	if n := len(d.Field("ports").([]any)); n != 2 {
		t.Errorf("detail has %d ports", n)
	}
	wantFault(t, s.Do("GET", "/v1/ports?fields=bogus", nil), 400, `Field(s) "bogus" are not valid`)
	wantFault(t, s.Do("GET", "/v1/ports/detail?fields=uuid", nil), 400, "Unexpected arguments: fields")
	byAddr := s.Must(200, "GET", "/v1/ports?address=52:54:00:AA:BB:02", nil)
	if n := len(byAddr.Field("ports").([]any)); n != 1 {
		t.Errorf("address filter found %d", n)
	}
	// A path segment after the port is get_one's fields argument.
	f := s.Must(200, "GET", "/v1/ports/"+port+"/address", nil)
	if len(keys(f.JSON)) != 2 {
		t.Errorf("fields via path: %s", f.Raw)
	}

	// Node sub-collection: by UUID only (Ironic 21.4 looks the parent up by UUID).
	nl := s.Must(200, "GET", "/v1/nodes/"+node+"/ports", nil)
	if n := len(nl.Field("ports").([]any)); n != 2 {
		t.Errorf("node ports: %d", n)
	}
	wantFault(t, s.Do("GET", "/v1/nodes/n1/ports", nil), 404, "Portgroup None could not be found.")
	wantFault(t, s.Do("GET", "/v1/nodes/n1/ports/"+port, nil), 403, "Operation not permitted.")
	wantFault(t, s.Do("GET", "/v1/ports?node=n1&shard=a", nil), 403, "Operation not permitted.")

	// Patch.
	p := s.Must(200, "PATCH", "/v1/ports/"+port, []any{
		map[string]any{"op": "replace", "path": "/address", "value": "52:54:00:AA:BB:11"},
		map[string]any{"op": "add", "path": "/extra/k", "value": "v"},
	})
	if p.Field("address") != "52:54:00:aa:bb:11" || p.Field("extra").(map[string]any)["k"] != "v" {
		t.Errorf("patched: %s", p.Raw)
	}
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "remove", "path": "/address"}}),
		400, "Schema error for patch: 'address' is a required property")
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "replace", "path": "/uuid", "value": "x"}}),
		400, "Cannot patch /uuid. Only the following can be updated: address, extra, is_smartnic, local_link_connection, node_uuid, physical_network, portgroup_uuid, pxe_enabled")
	wantFault(t, s.Do("PATCH", "/v1/ports", []any{}), 400, "Missing mandatory parameter: port_uuid")

	// Delete.
	s.Must(204, "DELETE", "/v1/ports/"+port, nil)
	wantFault(t, s.Do("GET", "/v1/ports/"+port, nil), 404, "Port "+port+" could not be found.")
}

func TestPortCreateErrors(t *testing.T) {
	s := NewSetup(t)
	node := newNode(s, "n1")
	other := newNode(s, "n2")
	pg := s.Must(201, "POST", "/v1/portgroups", map[string]any{"node_uuid": other, "name": "pg"}).Field("uuid").(string)

	cases := []struct {
		body   map[string]any
		status int
		msg    string
	}{
		{map[string]any{"node_uuid": node, "address": "52-54-00-aa-bb-04"}, 400, "Expected valid MAC address for address: 52-54-00-aa-bb-04"},
		{map[string]any{"node_uuid": node}, 400, "Schema error for port: 'address' is a required property"},
		{map[string]any{"node_uuid": "node-two", "address": "52:54:00:aa:bb:10"}, 400, "Expected UUID for node_uuid: node-two"},
		{map[string]any{"node_uuid": "a0000000-0000-4000-8000-0000000000ff", "address": "52:54:00:aa:bb:10"}, 400,
			"Node a0000000-0000-4000-8000-0000000000ff could not be found."},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "pxe_enabled": "notabool"}, 400,
			"Invalid pxe_enabled: Unrecognized value 'notabool', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "local_link_connection": map[string]any{"switch_id": "nope", "port_id": "p"}},
			400, "Expected a MAC address or OpenFlow datapath ID but received nope."},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "is_smartnic": true,
			"local_link_connection": map[string]any{"port_id": "rep0-1"}}, 400,
			"Schema error for local_link_connection: {'port_id': 'rep0-1'} is not valid under any of the given schemas. Possible root cause: 'switch_id' is a required property"},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "is_smartnic": true,
			"local_link_connection": map[string]any{"port_id": "x", "switch_id": "aa:bb:cc:dd:ee:ff"}}, 400,
			"Smart NIC port must have port_id and hostname in local_link_connection"},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "physical_network": ""}, 400,
			"A non-empty value is required when setting physical_network"},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "portgroup_uuid": pg}, 400,
			"Port can not be added to a portgroup belonging to a different node."},
		{map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "pxe_enabled": nil}, 400,
			"Field `pxe_enabled' cannot be None"},
	}
	for _, c := range cases {
		wantFault(t, s.Do("POST", "/v1/ports", c.body), c.status, c.msg)
	}
	wantFault(t, s.Do("POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10", "pxe_enabled": true},
		"X-OpenStack-Ironic-API-Version", "1.18"), 406, "Request not acceptable.")
	wantFault(t, s.Do("POST", "/v1/nodes/n1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:10"}),
		403, "Operation not permitted.")
	wantFault(t, s.Do("POST", "/v1/ports/"+node, map[string]any{}), 400,
		"Schema error for port: '"+node+"' is not of type 'object'")

	s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:01"})
	wantFault(t, s.Do("POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:AA:BB:01"}),
		409, "A port with MAC address 52:54:00:aa:bb:01 already exists.")
}

func TestPortPatchQuirks(t *testing.T) {
	s := NewSetup(t)
	node := newNode(s, "n1")
	pg := s.Must(201, "POST", "/v1/portgroups", map[string]any{"node_uuid": node, "name": "pg"}).Field("uuid").(string)
	s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:21", "portgroup_uuid": pg})
	port := s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:01",
		"physical_network": "physnet2"}).Field("uuid").(string)

	// The port group's ports have no physical network: joining is a conflict.
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "add", "path": "/portgroup_uuid", "value": pg}}),
		409, "Port with physical network physnet2 cannot become a member of port group "+pg+" which has ports in physical network None.")
	// Ironic's is_path_updated looks at the first operation only: a
	// portgroup_uuid change in the second operation is not applied.
	r := s.Must(200, "PATCH", "/v1/ports/"+port, []any{
		map[string]any{"op": "remove", "path": "/physical_network"},
		map[string]any{"op": "add", "path": "/portgroup_uuid", "value": pg},
	})
	if r.Field("portgroup_uuid") != nil || r.Field("physical_network") != nil {
		t.Errorf("second-operation port group applied: %s", r.Raw)
	}
	r = s.Must(200, "PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "add", "path": "/portgroup_uuid", "value": pg}})
	if r.Field("portgroup_uuid") != pg {
		t.Errorf("port group not set: %s", r.Raw)
	}
	members := s.Must(200, "GET", "/v1/portgroups/"+pg+"/ports", nil)
	if n := len(members.Field("ports").([]any)); n != 2 {
		t.Errorf("port group has %d ports", n)
	}
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "remove", "path": "/portgroup_uuid"}},
		"X-OpenStack-Ironic-API-Version", "1.23"), 406, "Request not acceptable.")
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "replace", "path": "/node_uuid", "value": "n1"}}),
		400, "Expected a UUID or int but received n1.")
}

func TestPortConnectivityNeedsState(t *testing.T) {
	s := NewSetup(t)
	node := newNode(s, "n1")
	port := s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:01"}).Field("uuid").(string)
	ctx := context.Background()
	if _, err := s.Store.UpdateNode(ctx, db.ByUUID(node), db.Values{"provision_state": "available"}); err != nil {
		t.Fatal(err)
	}
	pxeOff := []any{map[string]any{"op": "replace", "path": "/pxe_enabled", "value": false}}
	r := s.Do("PATCH", "/v1/ports/"+port, pxeOff)
	if r.Status != 409 || !strings.Contains(faultString(t, r), "can not have any connectivity attributes") {
		t.Fatalf("connectivity change on an available node: %d %s", r.Status, r.Raw)
	}
	// Other fields may change.
	s.Must(200, "PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "add", "path": "/extra/a", "value": 1}})
	// In maintenance, connectivity may change too.
	if _, err := s.Store.UpdateNode(ctx, db.ByUUID(node), db.Values{"maintenance": true}); err != nil {
		t.Fatal(err)
	}
	s.Must(200, "PATCH", "/v1/ports/"+port, pxeOff)
	if _, err := s.Store.UpdateNode(ctx, db.ByUUID(node), db.Values{"maintenance": false,
		"instance_uuid": "7e000000-0000-4000-8000-00000000ffff"}); err != nil {
		t.Fatal(err)
	}
	wantFault(t, s.Do("PATCH", "/v1/ports/"+port, []any{map[string]any{"op": "replace", "path": "/address", "value": "52:54:00:aa:bb:09"}}),
		409, "Cannot update hardware address for port "+port+" as node "+node+" is active or has instance UUID assigned")
}

func TestPortgroupLifecycle(t *testing.T) {
	s := NewSetup(t)
	node := newNode(s, "n1")
	other := newNode(s, "n2")

	wantFault(t, s.Do("GET", "/v1/portgroups", nil, "X-OpenStack-Ironic-API-Version", "1.22"), 404, "Resource could not be found.")
	r := s.Must(201, "POST", "/v1/portgroups", map[string]any{"node_uuid": node, "name": "pg1", "address": "52:54:00:CC:00:01"})
	pg := r.Field("uuid").(string)
	if r.Field("address") != "52:54:00:cc:00:01" || r.Field("mode") != "active-backup" || r.Field("standalone_ports_supported") != true {
		t.Errorf("created: %s", r.Raw)
	}
	wantFault(t, s.Do("POST", "/v1/portgroups", map[string]any{"node_uuid": node, "name": "bad name"}), 400,
		"Cannot create portgroup with invalid name 'bad name'")
	wantFault(t, s.Do("POST", "/v1/portgroups", map[string]any{"node_uuid": node, "name": "pg1"}), 409,
		"A portgroup with name pg1 already exists.")
	wantFault(t, s.Do("POST", "/v1/portgroups", map[string]any{"node_uuid": node, "mode": "802.3ad"},
		"X-OpenStack-Ironic-API-Version", "1.25"), 406, "Request not acceptable.")
	wantFault(t, s.Do("POST", "/v1/nodes/n1/portgroups", map[string]any{"node_uuid": node}), 403, "Operation not permitted.")

	if g := s.Must(200, "GET", "/v1/portgroups/pg1", nil); g.Field("uuid") != pg {
		t.Errorf("by name: %s", g.Raw)
	}
	wantFault(t, s.Do("GET", "/v1/portgroups/pg1", nil, "X-OpenStack-Ironic-API-Version", "1.22"), 404, "")
	wantFault(t, s.Do("GET", "/v1/portgroups/bad!x", nil), 400, "Expected UUID or name for portgroup: bad!x")
	wantFault(t, s.Do("GET", "/v1/portgroups/pg1/ports", nil), 404, "Portgroup pg1 could not be found.")
	wantFault(t, s.Do("GET", "/v1/nodes/n1/portgroups", nil), 404, "Portgroup None could not be found.")
	if l := s.Must(200, "GET", "/v1/nodes/"+node+"/portgroups", nil); len(l.Field("portgroups").([]any)) != 1 {
		t.Errorf("node port groups: %s", l.Raw)
	}

	p := s.Must(200, "PATCH", "/v1/portgroups/pg1", []any{
		map[string]any{"op": "replace", "path": "/name", "value": "pg-one"},
		map[string]any{"op": "add", "path": "/properties/miimon", "value": "100"},
	})
	if p.Field("name") != "pg-one" || p.Field("properties").(map[string]any)["miimon"] != "100" {
		t.Errorf("patched: %s", p.Raw)
	}
	wantFault(t, s.Do("PATCH", "/v1/portgroups/pg-one", []any{map[string]any{"op": "remove", "path": "/mode"}}), 400,
		"'mode' is a mandatory attribute and can not be removed")
	wantFault(t, s.Do("PATCH", "/v1/portgroups/pg-one", []any{map[string]any{"op": "add", "path": "/mode", "value": "x"}},
		"X-OpenStack-Ironic-API-Version", "1.25"), 406, "Request not acceptable.")
	wantFault(t, s.Do("PATCH", "/v1/portgroups/pg-one", []any{map[string]any{"op": "replace", "path": "/name", "value": "bad name"}}),
		400, "Portgroup pg-one: Cannot change name to invalid name 'bad name'")

	// A port group with ports can neither move nor go.
	s.Must(201, "POST", "/v1/ports", map[string]any{"node_uuid": node, "address": "52:54:00:aa:bb:21", "portgroup_uuid": pg})
	wantFault(t, s.Do("PATCH", "/v1/portgroups/"+pg, []any{map[string]any{"op": "replace", "path": "/node_uuid", "value": other}}),
		400, "Portgroup "+pg+" can not be associated with node "+other+" because there are ports associated with this portgroup.")
	wantFault(t, s.Do("DELETE", "/v1/portgroups/pg-one", nil), 400,
		"Cannot complete the requested action because portgroup "+pg+" contains ports.")

	empty := s.Must(201, "POST", "/v1/portgroups", map[string]any{"node_uuid": node}).Field("uuid").(string)
	if r := s.Must(200, "PATCH", "/v1/portgroups/"+empty, []any{map[string]any{"op": "replace", "path": "/node_uuid", "value": other}}); r.Field("node_uuid") != other {
		t.Errorf("move: %s", r.Raw)
	}
	s.Must(204, "DELETE", "/v1/portgroups/"+empty, nil)
	wantFault(t, s.Do("DELETE", "/v1/portgroups/"+empty, nil), 404, "Portgroup "+empty+" could not be found.")
}
