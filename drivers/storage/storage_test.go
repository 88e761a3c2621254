package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/generic"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/drivers/storage/cinderclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/fakecinder"
)

const (
	nodeUUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	vol1     = "00000000-0000-0000-0000-000000000001"
	vol2     = "00000000-0000-0000-0000-000000000002"
)

// ipxeBoot is a boot interface with Ironic's ipxe capabilities.
type ipxeBoot struct{ fake.Boot }

// pxeBoot is a boot interface without ipxe_boot.
type pxeBoot struct{ fake.Boot }

func (pxeBoot) Capabilities() []string { return []string{"ramdisk_boot", "pxe_boot"} }

func (ipxeBoot) Capabilities() []string {
	return []string{"iscsi_volume_boot", "ramdisk_boot", "ipxe_boot"}
}

func newTask(st drivers.StorageInterface, ipxe bool) *fake.Task {
	impls := []drivers.Implementation{{Kind: drivers.Storage, Name: "cinder", Impl: st}}
	if ipxe {
		impls = append(impls, drivers.Implementation{Kind: drivers.Boot, Name: "ipxe", Impl: &ipxeBoot{}})
	} else {
		impls = append(impls, drivers.Implementation{Kind: drivers.Boot, Name: "pxe", Impl: &pxeBoot{}})
	}
	return &fake.Task{
		Node: &fake.Node{UUID: nodeUUID, Driver: "fake-hardware", ProvisionState: "active", PowerState: "power off",
			Properties: pyjson.DictOf("capabilities", "iscsi_boot:True")},
		Drv: drivers.NewDriver("fake-hardware", impls...),
		Vols: &fake.VolumeStore{
			ConnectorList: []drivers.VolumeConnector{{UUID: "c1", Type: "iqn", ConnectorID: "iqn.2017-08.org.openstack:node1"}},
			TargetList:    []drivers.VolumeTarget{{UUID: "t0", VolumeType: "iscsi", VolumeID: vol1, BootIndex: 0}},
		},
	}
}

func cinderFor(t *testing.T, fc *fakecinder.TestServer) *storage.CinderStorage {
	client := cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: fc.URL + "/v3"}}, nil)
	return storage.NewCinderStorage(storage.Config{ActionRetries: 2, ActionRetryInterval: time.Second}, storage.Deps{
		Cinder: client,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC) },
	})
}

func TestCinderAttachDetach(t *testing.T) {
	ctx := context.Background()
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": vol1}}})
	cs := cinderFor(t, fc)
	task := newTask(cs, true)
	if err := cs.Validate(ctx, task); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if err := cs.AttachVolumes(ctx, task); err != nil {
		t.Fatalf("AttachVolumes: %v", err)
	}
	if got := fc.Volume(vol1)["status"]; got != "in-use" {
		t.Errorf("status after attach = %v", got)
	}
	props := task.Vols.TargetList[0].Properties
	for k, want := range map[string]any{
		"target_iqn": "iqn.2010-10.org.openstack:volume-" + vol1, "target_portal": "192.0.2.10:3260",
		"target_lun": json.Number("0"), "auth_method": "CHAP", "volume_id": vol1, "ironic_volume_uuid": vol1,
	} {
		if !cmp.Equal(props.Get(k), want) {
			t.Errorf("properties[%s] = %#v, want %#v", k, props.Get(k), want)
		}
	}
	if _, ok := props.Get("auth_username").(string); !ok {
		t.Errorf("no auth_username in %v", props)
	}
	md := fc.Metadata(vol1)["ironic_node_"+nodeUUID]
	if want := `{"instance_uuid": "` + nodeUUID + `", "last_seen": "2026-01-02T03:04:05.600000", "last_action": "attached"}`; md != want {
		t.Errorf("metadata = %s\nwant %s", md, want)
	}
	// The connector Ironic sends.
	for _, r := range fc.Requests() {
		if r.Action == "os-initialize_connection" {
			want := `{"os-initialize_connection":{"connector":{"host":"` + nodeUUID + `","initiator":"iqn.2017-08.org.openstack:node1"}}}`
			if string(r.Body) != want {
				t.Errorf("initialize_connection body = %s\nwant %s", r.Body, want)
			}
		}
		if got := r.Headers.Get("OpenStack-API-Version"); got != "volume 3.0" {
			t.Errorf("OpenStack-API-Version = %q", got)
		}
	}
	// Attaching again skips the attached volume.
	if err := cs.AttachVolumes(ctx, task); err != nil {
		t.Fatalf("second AttachVolumes: %v", err)
	}
	if err := cs.DetachVolumes(ctx, task); err != nil {
		t.Fatalf("DetachVolumes: %v", err)
	}
	if got := fc.Volume(vol1)["status"]; got != "available" {
		t.Errorf("status after detach = %v", got)
	}
	want := []string{
		"GET " + vol1, "os-reserve " + vol1, "os-initialize_connection " + vol1, "os-attach " + vol1, "metadata " + vol1,
		"GET " + vol1,
		"GET " + vol1, "os-begin_detaching " + vol1, "os-terminate_connection " + vol1, "os-detach " + vol1, "metadata " + vol1,
	}
	if diff := cmp.Diff(want, fc.Actions()); diff != "" {
		t.Errorf("Cinder calls (-want +got):\n%s", diff)
	}
}

func TestCinderAttachFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": vol1}, {"id": vol2}}})
	cs := cinderFor(t, fc)
	task := newTask(cs, true)
	task.Vols.TargetList = append(task.Vols.TargetList, drivers.VolumeTarget{UUID: "t1", VolumeType: "iscsi", VolumeID: vol2, BootIndex: 1})
	fc.FailNext("os-reserve", 400)
	// vol1 attaches, vol2's reserve fails: vol1 is detached again.
	fc.FailNext("os-reserve", 0)
	err := cs.AttachVolumes(ctx, task)
	if err == nil {
		t.Fatal("AttachVolumes succeeded")
	}
	var f *ironic.Fault
	if !errors.As(err, &f) || f.Class != ironic.StorageError {
		t.Fatalf("error %v is not a StorageError", err)
	}
	if !strings.HasPrefix(err.Error(), "Failed to reserve volume "+vol1+" for node "+nodeUUID+": Invalid input received: injected failure. (HTTP 400) (Request-ID: req-") {
		t.Errorf("error = %v", err)
	}
	if task.Vols.PropertySaves != 0 {
		t.Errorf("properties saved after a failed attach")
	}
}

func TestCinderDetachRetries(t *testing.T) {
	ctx := context.Background()
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": vol1}}})
	cs := cinderFor(t, fc)
	task := newTask(cs, true)
	if err := cs.AttachVolumes(ctx, task); err != nil {
		t.Fatal(err)
	}
	task.Node.ProvisionState = "deleting"
	fc.FailNext("os-begin_detaching", 500, 500)
	if err := cs.DetachVolumes(ctx, task); err != nil {
		t.Fatalf("DetachVolumes after two failures: %v", err)
	}
	if got := fc.Volume(vol1)["status"]; got != "available" {
		t.Errorf("status = %v", got)
	}
	// Beyond action_retries the error is returned.
	if err := cs.AttachVolumes(ctx, task); err != nil {
		t.Fatal(err)
	}
	fc.FailNext("GET", 500, 500, 500)
	err := cs.DetachVolumes(ctx, task)
	if err == nil || !strings.Contains(err.Error(), "Failed to get volume "+vol1+" from cinder for node "+nodeUUID) {
		t.Fatalf("DetachVolumes = %v", err)
	}
	// An active node tolerates errors.
	task.Node.ProvisionState = "active"
	fc.FailNext("GET", 500)
	if err := cs.DetachVolumes(ctx, task); err != nil {
		t.Fatalf("active DetachVolumes = %v", err)
	}
}

