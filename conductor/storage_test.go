package conductor_test

import (
	"context"
	"testing"
	"time"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/drivers/storage/cinderclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/fakecinder"
)

const bootVolume = "0f0b3d4e-5c59-4b0a-8d5e-000000000001"

// withCinder enables the cinder storage interface for fake-hardware,
// talking to fc.
func withCinder(fc *fakecinder.TestServer) harnessOpt {
	client := cinderclient.New(cinderclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: fc.URL + "/v3"}}, nil)
	impls := storage.Implementations(storage.Config{ActionRetries: 1, ActionRetryInterval: time.Millisecond},
		storage.Deps{Cinder: client, Sleep: func(context.Context, time.Duration) error { return nil }})
	return func(c *harnessCfg) {
		c.drivers = fakeHardwareOnly()
		c.drivers.Enabled["storage"] = []string{"noop", "cinder", "external"}
		c.added = append(c.added, impls...)
	}
}

// bfvNode is an active fake-hardware node with the cinder storage
// interface, an iqn connector and an iSCSI boot volume.
func bfvNode(t *testing.T, h *harness, store *db.Store, provisionState states.Provision) (*models.Node, *models.VolumeTarget) {
	t.Helper()
	ctx := context.Background()
	n := h.node(t, "fake-hardware", db.Values{
		"storage_interface": "cinder", "provision_state": provisionState, "power_state": states.PowerOff,
		"properties": models.JSONDict{"capabilities": "iscsi_boot:True"},
	})
	if _, err := store.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &n.ID, Type: models.Ptr("iqn"),
		ConnectorID: models.Ptr("iqn.2017-08.org.openstack." + n.UUID)}); err != nil {
		t.Fatal(err)
	}
	vt, err := store.CreateVolumeTarget(ctx, &models.VolumeTarget{NodeID: &n.ID, VolumeType: models.Ptr("iscsi"),
		BootIndex: models.Ptr(int64(0)), VolumeID: models.Ptr(bootVolume)})
	if err != nil {
		t.Fatal(err)
	}
	return n, vt
}

// TestPowerOnAttachesActiveNodeVolumes: power on of an active node
// attaches its volumes and stores Cinder's connection data as the
// target's properties; power off detaches them (node_power_action).
func TestPowerOnAttachesActiveNodeVolumes(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": bootVolume}}})
		h := newHarness(t, store, withCinder(fc))
		n, vt := bfvNode(t, h, store, states.Active)

		if err := h.m.ChangeNodePowerState(ctx, "", n.UUID, states.PowerOn, 0); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.reload(t, n); models.Deref(got.PowerState) != states.PowerOn || got.LastError != nil {
			t.Fatalf("power %v, last_error %v", models.Deref(got.PowerState), models.Deref(got.LastError))
		}
		if got := fc.Volume(bootVolume)["status"]; got != "in-use" {
			t.Errorf("volume status after power on = %v", got)
		}
		saved, err := store.GetVolumeTarget(ctx, db.ByID(vt.ID))
		if err != nil {
			t.Fatal(err)
		}
		p := saved.Properties
		if p["target_iqn"] != "iqn.2010-10.org.openstack:volume-"+bootVolume || p["target_portal"] != "192.0.2.10:3260" ||
			p["auth_method"] != "CHAP" || p["ironic_volume_uuid"] != bootVolume {
			t.Errorf("target properties = %v", p)
		}

		if err := h.m.ChangeNodePowerState(ctx, "", n.UUID, states.PowerOff, 0); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := fc.Volume(bootVolume)["status"]; got != "available" {
			t.Errorf("volume status after power off = %v", got)
		}
	})
}

// TestPowerOnOfInactiveNodeLeavesVolumes: only active nodes attach.
func TestPowerOnOfInactiveNodeLeavesVolumes(t *testing.T) {
	ctx := context.Background()
	store := dbtest.SQLite(t)
	fc := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": bootVolume}}})
	h := newHarness(t, store, withCinder(fc))
	n, _ := bfvNode(t, h, store, states.Manageable)
	if err := h.m.ChangeNodePowerState(ctx, "", n.UUID, states.PowerOn, 0); err != nil {
		t.Fatal(err)
	}
	h.m.Wait()
	if len(fc.Requests()) != 0 {
		t.Errorf("Cinder called for a manageable node: %v", fc.Actions())
	}
}

// TestPowerOnAttachFailure: a failed attach fails the power action, as
// Ironic records it.
func TestPowerOnAttachFailure(t *testing.T) {
	ctx := context.Background()
	store := dbtest.SQLite(t)
	fc := fakecinder.ForTest(t) // the volume doesn't exist
	h := newHarness(t, store, withCinder(fc))
	n, _ := bfvNode(t, h, store, states.Active)
	if err := h.m.ChangeNodePowerState(ctx, "", n.UUID, states.PowerOn, 0); err != nil {
		t.Fatal(err)
	}
	h.m.Wait()
	got := h.reload(t, n)
	if models.Deref(got.PowerState) != states.PowerOff || got.TargetPowerState != nil {
		t.Errorf("power %v target %v", models.Deref(got.PowerState), got.TargetPowerState)
	}
	want := "Failed to change power state to 'power on' by 'power on': Failed to get volume " + bootVolume +
		" from cinder for node " + n.UUID + ": Volume " + bootVolume + " could not be found. (HTTP 404) (Request-ID: req-"
	if le := models.Deref(got.LastError); len(le) < len(want) || le[:len(want)] != want {
		t.Errorf("last_error = %q\nwant prefix %q", le, want)
	}
}

// TestNodeValidateStorage: node validation reports the cinder
// interface's findings.
func TestNodeValidateStorage(t *testing.T) {
	ctx := context.Background()
	store := dbtest.SQLite(t)
	fc := fakecinder.ForTest(t)
	h := newHarness(t, store, withCinder(fc))
	n, _ := bfvNode(t, h, store, states.Available)
	res, err := h.m.ValidateDriverInterfaces(ctx, "", n.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if r := res["storage"]; !r.Result {
		t.Errorf("storage validation = %+v", r)
	}
	if _, err := store.UpdateNode(ctx, db.ByID(n.ID), db.Values{"properties": models.JSONDict{}}); err != nil {
		t.Fatal(err)
	}
	res, err = h.m.ValidateDriverInterfaces(ctx, "", n.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if r := res["storage"]; r.Result || r.Reason == "" {
		t.Errorf("storage validation without iscsi_boot = %+v", r)
	}
}
