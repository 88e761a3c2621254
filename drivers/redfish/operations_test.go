package redfish_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/redfishbmc"
)

func TestBootDeviceAndMode(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	m := r.drv.Management
	if err := m.SetBootDevice(ctx, r.task, drivers.BootDevicePXE, true); err != nil {
		t.Fatal(err)
	}
	r.requests()
	// Already Continuous: BootSourceOverrideEnabled is not sent again.
	if err := m.SetBootDevice(ctx, r.task, drivers.BootDeviceDisk, true); err != nil {
		t.Fatal(err)
	}
	r.wantRequests("GET /redfish/v1/Systems/1", "GET /redfish/v1/Systems/1",
		`PATCH /redfish/v1/Systems/1 {"Boot":{"BootSourceOverrideTarget":"Hdd"}}`)
	if b := r.sys.Boot(); b.Target != "Hdd" || b.Enabled != "Continuous" {
		t.Errorf("boot %+v", b)
	}
	bd, err := m.GetBootDevice(ctx, r.task)
	if err != nil || bd.Device != drivers.BootDeviceDisk || bd.Persistent == nil || !*bd.Persistent {
		t.Errorf("GetBootDevice: %+v %v", bd, err)
	}
	if err := m.SetBootMode(ctx, r.task, drivers.BootModeBIOS); err != nil {
		t.Fatal(err)
	}
	if mode, err := m.GetBootMode(ctx, r.task); err != nil || mode != drivers.BootModeBIOS {
		t.Errorf("GetBootMode: %q %v", mode, err)
	}
	if err := m.InjectNMI(ctx, r.task); err != nil || r.sys.NMIs() != 1 {
		t.Errorf("InjectNMI: %v (%d NMIs)", err, r.sys.NMIs())
	}
	// Secure boot needs UEFI.
	err = m.SetSecureBootState(ctx, r.task, true)
	wantFault(t, err, "RedfishError", "Redfish exception occurred. Error: Configuring secure boot requires UEFI for node "+r.task.Node.UUID)
	vd, err := m.(drivers.VendorDetector).DetectVendor(ctx, r.task)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vendor %q", vd)
}

func TestSensors(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	got, err := r.drv.Management.GetSensorsData(context.Background(), r.task)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"Fan", "Temperature", "Power", "Drive"} {
		d, ok := got[kind].(*pyjson.Dict)
		if !ok || d.Len() == 0 {
			t.Errorf("%s: %v", kind, got[kind])
			continue
		}
		for name, v := range d.All() {
			s, _ := pyjson.AsDict(v)
			t.Logf("%s %s: %s", kind, name, s)
			if !s.Has("health") {
				t.Errorf("%s %s has no health", kind, name)
			}
		}
	}
}

func TestInspect(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	next, err := r.drv.Inspect.InspectHardware(context.Background(), r.task)
	if err != nil || next != states.Manageable {
		t.Fatalf("InspectHardware: %q %v", next, err)
	}
	p := r.task.Properties()
	// Two CPUs of 8 threads; 32 GiB; the 480 GB SSD is the smallest disk.
	if p.Get("cpus") != int64(16) || p.Get("memory_mb") != "32768" || p.Get("cpu_arch") != "x86_64" ||
		p.Get("local_gb") != "446" || p.Get("capabilities") != "boot_mode:uefi" {
		t.Errorf("properties %s", p)
	}
	macs := r.sys.MACs()
	got, err := r.drv.Management.(*redfish.Management).GetMACAddresses(context.Background(), r.task)
	if err != nil || len(got) != len(macs) || got[0] != macs[0] {
		t.Errorf("GetMACAddresses: %v %v, want %v", got, err, macs)
	}
	if len(r.task.PortList) != len(macs) || r.task.PortList[0].Address != macs[0] {
		t.Errorf("ports %+v, MACs %v", r.task.PortList, macs)
	}
	// A second inspection finds the ports there.
	if _, err := r.drv.Inspect.InspectHardware(context.Background(), r.task); err != nil || len(r.task.PortList) != len(macs) {
		t.Errorf("again: %v, %d ports", err, len(r.task.PortList))
	}
}

