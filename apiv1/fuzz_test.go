package apiv1_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzAPI sends arbitrary methods, paths, queries, headers and bodies
// through the whole router: no input may panic or produce a 5xx.
func FuzzAPI(f *testing.F) {
	seeds := []struct{ method, path, version, body string }{
		{"GET", "/v1/nodes?limit=1&sort_key=name&fields=name,uuid", "1.82", ""},
		{"POST", "/v1/nodes", "1.82", `{"driver": "fake-hardware", "name": "x"}`},
		{"PATCH", "/v1/nodes/x", "1.82", `[{"op": "add", "path": "/extra/a/b", "value": [1, {"c": null}]}]`},
		{"PATCH", "/v1/nodes/x", "1.5", `[{"op": "remove", "path": "/driver_info/~1"}]`},
		{"PUT", "/v1/nodes/x/traits", "1.37", `{"traits": ["CUSTOM_A", "HW_CPU_X86_AVX"]}`},
		{"GET", "/v1/nodes/detail?maintenance=maybe&associated=1", "latest", ""},
		{"PUT", "/v1/nodes/x/maintenance?reason=r", "1.1", `{"reason": 5}`},
		{"GET", "/v1/nodes/x/history?limit=-1", "1.78", ""},
		{"POST", "/v1/nodes/x/vifs", "1.67", `{"id": "v", "port_uuid": 1, "portgroup_uuid": 2}`},
		{"GET", "/", "garbage", ""},
		{"POST", "/v1/nodes", "1.82", `{"driver": "fake-hardware", "driver_info": {"nested": {"l": [1, {"password": "p"}]}}}`},
		{"POST", "/v1/deploy_templates", "1.82", `{"name": "CUSTOM_X", "steps": [{"interface": "raid", "step": "create_configuration", "priority": 1, "args": {"raid_config": {"logical_disks": [{"size_gb": 1}]}}}]}`},
		{"GET", "/v1/nodes/detail", "1.82", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.version, s.body)
	}
	s := NewSetup(f)
	s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "x"})
	f.Fuzz(func(t *testing.T, method, path, version, body string) {
		// Only requests an HTTP server could receive: a token method, an
		// origin-form target, a header value without line breaks.
		if method == "" || strings.IndexFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 ||
			!strings.HasPrefix(path, "/") || strings.ContainsAny(version, "\r\n\x00") {
			return
		}
		if _, err := url.ParseRequestURI(path); err != nil || strings.ContainsAny(path, " \t\r\n#\x00") {
			return
		}
		var b any
		if body != "" {
			b = body
		}
		st := *s
		st.T = t
		res := st.Do(method, path, b, "X-OpenStack-Ironic-API-Version", version)
		if res.Status >= 500 {
			t.Fatalf("%s %s (version %q, body %q): %d %s", method, path, version, body, res.Status, res.Raw)
		}
	})
}
