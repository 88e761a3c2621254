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
		{"PUT", "/v1/nodes/x/states/provision", "1.82", `{"target": "manage"}`},
		{"PUT", "/v1/nodes/x/states/provision", "1.82", `{"target": "active", "configdrive": {"meta_data": {}, "user_data": [1]}, "deploy_steps": [{"interface": "deploy", "step": "s", "args": {}, "priority": "1"}]}`},
		{"PUT", "/v1/nodes/x/states/provision", "1.70", `{"target": "clean", "clean_steps": [{"interface": "raid", "step": "x", "args": {"a": null}}], "disable_ramdisk": "1"}`},
		{"PUT", "/v1/nodes/x/states/provision?target=rescue&rescue_password=%20", "1.38", ""},
		{"PUT", "/v1/nodes/x/states/boot_mode", "1.76", `{"target": "uefi"}`},
		{"PUT", "/v1/nodes/x/states/secure_boot", "1.76", `{"target": "off"}`},
		{"PUT", "/v1/nodes/x/states/raid", "1.12", `{"logical_disks": [{"size_gb": "MAX", "raid_level": "1"}]}`},
		{"PUT", "/v1/nodes/x/states/console", "1.82", `{"enabled": "true"}`},
		{"GET", "/v1/nodes/x/management/boot_device/supported", "1.82", ""},
		{"PUT", "/v1/nodes/x/management/boot_device?persistent=yes", "1.82", `{"boot_device": "pxe"}`},
		{"PUT", "/v1/nodes/x/management/inject_nmi", "1.29", ""},
		{"POST", "/v1/nodes/x/vendor_passthru?method=second_method", "1.82", `{"bar": "kazoo"}`},
		{"DELETE", "/v1/drivers/fake-hardware/vendor_passthru/m", "1.82", `[1, "a"]`},
		{"GET", "/v1/lookup?addresses=52:54:00:aa:bb:cc", "1.82", ""},
		{"POST", "/v1/heartbeat/x", "1.82", `{"callback_url": "http://a", "agent_token": "t", "agent_version": "9"}`},
		{"POST", "/v1/allocations", "1.82", `{"resource_class": "rc", "candidate_nodes": ["x"]}`},
		{"DELETE", "/v1/nodes/x/allocation", "1.82", ""},
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
