package apiv1_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestDeployTemplatesVersionGate(t *testing.T) {
	s := NewSetup(t)
	old := []string{"X-OpenStack-Ironic-API-Version", "1.54"}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/deploy_templates", 404},
		{"GET", "/v1/deploy_templates/CUSTOM_X", 404},
		{"POST", "/v1/deploy_templates", 405},
		{"PUT", "/v1/deploy_templates/x", 405},
		{"DELETE", "/v1/deploy_templates/x", 405},
	} {
		r := s.Do(c.method, c.path, nil, old...)
		wantError(t, r, c.status, "The API version does not allow deploy templates")
		if len(r.versionHeaders()) != 0 || r.Header.Get("Allow") != "" {
			t.Errorf("%s %s: webob answers carry no version headers nor Allow: %v", c.method, c.path, r.Header)
		}
	}
	r := s.Do("PUT", "/v1/deploy_templates", nil)
	if r.Status != 405 || r.Header.Get("Allow") != "DELETE, GET, PATCH, POST" {
		t.Errorf("PUT at 1.82: %d %v", r.Status, r.Header)
	}
}

func step(iface, name string, prio any, args map[string]any) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	return map[string]any{"interface": iface, "step": name, "args": args, "priority": prio}
}

func TestDeployTemplateLifecycle(t *testing.T) {
	s := NewSetup(t)
	created := s.Must(http.StatusCreated, "POST", "/v1/deploy_templates", map[string]any{
		"name": "CUSTOM_A", "extra": map[string]any{"k": "v"},
		"steps": []any{step("bios", "apply_configuration", "5", map[string]any{"password": "p", "x": 1})},
	})
	uuid, _ := created.Field("uuid").(string)
	if !strings.HasSuffix(created.Header.Get("Location"), "/v1/deploy_templates/"+uuid) {
		t.Errorf("Location %v", created.Header)
	}
	st := created.Field("steps").([]any)[0].(map[string]any)
	// The answer to a create shows the priority as sent; secrets are masked.
	if st["priority"] != "5" || st["args"].(map[string]any)["password"] != "******" {
		t.Errorf("created steps: %s", created.Raw)
	}
	got := s.Must(http.StatusOK, "GET", "/v1/deploy_templates/CUSTOM_A", nil)
	if p := fmt.Sprint(got.Field("steps").([]any)[0].(map[string]any)["priority"]); p != "5" || got.Field("uuid") != uuid {
		t.Errorf("get: %s", got.Raw)
	}
	if strings.Contains(string(got.Raw), `"5"`) {
		t.Errorf("stored priority is an integer: %s", got.Raw)
	}

	for _, c := range []struct {
		body     map[string]any
		status   int
		contains string
	}{
		{map[string]any{"name": "CUSTOM_A", "steps": []any{step("raid", "x", 1, nil)}}, 409,
			"A deploy template with name CUSTOM_A already exists."},
		{map[string]any{"name": "lower", "steps": []any{step("raid", "x", 1, nil)}}, 400,
			"Schema error for template: 'lower' is not valid under any of the given schemas. Possible root cause: 'lower' does not match '^CUSTOM_[A-Z0-9_]+$'"},
		{map[string]any{"name": "CUSTOM_B", "steps": []any{}}, 400, "Schema error for template: [] is too short"},
		{map[string]any{"name": "CUSTOM_B", "steps": []any{step("nope", "x", 1, nil)}}, 400,
			"'nope' is not one of ['power', 'management', 'deploy', 'bios', 'raid']"},
		{map[string]any{"name": "CUSTOM_B", "steps": []any{step("bios", "x", 1, nil), step("bios", "x", 2, nil)}}, 400,
			"Deploy template invalid: Duplicate deploy steps. A deploy template cannot have multiple deploy steps with the same interface and step. Duplicates: interface: bios, step: x."},
		{map[string]any{"name": "CUSTOM_B", "uuid": "nope", "steps": []any{step("bios", "x", 1, nil)}}, 400,
			"Expected UUID for uuid: nope"},
	} {
		wantError(t, s.Do("POST", "/v1/deploy_templates", c.body), c.status, c.contains)
	}

	s.Must(http.StatusCreated, "POST", "/v1/deploy_templates", map[string]any{
		"name": "CUSTOM_B", "steps": []any{step("raid", "delete_configuration", 10, nil)}})
	list := s.Must(http.StatusOK, "GET", "/v1/deploy_templates?limit=1", nil)
	if next, _ := list.Field("next").(string); !strings.HasSuffix(next,
		"/v1/deploy_templates?sort_key=id&sort_dir=asc&fields=uuid,name&limit=1&marker="+uuid) {
		t.Errorf("next %q", next)
	}
	wantError(t, s.Do("GET", "/v1/deploy_templates?limit=1&marker=CUSTOM_A", nil), 404,
		"Deploy template CUSTOM_A could not be found.")
	wantError(t, s.Do("GET", "/v1/deploy_templates?fields=bogus", nil), 400, `Field(s) "bogus" are not valid`)
	wantError(t, s.Do("GET", "/v1/deploy_templates?sort_key=steps", nil), 400, "The sort_key value steps is an invalid field for sorting")

	// Changing only the steps leaves the template row (and updated_at)
	// alone, as in Ironic.
	p := s.Must(http.StatusOK, "PATCH", "/v1/deploy_templates/CUSTOM_A", []any{
		map[string]any{"op": "add", "path": "/steps/-", "value": step("raid", "y", 1, nil)}})
	if n := len(p.Field("steps").([]any)); n != 2 || p.Field("updated_at") != nil {
		t.Errorf("steps patch: %s", p.Raw)
	}
	p = s.Must(http.StatusOK, "PATCH", "/v1/deploy_templates/CUSTOM_A", []any{
		map[string]any{"op": "replace", "path": "/name", "value": "CUSTOM_C"}})
	if p.Field("name") != "CUSTOM_C" || p.Field("updated_at") == nil {
		t.Errorf("name patch: %s", p.Raw)
	}
	wantError(t, s.Do("PATCH", "/v1/deploy_templates/CUSTOM_C", []any{
		map[string]any{"op": "replace", "path": "/name", "value": "CUSTOM_B"}}), 409,
		"A deploy template with name CUSTOM_B already exists.")
	wantError(t, s.Do("PATCH", "/v1/deploy_templates/CUSTOM_C", []any{
		map[string]any{"op": "remove", "path": "/steps"}}), 400, "Schema error for patch: 'steps' is a required property")
	wantError(t, s.Do("PATCH", "/v1/deploy_templates/CUSTOM_C", []any{
		map[string]any{"op": "replace", "path": "/steps/0/interface", "value": "zz"}}), 400,
		"Schema error for patch: 'zz' is not one of")
	wantError(t, s.Do("PATCH", "/v1/deploy_templates/CUSTOM_C", []any{
		map[string]any{"op": "replace", "path": "/id", "value": 1}}), 400,
		"Cannot patch /id. Only the following can be updated: extra, name, steps, description")
	// Step columns other than the schema's are pruned, not refused.
	s.Must(http.StatusOK, "PATCH", "/v1/deploy_templates/CUSTOM_C", []any{
		map[string]any{"op": "replace", "path": "/steps/0/id", "value": "zz"}})

	s.Must(http.StatusNoContent, "DELETE", "/v1/deploy_templates/"+uuid, nil)
	wantError(t, s.Do("DELETE", "/v1/deploy_templates/CUSTOM_C", nil), 404, "Deploy template CUSTOM_C could not be found.")
	wantError(t, s.Do("GET", "/v1/deploy_templates/a%20b", nil), 400, "Expected UUID or name for template_ident: a b")
	wantError(t, s.Do("DELETE", "/v1/deploy_templates", nil), 400, "Missing mandatory parameter: template_ident")
}