func TestRAIDCreateAndDelete(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	r.task.Node.ProvisionState = states.Deploying
	r.task.Node.DeployStep = pyjson.DictOf("step", "apply_configuration", "interface", "raid")
	cfg := pyjson.DictOf("logical_disks", []any{pyjson.DictOf("size_gb", int64(100), "raid_level", "0", "is_root_volume", true)})
	next, err := r.drv.RAID.(drivers.Stepper).ExecuteStep(ctx, r.task, "apply_configuration", pyjson.DictOf("raid_config", cfg))
	if err != nil || next != "" {
		t.Fatalf("apply_configuration: %q %v", next, err)
	}
	vols := r.sys.Volumes()
	if len(vols) != 1 || vols[0].RAIDType != "RAID0" || vols[0].CapacityBytes != 100<<30 {
		t.Fatalf("volumes %+v", vols)
	}
	lds, _ := r.task.RAIDConfig().Get("logical_disks").([]any)
	// The volumes read back carry no is_root_volume: as in Ironic, the
	// properties stay as they were.
	if len(lds) != 1 || r.task.Properties().Len() != 0 {
		t.Errorf("raid_config %s, properties %s", r.task.RAIDConfig(), r.task.Properties())
	}
	if dii := r.task.DriverInternalInfo(); dii.Get("deployment_reboot") != false || dii.Get("deployment_polling") != true {
		t.Errorf("driver_internal_info %s", dii)
	}
	if next, err := r.drv.RAID.DeleteConfiguration(ctx, r.task); err != nil || next != "" {
		t.Fatalf("delete: %q %v", next, err)
	}
	if vols := r.sys.Volumes(); len(vols) != 0 {
		t.Errorf("volumes left: %+v", vols)
	}
	// Two RAID1 volumes need two drives of one type: the emulator's are
	// of two.
	r.task.TargetRAIDConfig().Set("logical_disks", []any{pyjson.DictOf("size_gb", int64(10), "raid_level", "1")})
	_, err = r.drv.RAID.CreateConfiguration(ctx, r.task, drivers.RAIDCreateOptions{CreateRootVolume: true, CreateNonRootVolumes: true})
	wantFault(t, err, "RedfishError", "Redfish exception occurred. Error: failed to find matching physical disks for all logical disks")
}

func TestVirtualMedia(t *testing.T) {
	img := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("iso")) }))
	t.Cleanup(img.Close)
	r := newRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	vm := r.drv.Boot.(*redfish.VirtualMediaBoot)
	if err := vm.InsertMedia(ctx, r.task, img.URL+"/boot.iso", redfish.VirtualMediaCD); err != nil {
		t.Fatal(err)
	}
	if m, _ := r.sys.VirtualMedia("Cd"); !m.Inserted || m.Image != img.URL+"/boot.iso" || m.Size != 3 {
		t.Fatalf("Cd %+v", m)
	}
	// Already there: nothing to do.
	if err := vm.InsertMedia(ctx, r.task, img.URL+"/boot.iso", redfish.VirtualMediaCD); err != nil {
		t.Fatal(err)
	}
	if err := vm.InsertMedia(ctx, r.task, img.URL+"/config.img", redfish.VirtualMediaUSBStick); err != nil {
		t.Fatal(err)
	}
	err := vm.InsertMedia(ctx, r.task, img.URL+"/other.iso", redfish.VirtualMediaCD)
	wantFault(t, err, "InvalidParameterValue", "No suitable virtual media device found")
	found, err := vm.EjectMedia(ctx, r.task, redfish.VirtualMediaCD)
	if err != nil || !found {
		t.Fatalf("eject: %v %v", found, err)
	}
	if m, _ := r.sys.VirtualMedia("Cd"); m.Inserted {
		t.Errorf("Cd still inserted")
	}
	if m, _ := r.sys.VirtualMedia("Floppy"); !m.Inserted {
		t.Errorf("Floppy ejected")
	}
}

func TestBIOSApplyRebootsThenChecks(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOn})
	ctx := context.Background()
	r.task.Node.ProvisionState = states.Cleaning
	r.task.Node.CleanStep = pyjson.DictOf("step", "apply_configuration", "interface", "bios")
	r.task.Node.DriverInternalInfo = pyjson.DictOf("cleaning_disable_ramdisk", true, "agent_secret_token", "t")
	st := r.drv.BIOS.(drivers.Stepper)
	args := pyjson.DictOf("settings", []any{pyjson.DictOf("name", "ProcTurboMode", "value", "Disabled")})
	next, err := st.ExecuteStep(ctx, r.task, "apply_configuration", args)
	if err != nil || next != states.CleanWait {
		t.Fatalf("first run: %q %v", next, err)
	}
	if got := r.task.PowerActions; len(got) != 1 || got[0] != states.Rebooting {
		t.Errorf("power actions %v", got)
	}
	dii := r.task.DriverInternalInfo()
	if dii.Get("cleaning_reboot") != true || dii.Get("post_config_reboot_requested") != true || dii.Has("agent_secret_token") {
		t.Errorf("driver_internal_info %s", dii)
	}
	if next, err := st.ExecuteStep(ctx, r.task, "apply_configuration", args); err != nil || next != "" {
		t.Fatalf("second run: %q %v", next, err)
	}
	if r.sys.BiosAttributes()["ProcTurboMode"] != "Disabled" || dii.Has("post_config_reboot_requested") {
		t.Errorf("BIOS %v, driver_internal_info %s", r.sys.BiosAttributes(), dii)
	}
	list, _ := r.task.BIOSSettings().List(ctx)
	found := false
	for _, s := range list {
		if s.Name == "ProcTurboMode" {
			found = s.Value == "Disabled" && s.AttributeType != nil && *s.AttributeType == "Enumeration"
		}
	}
	if !found {
		t.Errorf("cached settings %+v", list)
	}
}

