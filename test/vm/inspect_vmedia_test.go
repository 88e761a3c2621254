package vm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/osc"
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
	vm.Require(t)
	inspector.Require(t)
	cli := cluster.RequireCLI(t)
	for _, f := range []string{"/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"} {
		if _, err := os.Stat(f); err != nil {
			cluster.Missing(t, vm.RequireEnv, f+" missing (isolinux, syslinux-common)")
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	deploy := vm.DeployRamdisk(ctx, t, dir)

	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006920"
		mac      = "52:54:00:69:20:01"
		diskSize = 5 << 30 // guess_root_disk wants 4 GiB or more
	)
	inspPort, err := vm.FreePort(6920, 6939)
	if err != nil {
		t.Fatal(err)
	}
	d := vm.StartDeploy(ctx, t, vm.DeploySpec{UUID: nodeUUID, MAC: mac, Dir: dir, Ramdisk: deploy, DiskSize: diskSize,
		InspectInterfaces: "inspector,no-inspect", BootInterfaces: "redfish-virtual-media,ipxe",
		Extra: fmt.Sprintf("\n[DEFAULT]\nisolinux_bin = /usr/lib/ISOLINUX/isolinux.bin\n"+
			"\n[redfish]\nuse_swift = false\nkernel_append_params = console=ttyS0 ipa-debug=1\n"+
			"\n[inspector]\nauth_type = none\nendpoint_override = http://127.0.0.1:%d\n"+
			"callback_endpoint_override = http://%s:%d\nstatus_check_period = 2\n", inspPort, vm.GuestHost, inspPort)})
	insp := inspector.Start(ctx, t, inspector.Options{IronicURL: d.API.URL, Port: inspPort})
	t.Logf("phase setup: ramdisk, node, API and inspector %s", time.Since(start).Round(time.Millisecond))

	c := cluster.NewClient(d.API.URL, "1.82")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	// The BMC fetches the ISO from the host's side of the file server.
	di := d.DriverInfo
	di["external_http_url"] = d.Files.HostURL
	call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "redfish-virtual-media",
		"inspect_interface": "inspector", "driver_info": di, "properties": map[string]any{"capabilities": "boot_mode:bios"}})
	provision(ctx, t, call, nodeUUID, "manage", "manageable")

	t0 := time.Now()
	o := osc.New(ctx, cli, t.TempDir(), d.API.URL, "1.78")
	o.OK(t, "node", "inspect", nodeUUID)
	n := waitState(ctx, t, call, d.Node, nodeUUID, "manageable", inspectRun)
	t.Logf("phase inspect: CLI inspect to manageable %s", time.Since(t0).Round(time.Millisecond))
	if n["last_error"] != nil {
		t.Errorf("last_error = %v", n["last_error"])
	}
	con := d.Node.Console()
	for _, want := range []string{"ipa-inspection-callback-url=http://" + vm.GuestHost, "boot_method=vmedia", "posting collected data to inspector"} {
		if !strings.Contains(con, want) {
			t.Errorf("the console lacks %q:\n%s", want, tail(con, 6000))
		}
	}
	if fw, _ := os.ReadFile(d.Node.Machine.FirmwareLog()); !strings.Contains(string(fw), "Booting from DVD/CD") {
		t.Errorf("the firmware did not boot the CD:\n%s", tail(string(fw), 2000))
	}
	props, _ := n["properties"].(map[string]any)
	for k, want := range map[string]string{"cpus": "1", "cpu_arch": "x86_64", "memory_mb": "512", "local_gb": "4"} {
		if fmt.Sprint(props[k]) != want {
			t.Errorf("properties[%s] = %v, want %s (%v)", k, props[k], want, props)
		}
	}
	inv := call("GET", "/v1/nodes/"+nodeUUID+"/inventory", nil)
	in, _ := inv["inventory"].(map[string]any)
	var disks, nics []string
	for _, x := range asList(in["disks"]) {
		disks = append(disks, fmt.Sprintf("%v:%.0f", x["name"], x["size"]))
	}
	for _, x := range asList(in["interfaces"]) {
		nics = append(nics, fmt.Sprint(x["mac_address"]))
	}
	if !slices.Contains(disks, fmt.Sprintf("/dev/sda:%d", diskSize)) || !slices.Contains(nics, mac) {
		t.Errorf("inventory disks %v, NICs %v; want /dev/sda of %d bytes and %s", disks, nics, diskSize, mac)
	}
	ports := call("GET", "/v1/ports?node="+nodeUUID, nil)["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["address"] != mac {
		t.Errorf("ports %v, want the one pre-created from the BMC", ports)
	}
	if dii, _ := n["driver_internal_info"].(map[string]any); dii["inspector_manage_boot"] != nil {
		t.Errorf("driver_internal_info keeps inspector_manage_boot: %v", dii)
	}
	if err := d.Node.WaitOff(bootCtxOf(ctx, t)); err != nil {
		t.Error(err)
	}
	if cd, _ := d.Node.System.VirtualMedia("Cd"); cd.Inserted {
		t.Errorf("the CD is still inserted: %+v", cd)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "httproot", "redfish", "*")); len(left) != 0 {
		t.Errorf("http_root still holds %v", left)
	}
	if got := insp.Process.LogTail(1 << 20); !strings.Contains(got, "Received data from the ramdisk") {
		t.Errorf("inspector's log does not show the agent's data:\n%s", tail(got, 3000))
	}
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}
