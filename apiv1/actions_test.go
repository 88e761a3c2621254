package apiv1_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/rpc"
)

// actionSetup is the harness with a FakeConductor answering the node
// actions, and one fake-hardware node named "n1".
func actionSetup(t *testing.T) (*Setup, *FakeConductor, string) {
	t.Helper()
	f := &FakeConductor{}
	s := NewSetup(t, WithConductor(f.Wrap))
	uuid := s.Must(http.StatusCreated, "POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "name": "n1"}).Field("uuid").(string)
	f.Calls()
	return s, f, uuid
}

// setNode writes node columns straight to the database (the state a
// conductor would have left).
func setNode(t *testing.T, s *Setup, uuid string, vals db.Values) {
	t.Helper()
	if _, err := s.Store.UpdateNode(context.Background(), db.ByUUID(uuid), vals); err != nil {
		t.Fatal(err)
	}
}

func TestProvisionVersionGates(t *testing.T) {
	s, f, uuid := actionSetup(t)
	for _, c := range []struct {
		verb, min string
	}{
		{"manage", "1.4"}, {"provide", "1.4"}, {"inspect", "1.6"}, {"abort", "1.13"}, {"clean", "1.15"},
		{"adopt", "1.17"}, {"rescue", "1.38"}, {"unrescue", "1.38"}, {"deploy", "1.73"}, {"delete", "1.73"},
	} {
		var major, minor int
		if _, err := fmt.Sscanf(c.min, "%d.%d", &major, &minor); err != nil {
			t.Fatalf("version %q: %v", c.min, err)
		}
		below := fmt.Sprintf("1.%d", minor-1)
		r := s.Do("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": c.verb},
			"X-OpenStack-Ironic-API-Version", below)
		if r.Status != http.StatusNotAcceptable {
			t.Errorf("%s at %s: %d, want 406", c.verb, below, r.Status)
		}
		r = s.Do("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": c.verb},
			"X-OpenStack-Ironic-API-Version", c.min)
		if r.Status == http.StatusNotAcceptable {
			t.Errorf("%s at %s: 406", c.verb, c.min)
		}
	}
	// Ironic keys its verb table by event: "undeploy" has no gate of its
	// own, so an old client reaches the state check.
	drvWantFault(t, s, http.StatusBadRequest, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "undeploy"},
		`The requested action "undeploy" can not be performed on node "`+uuid+`" while it is in state "enroll".`,
		"X-OpenStack-Ironic-API-Version", "1.1")
	// In enroll only manage is possible: the one call the gates let through.
	if diff := cmp.Diff([]Call{{"DoProvisioningAction", []any{uuid, "manage"}}}, f.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestProvisionCalls(t *testing.T) {
	s, f, uuid := actionSetup(t)
	tr := true
	for _, c := range []struct {
		name, state string
		body        map[string]any
		want        Call
	}{
		{"manage", "enroll", map[string]any{"target": "manage"}, Call{"DoProvisioningAction", []any{uuid, "manage"}}},
		{"provide", "manageable", map[string]any{"target": "provide"}, Call{"DoProvisioningAction", []any{uuid, "provide"}}},
		{"inspect", "manageable", map[string]any{"target": "inspect"}, Call{"InspectHardware", []any{uuid}}},
		{"adopt", "manageable", map[string]any{"target": "adopt"}, Call{"DoProvisioningAction", []any{uuid, "adopt"}}},
		{"abort", "clean wait", map[string]any{"target": "abort"}, Call{"DoProvisioningAction", []any{uuid, "abort"}}},
		{"clean", "manageable", map[string]any{"target": "clean", "clean_steps": []any{
			map[string]any{"interface": "deploy", "step": "erase_devices", "args": map[string]any{"a": 1}}}},
			Call{"DoNodeClean", []any{uuid, []map[string]any{{"interface": "deploy", "step": "erase_devices", "args": map[string]any{"a": float64(1)}}}, nil}}},
		{"clean-no-ramdisk", "manageable", map[string]any{"target": "clean", "disable_ramdisk": "yes",
			"clean_steps": []any{map[string]any{"interface": "raid", "step": "delete_configuration"}}},
			Call{"DoNodeClean", []any{uuid, []map[string]any{{"interface": "raid", "step": "delete_configuration"}}, tr}}},
		{"active", "available", map[string]any{"target": "active", "configdrive": "H4sI"},
			Call{"DoNodeDeploy", []any{uuid, false, "H4sI", []map[string]any(nil)}}},
		{"active-dict", "deploy failed", map[string]any{"target": "active", "configdrive": map[string]any{"meta_data": map[string]any{}},
			"deploy_steps": []any{map[string]any{"interface": "deploy", "step": "s", "args": map[string]any{}, "priority": 5}}},
			Call{"DoNodeDeploy", []any{uuid, false, pyjson.Object{{Key: "meta_data", Value: pyjson.Object{}}},
				[]map[string]any{{"interface": "deploy", "step": "s", "args": map[string]any{}, "priority": float64(5)}}}}},
		{"rebuild", "active", map[string]any{"target": "rebuild", "configdrive": "http://cd"},
			Call{"DoNodeDeploy", []any{uuid, true, "http://cd", []map[string]any(nil)}}},
		{"deleted", "active", map[string]any{"target": "deleted"}, Call{"DoNodeTearDown", []any{uuid}}},
		{"undeploy", "error", map[string]any{"target": "undeploy"}, Call{"DoNodeTearDown", []any{uuid}}},
		{"rescue", "active", map[string]any{"target": "rescue", "rescue_password": "pw"}, Call{"DoNodeRescue", []any{uuid, "pw"}}},
		{"unrescue", "rescue", map[string]any{"target": "unrescue"}, Call{"DoNodeUnrescue", []any{uuid}}},
	} {
		setNode(t, s, uuid, db.Values{"provision_state": c.state})
		r := s.Do("PUT", "/v1/nodes/n1/states/provision", c.body)
		if r.Status != http.StatusAccepted || len(r.Raw) != 0 {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
			continue
		}
		if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/nodes/n1/states") {
			t.Errorf("%s: Location %q", c.name, loc)
		}
		calls := f.Calls()
		if len(calls) != 1 {
			t.Errorf("%s: calls %v", c.name, calls)
			continue
		}
		if diff := cmp.Diff(c.want, normalizeCall(calls[0])); diff != "" {
			t.Errorf("%s: call (-want +got):\n%s", c.name, diff)
		}
	}
}

