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
	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006900"
		mac      = "52:54:00:69:00:01"
	)
	r := startInspectVM(t, inspectVMSpec{uuid: nodeUUID, mac: mac, ports: [2]int{6900, 6919}})
	r.call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "ipxe",
		"inspect_interface": "inspector", "driver_info": r.d.DriverInfo,
		"properties": map[string]any{"capabilities": "boot_mode:bios"}})
	r.call("POST", "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})
	r.inspect(t)
	if pd, _ := r.call("GET", "/v1/nodes/"+nodeUUID+"/inventory", nil)["plugin_data"].(map[string]any); pd == nil || pd["root_disk"] == nil {
		t.Errorf("plugin_data without root_disk: %v", pd)
	}
	ports := r.call("GET", "/v1/ports?node="+nodeUUID, nil)["ports"].([]any)
	if len(ports) != 1 {
		t.Errorf("ports %v, want the one PXE port", ports)
	}
	// Inspector logs the body it received: our agent's configuration.
	if got := r.insp.Process.LogTail(1 << 20); !strings.Contains(got, "Received data from the ramdisk") || !strings.Contains(got, "generic_hardware_manager") {
		t.Errorf("inspector's log does not show the agent's data:\n%s", tail(got, 3000))
	}
	t.Logf("wall time %s", time.Since(r.start).Round(time.Millisecond))
}

// inspectVMSpec is one VM inspection's node and services.
type inspectVMSpec struct {
	uuid, mac string
	// ports is the range inspector's port is taken from.
	ports [2]int
	// bootInterfaces is [DEFAULT]enabled_boot_interfaces ("" for
	// vm.Conf's); extra is more ironic.conf.
	bootInterfaces, extra string
}

// inspectVMRun is a QEMU node, our all-in-one and the real inspector,
// ready for the node to be created.
type inspectVMRun struct {
	spec  inspectVMSpec
	ctx   context.Context
	start time.Time
	cli   string
	// dir holds the all-in-one's state (http_root is dir/httproot).
	dir  string
	d    *vm.Deploy
	insp *inspector.Inspector
	call func(method, path string, body any) map[string]any
}

// inspectDiskSize is the VM's disk: guess_root_disk wants 4 GiB or more.
const inspectDiskSize = 5 << 30

// startInspectVM builds our ramdisk and starts the node (powered off),
// the all-in-one with the inspector interface and ironic-inspector, all
// bounded by 10 minutes.
func startInspectVM(t *testing.T, s inspectVMSpec) *inspectVMRun {
	t.Helper()
	vm.Require(t)
	inspector.Require(t)
	r := &inspectVMRun{spec: s, cli: cluster.RequireCLI(t), start: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	r.dir = dir
	deploy := vm.DeployRamdisk(ctx, t, dir)
	inspPort, err := vm.FreePort(s.ports[0], s.ports[1])
	if err != nil {
		t.Fatal(err)
	}
	r.d = vm.StartDeploy(ctx, t, vm.DeploySpec{UUID: s.uuid, MAC: s.mac, Dir: dir, Ramdisk: deploy, DiskSize: inspectDiskSize,
		InspectInterfaces: "inspector,no-inspect", BootInterfaces: s.bootInterfaces,
		Extra: s.extra + fmt.Sprintf("\n[inspector]\nauth_type = none\nendpoint_override = http://127.0.0.1:%d\n"+
			"callback_endpoint_override = http://%s:%d\nstatus_check_period = 2\n", inspPort, vm.GuestHost, inspPort)})
	r.insp = inspector.Start(ctx, t, inspector.Options{IronicURL: r.d.API.URL, Port: inspPort})
	t.Logf("phase setup: ramdisk, node, API and inspector %s", time.Since(r.start).Round(time.Millisecond))
	c := cluster.NewClient(r.d.API.URL, "1.82")
	r.call = func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	return r
}

// inspect manages the created node, inspects it with the CLI and checks
// that it ends manageable with the VM's properties and inventory (its
// disk and NIC, API 1.81), the callback on the kernel command line and
// the agent's post on the console, and the machine off.
func (r *inspectVMRun) inspect(t *testing.T) map[string]any {
	t.Helper()
	uuid := r.spec.uuid
	provision(r.ctx, t, r.call, uuid, "manage", "manageable")
	t0 := time.Now()
	o := osc.New(r.ctx, r.cli, t.TempDir(), r.d.API.URL, "1.78")
	o.OK(t, "node", "inspect", uuid)
	n := waitState(r.ctx, t, r.call, r.d.Node, uuid, "manageable", inspectRun)
	t.Logf("phase inspect: CLI inspect to manageable %s", time.Since(t0).Round(time.Millisecond))
	if n["last_error"] != nil {
		t.Errorf("last_error = %v", n["last_error"])
	}
	con := r.d.Node.Console()
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
	inv := r.call("GET", "/v1/nodes/"+uuid+"/inventory", nil)
	in, _ := inv["inventory"].(map[string]any)
	var disks, nics []string
	for _, x := range asList(in["disks"]) {
		disks = append(disks, fmt.Sprintf("%v:%.0f", x["name"], x["size"]))
	}
	for _, x := range asList(in["interfaces"]) {
		nics = append(nics, fmt.Sprint(x["mac_address"]))
	}
	if !slices.Contains(disks, fmt.Sprintf("/dev/sda:%d", inspectDiskSize)) || !slices.Contains(nics, r.spec.mac) {
		t.Errorf("inventory disks %v, NICs %v; want /dev/sda of %d bytes and %s", disks, nics, inspectDiskSize, r.spec.mac)
	}
	if err := r.d.Node.WaitOff(bootCtxOf(r.ctx, t)); err != nil {
		t.Error(err)
	}
	if st := r.call("GET", "/v1/nodes/"+uuid, nil)["power_state"]; st != "power off" {
		t.Errorf("power_state %v, want power off", st)
	}
	return n
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
