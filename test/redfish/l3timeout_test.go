package redfish

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/redfishbmc"
)

// noNICNetworkData is a node's network_data whose only link names a MAC
// the machine doesn't have: the agent falls back to DHCP
// (agent/boot TestSetupNetworkDataMatchingNoNICIsDHCP), finds none on an
// L3 segment, and never calls back.
const noNICNetworkData = `{"links": [{"id": "port-x", "type": "phy", "ethernet_mac_address": "52:54:00:ff:ff:ff"}],
 "networks": [{"id": "net0", "link": "port-x", "type": "ipv4", "ip_address": "192.0.2.10", "netmask": "255.255.255.0",
   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}], "network_id": "x"}],
 "services": [{"type": "dns", "address": "192.0.2.53"}]}`

// TestVirtualMediaL3NoCallback deploys a direct-deploy node with the
// redfish-virtual-media boot interface and network_data that matches no
// NIC of the machine, on our all-in-one against the BMC emulator's
// machine without QEMU, so that no agent ever calls back: while Ironic
// waits, the published deploy ISO is a config-2 volume carrying the
// node's network_data.json; when [conductor]deploy_callback_timeout
// (8 s here) passes, the node is "deploy failed" with 21.4's
// message ("Timeout reached while waiting for callback for node ..."),
// the virtual CD is ejected and the ISO removed from [deploy]http_root.
func TestVirtualMediaL3NoCallback(t *testing.T) {
	bin := cluster.RequireCLI(t)
	cluster.Build(t, cluster.AllInOne)
	ctx := cluster.TestContext(t, 3*time.Minute, 30*defaultMargin)
	var httpRoot string
	srv := startServer(ctx, t, false, func(dir string) cluster.INI {
		httpRoot = filepath.Join(dir, "http")
		hs := httptest.NewServer(http.FileServer(http.Dir(httpRoot)))
		t.Cleanup(hs.Close)
		return cluster.INI{
			"DEFAULT":   {"isolinux_bin": "/usr/lib/ISOLINUX/isolinux.bin"},
			"deploy":    {"http_root": httpRoot, "http_url": hs.URL, "iso_master_path": filepath.Join(dir, "master_iso"), "default_boot_mode": "bios"},
			"redfish":   {"use_swift": "false"},
			"conductor": {"deploy_callback_timeout": "8", "check_provision_state_interval": "1"},
		}
	})
	for _, f := range []string{"/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%v (apt-get install isolinux syslinux-common)", err)
		}
	}
	bmc := newEmulator(t)
	e := &env{
		t: t, ctx: ctx, impl: "go", bmc: bmc,
		cli:     osc.New(ctx, bin, t.TempDir(), srv.URL, apiVersion),
		rest:    cluster.NewClient(srv.URL, apiVersion),
		out:     &run{},
		nodeIDs: map[string]string{},
	}
	e.sys = bmc.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOff, BootMode: "Legacy"})
	img := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("image " + r.URL.Path))
	}))
	t.Cleanup(img.Close)

	uuid := e.createNode("l3", nil)
	ndFile := filepath.Join(t.TempDir(), "network_data.json")
	if err := os.WriteFile(ndFile, []byte(noNICNetworkData), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCLI := func(args ...string) {
		t.Helper()
		if r := e.cli.Run(t, args...); r.Code != 0 {
			t.Fatalf("openstack baremetal %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	mustCLI("node", "set", uuid, "--boot-interface", "redfish-virtual-media", "--deploy-interface", "direct",
		"--driver-info", "deploy_kernel="+img.URL+"/vmlinuz", "--driver-info", "deploy_ramdisk="+img.URL+"/initrd",
		"--instance-info", "image_source="+img.URL+"/disk.img", "--instance-info", "image_checksum=0123456789abcdef0123456789abcdef",
		"--network-data", ndFile)
	mustCLI("node", "manage", uuid)
	e.provisionSettled(uuid, "manageable")
	mustCLI("node", "provide", uuid)
	e.provisionSettled(uuid, "available")
	mustCLI("node", "deploy", uuid, "--config-drive", `{"meta_data": {"hostname": "l3"}}`)

	// While Ironic waits for the callback: the CD holds our config-2 ISO.
	e.waitNode(uuid, "wait call-back", func(n map[string]any) bool {
		return n["provision_state"] == "wait call-back" || strings.HasSuffix(n["provision_state"].(string), "failed")
	})
	cd, _ := e.sys.VirtualMedia("Cd")
	if !cd.Inserted {
		t.Fatalf("waiting for the agent, the CD is not inserted: %+v", cd)
	}
	isos, _ := filepath.Glob(filepath.Join(httpRoot, "redfish", "*"))
	if len(isos) != 1 {
		t.Fatalf("published under http_root/redfish: %v, want one ISO", isos)
	}
	checkConfig2ISO(t, isos[0])

	// The callback never comes: deploy failed, ejected, removed.
	e.provisionSettled(uuid, "active")
	var n map[string]any
	e.rest.JSON(ctx, t, 200, "GET", "/v1/nodes/"+uuid, nil, &n)
	if n["provision_state"] != "deploy failed" {
		t.Errorf("provision_state %v, want deploy failed", n["provision_state"])
	}
	if want := "Timeout reached while waiting for callback for node " + uuid; n["last_error"] != want {
		t.Errorf("last_error %q, want %q", n["last_error"], want)
	}
	if cd, _ := e.sys.VirtualMedia("Cd"); cd.Inserted {
		t.Errorf("after the timeout the CD is still inserted: %+v", cd)
	}
	if left := e.published(httpRoot); len(left) != 0 {
		t.Errorf("after the timeout http_root/redfish still holds %v", left)
	}
}

// checkConfig2ISO reads the ISO's volume label and network_data.json with
// isoinfo (Debian's genisoimage), as the agent's blkid/mount would.
func checkConfig2ISO(t *testing.T, iso string) {
	t.Helper()
	if _, err := exec.LookPath("isoinfo"); err != nil {
		t.Logf("isoinfo missing (apt-get install genisoimage): the ISO's contents not checked")
		return
	}
	out, err := exec.Command("isoinfo", "-d", "-i", iso).Output()
	if err != nil {
		t.Fatalf("isoinfo -d: %v", err)
	}
	if !bytes.Contains(out, []byte("Volume id: config-2")) {
		t.Errorf("the deploy ISO's volume id is not config-2:\n%s", out)
	}
	raw, err := exec.Command("isoinfo", "-R", "-i", iso, "-x", "/openstack/latest/network_data.json").Output()
	if err != nil {
		t.Fatalf("isoinfo -x network_data.json: %v", err)
	}
	var got, want any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("network_data.json on the ISO: %v\n%s", err, raw)
	}
	_ = json.Unmarshal([]byte(noNICNetworkData), &want)
	if g, w := mustJSON(got), mustJSON(want); g != w {
		t.Errorf("network_data.json on the ISO:\n%s\nwant the node's:\n%s", g, w)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
