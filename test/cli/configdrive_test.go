package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testConfigDrive deploys and rebuilds a fake-hardware node through
// `openstack baremetal node deploy|rebuild --config-drive` with each form
// the client accepts: a JSON object (built into an ISO by the server, API
// 1.56+), a file holding a gzip+base64 image, a directory (the client
// builds the ISO with genisoimage); the client sends no other string (the
// API's URL and bare-string forms are in test/differential). Each
// time the node goes active and instance_info.configdrive reads "******";
// undeploy clears it.
func testConfigDrive(t *testing.T, w *world) {
	c := w.cli
	name := w.name("configdrive")
	w.cleanup(t, "node", "delete", name)
	w.cleanup(t, "node", "undeploy", name)
	c.Object(t, "node", "create", "--driver", "fake-hardware", "--name", name)
	c.OK(t, "node", "manage", name, "--wait", "30")
	c.OK(t, "node", "provide", name, "--wait", "30")

	dict, err := json.Marshal(map[string]any{
		"meta_data":    map[string]any{"hostname": "cli-host", "public_keys": map[string]any{"k": "ssh-rsa AAAA"}},
		"network_data": map[string]any{"links": []any{map[string]any{"id": "p1", "type": "phy", "ethernet_mac_address": w.mac(1)}}, "networks": []any{}, "services": []any{}},
		"user_data":    "#cloud-config\nhostname: cli-host\n",
		"vendor_data":  map[string]any{"vendor": map[string]any{"a": 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// An empty gzip stream, base64-encoded (the server does not look inside).
	const packed = "H4sIAAAAAAAAA+3BAQ0AAADCoPdPbQ8HFAAAAAAAAAAAAPwGhpzLPQAoAAA="
	dir := t.TempDir()
	file := filepath.Join(dir, "configdrive.gz.b64")
	if err := os.WriteFile(file, []byte(packed), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "not-base64")
	if err := os.WriteFile(bad, []byte("not:base64"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "openstack", "latest"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "openstack", "latest", "meta_data.json"), []byte(`{"uuid": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errISO := exec.LookPath("genisoimage")

	masked := func(step string) {
		t.Helper()
		n := c.Object(t, "node", "show", name, "--fields", "provision_state", "instance_info", "last_error")
		want := object{"provision_state": "active", "instance_info": object{"configdrive": "******"}, "last_error": nil}
		if d := cmp.Diff(normalize(t, want), normalize(t, n)); d != "" {
			t.Errorf("after %s (-want +got):\n%s", step, d)
		}
	}
	c.OK(t, "node", "deploy", name, "--config-drive", string(dict), "--wait", "30")
	masked("deploy --config-drive <json>")
	c.OK(t, "node", "rebuild", name, "--config-drive", file, "--wait", "30")
	masked("rebuild --config-drive <file>")
	if errISO == nil {
		c.OK(t, "node", "rebuild", name, "--config-drive", tree, "--wait", "30")
		masked("rebuild --config-drive <dir>")
	} else {
		t.Logf("genisoimage not installed: the directory form is not tried")
	}
	// python-ironicclient 5.0.1 takes any other string for a path:
	// a bare gzip+base64 string or a URL never reaches the server.
	c.Fails(t, []string{"Config drive seems to refer to a file or directory but this file/directory does not exist"},
		"node", "rebuild", name, "--config-drive", "http://127.0.0.1:1/configdrive.iso")
	c.OK(t, "node", "rebuild", name, "--config-drive", `{"user_data": ["x", {"y": null}]}`, "--wait", "30")
	masked("rebuild --config-drive <json>")

	// Refusals, with Ironic's messages.
	c.Fails(t, []string{"Invalid configdrive format: 'x' is not of type 'object'"},
		"node", "rebuild", name, "--config-drive", `{"meta_data": "x"}`)
	c.Fails(t, []string{"Additional properties are not allowed ('bogus' was unexpected)"},
		"node", "rebuild", name, "--config-drive", `{"bogus": {}}`)
	c.Fails(t, []string{"Invalid configdrive format: it is neither a JSON, nor a URL, nor a base64 string"},
		"node", "rebuild", name, "--config-drive", bad)
	c.With(map[string]string{"OS_BAREMETAL_API_VERSION": "1.58"}, "baremetal").Fails(t,
		[]string{"Providing vendor_data in configdrive is only supported starting with API version 1.59"},
		"node", "rebuild", name, "--config-drive", `{"vendor_data": {"a": 1}}`)

	c.OK(t, "node", "undeploy", name, "--wait", "30")
	n := c.Object(t, "node", "show", name, "--fields", "provision_state", "instance_info")
	if d := cmp.Diff(normalize(t, object{"provision_state": "available", "instance_info": object{}}), normalize(t, n)); d != "" {
		t.Errorf("after undeploy (-want +got):\n%s", d)
	}
	c.OK(t, "node", "delete", name)
}
