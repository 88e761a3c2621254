package apiv1_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// errText is the faultstring (or webob description) of an error answer.
func errText(t *testing.T, r Result) string {
	t.Helper()
	raw, _ := r.Field("error_message").(string)
	var inner map[string]any
	if err := json.Unmarshal([]byte(raw), &inner); err != nil {
		t.Fatalf("error_message is not JSON in %s", r.Raw)
	}
	if msg, ok := inner["faultstring"].(string); ok {
		return msg
	}
	msg, _ := inner["description"].(string)
	return msg
}

func wantError(t *testing.T, r Result, status int, contains string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if msg := errText(t, r); !strings.Contains(msg, contains) {
		t.Errorf("error %s does not contain %q", msg, contains)
	}
}

func TestChassisLifecycle(t *testing.T) {
	s := NewSetup(t)
	const id = "c0000000-0000-4000-8000-000000000001"
	created := s.Must(http.StatusCreated, "POST", "/v1/chassis", map[string]any{
		"uuid": id, "description": "rack 1", "extra": map[string]any{"row": "a"}})
	if loc := created.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/chassis/"+id) {
		t.Errorf("Location %q", loc)
	}
	// Ironic wraps the nodes links in a second list.
	nodes, _ := created.Field("nodes").([]any)
	if len(nodes) != 1 {
		t.Fatalf("nodes links: %s", created.Raw)
	}
	if inner, _ := nodes[0].([]any); len(inner) != 2 {
		t.Errorf("nodes links: %s", created.Raw)
	}
	if created.Field("updated_at") != nil || created.Field("created_at") == nil {
		t.Errorf("timestamps: %s", created.Raw)
	}
	wantError(t, s.Do("POST", "/v1/chassis", map[string]any{"uuid": id}), 409,
		"A chassis with UUID "+id+" already exists.")
	second := s.Must(http.StatusCreated, "POST", "/v1/chassis", nil)
	id2, _ := second.Field("uuid").(string)

	list := s.Must(http.StatusOK, "GET", "/v1/chassis", nil)
	items, _ := list.Field("chassis").([]any)
	if len(items) != 2 {
		t.Fatalf("list: %s", list.Raw)
	}
	first := items[0].(map[string]any)
	if len(first) != 3 || first["description"] != "rack 1" || first["links"] == nil {
		t.Errorf("default fields are uuid, description and links: %v", first)
	}
	page := s.Must(http.StatusOK, "GET", "/v1/chassis?limit=1", nil)
	if next, _ := page.Field("next").(string); !strings.HasSuffix(next,
		"/v1/chassis?sort_key=id&sort_dir=asc&fields=uuid,description&limit=1&marker="+id) {
		t.Errorf("next link %q", next)
	}
	wantError(t, s.Do("GET", "/v1/chassis?fields=bogus", nil), 400, `Field(s) "bogus" are not valid`)
	wantError(t, s.Do("GET", "/v1/chassis?sort_key=extra", nil), 400, "The sort_key value extra is an invalid field for sorting")
	wantError(t, s.Do("GET", "/v1/chassis?detail=true", nil, "X-OpenStack-Ironic-API-Version", "1.42"), 400,
		"Invalid query parameter ?detail=True received.")
	detail := s.Must(http.StatusOK, "GET", "/v1/chassis/detail", nil)
	if d := detail.Field("chassis").([]any)[0].(map[string]any); d["extra"] == nil || d["nodes"] == nil {
		t.Errorf("detail: %s", detail.Raw)
	}
	wantError(t, s.Do("GET", "/v1/chassis/detail?fields=uuid", nil), 400, "Unexpected arguments: fields")

	got := s.Must(http.StatusOK, "GET", "/v1/chassis/"+id+"?fields=description", nil)
	if m := got.JSON.(map[string]any); len(m) != 2 || m["description"] != "rack 1" {
		t.Errorf("fields: %s", got.Raw)
	}
	wantError(t, s.Do("GET", "/v1/chassis/rack1", nil), 400, "Expected UUID for chassis_uuid: rack1")

	patched := s.Must(http.StatusOK, "PATCH", "/v1/chassis/"+id2, []any{
		map[string]any{"op": "add", "path": "/description", "value": "rack 2"},
		map[string]any{"op": "add", "path": "/extra/k", "value": []any{1, 2.5}},
	})
	if patched.Field("description") != "rack 2" || patched.Field("updated_at") == nil {
		t.Errorf("patch: %s", patched.Raw)
	}
	wantError(t, s.Do("PATCH", "/v1/chassis/"+id2, []any{
		map[string]any{"op": "replace", "path": "/uuid", "value": "c0000000-0000-4000-8000-000000000009"}}),
		400, "Cannot overwrite UUID for an existing Chassis.")
	wantError(t, s.Do("PATCH", "/v1/chassis/"+id2, []any{map[string]any{"op": "add", "path": "/bogus", "value": 1}}),
		400, "Cannot patch /bogus. Only the following can be updated: uuid, extra, description")
	wantError(t, s.Do("PATCH", "/v1/chassis", []any{}), 400, "Missing mandatory parameter: chassis_uuid")
	wantError(t, s.Do("POST", "/v1/chassis/"+id2, map[string]any{}), 400,
		"Schema error for chassis: '"+id2+"' is not of type 'object'")

	// A chassis with nodes cannot go; its nodes are listed under it.
	node := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "chassis_uuid": id})
	nodeUUID, _ := node.Field("uuid").(string)
	s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"})
	under := s.Must(http.StatusOK, "GET", "/v1/chassis/"+id+"/nodes", nil)
	if ns, _ := under.Field("nodes").([]any); len(ns) != 1 || ns[0].(map[string]any)["uuid"] != nodeUUID {
		t.Errorf("chassis nodes: %s", under.Raw)
	}
	s.Must(http.StatusOK, "GET", "/v1/chassis/"+id+"/nodes/detail", nil)
	wantError(t, s.Do("GET", "/v1/chassis/"+id+"/nodes/"+nodeUUID, nil), 403, "Operation not permitted.")
	wantError(t, s.Do("GET", "/v1/chassis/c0000000-0000-4000-8000-0000000000ff/nodes", nil), 404,
		"Chassis c0000000-0000-4000-8000-0000000000ff could not be found.")
	wantError(t, s.Do("DELETE", "/v1/chassis/"+id, nil), 400,
		"Cannot complete the requested action because chassis "+id+" contains nodes.")

	s.Must(http.StatusNoContent, "DELETE", "/v1/chassis/"+id2, nil)
	wantError(t, s.Do("GET", "/v1/chassis/"+id2, nil), 404, "Chassis "+id2+" could not be found.")
	put := s.Do("PUT", "/v1/chassis/"+id, map[string]any{})
	if put.Status != 405 || len(put.versionHeaders()) != 0 {
		t.Errorf("PUT: %d %v", put.Status, put.Header)
	}
}
