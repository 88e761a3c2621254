package apiv1_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestNodeLifecycleThroughAPI(t *testing.T) {
	s := NewSetup(t)
	created := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{
		"driver": "fake-hardware", "name": "n1",
		"driver_info": map[string]any{"ipmi_password": "secret", "ipmi_address": "192.0.2.1"},
	})
	uuid, _ := created.Field("uuid").(string)
	if loc := created.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/nodes/"+uuid) {
		t.Errorf("Location %q", loc)
	}
	di := created.Field("driver_info").(map[string]any)
	if di["ipmi_password"] != "******" || di["ipmi_address"] != "192.0.2.1" {
		t.Errorf("driver_info not masked as Ironic does: %v", di)
	}
	if created.Field("provision_state") != "enroll" || created.Field("power_interface") != "fake" {
		t.Errorf("defaults: %s", created.Raw)
	}
	got := s.Must(http.StatusOK, "GET", "/v1/nodes/n1", nil)
	if got.Field("uuid") != uuid {
		t.Errorf("get by name: %s", got.Raw)
	}
	patched := s.Must(http.StatusOK, "PATCH", "/v1/nodes/n1", []any{
		map[string]any{"op": "add", "path": "/extra/foo", "value": "bar"},
		map[string]any{"op": "replace", "path": "/description", "value": "d"},
	})
	if patched.Field("extra").(map[string]any)["foo"] != "bar" || patched.Field("description") != "d" {
		t.Errorf("patch: %s", patched.Raw)
	}
	s.Must(http.StatusNoContent, "DELETE", "/v1/nodes/"+uuid, nil)
	s.Must(http.StatusNotFound, "GET", "/v1/nodes/"+uuid, nil)
}

func TestNodeErrorsUseIronicFormat(t *testing.T) {
	s := NewSetup(t)
	cases := []struct {
		name, method, path string
		body               any
		status             int
		contains           string
	}{
		{"unknown field", "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "bogus": 1}, 400,
			`Additional properties are not allowed ('bogus' was unexpected)`},
		{"missing driver", "POST", "/v1/nodes", map[string]any{}, 400, `'driver' is a required property`},
		{"unknown driver", "POST", "/v1/nodes", map[string]any{"driver": "nope"}, 400, `No valid host was found`},
		{"malformed json", "POST", "/v1/nodes", `{"driver": `, 400, `Expecting value`},
		{"reserved name", "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "detail"}, 400, `is reserved`},
		{"missing node", "GET", "/v1/nodes/nope", nil, 404, `Node nope could not be found.`},
		{"bad patch op", "PATCH", "/v1/nodes/nope", []any{map[string]any{"op": "move", "path": "/extra"}}, 400,
			`is not one of ['add', 'replace', 'remove']`},
		{"unexpected arg", "GET", "/v1/nodes?zeta=1&alpha=2", nil, 400, `Unexpected arguments: alpha, zeta`},
		{"bad limit", "GET", "/v1/nodes?limit=0", nil, 400, `Limit must be positive`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Do(c.method, c.path, c.body)
			if res.Status != c.status || !strings.Contains(string(res.Raw), c.contains) {
				t.Errorf("got %d %s, want %d containing %q", res.Status, res.Raw, c.status, c.contains)
			}
			if _, ok := res.Field("error_message").(string); !ok {
				t.Errorf("not Ironic's error envelope: %s", res.Raw)
			}
		})
	}
}

func TestOldClientsDoNotSeeNewFields(t *testing.T) {
	s := NewSetup(t)
	s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "n2"})
	for _, c := range []struct {
		version string
		field   string
		present bool
	}{
		{"1.32", "storage_interface", false}, {"1.33", "storage_interface", true},
		{"1.65", "network_data", false}, {"1.66", "network_data", true},
		{"1.81", "shard", false}, {"1.82", "shard", true},
	} {
		res := s.Must(http.StatusOK, "GET", "/v1/nodes/n2", nil, "X-OpenStack-Ironic-API-Version", c.version)
		_, ok := res.JSON.(map[string]any)[c.field]
		if ok != c.present {
			t.Errorf("%s at %s: present=%v", c.field, c.version, ok)
		}
	}
	// Setting a newer field from an older version is refused.
	res := s.Do("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "network_data": map[string]any{"links": []any{}, "networks": []any{}, "services": []any{}}},
		"X-OpenStack-Ironic-API-Version", "1.65")
	if res.Status != http.StatusNotAcceptable {
		t.Errorf("network_data at 1.65: %d %s", res.Status, res.Raw)
	}
}