func TestSubscriptions(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{})
	ctx := context.Background()
	v := r.drv.Vendor
	args := map[string]any{"Destination": "https://listener.example/events"}
	if err := v.Validate(ctx, r.task, "create_subscription", "POST", args); err != nil {
		t.Fatal(err)
	}
	sub, err := v.Call(ctx, r.task, "create_subscription", "POST", args)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := pyjson.AsDict(sub)
	id, _ := d.Get("Id").(string)
	if id == "" || d.Get("Destination") != "https://listener.example/events" {
		t.Fatalf("subscription %v", sub)
	}
	if _, err := v.Call(ctx, r.task, "get_subscription", "GET", map[string]any{"id": id}); err != nil {
		t.Fatal(err)
	}
	err = v.Validate(ctx, r.task, "create_subscription", "POST", map[string]any{"Destination": "https://l/e", "EventTypes": []any{"Alert"}})
	wantFault(t, err, "InvalidParameterValue", "EventTypes ['Alert'] is not a valid value, allowed values {<EventType.STATUS_CHANGE")
	if _, err := v.Call(ctx, r.task, "delete_subscription", "DELETE", map[string]any{"id": id}); err != nil {
		t.Fatal(err)
	}
	_, err = v.Call(ctx, r.task, "delete_subscription", "DELETE", map[string]any{"id": id})
	wantFault(t, err, "RedfishError", "Redfish exception occurred. Error: Redfish delete_subscription failed for subscription "+id)
}

// A BMC that creates volumes at the next reset: the step reboots the
// node and waits; the RAID status periodic finds the BMC's task done,
// records the volume and resumes the steps.
func TestRAIDOnReset(t *testing.T) {
	r := newRig(t, redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOn, VolumeApplyTimes: []string{"OnReset"}})
	r.drv.Boot = &fake.Boot{} // the agent's ramdisk, for the reboot
	ctx := context.Background()
	r.task.Node.ProvisionState = states.Deploying
	r.task.Node.DeployStep = pyjson.DictOf("step", "apply_configuration", "interface", "raid")
	r.task.Node.DriverInternalInfo = pyjson.DictOf("deploy_steps", []any{})
	cfg := pyjson.DictOf("logical_disks", []any{pyjson.DictOf("size_gb", int64(100), "raid_level", "0")})
	next, err := r.drv.RAID.(drivers.Stepper).ExecuteStep(ctx, r.task, "apply_configuration", pyjson.DictOf("raid_config", cfg, "create_nonroot_volumes", true))
	if err != nil || next != states.DeployWait {
		t.Fatalf("apply_configuration: %q %v", next, err)
	}
	dii := r.task.DriverInternalInfo()
	configs, _ := pyjson.AsDict(dii.Get("raid_configs"))
	// The step's reboot went through the BMC: the volume is there.
	if configs == nil || dii.Get("deployment_reboot") != true || len(r.sys.Volumes()) != 1 {
		t.Fatalf("driver_internal_info %s, volumes %v", dii, r.sys.Volumes())
	}
	r.task.Node.ProvisionState = states.DeployWait
	periodics := r.drv.RAID.(drivers.PeriodicDeclarer).NodePeriodics()
	status := periodics[0]
	if !status.Predicate(dii) {
		t.Fatal("the status periodic skips the node")
	}
	if err := status.Run(ctx, r.task); err != nil {
		t.Fatal(err)
	}
	if vols := r.sys.Volumes(); len(vols) != 1 || vols[0].RAIDType != "RAID0" {
		t.Errorf("volumes %+v", vols)
	}
	if dii.Has("raid_configs") || r.task.RAIDConfig().Len() == 0 {
		t.Errorf("driver_internal_info %s, raid_config %s", dii, r.task.RAIDConfig())
	}
	if f := r.task.Flow; len(f) == 0 || f[len(f)-1] != "continue deploy" {
		t.Errorf("flow %v", f)
	}
}
