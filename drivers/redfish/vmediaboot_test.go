package redfish_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/bootiso"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

// fakeISO records the specs it is given and writes them, as JSON, as the
// "ISO".
type fakeISO struct{ specs []bootiso.Spec }

func (f *fakeISO) Build(_ context.Context, out string, spec bootiso.Spec) error {
	f.specs = append(f.specs, spec)
	for _, p := range []string{spec.Kernel, spec.Ramdisk} {
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(spec)
	return os.WriteFile(out, b, 0o600)
}

// vmRig is a redfish node with the virtual media boot interface, its
// images published in a directory an HTTP server serves to the emulated
// BMC.
type vmRig struct {
	*rig
	iso     *fakeISO
	root    string
	httpURL string
	images  string
}

func newVMRig(t *testing.T, spec redfishbmc.SystemSpec, opts ...func(*redfish.Config)) *vmRig {
	t.Helper()
	v := &vmRig{iso: &fakeISO{}, root: t.TempDir(), images: t.TempDir()}
	srv := httptest.NewServer(http.FileServer(http.Dir(v.root)))
	t.Cleanup(srv.Close)
	v.httpURL = srv.URL
	for _, f := range []string{"agent.kernel", "agent.initramfs"} {
		if err := os.WriteFile(filepath.Join(v.images, f), []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := append([]func(*redfish.Config){func(c *redfish.Config) {
		c.ISO = v.iso
		c.UseSwift = false
		c.HTTPRoot, c.HTTPURL = v.root, srv.URL
		c.TempDir = t.TempDir()
		c.APIURL = "http://192.0.2.1:6385/"
		c.FileURLAllowedPaths = []string{v.images}
		c.NewUUID = func() string { return "0d9e5c4e-8a1b-4f7e-9a51-6c3b1f0a2e11" }
		c.NewToken = func() string { return "tok" }
	}}, opts...)
	v.rig = newRig(t, spec, all...)
	v.drv.Network, v.drv.Storage = generic.NoopNetwork{}, generic.NoopStorage{}
	n := v.task.Node
	n.DriverInfo.Set("deploy_kernel", "file://"+filepath.Join(v.images, "agent.kernel"))
	n.DriverInfo.Set("deploy_ramdisk", "file://"+filepath.Join(v.images, "agent.initramfs"))
	n.ProvisionState = states.Deploying
	n.DriverInternalInfo = pyjson.NewDict(0)
	n.InstanceInfo = pyjson.NewDict(0)
	n.Properties = pyjson.NewDict(0)
	n.NetworkData = pyjson.NewDict(0)
	return v
}

func (v *vmRig) published() []string {
	entries, _ := os.ReadDir(filepath.Join(v.root, "redfish"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestVirtualMediaPrepareRamdisk(t *testing.T) {
	v := newVMRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.Debug = true })
	ctx := context.Background()
	uuid := v.task.Node.UUID
	v.task.Node.NetworkData = pyjson.DictOf("links", []any{pyjson.DictOf("id", "eth0", "type", "phy", "ethernet_mac_address", "52:54:00:12:34:56")})
	if err := v.drv.Management.SetBootMode(ctx, v.task, drivers.BootModeBIOS); err != nil {
		t.Fatal(err)
	}
	v.task.Node.Properties.Set("capabilities", "boot_mode:bios")
	v.requests()
	if err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	isoURL := v.httpURL + "/redfish/boot-" + uuid + ".iso"
	v.wantRequests(
		"GET /redfish/v1/Systems/1",
		"GET /redfish/v1/Managers/1",
		"GET /redfish/v1/Systems/1", // power state: already off
		"GET /redfish/v1/Managers/1/VirtualMedia",
		"GET /redfish/v1/Managers/1/VirtualMedia/Cd",
		"GET /redfish/v1/Managers/1/VirtualMedia/Floppy",
		`POST /redfish/v1/Managers/1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia {"Image":"`+isoURL+`"}`,
		"GET /redfish/v1/Systems/1", // sync_boot_mode
		"GET /redfish/v1/Systems/1", // node_set_boot_device: validate
		"GET /redfish/v1/Systems/1",
		`PATCH /redfish/v1/Systems/1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Cd"}}`,
	)
	if len(v.iso.specs) != 1 {
		t.Fatalf("%d builds", len(v.iso.specs))
	}
	got := v.iso.specs[0]
	want := []string{"nofb nomodeset vga=normal ir_pub_id=0d9e5c4e-8a1b-4f7e-9a51-6c3b1f0a2e11 ipa-api-url=http://192.0.2.1:6385 ipa-agent-token=tok ipa-debug=1 boot_method=vmedia"}
	if diff := cmp.Diff(want, got.KernelParams); diff != "" {
		t.Errorf("kernel params (-want +got):\n%s", diff)
	}
	if got.BootMode != "bios" || got.PublisherID != "0d9e5c4e-8a1b-4f7e-9a51-6c3b1f0a2e11" {
		t.Errorf("spec %+v", got)
	}
	nd := string(got.InjectFiles["openstack/latest/network_data.json"])
	if nd != "{\n  \"links\": [\n    {\n      \"id\": \"eth0\",\n      \"type\": \"phy\",\n      \"ethernet_mac_address\": \"52:54:00:12:34:56\"\n    }\n  ]\n}" {
		t.Errorf("network_data.json:\n%s", nd)
	}
	if tok := v.task.Node.DriverInternalInfo.Get("agent_secret_token"); tok != "tok" || v.task.Node.DriverInternalInfo.Get("agent_secret_token_pregenerated") != true {
		t.Errorf("driver_internal_info %s", v.task.Node.DriverInternalInfo)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); !m.Inserted || m.Image != isoURL {
		t.Errorf("Cd %+v", m)
	}
	if b := v.sys.Boot(); b.Target != "Cd" || b.Enabled != "Once" {
		t.Errorf("boot %+v", b)
	}
	if diff := cmp.Diff([]string{"boot-" + uuid + ".iso"}, v.published()); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}

	// Clean up: the CD ejected, the ISO unpublished.
	if err := v.drv.Boot.CleanUpRamdisk(ctx, v.task, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	v.wantRequests(
		"GET /redfish/v1/Systems/1",
		"GET /redfish/v1/Managers/1",
		"GET /redfish/v1/Managers/1/VirtualMedia",
		"GET /redfish/v1/Managers/1/VirtualMedia/Cd",
		"GET /redfish/v1/Managers/1/VirtualMedia/Floppy",
		`POST /redfish/v1/Managers/1/VirtualMedia/Cd/Actions/VirtualMedia.EjectMedia`,
	)
	if m, _ := v.sys.VirtualMedia("Cd"); m.Inserted {
		t.Errorf("Cd %+v", m)
	}
	if p := v.published(); len(p) != 0 {
		t.Errorf("left published: %v", p)
	}
}

// A prebuilt deploy ISO given as an http URL is passed through to the
// BMC ([deploy]ramdisk_image_download_source = http); no token is made.
func TestVirtualMediaDeployISOPassthrough(t *testing.T) {
	v := newVMRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.RamdiskImageDownloadSource = "http" })
	iso := filepath.Join(v.root, "deploy.iso")
	if err := os.WriteFile(iso, []byte("iso"), 0o600); err != nil {
		t.Fatal(err)
	}
	v.task.Node.DriverInfo.Set("deploy_iso", v.httpURL+"/deploy.iso")
	if err := v.drv.Boot.PrepareRamdisk(context.Background(), v.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); m.Image != v.httpURL+"/deploy.iso" {
		t.Errorf("Cd %+v", m)
	}
	if len(v.iso.specs) != 0 || len(v.published()) != 0 || v.task.Node.DriverInternalInfo.Has("agent_secret_token") {
		t.Errorf("built %d, published %v, dii %s", len(v.iso.specs), v.published(), v.task.Node.DriverInternalInfo)
	}
	// "local" (the default) re-publishes it.
	v2 := newVMRig(t, redfishbmc.SystemSpec{})
	if err := os.WriteFile(filepath.Join(v2.root, "deploy.iso"), []byte("iso"), 0o600); err != nil {
		t.Fatal(err)
	}
	v2.task.Node.DriverInfo.Set("deploy_iso", v2.httpURL+"/deploy.iso")
	if err := v2.drv.Boot.PrepareRamdisk(context.Background(), v2.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if m, _ := v2.sys.VirtualMedia("Cd"); m.Image != v2.httpURL+"/redfish/boot-"+v2.task.Node.UUID+".iso" || m.Size != 3 {
		t.Errorf("Cd %+v", m)
	}
}

// Bad input and failing BMCs: Ironic's errors, nothing left inserted or
// published.
func TestVirtualMediaPrepareRamdiskFailures(t *testing.T) {
	ctx := context.Background()
	t.Run("missing deploy_kernel", func(t *testing.T) {
		v := newVMRig(t, redfishbmc.SystemSpec{})
		// Without deploy_kernel, 21.4 takes both images from [conductor]
		// and reports both missing.
		v.task.Node.DriverInfo.Delete("deploy_kernel")
		err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy)
		wantFault(t, err, ironic.MissingParameterValue, "Error validating Redfish virtual media. Some parameters were missing in node's driver_info. Missing are: ['deploy_kernel', 'deploy_ramdisk']")
		if err := v.drv.Boot.Validate(ctx, v.task); !ironic.IsClass(err, ironic.MissingParameterValue) {
			t.Errorf("Validate: %v", err)
		}
		if len(v.published()) != 0 || len(v.ts.Requests()) != 0 {
			t.Errorf("published %v, %d requests", v.published(), len(v.ts.Requests()))
		}
	})
	t.Run("BMC refuses InsertMedia", func(t *testing.T) {
		v := newVMRig(t, redfishbmc.SystemSpec{RefuseInsertMedia: http.StatusInternalServerError})
		err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy)
		if err == nil || !strings.Contains(err.Error(), "VirtualMedia.InsertMedia") || !strings.Contains(err.Error(), "500") {
			t.Errorf("error %v", err)
		}
		inserts := 0
		for _, q := range v.ts.Requests() {
			if strings.HasSuffix(q.Path, "VirtualMedia.InsertMedia") {
				inserts++
			}
		}
		if inserts != 3 || len(v.slept) != 2 {
			t.Errorf("%d insertions, slept %v; want 3 attempts 3 s apart", inserts, v.slept)
		}
		if m, _ := v.sys.VirtualMedia("Cd"); m.Inserted || len(v.published()) != 0 {
			t.Errorf("Cd %+v, published %v", m, v.published())
		}
	})
	t.Run("BMC cannot download the ISO", func(t *testing.T) {
		v := newVMRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.HTTPURL = "http://127.0.0.1:1/nowhere" })
		err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy)
		if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "CouldNotEstablishConnection") {
			t.Errorf("error %v", err)
		}
		if m, _ := v.sys.VirtualMedia("Cd"); m.Inserted || len(v.published()) != 0 {
			t.Errorf("Cd %+v, published %v", m, v.published())
		}
	})
	t.Run("ramdisk deploy cleaned without automated cleaning", func(t *testing.T) {
		// 21.4's _parse_driver_info gives such a node no agent images:
		// its manual cleaning fails building the ISO.
		v := newVMRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) { c.AutomatedClean = false })
		v.task.Node.Interfaces = map[drivers.Kind]string{drivers.Deploy: "ramdisk"}
		v.task.Node.ProvisionState = states.Cleaning
		err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy)
		wantFault(t, err, ironic.InvalidParameterValue, "Unable to find kernel, ramdisk for building ISO, or explicit ISO for "+v.task.Node.UUID)
		if len(v.published()) != 0 || v.task.Node.DriverInternalInfo.Has("agent_secret_token") {
			t.Errorf("published %v, dii %s", v.published(), v.task.Node.DriverInternalInfo)
		}
	})
	t.Run("kernel not downloadable", func(t *testing.T) {
		v := newVMRig(t, redfishbmc.SystemSpec{})
		v.task.Node.DriverInfo.Set("deploy_kernel", v.httpURL+"/missing")
		err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy)
		// HttpImageService.download's error, as 21.4 raises it.
		wantFault(t, err, ironic.ImageRefValidationFailed, "Validation of image href "+v.httpURL+
			"/missing failed, reason: Got HTTP code 404 instead of 200 in response to GET request.")
		if len(v.published()) != 0 || len(v.iso.specs) != 0 {
			t.Errorf("published %v", v.published())
		}
	})
}

