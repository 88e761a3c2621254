package apiv1_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/goironic/ironic/db/models"
)

func TestLookup(t *testing.T) {
	s := NewSetup(t)
	node := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "lk"})
	uuid := node.Field("uuid").(string)
	s.Must(http.StatusCreated, "POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": "52:54:00:aa:bb:01"})

	s.Version = "1.21"
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/lookup?addresses=52:54:00:aa:bb:01", nil, "Resource could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/lookup?bogus=1", nil, "Unexpected arguments: bogus")
	s.Version = "1.82"
	incomplete := "At least one of 'addresses' and 'node_uuid' parameters is required"
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/lookup", nil, incomplete)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/lookup?addresses=52-54-00-AA-BB-01", nil, incomplete)
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/lookup?node_uuid=nope", nil, "Expected UUID for node_uuid: nope")
	// Unknown nodes and nodes in a state without a ramdisk look the same.
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/lookup?addresses=52:54:00:aa:bb:99", nil, "Resource could not be found.")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/lookup?addresses=52:54:00:aa:bb:01,zz", nil, "Resource could not be found.")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/lookup?node_uuid="+uuid, nil, "Resource could not be found.")
	if r := s.Do("POST", "/v1/lookup", map[string]any{}); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET" {
		t.Errorf("POST /v1/lookup: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}

	// With fast track an enrolled node can be looked up; before 1.62 the
	// API answers without asking the conductor for a token.
	s.Must(http.StatusOK, "PATCH", "/v1/nodes/lk", []any{
		map[string]any{"op": "add", "path": "/driver_info/fast_track", "value": "true"},
	})
	s.Version = "1.61"
	got := s.Must(http.StatusOK, "GET", "/v1/lookup?addresses=52:54:00:AA:BB:01", nil)
	n, _ := got.Field("node").(map[string]any)
	if n["uuid"] != uuid || !slices.Equal(drvKeys(n), []string{"driver_internal_info", "instance_info", "links", "properties", "uuid"}) {
		t.Errorf("lookup node: %s", got.Raw)
	}
	cfg, _ := got.Field("config").(map[string]any)
	if cfg["agent_token_required"] != true || cfg["agent_token"] != nil || cfg["heartbeat_timeout"] == nil {
		t.Errorf("lookup config: %v", cfg)
	}
	s.Must(http.StatusOK, "PATCH", "/v1/nodes/lk", []any{
		map[string]any{"op": "add", "path": "/driver_info/fast_track", "value": "maybe"},
	})
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/lookup?node_uuid="+uuid, nil,
		"Invalid value of fast_track: Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'")
}