func TestCinderValidate(t *testing.T) {
	ctx := context.Background()
	cs := storage.NewCinderStorage(storage.DefaultConfig(), storage.Deps{})
	prefix := "Failed to validate cinder storage interface for node " + nodeUUID + ". "
	cases := map[string]struct {
		ipxe  bool
		caps  string
		conns []drivers.VolumeConnector
		tgts  []drivers.VolumeTarget
		class ironic.Class
		msg   string
	}{
		"ok": {ipxe: true, caps: "iscsi_boot:True"},
		"iqn without ipxe": {caps: "iscsi_boot:True", class: ironic.InvalidParameterValue,
			msg: "The [pxe]/ipxe_enabled option must be set to True or the boot interface must be set to ``ipxe`` to support network booting to an iSCSI volume."},
		"no iscsi_boot": {ipxe: true, caps: "", class: ironic.InvalidParameterValue,
			msg: "Volume target t0 is configured for 'iscsi', however the capability 'iscsi_boot' is not set for the node."},
		"iscsi_boot without iqn": {ipxe: true, caps: "iscsi_boot:true", conns: []drivers.VolumeConnector{{UUID: "c2", Type: "ip", ConnectorID: "192.0.2.5"}},
			class: ironic.InvalidParameterValue,
			msg:   "In order to enable the 'iscsi_boot' capability for the node, an associated volume_connector type must be valid for iSCSI (iqn)."},
		"wwpn/wwnn mismatch": {ipxe: true, caps: "fibre_channel_boot:True", conns: []drivers.VolumeConnector{{UUID: "c3", Type: "wwpn", ConnectorID: "21000024ff4f5d2c"}},
			class: ironic.StorageError,
			msg:   "Cinder requires both wwnn and wwpn entries for FCoE connections. There must be a wwpn entry for every wwnn entry. There are 1 wwpn entries and 0 wwnn entries."},
		"fc no capability": {ipxe: true, conns: []drivers.VolumeConnector{{UUID: "c3", Type: "wwpn", ConnectorID: "a"}, {UUID: "c4", Type: "wwnn", ConnectorID: "b"}},
			tgts:  []drivers.VolumeTarget{{UUID: "t5", VolumeType: "fibre_channel", VolumeID: vol1}},
			class: ironic.InvalidParameterValue,
			msg:   "Volume target t5 is configured for 'fibre_channel', however the capability 'fibre_channel_boot' is not set on node."},
		"unknown type": {ipxe: true, caps: "iscsi_boot:True", tgts: []drivers.VolumeTarget{{UUID: "t6", VolumeType: "nfs", VolumeID: vol1, BootIndex: 1}},
			class: ironic.InvalidParameterValue,
			msg:   "Volume target t6 is of an unknown type 'nfs'. Supported types: 'iscsi' or 'fibre_channel'"},
		"missing volume id": {ipxe: true, caps: "iscsi_boot:True", tgts: []drivers.VolumeTarget{{UUID: "t7", VolumeType: "iscsi"}},
			class: ironic.InvalidParameterValue, msg: "volume_id missing from target t7."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			task := newTask(cs, tc.ipxe)
			task.Node.Properties.Set("capabilities", tc.caps)
			if tc.conns != nil {
				task.Vols.ConnectorList = tc.conns
			}
			if tc.tgts != nil {
				task.Vols.TargetList = tc.tgts
			}
			err := cs.Validate(ctx, task)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var f *ironic.Fault
			if !errors.As(err, &f) || f.Class != tc.class || err.Error() != prefix+tc.msg {
				t.Fatalf("Validate = %v (%T)\nwant %s: %s", err, err, tc.class, prefix+tc.msg)
			}
		})
	}
}

