package vm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/vm"
)

// TestIronicDrivesTheVM: our all-in-one, with the redfish hardware type
// and ipxe boot, deploys a custom-agent node whose BMC is the Redfish
// emulator driving QEMU: the conductor sets boot device pxe and powers
// the machine on; QEMU's DHCP hands iPXE the ipxe_config URL, whose
// script fetches [deploy]http_url's deploy kernel and ramdisk (here the
// test image's own kernel and tinyinit) and boots them with the node's
// kernel parameters. Then, the deployment torn down, boot device disk
// (persistent) and power on through the API boot the node's disk: the
// test image with a config drive, whose marker names the node's UUID
// twice.
func TestIronicDrivesTheVM(t *testing.T) {
	vm.Require(t)
	diskimage.Require(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	img := diskimage.ForTest(ctx, t)

	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006710"
		mac      = "52:54:00:67:10:01"
	)
	dir := t.TempDir()
	disk := vm.CopyDisk(t, img.Raw, dir)
	iso, err := diskimage.ConfigDrive(ctx, dir, map[string]any{"uuid": nodeUUID})
	if err != nil {
		t.Fatal(err)
	}
	if err := diskimage.AddConfigDrive(ctx, disk, iso); err != nil {
		t.Fatal(err)
	}
	files := vm.ServeFiles(t, map[string]string{"/deploy.kernel": img.Kernel, "/deploy.initrd": img.Initrd})

	apiPort, err := vm.FreePort(6700, 6709)
	if err != nil {
		t.Fatal(err)
	}
	agentPort, err := vm.FreePort(6710, 6719)
	if err != nil {
		t.Fatal(err)
	}
	conf := vm.Conf{DBPath: filepath.Join(dir, "ironic.sqlite"), HTTPURL: files.URL, HTTPRoot: filepath.Join(dir, "httproot"),
		KernelAppend: "goironic.serve=1 ipa-advertise-host=127.0.0.1 ipa-advertise-port=" + itoa(agentPort)}
	if err := os.Mkdir(conf.HTTPRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	// The BMC first: it outlives the conductor's last request.
	node := vm.Start(t, vm.Options{UUID: nodeUUID, MAC: mac, Disk: disk, BootFile: vm.IPXEConfigURL(apiPort, "redfish"), AgentPort: agentPort})
	srv := cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Port: apiPort, Dir: dir, Config: conf.Text})

	c := cluster.NewClient(srv.URL, "1.82")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	di := node.DriverInfo()
	di["deploy_kernel"], di["deploy_ramdisk"] = files.URL+"/deploy.kernel", files.URL+"/deploy.initrd"
	call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "ipxe",
		"deploy_interface": "custom-agent", "driver_info": di, "properties": map[string]any{"capabilities": "boot_mode:bios"}})
	call("POST", "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})
	provision(ctx, t, call, nodeUUID, "manage", "manageable")
	provision(ctx, t, call, nodeUUID, "provide", "available")

	// Deploying boots the deploy kernel and ramdisk over the network.
	t0 := time.Now()
	provision(ctx, t, call, nodeUUID, "active", "wait call-back")
	bootCtx, bootCancel := context.WithTimeout(ctx, vmRun)
	console, err := node.WaitConsole(bootCtx, func(c string) bool { _, ok := diskimage.Find(c, "BOOTED"); return ok })
	bootCancel()
	if err != nil {
		t.Fatalf("%v\nfiles served: %v\nconsole:\n%s", err, files.Requests(), tail(console, 4000))
	}
	t.Logf("netboot: deploy to the deploy ramdisk's marker %s", time.Since(t0).Round(time.Millisecond))
	m, _ := diskimage.Find(console, "BOOTED")
	if m.SystemUUID != nodeUUID {
		t.Errorf("netboot marker %+v: system UUID is not the node's", m)
	}
	for _, want := range []string{"console=ttyS0", "ipa-advertise-port=" + itoa(agentPort), "BOOTIF=" + mac} {
		if !strings.Contains(m.Cmdline, want) {
			t.Errorf("netbooted kernel's command line lacks %q: %s", want, m.Cmdline)
		}
	}
	// The host reaches the guest's port 9999 through the forwarded port
	// the agent will advertise.
	bootCtx, bootCancel = context.WithTimeout(ctx, vmRun)
	body, err := getWhenUp(bootCtx, node.AgentURL()+"/")
	bootCancel()
	if want := "GOIRONIC-AGENT system-uuid=" + nodeUUID; err != nil || !strings.Contains(strings.ToLower(body), strings.ToLower(want)) {
		t.Errorf("GET %s/ (guest port %d): %q, %v; want %q", node.AgentURL(), vm.AgentGuestPort, body, err, want)
	}
	if !files.Seen("/deploy.kernel") || !files.Seen("/deploy.initrd") {
		t.Errorf("files served: %v", files.Requests())
	}
	if fw, _ := os.ReadFile(node.Machine.FirmwareLog()); !strings.Contains(string(fw), "Booting from ROM") {
		t.Errorf("the firmware did not boot the NIC:\n%s", fw)
	}
	// tinyinit powers the machine off.
	if err := node.WaitOff(bootCtxOf(ctx, t)); err != nil {
		t.Fatal(err)
	}
	if err := node.ClearConsole(); err != nil {
		t.Fatal(err)
	}

	// Torn down; boot device disk and power on boot the node's disk.
	provision(ctx, t, call, nodeUUID, "deleted", "available")
	call("PUT", "/v1/nodes/"+nodeUUID+"/management/boot_device", map[string]any{"boot_device": "disk", "persistent": true})
	if bd := call("GET", "/v1/nodes/"+nodeUUID+"/management/boot_device", nil); bd["boot_device"] != "disk" {
		t.Errorf("boot device %v", bd)
	}
	t0 = time.Now()
	call("PUT", "/v1/nodes/"+nodeUUID+"/states/power", map[string]any{"target": "power on"})
	bootCtx, bootCancel = context.WithTimeout(ctx, vmRun)
	defer bootCancel()
	console, err = node.WaitConsole(bootCtx, func(c string) bool { _, ok := diskimage.Find(c, "DEPLOYED"); return ok })
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console, 4000))
	}
	t.Logf("disk boot: power on to the image's marker %s", time.Since(t0).Round(time.Millisecond))
	if m, _ := diskimage.Find(console, "DEPLOYED"); m.SystemUUID != nodeUUID || m.ConfigDriveUUID != nodeUUID {
		t.Errorf("disk marker %+v, want both UUIDs %s", m, nodeUUID)
	}
	if fw, _ := os.ReadFile(node.Machine.FirmwareLog()); !strings.Contains(string(fw), "Booting from Hard Disk") {
		t.Errorf("the firmware did not boot the disk:\n%s", fw)
	}
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}

// getWhenUp GETs url until it answers 200 (QEMU accepts on the
// forwarded port before the guest listens) or ctx ends.
func getWhenUp(ctx context.Context, url string) (string, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return "", err
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			body, rerr := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK && rerr == nil {
				return string(body), nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("GET %s: %w", url, errors.Join(ctx.Err(), err))
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// provision asks for target and waits (bounded) for the node to reach want.
func provision(ctx context.Context, t *testing.T, call func(string, string, any) map[string]any, uuid, target, want string) {
	t.Helper()
	call("PUT", "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target})
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		n := call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node %s: provision state %v (last_error %v), want %s", uuid, n["provision_state"], n["last_error"], want)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
