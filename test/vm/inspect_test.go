package vm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/inspector"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/internal/vm"
)

// inspectRun bounds TestInspectVM's inspection: one netboot of the agent
// ramdisk under TCG, its post to inspector and the status poll.
const inspectRun = 4 * time.Minute

// TestInspectVM is in-band inspection end to end: a QEMU node behind the
// Redfish emulator with inspect_interface=inspector and ipxe boot;
// `openstack baremetal node inspect` powers it on into our agent ramdisk
// through iPXE, whose script (ipxe_config) carries
// ipa-inspection-callback-url; the agent posts the machine's real
// inventory to the real ironic-inspector 11.1, which finds the node by
// its port's MAC, PATCHes its properties and powers it off through our
// API; the conductor's status poll stores the inventory and the node is
// manageable, its inventory (API 1.81) the VM's disk and NIC.
func TestInspectVM(t *testing.T) {
	vm.Require(t)
	inspector.Require(t)
	cli := cluster.RequireCLI(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	deploy := vm.DeployRamdisk(ctx, t, dir)

	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006900"
		mac      = "52:54:00:69:00:01"
		diskSize = 5 << 30 // guess_root_disk wants 4 GiB or more
	)
	inspPort, err := vm.FreePort(6900, 6919)
	if err != nil {
		t.Fatal(err)
	}
	d := vm.StartDeploy(ctx, t, vm.DeploySpec{UUID: nodeUUID, MAC: mac, Dir: dir, Ramdisk: deploy, DiskSize: diskSize,
		InspectInterfaces: "inspector,no-inspect",
		Extra: fmt.Sprintf("\n[inspector]\nauth_type = none\nendpoint_override = http://127.0.0.1:%d\n"+
			"callback_endpoint_override = http://%s:%d\nstatus_check_period = 2\n", inspPort, vm.GuestHost, inspPort)})
	insp := inspector.Start(ctx, t, inspector.Options{IronicURL: d.API.URL, Port: inspPort})
	t.Logf("phase setup: ramdisk, node, API and inspector %s", time.Since(start).Round(time.Millisecond))

	c := cluster.NewClient(d.API.URL, "1.82")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "ipxe",
		"inspect_interface": "inspector", "driver_info": d.DriverInfo,
		"properties": map[string]any{"capabilities": "boot_mode:bios"}})
	call("POST", "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})
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
	for _, want := range []string{"ipa-inspection-callback-url=http://" + vm.GuestHost, "posting collected data to inspector"} {
		if !strings.Contains(con, want) {
			t.Errorf("the console lacks %q:\n%s", want, tail(con, 6000))
		}
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
	if pd, _ := inv["plugin_data"].(map[string]any); pd == nil || pd["root_disk"] == nil {
		t.Errorf("plugin_data without root_disk: %v", inv["plugin_data"])
	}
	ports := call("GET", "/v1/ports?node="+nodeUUID, nil)["ports"].([]any)
	if len(ports) != 1 {
		t.Errorf("ports %v, want the one PXE port", ports)
	}
	if err := d.Node.WaitOff(bootCtxOf(ctx, t)); err != nil {
		t.Error(err)
	}
	if st := call("GET", "/v1/nodes/"+nodeUUID, nil)["power_state"]; st != "power off" {
		t.Errorf("power_state %v, want power off", st)
	}
	// Inspector logs the body it received: our agent's configuration.
	if got := insp.Process.LogTail(1 << 20); !strings.Contains(got, "Received data from the ramdisk") || !strings.Contains(got, "generic_hardware_manager") {
		t.Errorf("inspector's log does not show the agent's data:\n%s", tail(got, 3000))
	}
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}

func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
