package nova

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/fakeglance"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
	"github.com/goironic/ironic/test/internal/vm"
)

// TestSpawnOnVM is the end-to-end deploy as Nova does it: Nova's
// unmodified ironic driver spawns an instance with a Glance image (the
// test image's qcow2 in test/fakeglance, downloaded by our agent from
// its Swift temp URL) and a config drive Nova builds itself
// (genisoimage, gzip'd and base64'd) onto a redfish node that is a QEMU
// machine (test/internal/vm); the machine then boots the deployed disk,
// whose marker names the node (SMBIOS) and the instance (the config
// drive's meta_data.json uuid). Nova's destroy then undeploys; automated
// cleaning runs erase_devices_metadata through the agent and the node
// ends available.
func TestSpawnOnVM(t *testing.T) {
	requireNova(t)
	vm.Require(t)
	diskimage.Require(t)
	ctx := cluster.TestContext(t, 12*time.Minute, 20*time.Second)
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	img := diskimage.ForTest(ctx, t)
	deploy := vm.DeployRamdisk(ctx, t, dir)
	qcow2, err := os.ReadFile(img.QCOW2)
	if err != nil {
		t.Fatal(err)
	}

	const (
		nodeUUID  = "1be2c9b4-6e8f-4c1a-9d3e-000000006745"
		mac       = "52:54:00:67:45:01"
		imageID   = "5e5e5e5e-0000-4000-8000-000000006745"
		kernelID  = "5e5e5e5e-0000-4000-8000-00000000674b"
		ramdiskID = "5e5e5e5e-0000-4000-8000-00000000674c"
		instUUID  = "1c1c1c1c-0000-4000-8000-000000006745"
		account   = "AUTH_0123456789abcdef0123456789abcdef"
		tempURLKy = "goironic-vm-temp-url-key"
	)
	kernel, err := os.ReadFile(deploy.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	initramfs, err := os.ReadFile(deploy.Initramfs)
	if err != nil {
		t.Fatal(err)
	}
	// The deploy kernel and ramdisk are Glance images too, as in most
	// OpenStack clouds: the conductor fetches them into http_root.
	glance := fakeglance.ForTest(t, fakeglance.Options{TempURLKey: tempURLKy},
		fakeglance.Image{ID: imageID, Data: qcow2, Fields: map[string]any{"name": "goironic-test-image", "disk_format": "qcow2",
			"direct_url": "swift+config://ref1/glance/" + imageID, "stores": "swift"}},
		fakeglance.Image{ID: kernelID, Data: kernel, Fields: map[string]any{"name": "deploy-kernel", "disk_format": "aki", "container_format": "aki"}},
		fakeglance.Image{ID: ramdiskID, Data: initramfs, Fields: map[string]any{"name": "deploy-ramdisk", "disk_format": "ari", "container_format": "ari"}})
	// The guest reaches the Swift store at the host's address as it sees it.
	swiftURL := "http://" + vm.GuestHost + ":" + glance.URL[strings.LastIndex(glance.URL, ":")+1:] + "/v1/" + account

	d := vm.StartDeploy(ctx, t, vm.DeploySpec{UUID: nodeUUID, MAC: mac, Dir: dir, Ramdisk: deploy, Extra: fmt.Sprintf(`
[glance]
auth_type = none
endpoint_override = %s
swift_temp_url_key = %s
swift_endpoint_url = %s
swift_account = %s
swift_container = glance
swift_temp_url_duration = 1200

[agent]
image_download_source = swift
`, glance.URL, tempURLKy, swiftURL, account)})
	node := d.Node
	d.DriverInfo["deploy_kernel"], d.DriverInfo["deploy_ramdisk"] = kernelID, ramdiskID

	// Nova's metadata asks Neutron for the instance's security groups:
	// an empty Neutron answers.
	neutron := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ports": [], "security_groups": [], "networks": [], "subnets": []}`)
	}))
	t.Cleanup(neutron.Close)
	rec := newRecorder(t)
	rec.setTarget(t, d.API.URL)
	s := newSession(ctx, t, rec, d.API.URL, map[string]string{"auth_type": "none", "endpoint_override": rec.URL}, nil,
		cluster.INI{"neutron": {"auth_type": "none", "endpoint_override": neutron.URL}})

	s.enroll(nodeSpec{UUID: nodeUUID, Name: "vm-node", Driver: "redfish", DriverInfo: d.DriverInfo,
		Interfaces: map[string]any{"boot_interface": "ipxe", "deploy_interface": "direct", "automated_clean": false},
		Properties: map[string]any{"capabilities": "boot_mode:bios", "root_device": map[string]any{"name": "/dev/sda"},
			"cpus": 1, "memory_mb": 512, "local_gb": 0, "cpu_arch": "x86_64"},
		ResourceClass: "baremetal-vm"})
	s.rest.Must(ctx, t, http.StatusOK, http.MethodPatch, "/v1/nodes/"+nodeUUID, []map[string]any{{"op": "replace", "path": "/automated_clean", "value": true}})
	s.rest.Must(ctx, t, http.StatusCreated, http.MethodPost, "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})

	vmFlavor := map[string]any{"flavorid": "bm.vm", "name": "bm.vm", "vcpus": 1, "memory_mb": 512, "root_gb": 0,
		"ephemeral_gb": 0, "swap": 0, "extra_specs": map[string]string{"resources:CUSTOM_BAREMETAL_VM": "1"}}
	inst := map[string]any{"instance": instUUID}
	s.do("create_instance (Nova's database)", "create_instance",
		map[string]any{"uuid": instUUID, "node": nodeUUID, "name": "vm-1", "flavor": vmFlavor, "config_drive": "True"})
	s.do("", "prepare_for_spawn", inst)
	t0 := time.Now()
	s.do("", "spawn", map[string]any{"instance": instUUID, "image_id": imageID, "disk_format": "qcow2",
		"vifs": []map[string]any{{"id": "2d2d2d2d-0000-4000-8000-000000006745", "address": mac}}})
	t.Logf("phase spawn: Nova's spawn to active %s", time.Since(t0).Round(time.Millisecond))
	// Nova's config drive: gzip'd (H4sI in base64), with the deploy request.
	if st := s.steps[len(s.steps)-1]; !slices.ContainsFunc(st.Requests, func(r string) bool {
		return strings.HasPrefix(r, "PUT /v1/nodes/"+nodeUUID+"/states/provision") && strings.Contains(r, `"configdrive": "H4sI`)
	}) {
		t.Errorf("spawn sent no gzip'd config drive: %q", st.Requests)
	}
	n := s.node(nodeUUID)
	if n["provision_state"] != "active" || n["instance_uuid"] != instUUID {
		t.Fatalf("after spawn: provision_state %v instance_uuid %v last_error %v", n["provision_state"], n["instance_uuid"], n["last_error"])
	}
	bootCtx, cancel := context.WithTimeout(ctx, 150*time.Second)
	console, err := node.WaitConsole(bootCtx, func(c string) bool { _, ok := diskimage.Find(c, "DEPLOYED"); return ok })
	cancel()
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, cluster.Tail([]byte(console), 6000))
	}
	t.Logf("phase disk boot: spawn to the deployed image's marker %s", time.Since(t0).Round(time.Millisecond))
	if m, _ := diskimage.Find(console, "DEPLOYED"); m.SystemUUID != nodeUUID || m.ConfigDriveUUID != instUUID {
		t.Errorf("deployed marker %+v, want system %s (the node) and config drive %s (the instance)", m, nodeUUID, instUUID)
	}
	// iPXE loaded the Glance kernel and ramdisk the conductor fetched into
	// <http_root>/<node> (kept there while the node is active, as Ironic
	// 21.4 keeps them, until tear down).
	for _, label := range []string{"deploy_kernel", "deploy_ramdisk"} {
		if !d.Files.Seen("/" + nodeUUID + "/" + label) {
			t.Errorf("iPXE did not load %s from http_url/<node>", label)
		}
	}
	swiftGets := 0
	for _, rq := range glance.Requests() {
		if strings.HasPrefix(rq.Path, "/v1/"+account+"/glance/"+imageID) && rq.Method == http.MethodGet && rq.Status == http.StatusOK {
			swiftGets++
		}
	}
	if swiftGets == 0 {
		t.Errorf("the agent did not download the image from the Swift store: %+v", glance.Requests())
	}
	offCtx, cancel := context.WithTimeout(ctx, 150*time.Second)
	err = node.WaitOff(offCtx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if err := node.ClearConsole(); err != nil {
		t.Fatal(err)
	}

	t0 = time.Now()
	s.do("", "destroy", inst)
	var last map[string]any
	cluster.Eventually(ctx, t, 4*time.Minute, "node "+nodeUUID+" cleaned", func() (bool, string) {
		last = s.node(nodeUUID)
		return last["provision_state"] == "available" || last["provision_state"] == "clean failed",
			fmt.Sprintf("provision_state %v last_error %v", last["provision_state"], last["last_error"])
	})
	if last["provision_state"] != "available" || last["instance_uuid"] != nil {
		t.Fatalf("after destroy: provision_state %v instance_uuid %v last_error %v\nconsole:\n%s", last["provision_state"],
			last["instance_uuid"], last["last_error"], cluster.Tail([]byte(node.Console()), 6000))
	}
	t.Logf("phase destroy: Nova's destroy to available (cleaned) %s", time.Since(t0).Round(time.Millisecond))
	// Cleaning's tear down removed the node's copies (clean_up_ramdisk).
	for _, label := range []string{"deploy_kernel", "deploy_ramdisk"} {
		if _, err := os.Stat(filepath.Join(dir, "httproot", nodeUUID, label)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after cleaning: %v", label, err)
		}
	}
	if !strings.Contains(node.Console(), "erase_devices_metadata") {
		t.Errorf("the agent's console does not show erase_devices_metadata")
	}
	var steps []string
	for _, st := range s.steps {
		for _, r := range st.Requests {
			if len(r) > 200 {
				r = r[:200] + "..."
			}
			steps = append(steps, st.Name+": "+r)
		}
	}
	t.Logf("Nova's requests:\n%s", strings.Join(steps, "\n"))
}