func TestShouldWriteImageAndExternal(t *testing.T) {
	ctx := context.Background()
	ext := storage.NewExternal(storage.Deps{})
	for _, impl := range []drivers.StorageInterface{storage.NewCinderStorage(storage.DefaultConfig(), storage.Deps{}), ext} {
		task := newTask(impl, false)
		if w, _ := impl.ShouldWriteImage(ctx, task); w {
			t.Errorf("%T: ShouldWriteImage with a boot volume and no image_source = true", impl)
		}
		task.Node.InstanceInfo = pyjson.DictOf("image_source", "http://x/img")
		if w, _ := impl.ShouldWriteImage(ctx, task); !w {
			t.Errorf("%T: ShouldWriteImage with image_source = false", impl)
		}
		task.Node.InstanceInfo = nil
		task.Vols.TargetList[0].BootIndex = 1
		if w, _ := impl.ShouldWriteImage(ctx, task); !w {
			t.Errorf("%T: ShouldWriteImage without a boot volume = false", impl)
		}
	}
	if w, _ := (generic.NoopStorage{}).ShouldWriteImage(ctx, newTask(generic.NoopStorage{}, false)); !w {
		t.Error("noop: ShouldWriteImage = false")
	}
	err := ext.Validate(ctx, newTask(ext, false))
	if err == nil || !strings.Contains(err.Error(), "Failed to validate external storage interface for node "+nodeUUID+". The [pxe]/ipxe_enabled option") {
		t.Errorf("external Validate without ipxe = %v", err)
	}
	if err := ext.Validate(ctx, newTask(ext, true)); err != nil {
		t.Errorf("external Validate with ipxe = %v", err)
	}
}

func TestPopulateAndTearDown(t *testing.T) {
	ctx := context.Background()
	task := newTask(generic.NoopStorage{}, true)
	if err := storage.PopulateInternalInfo(ctx, task); err != nil {
		t.Fatal(err)
	}
	if got := task.Node.DriverInternalInfo.Get("boot_from_volume"); got != "t0" {
		t.Errorf("boot_from_volume = %v", got)
	}
	task.Node.Properties.Set("capabilities", "")
	err := storage.PopulateInternalInfo(ctx, task)
	if err == nil || err.Error() != "Node "+nodeUUID+" has an iSCSI boot volume defined and no iSCSI boot support available." {
		t.Errorf("PopulateInternalInfo without iscsi_boot = %v", err)
	}
	if err := storage.TearDownConfiguration(ctx, task, nil); err != nil {
		t.Fatal(err)
	}
	if len(task.Vols.TargetList) != 0 || !slices.Equal(task.Vols.DestroyedUUIDs, []string{"t0"}) {
		t.Errorf("targets after tear down: %v (destroyed %v)", task.Vols.TargetList, task.Vols.DestroyedUUIDs)
	}
	if _, ok := task.Node.DriverInternalInfo.Lookup("boot_from_volume"); ok {
		t.Error("boot_from_volume kept")
	}
}

func TestDeployPrepareAndTearDown(t *testing.T) {
	ctx := context.Background()
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": vol1}}})
	cs := cinderFor(t, fc)
	task := newTask(cs, true)
	task.Node.ProvisionState = "deploying"
	write, err := storage.DeployPrepare(ctx, task)
	if err != nil || write {
		t.Fatalf("DeployPrepare = %v, %v; want false (boot from volume)", write, err)
	}
	if task.Node.DriverInternalInfo.Get("boot_from_volume") != "t0" {
		t.Errorf("driver_internal_info = %v", task.Node.DriverInternalInfo)
	}
	if task.Vols.TargetList[0].Properties.Get("target_iqn") == nil || fc.Volume(vol1)["status"] != "in-use" {
		t.Errorf("not attached: properties %v, status %v", task.Vols.TargetList[0].Properties, fc.Volume(vol1)["status"])
	}
	task.Node.ProvisionState = "deleting"
	if err := storage.DeployTearDown(ctx, task, nil); err != nil {
		t.Fatal(err)
	}
	if fc.Volume(vol1)["status"] != "available" || len(task.Vols.TargetList) != 0 {
		t.Errorf("after tear down: status %v, targets %v", fc.Volume(vol1)["status"], task.Vols.TargetList)
	}
	if _, ok := task.Node.DriverInternalInfo.Lookup("boot_from_volume"); ok {
		t.Error("boot_from_volume kept")
	}
}
