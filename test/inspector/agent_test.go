package inspector

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/agent"
	"github.com/goironic/ironic/agent/disk"
	"github.com/goironic/ironic/agent/hardware"
)

// disks is a fixed list of block devices.
type disks []disk.BlockDevice

func (d disks) BlockDevices(context.Context) ([]disk.BlockDevice, error) { return d, nil }

// TestAgentInspection: our agent's own inspection body (agent.Inspect,
// built from agent/hardware's recorded machine: NIC 02:fc:00:00:00:01,
// 2 CPUs, 41984 MiB of DIMMs, disks of 20 and 8 GiB) posted to the real
// ironic-inspector during an Ironic-managed inspection: inspector finds
// the node by its port's MAC, answers its UUID, PATCHes the properties
// IPA's data gives (local_gb from root_disk: the 8 GiB disk less 1 GiB),
// and the status poll stores the inventory.
func TestAgentInspection(t *testing.T) {
	const mac = "02:fc:00:00:00:01"
	e := start(t, options{ipxe: true, inspectorOpts: "callback_endpoint_override = http://192.0.2.1:5050"})
	img := images(t)
	uuid := e.node("", map[string]any{"boot_interface": "ipxe",
		"driver_info": map[string]any{"deploy_kernel": img + "/deploy.kernel", "deploy_ramdisk": img + "/deploy.ramdisk"}})
	e.api.Object(e.ctx, t, "POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	e.api.Must(e.ctx, t, 202, "PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": "inspect"})
	e.waitState(uuid, "inspect wait", 60*time.Second)

	a := agent.New(agent.Config{
		InspectionCallbackURL: e.insp.URL + "/v1/continue",
		Inventory: hardware.Reader{
			Root:   filepath.Join("..", "..", "agent", "hardware", "testdata", "root"),
			Disks:  disks{{Name: "/dev/vda", Size: 20 << 30, Rotational: true}, {Name: "/dev/vdb", Size: 8 << 30, Rotational: true}},
			BootIF: "01-02-fc-00-00-00-01", Arch: "x86_64",
			Addrs: func(string) ([]net.Addr, error) {
				return []net.Addr{&net.IPNet{IP: net.IPv4(192, 0, 2, 10), Mask: net.CIDRMask(24, 32)}}, nil
			},
		},
		BootIF: mac, InspectionDHCPWaitTimeout: time.Minute, InspectionCollectors: "default,logs",
	})
	got, err := a.Inspect(e.ctx)
	if err != nil || got != uuid {
		t.Fatalf("Inspect = %q, %v; want inspector to answer the node's UUID %s", got, err, uuid)
	}
	n := e.inspected(uuid)
	props := n["properties"].(map[string]any)
	for k, want := range map[string]string{"cpus": "2", "memory_mb": "41984", "cpu_arch": "x86_64", "local_gb": "7"} {
		if fmt.Sprint(props[k]) != want {
			t.Errorf("properties[%s] = %v, want %v (%v)", k, props[k], want, props)
		}
	}
	if n["power_state"] != "power off" || n["last_error"] != nil {
		t.Errorf("power_state %v, last_error %v", n["power_state"], n["last_error"])
	}
	inv := e.api.Object(e.ctx, t, "GET", "/v1/nodes/"+uuid+"/inventory", nil)
	in, _ := inv["inventory"].(map[string]any)
	ds, _ := in["disks"].([]any)
	ifs, _ := in["interfaces"].([]any)
	if len(ds) != 2 || len(ifs) != 1 || ifs[0].(map[string]any)["mac_address"] != mac {
		t.Errorf("stored inventory = %v", in)
	}
	if pd, _ := inv["plugin_data"].(map[string]any); fmt.Sprint(pd["root_disk"].(map[string]any)["name"]) != "/dev/vdb" {
		t.Errorf("plugin_data.root_disk = %v", pd["root_disk"])
	}
}