// normalizeCall turns the JSON numbers inside a call's arguments into
// float64, so that tables can spell them plainly.
func normalizeCall(c Call) Call {
	var norm func(any) any
	norm = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = norm(e)
			}
			return out
		case []map[string]any:
			if x == nil {
				return x
			}
			out := make([]map[string]any, len(x))
			for i, e := range x {
				out[i] = norm(e).(map[string]any)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = norm(e)
			}
			return out
		case fmt.Stringer:
			var f float64
			if _, err := fmt.Sscan(x.String(), &f); err == nil {
				return f
			}
		}
		return v
	}
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		args[i] = norm(a)
	}
	return Call{Method: c.Method, Args: args}
}

func TestProvisionErrors(t *testing.T) {
	s, f, uuid := actionSetup(t)
	inState := func(st string) string { return `" while it is in state "` + st + `".` }
	for _, c := range []struct {
		name, state, version string
		node                 db.Values
		body                 any
		status               int
		msg                  string // exact, or a prefix when it ends with "…"
	}{
		{"no-target", "enroll", "", nil, map[string]any{}, 400, "Missing mandatory parameter: target"},
		{"target-int", "enroll", "", nil, map[string]any{"target": 5}, 400, "Expected string for target: 5"},
		{"unexpected", "enroll", "", nil, map[string]any{"target": "manage", "bogus": 1}, 400, "Unexpected arguments: bogus"},
		{"configdrive-int", "available", "", nil, map[string]any{"target": "active", "configdrive": 5}, 400,
			"Expected types <class 'NoneType'>, <class 'dict'>, <class 'str'> for configdrive: 5"},
		{"clean-steps-str", "manageable", "", nil, map[string]any{"target": "clean", "clean_steps": "x"}, 400,
			"Expected types <class 'NoneType'>, <class 'list'> for clean_steps: x"},
		{"deploy-steps-dict", "available", "", nil, map[string]any{"target": "active", "deploy_steps": map[string]any{"a": "b"}}, 400,
			"Expected types <class 'NoneType'>, <class 'list'> for deploy_steps: {'a': 'b'}"},
		{"rescue-password-int", "active", "", nil, map[string]any{"target": "rescue", "rescue_password": 1}, 400,
			"Expected string for rescue_password: 1"},
		{"disable-ramdisk-bogus", "manageable", "", nil, map[string]any{"target": "clean", "disable_ramdisk": "maybe"}, 400,
			"Invalid disable_ramdisk: Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"},
		{"maintenance-active", "available", "", db.Values{"maintenance": true}, map[string]any{"target": "active"}, 400,
			"The provisioning operation can't be performed on node " + uuid + " because it's in maintenance mode."},
		{"maintenance-rebuild", "active", "", db.Values{"maintenance": true}, map[string]any{"target": "rebuild"}, 400,
			"The provisioning operation can't be performed on node " + uuid + " because it's in maintenance mode."},
		{"state", "enroll", "", nil, map[string]any{"target": "active"}, 400,
			`The requested action "active" can not be performed on node "` + uuid + inState("enroll")},
		{"state-bogus-verb", "available", "", nil, map[string]any{"target": "sideways"}, 400,
			`The requested action "sideways" can not be performed on node "` + uuid + inState("available")},
		{"state-null-target", "available", "", nil, map[string]any{"target": nil}, 400,
			`The requested action "None" can not be performed on node "` + uuid + inState("available")},
		{"locked", "deploying", "", db.Values{"reservation": "other-host"}, map[string]any{"target": "deleted"}, 409,
			"Node " + uuid + " is locked by host other-host, please retry after the current operation is completed."},
		{"not-understood", "deploying", "", nil, map[string]any{"target": "done"}, 400,
			`The requested action "done" could not be understood.`},
		{"configdrive-manage", "enroll", "", nil, map[string]any{"target": "manage", "configdrive": "abc"}, 400,
			"Adding a config drive is only supported when setting provision state to active, rebuild"},
		{"configdrive-rebuild-1.34", "active", "1.34", nil, map[string]any{"target": "rebuild", "configdrive": "abc"}, 400,
			"Adding a config drive is only supported when setting provision state to active"},
		{"configdrive-not-b64", "available", "", nil, map[string]any{"target": "active", "configdrive": "a:b"}, 400,
			"Invalid configdrive format: it is neither a JSON, nor a URL, nor a base64 string"},
		{"configdrive-dict-1.55", "available", "1.55", nil, map[string]any{"target": "active", "configdrive": map[string]any{"user_data": "x"}}, 400,
			"Providing a JSON object for configdrive is only supported starting with API version 1.56"},
		{"configdrive-vendor-1.58", "available", "1.58", nil, map[string]any{"target": "active", "configdrive": map[string]any{"vendor_data": map[string]any{}}}, 400,
			"Providing vendor_data in configdrive is only supported starting with API version 1.59"},
		{"configdrive-schema", "available", "", nil, map[string]any{"target": "active", "configdrive": map[string]any{"bogus": 1}}, 400,
			"Invalid configdrive format: Additional properties are not allowed ('bogus' was unexpected)\n\nFailed validating 'additionalProperties' in schema[0]:…"},
		{"configdrive-deploy-verb", "available", "", nil, map[string]any{"target": "deploy", "configdrive": "abc"}, 400,
			"Adding a config drive is only supported when setting provision state to active, rebuild"},
		{"disable-ramdisk-1.69", "manageable", "1.69", nil, map[string]any{"target": "clean", "disable_ramdisk": true}, 406,
			"disable_ramdisk is not acceptable in this API version"},
		{"disable-ramdisk-manage", "enroll", "", nil, map[string]any{"target": "manage", "disable_ramdisk": false}, 400,
			"disable_ramdisk is supported only with manual cleaning"},
		{"clean-steps-manage", "enroll", "", nil, map[string]any{"target": "manage", "clean_steps": []any{map[string]any{}}}, 400,
			`"clean_steps" is only valid when setting target provision state to clean`},
		{"deploy-steps-1.68", "available", "1.68", nil, map[string]any{"target": "active", "deploy_steps": []any{map[string]any{}}}, 406,
			"Request not acceptable. The minimal required API version should be 1.69"},
		{"deploy-steps-manage", "enroll", "", nil, map[string]any{"target": "manage", "deploy_steps": []any{map[string]any{}}}, 400,
			`"deploy_steps" is only valid when setting target provision state to active or rebuild`},
		{"rescue-password-manage", "enroll", "", nil, map[string]any{"target": "manage", "rescue_password": ""}, 400,
			`"rescue_password" is only valid when setting target provision state to rescue`},
		{"rescue-blank-password", "active", "", nil, map[string]any{"target": "rescue", "rescue_password": "  "}, 400,
			`A non-empty "rescue_password" is required when setting target provision state to rescue`},
		{"rescue-no-password", "active", "", nil, map[string]any{"target": "rescue"}, 400,
			`A non-empty "rescue_password" is required when setting target provision state to rescue`},
		{"clean-no-steps", "manageable", "", nil, map[string]any{"target": "clean"}, 400,
			`"clean_steps" is required when setting target provision state to clean`},
		{"clean-bad-interface", "manageable", "", nil, map[string]any{"target": "clean", "clean_steps": []any{map[string]any{"interface": "bogus", "step": "x"}}}, 400,
			"Invalid clean_steps: 'bogus' is not one of ['power', 'management', 'deploy', 'bios', 'raid']\n\nFailed validating 'enum' in schema['items']['properties']['interface']:…"},
		{"deploy-steps-schema", "available", "", nil, map[string]any{"target": "active", "deploy_steps": []any{map[string]any{"interface": "deploy"}}}, 400,
			"Invalid deploy_steps: 'step' is a required property…"},
		{"abort-inspect-wait-1.40", "inspect wait", "1.40", nil, map[string]any{"target": "abort"}, 406, "Request not acceptable."},
		{"missing-node", "enroll", "", nil, map[string]any{"target": "manage"}, 404, "Node nope could not be found."},
	} {
		vals := db.Values{"provision_state": c.state, "maintenance": false, "reservation": nil}
		for k, v := range c.node {
			vals[k] = v
		}
		setNode(t, s, uuid, vals)
		path := "/v1/nodes/" + uuid + "/states/provision"
		if c.name == "missing-node" {
			path = "/v1/nodes/nope/states/provision"
		}
		var hdr []string
		if c.version != "" {
			hdr = []string{"X-OpenStack-Ironic-API-Version", c.version}
		}
		r := s.Do("PUT", path, c.body, hdr...)
		if r.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.Status, c.status, r.Raw)
			continue
		}
		got := drvFaultString(t, r)
		if want, prefix := strings.CutSuffix(c.msg, "…"); prefix && !strings.HasPrefix(got, want) || !prefix && got != want {
			t.Errorf("%s: faultstring\n%q\nwant\n%q", c.name, got, c.msg)
		}
		if calls := f.Calls(); len(calls) != 0 {
			t.Errorf("%s: the conductor was called: %v", c.name, calls)
		}
	}
	// A conductor fault comes back as it is.
	setNode(t, s, uuid, db.Values{"provision_state": "enroll", "reservation": nil, "maintenance": false})
	f.Err = ironic.Errorf(ironic.NodeLocked, "Node %s is locked by host h, please retry after the current operation is completed.", uuid)
	drvWantFault(t, s, http.StatusConflict, "PUT", "/v1/nodes/n1/states/provision", map[string]any{"target": "manage"},
		"Node "+uuid+" is locked by host h, please retry after the current operation is completed.")
}

