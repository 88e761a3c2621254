package vm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/osc"
	"github.com/goironic/ironic/test/internal/vm"
)

// Phase bounds of TestDeployVM (TCG on 2 shared cores).
const (
	deployRun = 5 * time.Minute // deploy to active
	cleanRun  = 4 * time.Minute // undeploy to available
)

// TestDeployVM is the end-to-end direct deploy: our agent (cmd/ironic-agent
// as the initramfs's /init, Debian's kernel, built by agent/ramdisk)
// netboots in a QEMU node behind the Redfish emulator through iPXE and
// ipxe_config; `openstack baremetal node deploy --config-drive` makes it
// look up, heartbeat, take the deploy steps, write the test image's qcow2
// (converted by agent/disk) onto the blank disk chosen by a root device
// hint, and write the config drive as a config-2 partition; Ironic
// powers the node off through the agent and boots its disk, whose
// tinyinit reports the node's UUID and the config drive's. Then
// `undeploy`: automated cleaning netboots the agent again, which runs
// erase_devices_metadata; the node ends available and the disk file's
// partition table is gone.
func TestDeployVM(t *testing.T) {
	vm.Require(t)
	diskimage.Require(t)
	cli := cluster.RequireCLI(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()

	// The deploy kernel and ramdisk, with our agent as /init.
	t0 := time.Now()
	img := diskimage.ForTest(ctx, t)
	deploy := vm.DeployRamdisk(ctx, t, dir)
	sum, err := diskimage.SHA256(img.QCOW2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("phase build: image and deploy ramdisk %s (initramfs %d bytes, kernel %d bytes)",
		time.Since(t0).Round(time.Millisecond), deploy.InitramfsSize, deploy.KernelSize)

	const (
		nodeUUID = "1be2c9b4-6e8f-4c1a-9d3e-000000006740"
		mac      = "52:54:00:67:40:01"
	)
	d := vm.StartDeploy(ctx, t, vm.DeploySpec{UUID: nodeUUID, MAC: mac, Dir: dir, Ramdisk: deploy, Files: map[string]string{"/disk.qcow2": img.QCOW2}})
	node, files, disk := d.Node, d.Files, d.Disk

	c := cluster.NewClient(d.API.URL, "1.82")
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		return c.Object(ctx, t, method, path, body)
	}
	call("POST", "/v1/nodes", map[string]any{"uuid": nodeUUID, "driver": "redfish", "boot_interface": "ipxe",
		"deploy_interface": "direct", "driver_info": d.DriverInfo,
		"properties":    map[string]any{"capabilities": "boot_mode:bios", "root_device": map[string]any{"name": "/dev/sda"}},
		"instance_info": map[string]any{"image_source": files.URL + "/disk.qcow2", "image_os_hash_algo": "sha256", "image_os_hash_value": sum}})
	call("POST", "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})
	provision(ctx, t, call, nodeUUID, "manage", "manageable")
	// No cleaning on provide: the disk is blank (cleaning is proved on undeploy).
	call("PATCH", "/v1/nodes/"+nodeUUID, []map[string]any{{"op": "replace", "path": "/automated_clean", "value": false}})
	provision(ctx, t, call, nodeUUID, "provide", "available")
	call("PATCH", "/v1/nodes/"+nodeUUID, []map[string]any{{"op": "replace", "path": "/automated_clean", "value": true}})

	o := osc.New(ctx, cli, t.TempDir(), d.API.URL, "1.78")
	configDrive, _ := json.Marshal(map[string]any{"meta_data": map[string]any{"uuid": nodeUUID}})

	// Deploy: netboot the agent, write the image and the config drive,
	// boot the disk.
	t0 = time.Now()
	o.OK(t, "node", "deploy", nodeUUID, "--config-drive", string(configDrive))
	n := waitState(ctx, t, call, node, nodeUUID, "active", deployRun)
	t.Logf("phase deploy: CLI deploy to active %s (%v)", time.Since(t0).Round(time.Millisecond), n["provision_state"])
	waitDeployed(ctx, t, node, nodeUUID, t0)
	if !files.Seen("/disk.qcow2") {
		t.Errorf("the agent did not fetch the image: %v", files.Requests())
	}
	// tinyinit powers off; the power sync is off, so Ironic still says on.
	if err := node.WaitOff(bootCtxOf(ctx, t)); err != nil {
		t.Fatal(err)
	}
	if err := node.ClearConsole(); err != nil {
		t.Fatal(err)
	}

	// Undeploy: automated cleaning through the agent.
	t0 = time.Now()
	o.OK(t, "node", "undeploy", nodeUUID)
	waitState(ctx, t, call, node, nodeUUID, "available", cleanRun)
	t.Logf("phase clean: CLI undeploy to available %s", time.Since(t0).Round(time.Millisecond))
	if con := node.Console(); !bytes.Contains([]byte(con), []byte("erase_devices_metadata")) {
		t.Errorf("the agent's console does not show erase_devices_metadata:\n%s", tail(con, 4000))
	}
	if err := node.WaitOff(bootCtxOf(ctx, t)); err != nil {
		t.Error(err)
	}
	head := make([]byte, 1024)
	f, err := os.Open(disk)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if head[510] == 0x55 && head[511] == 0xAA || !bytes.Equal(head[446:510], make([]byte, 64)) || bytes.HasPrefix(head[512:], []byte("EFI PART")) {
		t.Errorf("the disk still has a partition table: MBR entries % x, signature % x, LBA 1 %q", head[446:510], head[510:512], head[512:520])
	}
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}

// waitState waits (bounded by d) for the node to reach want; a failed
// state or the bound ends t with the node's last_error and the console.
func waitState(ctx context.Context, t *testing.T, call func(string, string, any) map[string]any, node *vm.Node, uuid, want string, d time.Duration) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	last := ""
	for {
		n := call("GET", "/v1/nodes/"+uuid, nil)
		st := fmt.Sprint(n["provision_state"])
		if st != last {
			t.Logf("node %s: %s", uuid, st)
			last = st
		}
		if st == want {
			return n
		}
		if st == "deploy failed" || st == "clean failed" || st == "inspect failed" || st == "error" {
			t.Fatalf("node %s: %s, last_error %v\nconsole:\n%s", uuid, st, n["last_error"], tail(node.Console(), 6000))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node %s: provision state %s (last_error %v), want %s after %s\nconsole:\n%s", uuid, st, n["last_error"], want, d, tail(node.Console(), 6000))
		case <-time.After(time.Second):
		}
	}
}
