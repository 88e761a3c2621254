package apiv1_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/rpc"
)

// TestNodeControllerPaths: NodesController's attribute controllers take
// the node ident after their own name, as pecan routes them
// (ironic-tempest-plugin's get_console asks for
// GET /v1/nodes/states/console/{node}). Answers recorded from Ironic 21.4.
func TestNodeControllerPaths(t *testing.T) {
	s, f, uuid := actionSetup(t)
	f.Console = map[string]any{"type": "shellinabox", "url": "http://h:1"}
	dev, no := "pxe", false
	f.BootDevice, f.Supported = &rpc.BootDevice{BootDevice: &dev, Persistent: &no}, []string{"pxe"}
	f.Vendor = &rpc.VendorResult{Return: "ok"}

	ok := []struct {
		method, path string
		body         any
		status       int
		raw          string // "" = not checked
	}{
		{"GET", "/v1/nodes/states/console/" + uuid, nil, 200,
			`{"console_enabled": true, "console_info": {"type": "shellinabox", "url": "http://h:1"}}`},
		{"GET", "/v1/nodes/states/n1/console", nil, 200, ""},
		{"PUT", "/v1/nodes/states/console/n1", map[string]any{"enabled": true}, 202, ""},
		{"PUT", "/v1/nodes/states/n1/console", map[string]any{"enabled": false}, 202, ""},
		{"GET", "/v1/nodes/states/n1", nil, 200, ""},
		{"PUT", "/v1/nodes/states/provision/n1", map[string]any{"target": "manage"}, 202, ""},
		{"PUT", "/v1/nodes/states/raid/n1", map[string]any{}, 204, ""},
		{"PUT", "/v1/nodes/states/boot_mode/n1", map[string]any{"target": "uefi"}, 202, ""},
		{"PUT", "/v1/nodes/states/secure_boot/n1", map[string]any{"target": true}, 202, ""},
		{"GET", "/v1/nodes/management/boot_device/n1", nil, 200, `{"boot_device": "pxe", "persistent": false}`},
		{"GET", "/v1/nodes/management/boot_device/n1/supported", nil, 200, `{"supported_boot_devices": ["pxe"]}`},
		{"PUT", "/v1/nodes/management/boot_device/n1", map[string]any{"boot_device": "pxe"}, 204, ""},
		{"PUT", "/v1/nodes/management/inject_nmi/n1", nil, 204, ""},
		{"PUT", "/v1/nodes/maintenance/n1", map[string]any{"reason": "r"}, 202, ""},
		{"DELETE", "/v1/nodes/maintenance/n1", nil, 202, ""},
		{"POST", "/v1/nodes/vendor_passthru/n1?method=m1", map[string]any{}, 200, `"ok"`},
		{"POST", "/v1/nodes/vendor_passthru/n1/m2", map[string]any{}, 200, `"ok"`},
	}
	for _, c := range ok {
		r := s.Must(c.status, c.method, c.path, c.body)
		if c.raw != "" && string(r.Raw) != c.raw {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, r.Raw, c.raw)
		}
		if len(r.versionHeaders()) == 0 {
			t.Errorf("%s %s: no version header", c.method, c.path)
		}
	}
	want := []Call{
		{"GetConsoleInformation", []any{uuid}}, {"GetConsoleInformation", []any{uuid}},
		{"SetConsoleMode", []any{uuid, true}}, {"SetConsoleMode", []any{uuid, false}},
		{"DoProvisioningAction", []any{uuid, "manage"}},
		{"SetTargetRAIDConfig", []any{uuid, map[string]any{}}},
		{"ChangeNodeBootMode", []any{uuid, "uefi"}}, {"ChangeNodeSecureBoot", []any{uuid, true}},
		{"GetBootDevice", []any{uuid}}, {"GetSupportedBootDevices", []any{uuid}},
		{"SetBootDevice", []any{uuid, "pxe", false}}, {"InjectNMI", []any{uuid}},
		{"VendorPassthru", []any{uuid, "m1", "POST", map[string]any{}}},
		{"VendorPassthru", []any{uuid, "m2", "POST", map[string]any{}}},
	}
	if diff := cmp.Diff(want, f.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if r := s.Do("GET", "/v1/nodes/n1/maintenance", nil); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET maintenance: %d", r.Status)
	}

	// Without an ident: wsme's missing argument (with version headers).
	for _, c := range []struct{ method, path, arg string }{
		{"GET", "/v1/nodes/states", "node_ident"},
		{"GET", "/v1/nodes/states/console", "node_ident"},
		{"PUT", "/v1/nodes/states/console", "node_ident"},
		{"PUT", "/v1/nodes/states/power", "node_ident"},
		{"PUT", "/v1/nodes/states/provision", "node_ident"},
		{"GET", "/v1/nodes/management/boot_device", "node_ident"},
		{"PUT", "/v1/nodes/management/inject_nmi", "node_ident"},
		{"GET", "/v1/nodes/management/indicators", "node_ident"},
		{"GET", "/v1/nodes/management/indicators/n1", "indicator"},
		{"PUT", "/v1/nodes/maintenance", "node_ident"},
		{"DELETE", "/v1/nodes/maintenance", "node_ident"},
		{"PATCH", "/v1/nodes/vendor_passthru", "node_ident"},
		{"GET", "/v1/nodes/vendor_passthru/methods", "node_ident"},
		{"POST", "/v1/nodes/vendor_passthru/methods", "method"},
	} {
		drvWantFault(t, s, 400, c.method, c.path, map[string]any{}, "Missing mandatory parameter: "+c.arg)
	}
	// Without an ident, GET /states/<action> takes the action for the ident.
	drvWantFault(t, s, 404, "GET", "/v1/nodes/states/power", nil, "Node power could not be found.")
	drvWantFault(t, s, 404, "GET", "/v1/nodes/states/console/nonexist", nil, "Node nonexist could not be found.")
	drvWantFault(t, s, 400, "GET", "/v1/nodes/states/console/bad!x", nil, "Expected UUID or name for node_ident: bad!x")
	drvWantFault(t, s, 404, "POST", "/v1/nodes/vendor_passthru/methods?method=m", map[string]any{}, "Node methods could not be found.")

	// Other verbs: webob's 405 with the controller's Allow header, which
	// is empty (but sent) for the management controller.
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", "/v1/nodes/states", "GET"},
		{"POST", "/v1/nodes/states/n1", "GET"},
		{"DELETE", "/v1/nodes/states/power/n1", "GET"},
		{"PATCH", "/v1/nodes/states/n1/power", "GET"},
		{"POST", "/v1/nodes/states/console/n1", "GET, PUT"},
		{"GET", "/v1/nodes/maintenance/n1", "DELETE, PUT"},
		{"GET", "/v1/nodes/management", ""},
		{"GET", "/v1/nodes/management/n1", ""},
		{"POST", "/v1/nodes/management/boot_device/n1", ""},
		{"GET", "/v1/nodes/management/inject_nmi/n1", ""},
	} {
		r := s.Do(c.method, c.path, map[string]any{})
		allow, sent := r.Header["Allow"]
		if r.Status != http.StatusMethodNotAllowed || !sent || len(allow) != 1 || allow[0] != c.allow {
			t.Errorf("%s %s: %d, Allow %q (sent %v), want 405 with Allow %q", c.method, c.path, r.Status, allow, sent, c.allow)
		}
		if len(r.versionHeaders()) != 0 {
			t.Errorf("%s %s: a webob 405 carries no version headers", c.method, c.path)
		}
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("refused requests reached the conductor: %v", calls)
	}
}
