package vm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/agent/ramdisk"
	"github.com/goironic/ironic/test/fakeneutron"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/internal/vm"
)

// TestDeployL3VirtualMedia is the L3 deploy by virtual media on a
// segment with no DHCP server anywhere (issue 14's proof), in two runs:
// bios-neutron (SeaBIOS; network_interface neutron, the static address
// from the fake Neutron's provisioning port) and uefi (OVMF; the node's
// network_data). The node has boot_interface redfish-virtual-media and
// deploy_interface direct; its NIC gets 192.0.2.10/24.
// `openstack baremetal node deploy --config-drive` makes our conductor
// build the deploy ISO in process (config-2 label, network_data.json),
// publish it under [deploy]http_root, and have the BMC (the Redfish
// emulator, QEMU backend) download and insert it and boot the CD. The
// machine (QEMU in the l3Segment namespace, its NIC on the namespace's
// tap, not QEMU's user network) boots the ISO; our agent reads
// network_data.json from the CD, configures 192.0.2.10, looks up and
// heartbeats to the API at 192.0.2.1 (NetNS.Forward to the all-in-one
// on the host's loopback), fetches the image from the file server at
// 192.0.2.1 and writes it; the conductor reaches the agent at
// http://192.0.2.10:9999 through an HTTP proxy that dials from the
// namespace (NetNS.Proxy). Ironic ejects the CD and boots the disk: the
// deployed image's marker names the node, the kernel reports the run's
// firmware. Every connection to the API came from 192.0.2.10; port 67
// on the segment saw nothing; the ISO is gone from http_root.
func TestDeployL3VirtualMedia(t *testing.T) {
	vm.Require(t)
	vm.RequireNetNS(t)
	diskimage.Require(t)
	cli := cluster.RequireCLI(t)
	for _, f := range []string{"/usr/lib/ISOLINUX/isolinux.bin", "/usr/lib/syslinux/modules/bios/ldlinux.c32"} {
		if _, err := os.Stat(f); err != nil {
			cluster.Missing(t, vm.RequireEnv, f+" missing (isolinux, syslinux-common)")
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	img := diskimage.ForTest(ctx, t)
	deploy := vm.DeployRamdisk(ctx, t, dir)
	sum, err := diskimage.SHA256(img.QCOW2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("phase build: %s", time.Since(start).Round(time.Millisecond))
	// BIOS takes network_data from the fake Neutron, UEFI from the node.
	t.Run("bios-neutron", func(t *testing.T) { deployL3(ctx, t, cli, img, deploy, sum, false, true) })
	t.Run("uefi", func(t *testing.T) {
		for _, f := range []string{ovmfCode, ovmfVars, diskimage.GrubEFI} {
			if _, err := os.Stat(f); err != nil {
				cluster.Missing(t, vm.RequireEnv, f+" missing (ovmf, grub-efi-amd64-bin)")
			}
		}
		deployL3(ctx, t, cli, img, deploy, sum, true, false)
	})
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}

// OVMF's firmware (Debian's ovmf).
const (
	ovmfCode = "/usr/share/OVMF/OVMF_CODE.fd"
	ovmfVars = "/usr/share/OVMF/OVMF_VARS.fd"
)

// deployL3 is one boot mode's run of TestDeployL3VirtualMedia; with
// useNeutron the node has network_interface neutron and no network_data
// of its own: the fake Neutron's provisioning network has a subnet whose
// only free address is the static one, and the conductor builds
// network_data from the port it creates there (21.4's
// get_node_network_data).
func deployL3(ctx context.Context, t *testing.T, cli string, img *diskimage.Image, deploy ramdisk.Output, sum string, uefi, useNeutron bool) {
	start := time.Now()
	dir := t.TempDir()
	mode, firmware, appendParams := "bios", vm.Options{}, "console=ttyS0 ipa-debug=1"
	if uefi {
		// Ironic 21.4 asks the agent to install the boot loader of a UEFI
		// whole disk image (root_uuid = the MBR's disk identifier); the
		// agent writes the NVRAM entry of the ESP's loader (IPA's
		// manage_uefi) and the deploy must not need
		// ipa-ignore-bootloader-failure.
		mode, firmware = "uefi", vm.Options{OVMFCode: ovmfCode, OVMFVars: ovmfVars}
	}
	const (
		nodeUUID = "5d1c9a56-3e0a-4c56-9d7b-000000006900"
		mac      = "52:54:00:69:00:01"
		guest    = "192.0.2.10"
	)
	seg := newL3Segment(t)
	httpRoot := filepath.Join(dir, "httproot")
	if err := os.Mkdir(httpRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	files := vm.ServeFiles(t, map[string]string{"/deploy.kernel": deploy.Kernel, "/deploy.initramfs": deploy.Initramfs, "/disk.qcow2": img.QCOW2})
	files.ServeRoot(httpRoot)
	filesHost := strings.TrimPrefix(files.HostURL, "http://")
	_, filesPort, _ := net.SplitHostPort(filesHost)
	apiPort, err := vm.FreePort(6900, 6909)
	if err != nil {
		t.Fatal(err)
	}
	// The segment's side of the API and the file server.
	apiFwd := seg.ns.Forward(t, "192.0.2.1:"+strconv.Itoa(apiPort), "127.0.0.1:"+strconv.Itoa(apiPort))
	filesFwd := seg.ns.Forward(t, "192.0.2.1:"+filesPort, filesHost)
	segFiles := "http://192.0.2.1:" + filesPort

	node := vm.Start(t, vm.Options{UUID: nodeUUID, MAC: mac, Disk: vm.BlankDisk(t, dir, 256<<20), NetNS: seg.ns,
		OVMFCode: firmware.OVMFCode, OVMFVars: firmware.OVMFVars})
	proxy := seg.ns.Proxy(t)
	for k, v := range map[string]string{"HTTP_PROXY": proxy, "http_proxy": proxy, "HTTPS_PROXY": "", "https_proxy": "",
		"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"} {
		t.Setenv(k, v)
	}
	conf := vm.Conf{DBPath: filepath.Join(dir, "ironic.sqlite"), HTTPURL: files.HostURL, HTTPRoot: httpRoot,
		BootInterfaces: "redfish-virtual-media,ipxe", DeployInterfaces: "direct",
		APIURL: "http://192.0.2.1:" + strconv.Itoa(apiPort),
		Extra:  "\n[DEFAULT]\nisolinux_bin = /usr/lib/ISOLINUX/isolinux.bin\n\n[redfish]\nuse_swift = false\nkernel_append_params = " + appendParams + "\n"}
	var fn *fakeneutron.TestServer
	const provNet = "5eed0000-0000-4000-8000-000000006900"
	if useNeutron {
		fn = fakeneutron.ForTest(t, fakeneutron.Options{Networks: []map[string]any{fakeneutron.CleaningNetwork(),
			{"id": provNet, "name": "ironic-provision"}}})
		if _, err := fn.CreateSubnet(map[string]any{"network_id": provNet, "cidr": "192.0.2.0/24", "ip_version": 4,
			"gateway_ip": "192.0.2.1", "allocation_pools": []any{map[string]any{"start": guest, "end": guest}},
			"dns_nameservers": []any{"192.0.2.53"},
			"host_routes":     []any{map[string]any{"destination": "198.51.100.0/24", "nexthop": "192.0.2.254"}}}); err != nil {
			t.Fatal(err)
		}
		conf.NetworkInterfaces = "noop,neutron"
		conf.Extra += "\n[neutron]\nauth_type = none\nendpoint_override = " + fn.URL +
			"\ncleaning_network = " + fakeneutron.CleaningNetworkName + "\nprovisioning_network = ironic-provision\n"
	}
	api := cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Port: apiPort, Dir: dir, Config: conf.Text, LogTail: 12000})

	c := cluster.NewClient(api.URL, "1.82")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	di := node.DriverInfo()
	di["deploy_kernel"], di["deploy_ramdisk"] = files.HostURL+"/deploy.kernel", files.HostURL+"/deploy.initramfs"
	var networkData map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"links": [{"id": "port-0", "type": "phy", "ethernet_mac_address": %q}],
	 "networks": [{"id": "provisioning", "type": "ipv4", "link": "port-0", "ip_address": %q, "netmask": "255.255.255.0",
	   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}], "network_id": "00000000-0000-0000-0000-000000006900"}],
	 "services": [{"type": "dns", "address": "192.0.2.53"}]}`, mac, guest)), &networkData); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "redfish-virtual-media",
		"deploy_interface": "direct", "driver_info": di, "network_data": networkData,
		"properties":    map[string]any{"capabilities": "boot_mode:" + mode, "root_device": map[string]any{"name": "/dev/sda"}},
		"instance_info": map[string]any{"image_source": segFiles + "/disk.qcow2", "image_os_hash_algo": "sha256", "image_os_hash_value": sum}}
	port := map[string]any{"node_uuid": nodeUUID, "address": mac}
	if useNeutron {
		delete(body, "network_data")
		body["network_interface"] = "neutron"
		port["local_link_connection"] = map[string]any{"switch_id": "52:54:00:69:00:ff", "port_id": "Eth1", "switch_info": "l3-switch"}
	}
	call("POST", "/v1/nodes", body)
	call("POST", "/v1/ports", port)
	if useNeutron {
		// The instance's VIF, on a tenant network: the node is switched
		// to it at the end of the deploy.
		const tenantNet, vif = "5eed0000-0000-4000-8000-000000006901", "5eed0000-0000-4000-8000-0000000069f1"
		if _, err := fn.CreateNetwork(map[string]any{"id": tenantNet, "name": "tenant"}); err != nil {
			t.Fatal(err)
		}
		if _, err := fn.CreateSubnet(map[string]any{"network_id": tenantNet, "cidr": "10.69.0.0/24", "ip_version": 4}); err != nil {
			t.Fatal(err)
		}
		if _, err := fn.CreatePort(map[string]any{"id": vif, "network_id": tenantNet}); err != nil {
			t.Fatal(err)
		}
		c.Must(ctx, t, 204, "POST", "/v1/nodes/"+nodeUUID+"/vifs", map[string]any{"id": vif})
	}
	provision(ctx, t, call, nodeUUID, "manage", "manageable")
	provision(ctx, t, call, nodeUUID, "provide", "available")

	o := osc.New(ctx, cli, t.TempDir(), api.URL, "1.78")
	configDrive, _ := json.Marshal(map[string]any{"meta_data": map[string]any{"uuid": nodeUUID}})
	t0 := time.Now()
	o.OK(t, "node", "deploy", nodeUUID, "--config-drive", string(configDrive))
	// The agent's run, seen while it lasts: the firmware booted the CD,
	// the console shows the static address, the node the agent's URL.
	agentCtx, agentCancel := context.WithTimeout(ctx, vmRun)
	agentConsole, err := node.WaitConsole(agentCtx, func(c string) bool {
		return strings.Contains(c, `msg="static address configured" interface=eth0 addr=192.0.2.10/24`)
	})
	agentCancel()
	if err != nil {
		t.Fatalf("the agent did not configure the static address: %v\nconsole:\n%s\n%s", err, tail(agentConsole, 6000), api.LogTail(4000))
	}
	checkFirmware(t, node, uefi, agentConsole, "Booting from DVD/CD")
	if !strings.Contains(agentConsole, "config drive network_data.json found") {
		t.Errorf("the agent's console lacks the config drive")
	}
	t.Logf("phase agent: deploy to the static address %s", time.Since(t0).Round(time.Millisecond))
	var agentURL any
	for {
		n := call("GET", "/v1/nodes/"+nodeUUID, nil)
		if dii, _ := n["driver_internal_info"].(map[string]any); dii != nil && dii["agent_url"] != nil {
			agentURL = dii["agent_url"]
		}
		if agentURL != nil || n["provision_state"] != "wait call-back" && n["provision_state"] != "deploying" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if agentURL != "http://"+guest+":9999" {
		t.Errorf("agent_url %v, want the static address's", agentURL)
	}
	waitState(ctx, t, call, node, nodeUUID, "active", deployRun)
	t.Logf("phase deploy: CLI deploy to active %s", time.Since(t0).Round(time.Millisecond))
	console := waitDeployed(ctx, t, node, nodeUUID, t0)
	checkFirmware(t, node, uefi, console, "Booting from Hard Disk")
	if uefi {
		checkBootEntry(t, node, console)
	}
	// Every connection to the API came from the static address; to the
	// file server from it or from the conductor's proxy (192.0.2.1,
	// Ironic's HEAD of the image URL).
	for what, f := range map[string]*vm.Forwarder{"API": apiFwd, "file server": filesFwd} {
		fromGuest := 0
		for _, src := range f.Sources() {
			host, _, _ := net.SplitHostPort(src)
			switch {
			case host == guest:
				fromGuest++
			case host == "192.0.2.1" && what == "file server":
			default:
				t.Errorf("a connection to the %s came from %s, not %s", what, src, guest)
			}
		}
		if fromGuest == 0 {
			t.Errorf("no connection reached the %s from %s: %v", what, guest, f.Sources())
		}
	}
	if got := seg.dhcpSeen(); len(got) != 0 {
		t.Errorf("DHCP requests reached the segment from %v", got)
	}
	if cd, _ := node.System.VirtualMedia("Cd"); cd.Inserted {
		t.Errorf("the CD is still inserted: %+v", cd)
	}
	if left, _ := filepath.Glob(filepath.Join(httpRoot, "redfish", "*")); len(left) != 0 {
		t.Errorf("http_root still holds %v", left)
	}
	if useNeutron {
		var created, deleted bool
		for _, r := range fn.Requests() {
			created = created || r.Method == "POST" && strings.HasSuffix(r.Path, "/ports") && strings.Contains(string(r.Body), provNet)
			deleted = deleted || r.Method == "DELETE" && strings.Contains(r.Path, "/ports/")
		}
		if !created || !deleted {
			t.Errorf("Neutron: provisioning port created %t, deleted %t: %v", created, deleted, fn.Requests())
		}
	}
	if !files.Seen("/disk.qcow2") {
		t.Errorf("the agent did not fetch the image: %v", files.Requests())
	}
	t.Logf("%s: wall time %s", mode, time.Since(start).Round(time.Millisecond))
}

// checkBootEntry checks that the agent's install_bootloader wrote the
// NVRAM entry of the image's loader and the firmware booted it: OVMF's variable store holds an
// EFI_LOAD_OPTION described "ironic1" whose file path is the ESP's
// \EFI\BOOT\BOOTX64.EFI (the description, then within the hard-drive
// media node's 42 bytes and the file-path node's header, the path).
func checkBootEntry(t *testing.T, node *vm.Node, console string) {
	t.Helper()
	vars, err := node.UEFIVariables()
	if err != nil {
		t.Fatal(err)
	}
	utf16le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return b
	}
	desc := utf16le("ironic1\x00")
	i := bytes.Index(vars, desc)
	if i < 0 {
		t.Fatalf("no boot entry \"ironic1\" in the machine's NVRAM")
	}
	rest := vars[i+len(desc):]
	if j := bytes.Index(rest, utf16le(`\EFI\BOOT\BOOTX64.EFI`)); j != 42+4 {
		t.Errorf("the \"ironic1\" entry's file path is at %d bytes after its description, want 46: % x", j, rest[:min(len(rest), 96)])
	}
	// And OVMF booted the disk through it (the first in BootOrder).
	if !regexp.MustCompile(`BdsDxe: starting Boot[0-9A-F]{4} "ironic1" from HD\(1,MBR,0x[0-9A-F]+,0x800,0x[0-9A-F]+\)/\\EFI\\BOOT\\BOOTX64\.EFI`).MatchString(console) {
		t.Errorf("the firmware did not boot the \"ironic1\" entry:\n%s", tail(console, 3000))
	}
}

// checkFirmware checks the boot mode of the run whose console is
// console: under OVMF the kernel reports EFI; under SeaBIOS it does not,
// and the firmware log names the device it booted (seabios).
func checkFirmware(t *testing.T, node *vm.Node, uefi bool, console, seabios string) {
	t.Helper()
	if efi := strings.Contains(console, "efi: EFI v"); efi != uefi {
		t.Errorf("the kernel booted with EFI %t, want %t", efi, uefi)
	}
	if uefi {
		return
	}
	if fw, _ := os.ReadFile(node.Machine.FirmwareLog()); !strings.Contains(string(fw), seabios) {
		t.Errorf("the firmware log lacks %q:\n%s", seabios, tail(string(fw), 2000))
	}
}
