package apiv1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/goironic/ironic/db"
)

func TestVolumeVersionGates(t *testing.T) {
	s := NewSetup(t)
	node := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "n1"})
	nodeUUID, _ := node.Field("uuid").(string)

	root := s.Must(http.StatusOK, "GET", "/v1/volume", nil)
	links := root.Field("links").([]any)
	if href := links[0].(map[string]any)["href"].(string); !strings.HasSuffix(href, "/v1/volume/") {
		t.Errorf("volume self link %q", href)
	}
	underNode := s.Must(http.StatusOK, "GET", "/v1/nodes/n1/volume", nil)
	conns := underNode.Field("connectors").([]any)
	if href := conns[1].(map[string]any)["href"].(string); !strings.HasSuffix(href, "/nodes/n1/volume/connectors") {
		t.Errorf("node volume bookmark %q", href)
	}

	old := []string{"X-OpenStack-Ironic-API-Version", "1.31"}
	// The root's handler raises NotFound: Ironic's fault with headers.
	r := s.Do("GET", "/v1/volume", nil, old...)
	wantError(t, r, 404, "Resource could not be found.")
	if len(r.versionHeaders()) != 1 || r.versionHeaders()[0] != "1.31" {
		t.Errorf("version header missing: %v", r.Header)
	}
	// Below the root, pecan's _lookup aborts: webob's 404, no headers,
	// whatever the verb.
	for _, m := range []string{"GET", "POST", "PUT"} {
		for _, p := range []string{"/v1/volume/connectors", "/v1/volume/targets/x", "/v1/nodes/" + nodeUUID + "/volume/targets"} {
			r := s.Do(m, p, nil, old...)
			if r.Status != 404 || len(r.versionHeaders()) != 0 {
				t.Errorf("%s %s at 1.31: %d %v", m, p, r.Status, r.Header)
			}
		}
	}
	bad := s.Do("GET", "/v1/nodes/a%20b/volume/connectors", nil)
	wantError(t, bad, 400, "Expected UUID or name for node: a b")
	if bad.Header.Get("Openstack-Request-Id") != "" {
		t.Errorf("lookup errors carry no request id: %v", bad.Header)
	}
}