func TestVirtualMediaPrepareInstance(t *testing.T) {
	ctx := context.Background()
	v := newVMRig(t, redfishbmc.SystemSpec{})
	if err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	// Local boot: the CD ejected, the ISO removed, the disk persistent.
	v.task.Node.DriverInternalInfo.Set("is_whole_disk_image", true)
	if err := v.drv.Boot.PrepareInstance(ctx, v.task); err != nil {
		t.Fatal(err)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); m.Inserted || len(v.published()) != 0 {
		t.Errorf("Cd %+v, published %v", m, v.published())
	}
	if b := v.sys.Boot(); b.Target != "Hdd" || b.Enabled != "Continuous" {
		t.Errorf("boot %+v", b)
	}

	// Ramdisk deploy with a boot ISO: passed through and booted from
	// persistently; the config drive goes into the USB stick.
	v.task.Node.DriverInternalInfo.Delete("is_whole_disk_image")
	v.task.Node.InstanceInfo.Set("boot_iso", v.httpURL+"/boot.iso")
	v.task.Node.InstanceInfo.Set("ramdisk_image_download_source", "http")
	v.task.Node.Interfaces = map[drivers.Kind]string{drivers.Deploy: "ramdisk"}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("config drive"))
	_ = zw.Close()
	v.task.Node.InstanceInfo.Set("configdrive", base64.StdEncoding.EncodeToString(gz.Bytes()))
	if err := os.WriteFile(filepath.Join(v.root, "boot.iso"), []byte("boot"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := v.drv.Boot.PrepareInstance(ctx, v.task); err != nil {
		t.Fatal(err)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); !m.Inserted || m.Image != v.httpURL+"/boot.iso" {
		t.Errorf("Cd %+v", m)
	}
	if b := v.sys.Boot(); b.Target != "Cd" || b.Enabled != "Continuous" {
		t.Errorf("boot %+v", b)
	}
	cd := "configdrive-" + v.task.Node.UUID
	if m, _ := v.sys.VirtualMedia("Floppy"); !m.Inserted || m.Image != v.httpURL+"/redfish/"+cd || m.Size != int64(len("config drive")) {
		t.Errorf("USB stick %+v", m)
	}
	if diff := cmp.Diff([]string{cd}, v.published()); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}
	if err := v.drv.Boot.CleanUpInstance(ctx, v.task); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"Cd", "Floppy"} {
		if m, _ := v.sys.VirtualMedia(id); m.Inserted {
			t.Errorf("%s %+v", id, m)
		}
	}
	if p := v.published(); len(p) != 0 {
		t.Errorf("left published: %v", p)
	}
}