func TestHeartbeat(t *testing.T) {
	s := NewSetup(t)
	uuid := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "hb"}).Field("uuid").(string)
	path := "/v1/heartbeat/" + uuid
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{}, "Missing mandatory parameter: callback_url")
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": 5}, "Expected string for callback_url: 5")
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": "http://x", "bogus": 1}, "Unexpected arguments: bogus")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/heartbeat/a%20b", map[string]any{"callback_url": "http://x"},
		"Expected UUID or name for node_ident: a b")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/heartbeat", map[string]any{}, "Missing mandatory parameter: node_ident")
	s.Version = "1.21"
	drvWantFault(t, s, http.StatusNotFound, "POST", path+"?callback_url=http://x", nil, "Resource could not be found.")
	s.Version = "1.35"
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": "http://x", "agent_version": "1"},
		`Field "agent_version" not recognised`)
	s.Version = "1.67"
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": "http://x", "agent_verify_ca": ""},
		`Field "agent_verify_ca" not recognised in this version`)
	s.Version = "1.71"
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": "http://x", "agent_status": "start"},
		`Fields "agent_status" and "agent_status_message" not recognised.`)
	s.Version = "1.82"
	drvWantFault(t, s, http.StatusNotFound, "POST", "/v1/heartbeat/nope", map[string]any{"callback_url": "http://x"},
		"Node nope could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/heartbeat/hb", map[string]any{"callback_url": "http://x"},
		"Agent token is required for heartbeat processing.")
	drvWantFault(t, s, http.StatusBadRequest, "POST", path, map[string]any{"callback_url": "http://x", "agent_token": "t", "agent_status": "bogus"},
		"Agent status is invalid. Valid states are start,end,error.")
	if r := s.Do("GET", path, nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
		t.Errorf("GET heartbeat: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}
}

func TestAllocations(t *testing.T) {
	s := NewSetup(t)
	s.Version = "1.51"
	for method, status := range map[string]int{"GET": http.StatusNotFound, "POST": http.StatusMethodNotAllowed, "DELETE": http.StatusMethodNotAllowed} {
		r := s.Do(method, "/v1/allocations/x", nil)
		em, _ := r.Field("error_message").(string)
		if r.Status != status || r.Header.Get("X-OpenStack-Ironic-API-Version") != "" ||
			!strings.Contains(em, "The API version does not allow allocations") {
			t.Errorf("%s at 1.51: %d %s", method, r.Status, r.Raw)
		}
	}
	s.Version = "1.82"
	if l := s.Must(http.StatusOK, "GET", "/v1/allocations", nil).Field("allocations").([]any); len(l) != 0 {
		t.Errorf("allocations: %v", l)
	}
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/allocations?node=nope", nil, "Node nope could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/allocations?sort_key=traits", nil, "The sort_key value traits is an invalid field for sorting")
	drvWantFault(t, s, http.StatusNotFound, "GET", "/v1/allocations/nope", nil, "Allocation nope could not be found.")
	drvWantFault(t, s, http.StatusBadRequest, "GET", "/v1/allocations/a%20b", nil, "Expected UUID or name for allocation_ident: a b")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/allocations", map[string]any{}, "The resource_class field is mandatory when not backfilling")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/allocations", map[string]any{"bogus": 1},
		"Schema error for allocation: Additional properties are not allowed ('bogus' was unexpected)")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/allocations", map[string]any{"resource_class": "x", "candidate_nodes": []any{"nope"}},
		"Nodes cannot be found: nope")
	s.Version = "1.59"
	drvWantFault(t, s, http.StatusNotAcceptable, "GET", "/v1/allocations?owner=x", nil, "Request not acceptable.")
	s.Version = "1.56"
	drvWantFault(t, s, http.StatusMethodNotAllowed, "PATCH", "/v1/allocations/nope", []any{}, "The API version does not allow updating allocations")
	s.Version = "1.82"

	// An allocation the conductor would have made: read and patched by the API.
	ctx := context.Background()
	rc := "gold"
	al, err := s.Store.CreateAllocation(ctx, &models.Allocation{ResourceClass: &rc, State: "error"})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Must(http.StatusOK, "GET", "/v1/allocations/"+al.UUID, nil)
	if got.Field("resource_class") != "gold" || got.Field("node_uuid") != nil || got.Field("owner") != nil {
		t.Errorf("allocation: %s", got.Raw)
	}
	s.Version = "1.59"
	if _, ok := s.Must(http.StatusOK, "GET", "/v1/allocations/"+al.UUID, nil).JSON.(map[string]any)["owner"]; ok {
		t.Error("owner shown before 1.60")
	}
	s.Version = "1.82"
	patched := s.Must(http.StatusOK, "PATCH", "/v1/allocations/"+al.UUID, []any{
		map[string]any{"op": "add", "path": "/name", "value": "a1"},
		map[string]any{"op": "add", "path": "/extra/foo", "value": "bar"},
	})
	if patched.Field("name") != "a1" || patched.Field("extra").(map[string]any)["foo"] != "bar" {
		t.Errorf("patched: %s", patched.Raw)
	}
	drvWantFault(t, s, http.StatusBadRequest, "PATCH", "/v1/allocations/a1", []any{map[string]any{"op": "replace", "path": "/state", "value": "x"}},
		"Cannot patch /state. Only the following can be updated: name, extra")
	drvWantFault(t, s, http.StatusBadRequest, "PATCH", "/v1/allocations/a1", []any{map[string]any{"op": "replace", "path": "/name", "value": "a b"}},
		"Cannot update allocation with invalid name 'a b'")
	page := s.Must(http.StatusOK, "GET", "/v1/allocations?limit=1&fields=uuid", nil)
	if next, _ := page.Field("next").(string); !strings.Contains(next, "/v1/allocations?sort_key=id&sort_dir=asc&fields=uuid&limit=1&marker="+al.UUID) {
		t.Errorf("next: %q", next)
	}
	// Creating and deleting are the conductor's: see TestRamdiskAndAllocationCalls.
}

func TestEvents(t *testing.T) {
	s := NewSetup(t)
	ev := map[string]any{"event": "network.bind_port", "port_id": "11111111-2222-3333-4444-555555555555",
		"mac_address": "52:54:00:00:00:01", "status": "ACTIVE", "device_id": nil}
	s.Must(http.StatusNoContent, "POST", "/v1/events", map[string]any{"events": []any{ev}})
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/events", map[string]any{}, "Schema error for evts: 'events' is a required property")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/events", map[string]any{"events": []any{}}, "Schema error for evts: [] is too short")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/events", map[string]any{"events": []any{map[string]any{"event": "bogus"}}},
		"Schema error for evts: 'bogus' is not one of ['network.bind_port', 'network.unbind_port', 'network.delete_port']")
	bad := map[string]any{"event": "network.bind_port", "port_id": "x", "mac_address": "y", "status": "s"}
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/events", map[string]any{"events": []any{bad}}, "Expected UUID for port_id: x")
	drvWantFault(t, s, http.StatusBadRequest, "POST", "/v1/events/foo", map[string]any{}, "Schema error for evts: 'foo' is not of type 'object'")
	if r := s.Do("GET", "/v1/events", nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
		t.Errorf("GET /v1/events: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}
	s.Version = "1.53"
	drvWantFault(t, s, http.StatusNotFound, "POST", "/v1/events", map[string]any{"events": []any{ev}}, "Resource could not be found.")
	if r := s.Do("GET", "/v1/events", nil); r.Status != http.StatusNotFound || r.Header.Get("X-OpenStack-Ironic-API-Version") != "" {
		t.Errorf("GET /v1/events at 1.53: %d %s", r.Status, r.Raw)
	}
}