func TestVolumeConnectorsAndTargets(t *testing.T) {
	s := NewSetup(t)
	ctx := context.Background()
	node := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "n1"})
	nodeUUID, _ := node.Field("uuid").(string)
	other := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware"})
	otherUUID, _ := other.Field("uuid").(string)

	c := s.Must(http.StatusCreated, "POST", "/v1/volume/connectors", map[string]any{
		"node_uuid": nodeUUID, "type": "iqn", "connector_id": "iqn.x", "extra": map[string]any{"k": "v"}})
	cUUID, _ := c.Field("uuid").(string)
	if c.Field("node_uuid") != nodeUUID || !strings.HasSuffix(c.Header.Get("Location"), "/v1/volume/connectors/"+cUUID) {
		t.Errorf("create: %s %v", c.Raw, c.Header)
	}
	wantError(t, s.Do("POST", "/v1/volume/connectors", map[string]any{
		"node_uuid": otherUUID, "type": "iqn", "connector_id": "iqn.x"}), 409,
		"A volume connector with type iqn and connector ID iqn.x already exists.")
	wantError(t, s.Do("POST", "/v1/volume/connectors", map[string]any{
		"node_uuid": "a0000000-0000-4000-8000-0000000000ff", "type": "iqn", "connector_id": "iqn.y"}), 400,
		"Invalid input for field/attribute node_uuid. Value: 'a0000000-0000-4000-8000-0000000000ff'. ")
	wantError(t, s.Do("POST", "/v1/volume/connectors", map[string]any{"node_uuid": nodeUUID, "type": "iqn"}), 400,
		"Schema error for connector: 'connector_id' is a required property")
	wantError(t, s.Do("POST", "/v1/nodes/n1/volume/connectors", map[string]any{
		"node_uuid": nodeUUID, "type": "iqn", "connector_id": "iqn.z"}), 403, "Operation not permitted.")

	list := s.Must(http.StatusOK, "GET", "/v1/volume/connectors?node=n1&limit=1", nil)
	item := list.Field("connectors").([]any)[0].(map[string]any)
	if len(item) != 5 || item["connector_id"] != "iqn.x" {
		t.Errorf("default fields: %v", item)
	}
	if next, _ := list.Field("next").(string); !strings.Contains(next,
		"/v1/volume/connectors?sort_key=id&sort_dir=asc&fields=uuid,node_uuid,type,connector_id&limit=1&marker="+cUUID) {
		t.Errorf("next %q", next)
	}
	wantError(t, s.Do("GET", "/v1/volume/connectors?fields=type&detail=true", nil), 400,
		"Can't fetch a subset of fields with 'detail' set")
	wantError(t, s.Do("GET", "/v1/nodes/n1/volume/connectors", nil), 404, "Node n1 could not be found.")
	if l := s.Must(http.StatusOK, "GET", "/v1/nodes/"+otherUUID+"/volume/connectors", nil); len(l.Field("connectors").([]any)) != 0 {
		t.Errorf("other node's connectors: %s", l.Raw)
	}
	wantError(t, s.Do("GET", "/v1/nodes/"+nodeUUID+"/volume/connectors/"+cUUID, nil), 403, "Operation not permitted.")
	wantError(t, s.Do("GET", "/v1/volume/connectors/detail", nil), 400, "Expected UUID for connector_uuid: detail")

	tg := s.Must(http.StatusCreated, "POST", "/v1/volume/targets", map[string]any{
		"node_uuid": nodeUUID, "volume_type": "iscsi", "volume_id": "vol-1", "boot_index": 0,
		"properties": map[string]any{"target_iqn": "iqn.t", "auth_password": "secret"}})
	tUUID, _ := tg.Field("uuid").(string)
	if p := tg.Field("properties").(map[string]any); p["auth_password"] != "******" || p["target_iqn"] != "iqn.t" {
		t.Errorf("properties not masked: %s", tg.Raw)
	}
	wantError(t, s.Do("POST", "/v1/volume/targets", map[string]any{
		"node_uuid": nodeUUID, "volume_type": "iscsi", "volume_id": "vol-2", "boot_index": 0}), 409,
		"A volume target with boot index '0' for the same node already exists.")
	wantError(t, s.Do("POST", "/v1/volume/targets", map[string]any{
		"node_uuid": nodeUUID, "volume_type": "iscsi", "volume_id": "vol-2", "boot_index": "first"}), 400,
		"Schema error for target: 'first' is not of type 'integer'")

	// The conductor changes volumes of powered-off nodes only.
	wantError(t, s.Do("PATCH", "/v1/volume/targets/"+tUUID, []any{
		map[string]any{"op": "replace", "path": "/volume_id", "value": "vol-1b"}}), 400,
		`The requested action "volume target update" can not be performed on node "`+nodeUUID+`" while it is in state "None".`)
	wantError(t, s.Do("DELETE", "/v1/volume/connectors/"+cUUID, nil), 400,
		`The requested action "volume connector deletion" can not be performed`)
	if _, err := s.Store.UpdateNode(ctx, db.ByUUID(nodeUUID), db.Values{"power_state": "power off"}); err != nil {
		t.Fatal(err)
	}
	wantError(t, s.Do("PATCH", "/v1/volume/targets/"+tUUID, []any{
		map[string]any{"op": "replace", "path": "/node_uuid", "value": "n1"}}), 400,
		"Expected a UUID for node_uuid, but received n1.")
	wantError(t, s.Do("PATCH", "/v1/volume/targets/"+tUUID, []any{
		map[string]any{"op": "replace", "path": "/node_uuid", "value": "a0000000-0000-4000-8000-0000000000ff"}}), 400,
		"Node a0000000-0000-4000-8000-0000000000ff could not be found.")
	wantError(t, s.Do("PATCH", "/v1/volume/targets/"+tUUID, []any{
		map[string]any{"op": "add", "path": "/bogus", "value": 1}}), 400,
		"Cannot patch /bogus. Only the following can be updated: boot_index, extra, node_uuid, properties, volume_id, volume_type")
	p := s.Must(http.StatusOK, "PATCH", "/v1/volume/targets/"+tUUID, []any{
		map[string]any{"op": "replace", "path": "/volume_id", "value": "vol-1b"},
		map[string]any{"op": "replace", "path": "/boot_index", "value": 3},
	})
	if p.Field("volume_id") != "vol-1b" || p.Field("updated_at") == nil {
		t.Errorf("patch: %s", p.Raw)
	}
	if bi, _ := p.Field("boot_index").(interface{ String() string }); bi == nil || bi.String() != "3" {
		t.Errorf("boot_index: %s", p.Raw)
	}
	if got := s.Must(http.StatusOK, "GET", "/v1/volume/targets/"+tUUID, nil); got.Field("properties").(map[string]any)["auth_password"] != "******" {
		t.Errorf("get masks properties: %s", got.Raw)
	}
	s.Must(http.StatusNoContent, "DELETE", "/v1/volume/targets/"+tUUID, nil)
	s.Must(http.StatusNoContent, "DELETE", "/v1/volume/connectors/"+cUUID, nil)
	wantError(t, s.Do("DELETE", "/v1/volume/connectors/"+cUUID, nil), 404, "Volume connector "+cUUID+" could not be found.")
	wantError(t, s.Do("PATCH", "/v1/volume/connectors", []any{}), 400, "Missing mandatory parameter: connector_uuid")
}