// The vendor method eject_vmedia ejects everything and removes what the
// boot interface published.
func TestVendorEjectRemovesImages(t *testing.T) {
	ctx := context.Background()
	v := newVMRig(t, redfishbmc.SystemSpec{})
	if err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if _, err := v.drv.Vendor.Call(ctx, v.task, "eject_vmedia", "POST", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); m.Inserted || len(v.published()) != 0 {
		t.Errorf("Cd %+v, published %v", m, v.published())
	}
}

// With drivers/bootiso's builder, the BMC downloads a real ISO: a
// config-2 volume carrying network_data.json, the kernel parameters in
// isolinux.cfg.
func TestVirtualMediaBuildsRealISO(t *testing.T) {
	isoinfo, err := exec.LookPath("isoinfo")
	if err != nil {
		t.Skip("isoinfo (genisoimage) is not installed")
	}
	if _, err := os.Stat("/usr/lib/ISOLINUX/isolinux.bin"); err != nil {
		t.Skip("isolinux is not installed")
	}
	v := newVMRig(t, redfishbmc.SystemSpec{}, func(c *redfish.Config) {
		bc := bootiso.DefaultConfig()
		bc.IsolinuxBin = "/usr/lib/ISOLINUX/isolinux.bin" // Debian's isolinux
		c.ISO = bootiso.New(bc, nil)
		c.DefaultBootMode = drivers.BootModeBIOS
	})
	v.task.Node.NetworkData = pyjson.DictOf("links", []any{}, "networks", []any{}, "services", []any{})
	ctx := context.Background()
	if err := v.drv.Boot.PrepareRamdisk(ctx, v.task, map[string]any{}, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	iso := filepath.Join(v.root, "redfish", "boot-"+v.task.Node.UUID+".iso")
	st, err := os.Stat(iso)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.sys.VirtualMedia("Cd"); !m.Inserted || m.Size != st.Size() {
		t.Errorf("Cd %+v, ISO %d bytes", m, st.Size())
	}
	out, err := exec.Command(isoinfo, "-d", "-i", iso).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Volume id: config-2") || !strings.Contains(string(out), "El Torito") {
		t.Errorf("isoinfo -d: %v\n%s", err, out)
	}
	out, err = exec.Command(isoinfo, "-R", "-i", iso, "-x", "/isolinux/isolinux.cfg").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ir_pub_id=0d9e5c4e-8a1b-4f7e-9a51-6c3b1f0a2e11 ipa-api-url=http://192.0.2.1:6385 ipa-agent-token=tok boot_method=vmedia") {
		t.Errorf("isolinux.cfg: %v\n%s", err, out)
	}
	out, err = exec.Command(isoinfo, "-R", "-i", iso, "-x", "/openstack/latest/network_data.json").CombinedOutput()
	if err != nil || string(out) != "{\n  \"links\": [],\n  \"networks\": [],\n  \"services\": []\n}" {
		t.Errorf("network_data.json: %v\n%q", err, out)
	}
	// Nothing is left in the temporary directory.
	if err := v.drv.Boot.CleanUpRamdisk(ctx, v.task, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(iso); !os.IsNotExist(err) {
		t.Errorf("ISO left: %v", err)
	}
}

