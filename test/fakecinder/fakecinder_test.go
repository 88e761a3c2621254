package fakecinder_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/goironic/ironic/test/fakecinder"
)

func post(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestLegacyAttachFlow walks Cinder's volume status through the actions
// Ironic sends, with a project ID in the path.
func TestLegacyAttachFlow(t *testing.T) {
	s := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": "v1"}}})
	act := s.URL + "/v3/proj/volumes/v1/action"
	steps := []struct {
		body   any
		status int
		after  string
	}{
		{map[string]any{"os-reserve": map[string]any{}}, 202, "attaching"},
		{map[string]any{"os-reserve": map[string]any{}}, 400, "attaching"},
		{map[string]any{"os-unreserve": map[string]any{}}, 202, "available"},
		{map[string]any{"os-reserve": map[string]any{}}, 202, "attaching"},
		{map[string]any{"os-initialize_connection": map[string]any{"connector": map[string]any{"initiator": "iqn.x", "host": "n1"}}}, 200, "attaching"},
		{map[string]any{"os-attach": map[string]any{"instance_uuid": "n1", "mountpoint": "ironic_mountpoint", "mode": "rw"}}, 202, "in-use"},
		{map[string]any{"os-begin_detaching": map[string]any{}}, 202, "detaching"},
		{map[string]any{"os-roll_detaching": map[string]any{}}, 202, "in-use"},
		{map[string]any{"os-begin_detaching": map[string]any{}}, 202, "detaching"},
		{map[string]any{"os-terminate_connection": map[string]any{"connector": map[string]any{"initiator": "iqn.x"}}}, 202, "detaching"},
		{map[string]any{"os-detach": map[string]any{"attachment_id": "nope"}}, 404, "detaching"},
		{map[string]any{"os-detach": map[string]any{"attachment_id": nil}}, 202, "available"},
		{map[string]any{"os-bogus": map[string]any{}}, 400, "available"},
	}
	for i, st := range steps {
		code, out := post(t, act, st.body)
		if code != st.status {
			t.Errorf("step %d %v: status %d (%v), want %d", i, st.body, code, out, st.status)
		}
		if got := s.Volume("v1")["status"]; got != st.after {
			t.Errorf("step %d: volume status %v, want %s", i, got, st.after)
		}
		if i == 4 {
			ci, _ := out["connection_info"].(map[string]any)
			data, _ := ci["data"].(map[string]any)
			if ci["driver_volume_type"] != "iscsi" || data["target_iqn"] != "iqn.2010-10.org.openstack:volume-v1" ||
				data["target_portal"] != "192.0.2.10:3260" || data["auth_method"] != "CHAP" {
				t.Errorf("connection_info = %v", ci)
			}
		}
	}
	code, out := post(t, s.URL+"/v3/volumes/v1/metadata", map[string]any{"metadata": map[string]any{"k": "v"}})
	if code != 200 || out["metadata"].(map[string]any)["k"] != "v" {
		t.Errorf("metadata: %d %v", code, out)
	}
	if code, out := post(t, s.URL+"/v3/volumes/nope/action", map[string]any{"os-reserve": map[string]any{}}); code != 404 ||
		out["itemNotFound"].(map[string]any)["message"] != "Volume nope could not be found." {
		t.Errorf("missing volume: %d %v", code, out)
	}
}
