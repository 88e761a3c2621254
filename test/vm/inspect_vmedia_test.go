package vm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/vm"
)

// TestInspectVMVirtualMedia is TestInspectVM with Ironic-managed boot
// through redfish-virtual-media: `openstack baremetal node inspect`
// pre-creates the node's port from the BMC's NIC (the node has none),
// builds the deploy ISO with ipa-inspection-callback-url on its kernel
// command line, publishes it under [deploy]http_root, has the BMC (the
// Redfish emulator, QEMU backend) insert it and boot the CD once, and
// starts inspector with manage_boot=False; the machine boots our agent
// from the CD, which posts its real inventory to the real
// ironic-inspector 11.1; inspector finds the node by the port's MAC and
// PATCHes its properties; the status poll ejects the CD, removes the ISO,
// powers the machine off and stores the inventory: the node is
// manageable with the VM's disk and NIC. One VM boot, bounded by
// inspectRun.
func TestInspectVMVirtualMedia(t *testing.T) {
	for _, f := range []string{"/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"} {
		if _, err := os.Stat(f); err != nil {
			cluster.Missing(t, vm.RequireEnv, f+" missing (isolinux, syslinux-common)")
		}
	}
	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006920"
		mac      = "52:54:00:69:20:01"
	)
	r := startInspectVM(t, inspectVMSpec{uuid: nodeUUID, mac: mac, ports: [2]int{6920, 6939},
		bootInterfaces: "redfish-virtual-media,ipxe",
		// no_timer_check: under TCG on a loaded host the kernel's check
		// of the timer interrupt can stall the boot for minutes.
		extra: "\n[DEFAULT]\nisolinux_bin = /usr/lib/ISOLINUX/isolinux.bin\n" +
			"\n[redfish]\nuse_swift = false\nkernel_append_params = console=ttyS0 ipa-debug=1 no_timer_check\n"})
	// The BMC fetches the ISO from the host's side of the file server.
	di := r.d.DriverInfo
	di["external_http_url"] = r.d.Files.HostURL
	r.call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "redfish-virtual-media",
		"inspect_interface": "inspector", "driver_info": di, "properties": map[string]any{"capabilities": "boot_mode:bios"}})
	n := r.inspect(t)
	if con := r.d.Node.Console(); !strings.Contains(con, "boot_method=vmedia") {
		t.Errorf("the kernel command line lacks boot_method=vmedia:\n%s", tail(con, 3000))
	}
	if fw, _ := os.ReadFile(r.d.Node.Machine.FirmwareLog()); !strings.Contains(string(fw), "Booting from DVD/CD") {
		t.Errorf("the firmware did not boot the CD:\n%s", tail(string(fw), 2000))
	}
	ports := r.call("GET", "/v1/ports?node="+nodeUUID, nil)["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["address"] != mac {
		t.Errorf("ports %v, want the one pre-created from the BMC", ports)
	}
	if dii, _ := n["driver_internal_info"].(map[string]any); dii["inspector_manage_boot"] != nil {
		t.Errorf("driver_internal_info keeps inspector_manage_boot: %v", dii)
	}
	if cd, _ := r.d.Node.System.VirtualMedia("Cd"); cd.Inserted {
		t.Errorf("the CD is still inserted: %+v", cd)
	}
	if left, _ := filepath.Glob(filepath.Join(r.dir, "httproot", "redfish", "*")); len(left) != 0 {
		t.Errorf("http_root still holds %v", left)
	}
	if got := r.insp.Process.LogTail(1 << 20); !strings.Contains(got, "Received data from the ramdisk") {
		t.Errorf("inspector's log does not show the agent's data:\n%s", tail(got, 3000))
	}
	t.Logf("wall time %s", time.Since(r.start).Round(time.Millisecond))
}