// For in-band inspection the ISO's command line holds the inspector
// interface's parameters (the callback URL), the token and boot_method,
// and no ipa-api-url: 21.4's _start_managed_inspection passes no agent
// options, as its deploy interfaces do.
func TestVirtualMediaPrepareRamdiskInspection(t *testing.T) {
	v := newVMRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	v.task.Node.ProvisionState = states.Inspecting
	params := map[string]any{"ipa-inspection-callback-url": "http://192.0.2.1:5050/v1/continue", "ipa-inspection-collectors": "default,logs", "nofb": nil}
	if err := v.drv.Boot.PrepareRamdisk(ctx, v.task, params, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if len(v.iso.specs) != 1 {
		t.Fatalf("%d builds", len(v.iso.specs))
	}
	want := []string{"nofb nomodeset vga=normal ir_pub_id=0d9e5c4e-8a1b-4f7e-9a51-6c3b1f0a2e11 ipa-inspection-callback-url=http://192.0.2.1:5050/v1/continue ipa-inspection-collectors=default,logs nofb ipa-agent-token=tok boot_method=vmedia"}
	if diff := cmp.Diff(want, v.iso.specs[0].KernelParams); diff != "" {
		t.Errorf("kernel params (-want +got):\n%s", diff)
	}
	if err := v.drv.Boot.CleanUpRamdisk(ctx, v.task, drivers.RamdiskDeploy); err != nil {
		t.Fatal(err)
	}
	if p := v.published(); len(p) != 0 {
		t.Errorf("left published: %v", p)
	}
}