func TestBootModeAndSecureBoot(t *testing.T) {
	s, f, uuid := actionSetup(t)
	bm, sb := "/v1/nodes/n1/states/boot_mode", "/v1/nodes/n1/states/secure_boot"
	const old = "This endpoint is supported starting with the API version 1.76"
	drvWantFault(t, s, 404, "PUT", bm, map[string]any{"target": "uefi"}, old, "X-OpenStack-Ironic-API-Version", "1.75")
	drvWantFault(t, s, 404, "PUT", sb, map[string]any{"target": true}, old, "X-OpenStack-Ironic-API-Version", "1.75")
	drvWantFault(t, s, 400, "PUT", bm, map[string]any{}, "Missing mandatory parameter: target")
	drvWantFault(t, s, 400, "PUT", bm, map[string]any{"target": "efi"}, "Invalid boot mode efi requested for node. Allowed boot modes are: bios, uefi")
	drvWantFault(t, s, 400, "PUT", sb, map[string]any{"target": "maybe"},
		"Invalid target: Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'")
	drvWantFault(t, s, 400, "PUT", sb, map[string]any{"target": nil},
		"Invalid secure_boot None requested for node. Allowed secure_boot states are: True, False) ")
	if c := f.Calls(); len(c) != 0 {
		t.Errorf("calls after refusals: %v", c)
	}
	r := s.Must(202, "PUT", bm, map[string]any{"target": "bios"})
	if !strings.HasSuffix(r.Header.Get("Location"), "/v1/nodes/n1/states") {
		t.Errorf("Location %q", r.Header.Get("Location"))
	}
	s.Must(202, "PUT", sb, map[string]any{"target": "on"})
	if diff := cmp.Diff([]Call{{"ChangeNodeBootMode", []any{uuid, "bios"}}, {"ChangeNodeSecureBoot", []any{uuid, true}}}, f.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	setNode(t, s, uuid, db.Values{"provision_state": "cleaning"})
	const unstable = "Node is in %(state)s state. Since node is transitioning, the boot mode will not be set as this may interfere with ongoing changes and result in erroneous modification. Try again later."
	drvWantFault(t, s, 409, "PUT", bm, map[string]any{"target": "uefi"}, unstable)
	drvWantFault(t, s, 409, "PUT", sb, map[string]any{"target": false}, unstable)
}

func TestRAIDConsoleBootDeviceNMI(t *testing.T) {
	s, f, uuid := actionSetup(t)
	raid := "/v1/nodes/n1/states/raid"
	drvWantFault(t, s, 406, "PUT", raid, map[string]any{}, "Request not acceptable.", "X-OpenStack-Ironic-API-Version", "1.11")
	drvWantFault(t, s, 400, "PUT", raid, []any{1}, "Expected types <class 'dict'> for target_raid_config: [1]")
	drvWantFault(t, s, 400, "PUT", raid+"?x=1", map[string]any{}, "Unexpected arguments: x")
	cfg := map[string]any{"logical_disks": []any{map[string]any{"size_gb": "MAX", "raid_level": "1"}}}
	s.Must(204, "PUT", raid, cfg)
	s.Must(204, "PUT", raid, nil)
	if diff := cmp.Diff([]Call{{"SetTargetRAIDConfig", []any{uuid, cfg}}, {"SetTargetRAIDConfig", []any{uuid, map[string]any{}}}}, f.Calls()); diff != "" {
		t.Errorf("raid calls (-want +got):\n%s", diff)
	}
	f.Err = ironic.Errorf(ironic.UnsupportedDriverExtension, "Driver fake-hardware does not support raid (disabled or not implemented).")
	drvWantFault(t, s, 404, "PUT", raid, cfg, "Driver fake-hardware does not support raid (disabled or not implemented).")
	f.Calls()

	// Console.
	f.Err = ironic.Errorf(ironic.NodeConsoleNotEnabled, "Console access is not enabled on node %s", uuid)
	r := s.Must(200, "GET", "/v1/nodes/n1/states/console", nil)
	if string(r.Raw) != `{"console_enabled": false, "console_info": null}` {
		t.Errorf("console off: %s", r.Raw)
	}
	f.Err, f.Console = nil, map[string]any{"type": "shellinabox", "url": "http://h:1"}
	r = s.Must(200, "GET", "/v1/nodes/n1/states/console", nil)
	if string(r.Raw) != `{"console_enabled": true, "console_info": {"type": "shellinabox", "url": "http://h:1"}}` {
		t.Errorf("console on: %s", r.Raw)
	}
	drvWantFault(t, s, 400, "PUT", "/v1/nodes/n1/states/console", map[string]any{}, "Missing mandatory parameter: enabled")
	drvWantFault(t, s, 400, "PUT", "/v1/nodes/n1/states/console", map[string]any{"enabled": "x"},
		"Invalid enabled: Unrecognized value 'x', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'")
	r = s.Must(202, "PUT", "/v1/nodes/n1/states/console", map[string]any{"enabled": true})
	if !strings.HasSuffix(r.Header.Get("Location"), "/v1/nodes/n1/states/console") {
		t.Errorf("console Location %q", r.Header.Get("Location"))
	}

	// Boot device.
	dev, yes := "disk", true
	f.BootDevice, f.Supported = &rpc.BootDevice{BootDevice: &dev, Persistent: &yes}, []string{"pxe", "disk"}
	if r := s.Must(200, "GET", "/v1/nodes/n1/management/boot_device", nil); string(r.Raw) != `{"boot_device": "disk", "persistent": true}` {
		t.Errorf("boot device: %s", r.Raw)
	}
	if r := s.Must(200, "GET", "/v1/nodes/n1/management/boot_device/supported", nil); string(r.Raw) != `{"supported_boot_devices": ["pxe", "disk"]}` {
		t.Errorf("supported: %s", r.Raw)
	}
	drvWantFault(t, s, 400, "PUT", "/v1/nodes/n1/management/boot_device", map[string]any{}, "Missing mandatory parameter: boot_device")
	drvWantFault(t, s, 400, "PUT", "/v1/nodes/n1/management/boot_device", map[string]any{"boot_device": 1}, "Expected string for boot_device: 1")
	s.Must(204, "PUT", "/v1/nodes/n1/management/boot_device", map[string]any{"boot_device": "pxe", "persistent": "true"})
	s.Must(204, "PUT", "/v1/nodes/n1/management/boot_device?boot_device=disk", nil)

	// NMI.
	drvWantFault(t, s, 404, "PUT", "/v1/nodes/n1/management/inject_nmi", nil, "Resource could not be found.", "X-OpenStack-Ironic-API-Version", "1.28")
	s.Must(204, "PUT", "/v1/nodes/n1/management/inject_nmi", nil)
	want := []Call{
		{"GetConsoleInformation", []any{uuid}}, {"GetConsoleInformation", []any{uuid}}, {"SetConsoleMode", []any{uuid, true}},
		{"GetBootDevice", []any{uuid}}, {"GetSupportedBootDevices", []any{uuid}},
		{"SetBootDevice", []any{uuid, "pxe", true}}, {"SetBootDevice", []any{uuid, "disk", false}},
		{"InjectNMI", []any{uuid}},
	}
	if diff := cmp.Diff(want, f.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestVendorPassthru(t *testing.T) {
	s, f, uuid := actionSetup(t)
	drvWantFault(t, s, 400, "POST", "/v1/nodes/n1/vendor_passthru", map[string]any{}, "Missing mandatory parameter: method")
	drvWantFault(t, s, 400, "POST", "/v1/nodes/n1/vendor_passthru?method=", map[string]any{}, "Method not specified")
	drvWantFault(t, s, 400, "POST", "/v1/nodes/n1/vendor_passthru/m?method=m", map[string]any{}, "Unexpected arguments: method")
	f.Vendor = &rpc.VendorResult{Async: true}
	r := s.Must(202, "POST", "/v1/nodes/n1/vendor_passthru?method=second_method", map[string]any{"bar": "kazoo"})
	if len(r.Raw) != 0 {
		t.Errorf("async body: %q", r.Raw)
	}
	f.Vendor = &rpc.VendorResult{Return: map[string]any{"ok": true}}
	if r := s.Must(200, "PUT", "/v1/nodes/n1/vendor_passthru/third", nil); string(r.Raw) != `{"ok": true}` {
		t.Errorf("sync body: %s", r.Raw)
	}
	f.Vendor = &rpc.VendorResult{Return: "raw bytes", Attach: true}
	if r := s.Must(200, "GET", "/v1/nodes/n1/vendor_passthru/file", nil); string(r.Raw) != "raw bytes" {
		t.Errorf("attached body: %q", r.Raw)
	}
	f.Vendor = &rpc.VendorResult{}
	s.Must(200, "DELETE", "/v1/drivers/fake-hardware/vendor_passthru?method=dm", []any{1})
	s.Must(200, "POST", "/v1/drivers/fake-hardware/vendor_passthru/methods", nil)
	want := []Call{
		{"VendorPassthru", []any{uuid, "second_method", "POST", map[string]any{"bar": "kazoo"}}},
		{"VendorPassthru", []any{uuid, "third", "PUT", map[string]any{}}},
		{"VendorPassthru", []any{uuid, "file", "GET", map[string]any{}}},
		{"DriverVendorPassthru", []any{"fake-hardware", "dm", "DELETE", []any{float64(1)}}},
		{"DriverVendorPassthru", []any{"fake-hardware", "methods", "POST", map[string]any{}}},
	}
	var got []Call
	for _, c := range f.Calls() {
		got = append(got, normalizeCall(c))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	f.Err = ironic.Errorf(ironic.InvalidParameterValue, "No handler for method first_method")
	drvWantFault(t, s, 400, "POST", "/v1/nodes/n1/vendor_passthru/first_method", map[string]any{}, "No handler for method first_method")
}

func TestRamdiskAndAllocationCalls(t *testing.T) {
	s, f, uuid := actionSetup(t)
	setNode(t, s, uuid, db.Values{"provision_state": "deploying"})
	// Lookup from 1.62 asks the conductor for the node with a token.
	tokened, err := s.Store.GetNodeByUUID(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	tokened.DriverInternalInfo = map[string]any{"agent_secret_token": "tok"}
	f.TokenNode = tokened
	r := s.Must(200, "GET", "/v1/lookup?node_uuid="+uuid, nil)
	if cfg, _ := r.Field("config").(map[string]any); cfg["agent_token"] != "tok" {
		t.Errorf("lookup config: %s", r.Raw)
	}
	s.Must(202, "POST", "/v1/heartbeat/"+uuid, map[string]any{"callback_url": "http://a:9999", "agent_token": "tok",
		"agent_version": "9.0", "agent_status": "start"})
	tok, st := "tok", "start"
	want := []Call{
		{"GetNodeWithToken", []any{uuid}},
		{"Heartbeat", []any{uuid, rpc.Heartbeat{CallbackURL: "http://a:9999", AgentVersion: ptr("9.0"), AgentToken: &tok, AgentStatus: &st}}},
	}
	if diff := cmp.Diff(want, f.Calls()); diff != "" {
		t.Errorf("ramdisk calls (-want +got):\n%s", diff)
	}

	r = s.Must(201, "POST", "/v1/allocations", map[string]any{"resource_class": "rc", "name": "al1",
		"candidate_nodes": []any{"n1"}, "traits": []any{"CUSTOM_X"}})
	if r.Field("state") != "allocating" || r.Field("resource_class") != "rc" || !strings.HasSuffix(r.Header.Get("Location"), "/v1/allocations/"+r.Field("uuid").(string)) {
		t.Errorf("allocation: %s Location=%q", r.Raw, r.Header.Get("Location"))
	}
	calls := f.Calls()
	if len(calls) != 1 || calls[0].Method != "CreateAllocation" {
		t.Fatalf("calls: %v", calls)
	}
	if al := fmt.Sprint(calls[0].Args[0]); !strings.Contains(al, "["+uuid+"]") || !strings.Contains(al, "[CUSTOM_X]") {
		t.Errorf("allocation sent: %s", al)
	}
	// Deleting, by the allocation or through its node.
	nodeID := tokened.ID
	al, err := s.Store.CreateAllocation(context.Background(), &models.Allocation{Name: ptr("al2"), State: "active", NodeID: &nodeID})
	if err != nil {
		t.Fatal(err)
	}
	s.Must(204, "DELETE", "/v1/allocations/al2", nil)
	s.Must(204, "DELETE", "/v1/nodes/n1/allocation", nil)
	if diff := cmp.Diff([]Call{{"DestroyAllocation", []any{al.UUID}}, {"DestroyAllocation", []any{al.UUID}}}, f.Calls()); diff != "" {
		t.Errorf("destroy calls (-want +got):\n%s", diff)
	}
	f.Err = ironic.Errorf(ironic.InvalidState, "Cannot delete allocation")
	s.Must(409, "DELETE", "/v1/allocations/al2", nil)
}

func ptr[T any](v T) *T { return &v }
