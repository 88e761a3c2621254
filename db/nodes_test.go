package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

var ctx = context.Background()

func nodeNames(ns []models.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = models.Deref(n.Name)
	}
	return out
}

func TestCreateAndGetNode(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		in := &models.Node{
			Driver:         "fake-hardware",
			Name:           models.Ptr("node-1"),
			Properties:     models.JSONDict{"cpus": json.Number("4"), "memory_mb": json.Number("8192"), "nested": map[string]any{"a": []any{"x", true, nil}}},
			DriverInfo:     models.JSONDict{"ipmi_password": "sécret"},
			Owner:          models.Ptr("proj-a"),
			Maintenance:    true,
			AutomatedClean: models.Ptr(false),
		}
		n := must[*models.Node](t)(e.CreateNode(ctx, in))
		if n.ID == 0 || n.UUID != "00000000-0000-4000-8000-000000000001" {
			t.Fatalf("id/uuid not assigned: %d %q", n.ID, n.UUID)
		}
		if got := models.Deref(n.ProvisionState); got != "enroll" {
			t.Errorf("provision_state = %q, want enroll", got)
		}
		if n.Version != models.NodeVersion || n.PowerState != nil || n.Retired == nil || *n.Retired {
			t.Errorf("defaults wrong: version=%q power=%v retired=%v", n.Version, n.PowerState, n.Retired)
		}
		if n.UpdatedAt.Valid() || !n.CreatedAt.Valid() {
			t.Errorf("timestamps: created %v updated %v", n.CreatedAt, n.UpdatedAt)
		}
		if in.UUID != "" {
			t.Errorf("CreateNode modified its argument")
		}
		for name, get := range map[string]func() (*models.Node, error){
			"id":   func() (*models.Node, error) { return e.GetNodeByID(ctx, n.ID) },
			"uuid": func() (*models.Node, error) { return e.GetNodeByUUID(ctx, n.UUID) },
			"name": func() (*models.Node, error) { return e.GetNodeByName(ctx, "node-1") },
			"ref":  func() (*models.Node, error) { return e.GetNodeRef(ctx, db.ByUUID(n.UUID)) },
			"node": func() (*models.Node, error) { return e.GetNode(ctx, "node-1") },
		} {
			got, err := get()
			ok(t, err)
			if d := cmp.Diff(n, got); d != "" {
				t.Errorf("get by %s differs from create (-create +get):\n%s", name, d)
			}
		}
		_, err := e.GetNodeByID(ctx, 999)
		wantFault(t, err, ironic.NodeNotFound, "Node 999 could not be found.")
		_, err = e.GetNodeByName(ctx, "nope")
		wantFault(t, err, ironic.NodeNotFound, "Node nope could not be found.")
		_, err = e.GetNodeByInstance(ctx, "not-a-uuid")
		wantFault(t, err, ironic.InvalidUUID, "Expected a UUID but received not-a-uuid.")
		_, err = e.GetNodeByInstance(ctx, "11111111-1111-1111-1111-111111111111")
		wantFault(t, err, ironic.InstanceNotFound, "Instance 11111111-1111-1111-1111-111111111111 could not be found.")

		// Uniqueness.
		_, err = e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("node-1")})
		wantFault(t, err, ironic.DuplicateName, "A node with name node-1 already exists.")
		_, err = e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", UUID: n.UUID})
		wantFault(t, err, ironic.NodeAlreadyExists, "A node with UUID "+n.UUID+" already exists.")
		inst := "22222222-2222-2222-2222-222222222222"
		n2 := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", InstanceUUID: &inst}))
		_, err = e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", UUID: "33333333-3333-3333-3333-333333333333", InstanceUUID: &inst})
		wantFault(t, err, ironic.InstanceAssociated, "Instance "+inst+" is already associated with a node, it cannot be associated with this other node 33333333-3333-3333-3333-333333333333")
		got := must[*models.Node](t)(e.GetNodeByInstance(ctx, inst))
		if got.ID != n2.ID {
			t.Errorf("by instance got node %d, want %d", got.ID, n2.ID)
		}
		_, err = e.CreateNode(ctx, &models.Node{Driver: "x", Traits: []models.NodeTrait{{Trait: "CUSTOM_X"}}})
		wantFault(t, err, ironic.InvalidParameterValue, "Cannot create node with traits.")
	})
}

func TestUpdateNode(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("a")}))
		must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("b"), InstanceUUID: models.Ptr("44444444-4444-4444-4444-444444444444")}))
		must[[]models.NodeTrait](t)(e.SetNodeTraits(ctx, n.ID, []string{"CUSTOM_A"}))
		// What UpdateNode returns is the row as a read finds it.
		asRead := func(u *models.Node) {
			t.Helper()
			if d := cmp.Diff(must[*models.Node](t)(e.GetNodeByID(ctx, n.ID)), u); d != "" {
				t.Errorf("UpdateNode's node differs from a read (-read +returned):\n%s", d)
			}
		}
		e.clock.Advance(2 * time.Second)
		u := must[*models.Node](t)(e.UpdateNode(ctx, db.ByUUID(n.UUID), db.Values{
			"extra": map[string]any{"k": "v", "n": json.Number("1.50")}, "maintenance": true, "maintenance_reason": "because",
			"power_state": "power off", "resource_class": models.Ptr("gold"), "chassis_id": nil,
			"properties": models.JSONDict{"cpus": 4},
		}))
		asRead(u)
		if !u.Maintenance || models.Deref(u.MaintenanceReason) != "because" || u.Extra["k"] != "v" ||
			models.Deref(u.PowerState) != "power off" || models.Deref(u.ResourceClass) != "gold" {
			t.Errorf("update not applied: %+v", u)
		}
		if !u.UpdatedAt.Valid() || u.UpdatedAt.Equal(n.CreatedAt.Time) {
			t.Errorf("updated_at not set: %v", u.UpdatedAt)
		}
		if u.ProvisionUpdatedAt.Valid() {
			t.Errorf("provision_updated_at set without a provision_state change")
		}
		// A no-op update writes nothing, not even updated_at.
		e.clock.Advance(2 * time.Second)
		u2 := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"maintenance": true, "name": "a"}))
		if !u2.UpdatedAt.Equal(u.UpdatedAt.Time) {
			t.Errorf("no-op update changed updated_at: %v -> %v", u.UpdatedAt, u2.UpdatedAt)
		}
		// provision_state changes stamp provision_updated_at and the
		// inspection timestamps.
		u3 := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": "inspecting"}))
		asRead(u3)
		if !u3.ProvisionUpdatedAt.Valid() || !u3.InspectionStartedAt.Valid() || u3.InspectionFinishedAt.Valid() {
			t.Errorf("inspecting: pua=%v started=%v finished=%v", u3.ProvisionUpdatedAt, u3.InspectionStartedAt, u3.InspectionFinishedAt)
		}
		e.clock.Advance(time.Minute)
		u4 := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": "manageable", "reservation": nil,
			"secure_boot": true, "automated_clean": nil, "inspection_started_at": nil}))
		asRead(u4)
		if u4.InspectionStartedAt.Valid() || !u4.InspectionFinishedAt.Valid() || !u4.ProvisionUpdatedAt.After(u3.ProvisionUpdatedAt.Time) {
			t.Errorf("manageable: pua=%v started=%v finished=%v", u4.ProvisionUpdatedAt, u4.InspectionStartedAt, u4.InspectionFinishedAt)
		}
		must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": "inspect wait"}))
		u5 := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"provision_state": "inspect failed"}))
		asRead(u5)
		if u5.InspectionStartedAt.Valid() || !u5.InspectionFinishedAt.Valid() {
			t.Errorf("inspect failed: started=%v finished=%v", u5.InspectionStartedAt, u5.InspectionFinishedAt)
		}
		// Errors.
		_, err := e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"uuid": "x"})
		wantFault(t, err, ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Node.")
		_, err = e.UpdateNode(ctx, db.ByUUID("55555555-5555-5555-5555-555555555555"), db.Values{"name": "z"})
		wantFault(t, err, ironic.NodeNotFound, "Node 55555555-5555-5555-5555-555555555555 could not be found.")
		_, err = e.UpdateNode(ctx, db.ByUUID(n.UUID), db.Values{"name": "b"})
		wantFault(t, err, ironic.DuplicateName, "A node with name b already exists.")
		_, err = e.UpdateNode(ctx, db.ByUUID(n.UUID), db.Values{"instance_uuid": "44444444-4444-4444-4444-444444444444"})
		wantFault(t, err, ironic.InstanceAssociated, "Instance 44444444-4444-4444-4444-444444444444 is already associated with a node, it cannot be associated with this other node "+n.UUID)
		if _, err = e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"no_such_column": 1}); err == nil {
			t.Errorf("unknown column accepted")
		}
		// The failed updates changed nothing.
		got := must[*models.Node](t)(e.GetNodeByID(ctx, n.ID))
		if models.Deref(got.Name) != "a" || got.InstanceUUID != nil {
			t.Errorf("failed update leaked: %+v", got)
		}
	})
}

func TestReserveRelease(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware"}))
		e.clock.Advance(time.Second)
		r := must[*models.Node](t)(e.ReserveNode(ctx, "host1", db.ByID(n.ID)))
		if models.Deref(r.Reservation) != "host1" || !r.UpdatedAt.Valid() {
			t.Fatalf("reserve: reservation=%v updated_at=%v", r.Reservation, r.UpdatedAt)
		}
		_, err := e.ReserveNode(ctx, "host2", db.ByUUID(n.UUID))
		wantFault(t, err, ironic.NodeLocked, "Node "+n.UUID+" is locked by host host1, please retry after the current operation is completed.")
		err = e.ReleaseNode(ctx, "host2", db.ByID(n.ID))
		wantFault(t, err, ironic.NodeLocked, "Node "+n.UUID+" is locked by host host1, please retry after the current operation is completed.")
		ok(t, e.ReleaseNode(ctx, "host1", db.ByID(n.ID)))
		err = e.ReleaseNode(ctx, "host1", db.ByID(n.ID))
		wantFault(t, err, ironic.NodeNotLocked, "Node "+n.UUID+" found not to be locked on release")
		_, err = e.ReserveNode(ctx, "h", db.ByID(12345))
		wantFault(t, err, ironic.NodeNotFound, "Node 12345 could not be found.")
		err = e.ReleaseNode(ctx, "h", db.ByID(12345))
		wantFault(t, err, ironic.NodeNotFound, "Node 12345 could not be found.")

		// Concurrent reservations: exactly one wins.
		const workers = 8
		errs := make(chan error, workers)
		for i := range workers {
			go func() {
				_, err := e.ReserveNode(ctx, fmt.Sprintf("c%d", i), db.ByID(n.ID))
				errs <- err
			}()
		}
		wins := 0
		for range workers {
			if err := <-errs; err == nil {
				wins++
			} else if !ironic.IsClass(err, ironic.NodeLocked) {
				t.Errorf("unexpected error: %v", err)
			}
		}
		if wins != 1 {
			t.Errorf("%d reservations won, want 1", wins)
		}

		// Conductor restart clean-up.
		ok(t, e.ClearNodeTargetPowerState(ctx, "nobody"))
		n2 := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware"}))
		must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n2.ID), db.Values{"reservation": "Host9", "target_power_state": "power on"}))
		ok(t, e.ClearNodeTargetPowerState(ctx, "host9"))
		got := must[*models.Node](t)(e.GetNodeByID(ctx, n2.ID))
		if got.TargetPowerState != nil || models.Deref(got.LastError) != "Pending power operation was aborted due to conductor restart" {
			t.Errorf("target power state not cleared: %+v", got)
		}
		ok(t, e.ClearNodeReservationsForConductor(ctx, "HOST9"))
		got = must[*models.Node](t)(e.GetNodeByID(ctx, n2.ID))
		if got.Reservation != nil {
			t.Errorf("reservation not cleared: %v", *got.Reservation)
		}
	})
}

func TestTraits(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware"}))
		other := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware"}))
		ts := must[[]models.NodeTrait](t)(e.SetNodeTraits(ctx, n.ID, []string{"CUSTOM_B", "CUSTOM_A", "CUSTOM_B"}))
		if len(ts) != 2 || ts[0].Trait != "CUSTOM_A" || ts[0].Version != models.NodeTraitVersion {
			t.Fatalf("SetNodeTraits = %+v", ts)
		}
		must[*models.NodeTrait](t)(e.AddNodeTrait(ctx, n.ID, "CUSTOM_C"))
		must[*models.NodeTrait](t)(e.AddNodeTrait(ctx, n.ID, "CUSTOM_C")) // duplicates are ignored
		must[*models.NodeTrait](t)(e.AddNodeTrait(ctx, other.ID, "CUSTOM_Z"))
		got := must[*models.Node](t)(e.GetNodeByID(ctx, n.ID))
		if d := cmp.Diff([]string{"CUSTOM_A", "CUSTOM_B", "CUSTOM_C"}, got.TraitNames()); d != "" {
			t.Errorf("traits (-want +got):\n%s", d)
		}
		if ex := must[bool](t)(e.NodeTraitExists(ctx, n.ID, "CUSTOM_C")); !ex {
			t.Errorf("CUSTOM_C should exist")
		}
		if ex := must[bool](t)(e.NodeTraitExists(ctx, n.ID, "CUSTOM_Z")); ex {
			t.Errorf("CUSTOM_Z should not exist on n")
		}
		ok(t, e.DeleteNodeTrait(ctx, n.ID, "CUSTOM_A"))
		err := e.DeleteNodeTrait(ctx, n.ID, "CUSTOM_A")
		wantFault(t, err, ironic.NodeTraitNotFound, fmt.Sprintf("Node %d doesn't have a trait 'CUSTOM_A'", n.ID))
		_, err = e.GetNodeTraits(ctx, 999)
		wantFault(t, err, ironic.NodeNotFound, "Node 999 could not be found.")
		_, err = e.SetNodeTraits(ctx, 999, []string{"X"})
		wantFault(t, err, ironic.NodeNotFound, "Node 999 could not be found.")
		many := make([]string, 51)
		for i := range many {
			many[i] = fmt.Sprintf("CUSTOM_%02d", i)
		}
		_, err = e.SetNodeTraits(ctx, n.ID, many)
		wantFault(t, err, ironic.InvalidParameterValue,
			fmt.Sprintf("Could not modify traits for node %d as it would exceed the maximum number of traits per node (51 vs. 50)", n.ID))
		must[[]models.NodeTrait](t)(e.SetNodeTraits(ctx, n.ID, many[:50]))
		_, err = e.AddNodeTrait(ctx, n.ID, "CUSTOM_ONE_MORE")
		wantFault(t, err, ironic.InvalidParameterValue, "")
		if ex := must[bool](t)(e.NodeTraitExists(ctx, n.ID, "CUSTOM_ONE_MORE")); ex {
			t.Errorf("the 51st trait was kept")
		}
		ok(t, e.UnsetNodeTraits(ctx, n.ID))
		list := must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{}))
		for _, ln := range list {
			want := []string{}
			if ln.ID == other.ID {
				want = []string{"CUSTOM_Z"}
			}
			if d := cmp.Diff(want, ln.TraitNames()); d != "" {
				t.Errorf("node %d traits in list (-want +got):\n%s", ln.ID, d)
			}
		}
	})
}

func TestDestroyNodeCascade(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("doomed")}))
		keep := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("kept")}))
		for _, nd := range []*models.Node{n, keep} {
			pg := must[*models.Portgroup](t)(e.CreatePortgroup(ctx, &models.Portgroup{NodeID: &nd.ID}))
			must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &nd.ID, PortgroupID: &pg.ID, Address: models.Ptr(fmt.Sprintf("52:54:00:00:00:%02x", nd.ID))}))
			must[[]models.NodeTrait](t)(e.SetNodeTraits(ctx, nd.ID, []string{"CUSTOM_T"}))
			must[[]models.BIOSSetting](t)(e.CreateBIOSSettings(ctx, nd.ID, []models.BIOSSetting{{Name: "ProcVirtualization", Value: models.Ptr("Enabled")}}))
			must[*models.VolumeConnector](t)(e.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &nd.ID, Type: models.Ptr("iqn"), ConnectorID: models.Ptr(fmt.Sprintf("iqn.%d", nd.ID))}))
			must[*models.VolumeTarget](t)(e.CreateVolumeTarget(ctx, &models.VolumeTarget{NodeID: &nd.ID, VolumeType: models.Ptr("iscsi"), BootIndex: models.Ptr(int64(0)), VolumeID: models.Ptr("v")}))
			a := must[*models.Allocation](t)(e.CreateAllocation(ctx, &models.Allocation{ResourceClass: models.Ptr("gold")}))
			must[*models.Allocation](t)(e.UpdateAllocation(ctx, db.ByID(a.ID), db.Values{"node_id": nd.ID, "state": "active"}, true))
			must[*models.NodeHistory](t)(e.CreateNodeHistory(ctx, &models.NodeHistory{NodeID: &nd.ID, Event: models.Ptr("something")}))
			must[*models.NodeInventory](t)(e.CreateNodeInventory(ctx, &models.NodeInventory{NodeID: &nd.ID, InventoryData: models.JSONDict{"cpu": "x"}}))
		}
		ok(t, e.DestroyNode(ctx, db.ByUUID(n.UUID)))
		_, err := e.GetNodeByID(ctx, n.ID)
		wantFault(t, err, ironic.NodeNotFound, "")
		if ps := must[[]models.Port](t)(e.ListPorts(ctx, db.PortFilter{}, db.ListOpts{})); len(ps) != 1 || *ps[0].NodeID != keep.ID {
			t.Errorf("ports after destroy: %+v", ps)
		}
		if pgs := must[[]models.Portgroup](t)(e.ListPortgroups(ctx, db.PortgroupFilter{}, db.ListOpts{})); len(pgs) != 1 {
			t.Errorf("portgroups after destroy: %d", len(pgs))
		}
		if as := must[[]models.Allocation](t)(e.ListAllocations(ctx, db.AllocationFilter{}, db.ListOpts{})); len(as) != 1 {
			t.Errorf("allocations after destroy: %d", len(as))
		}
		if vc := must[[]models.VolumeConnector](t)(e.ListVolumeConnectors(ctx, db.VolumeFilter{}, db.ListOpts{})); len(vc) != 1 {
			t.Errorf("connectors after destroy: %d", len(vc))
		}
		if vt := must[[]models.VolumeTarget](t)(e.ListVolumeTargets(ctx, db.VolumeFilter{}, db.ListOpts{})); len(vt) != 1 {
			t.Errorf("targets after destroy: %d", len(vt))
		}
		if h := must[[]models.NodeHistory](t)(e.ListNodeHistory(ctx, db.ListOpts{})); len(h) != 1 {
			t.Errorf("history after destroy: %d", len(h))
		}
		_, err = e.GetNodeInventoryByNodeID(ctx, n.ID)
		wantFault(t, err, ironic.NodeInventoryNotFound, fmt.Sprintf("Node inventory record for node %d could not be found.", n.ID))
		must[*models.NodeInventory](t)(e.GetNodeInventoryByNodeID(ctx, keep.ID))
		if bs := must[[]models.BIOSSetting](t)(e.ListBIOSSettings(ctx, keep.ID)); len(bs) != 1 {
			t.Errorf("kept node's BIOS settings: %d", len(bs))
		}
		err = e.DestroyNode(ctx, db.ByUUID(n.UUID))
		wantFault(t, err, ironic.NodeNotFound, "Node "+n.UUID+" could not be found.")
	})
}

func TestListNodesFilters(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		ch := must[*models.Chassis](t)(e.CreateChassis(ctx, &models.Chassis{}))
		mk := func(name string, f func(n *models.Node)) *models.Node {
			n := &models.Node{Driver: "fake-hardware", Name: models.Ptr(name)}
			if f != nil {
				f(n)
			}
			return must[*models.Node](t)(e.CreateNode(ctx, n))
		}
		a := mk("a", func(n *models.Node) {
			n.InstanceUUID = models.Ptr("66666666-6666-6666-6666-666666666666")
			n.Maintenance = true
			n.Owner = models.Ptr("p1")
			n.Description = models.Ptr("rack 12 in room 5")
			n.Shard = models.Ptr("s1")
			n.ChassisID = &ch.ID
			n.ResourceClass = models.Ptr("gold")
			n.ConductorGroup = "g1"
		})
		b := mk("b", func(n *models.Node) {
			n.Driver = "ipmi"
			n.Lessee = models.Ptr("p1")
			n.Reservation = models.Ptr("c1")
			n.PowerState = models.Ptr(states.PowerOn)
			n.ProvisionState = models.Ptr(states.Active)
			n.Retired = models.Ptr(true)
			n.Fault = models.Ptr(states.PowerFailure)
			n.Shard = models.Ptr("s2")
			n.ConsoleEnabled = true
		})
		c := mk("c", func(n *models.Node) { n.Owner = models.Ptr("p2"); n.ProvisionState = models.Ptr(states.Available) })
		e.clock.Advance(time.Hour)
		must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(c.ID), db.Values{"provision_state": "deploying"}))
		e.clock.Advance(time.Hour)
		tr, fa := true, false
		s := func(v string) *string { return &v }
		hour := 30 * time.Minute
		cases := []struct {
			name string
			f    db.NodeFilter
			want []string
		}{
			{"none", db.NodeFilter{}, []string{"a", "b", "c"}},
			{"associated", db.NodeFilter{Associated: &tr}, []string{"a"}},
			{"unassociated", db.NodeFilter{Associated: &fa}, []string{"b", "c"}},
			{"reserved", db.NodeFilter{Reserved: &tr}, []string{"b"}},
			{"with power state", db.NodeFilter{WithPowerState: &tr}, []string{"b"}},
			{"sharded", db.NodeFilter{Sharded: &tr}, []string{"a", "b"}},
			{"unsharded", db.NodeFilter{Sharded: &fa}, []string{"c"}},
			{"maintenance", db.NodeFilter{Maintenance: &tr}, []string{"a"}},
			{"not maintenance", db.NodeFilter{Maintenance: &fa}, []string{"b", "c"}},
			{"retired", db.NodeFilter{Retired: &tr}, []string{"b"}},
			{"console", db.NodeFilter{ConsoleEnabled: &tr}, []string{"b"}},
			{"driver", db.NodeFilter{Driver: s("ipmi")}, []string{"b"}},
			{"resource class", db.NodeFilter{ResourceClass: s("gold")}, []string{"a"}},
			{"provision state", db.NodeFilter{ProvisionState: models.Ptr(states.Active)}, []string{"b"}},
			{"provision states", db.NodeFilter{ProvisionStateIn: []states.Provision{states.Enroll, states.Deploying}}, []string{"a", "c"}},
			{"empty in", db.NodeFilter{ProvisionStateIn: []states.Provision{}}, []string{}},
			{"uuid", db.NodeFilter{UUID: &b.UUID}, []string{"b"}},
			{"uuids", db.NodeFilter{UUIDIn: []string{a.UUID, c.UUID}}, []string{"a", "c"}},
			{"id", db.NodeFilter{ID: &c.ID}, []string{"c"}},
			{"fault", db.NodeFilter{Fault: models.Ptr(states.PowerFailure)}, []string{"b"}},
			{"conductor group", db.NodeFilter{ConductorGroup: s("g1")}, []string{"a"}},
			{"default group", db.NodeFilter{ConductorGroup: s("")}, []string{"b", "c"}},
			{"owner", db.NodeFilter{Owner: s("p1")}, []string{"a"}},
			{"lessee", db.NodeFilter{Lessee: s("p1")}, []string{"b"}},
			{"project", db.NodeFilter{Project: s("p1")}, []string{"a", "b"}},
			{"instance", db.NodeFilter{InstanceUUID: a.InstanceUUID}, []string{"a"}},
			{"shards", db.NodeFilter{ShardIn: []string{"s2", "s9"}}, []string{"b"}},
			{"chassis uuid", db.NodeFilter{ChassisUUID: &ch.UUID}, []string{"a"}},
			{"chassis id", db.NodeFilter{ChassisID: &ch.ID}, []string{"a"}},
			{"reserved by", db.NodeFilter{ReservedByAnyOf: []string{"c1", "c2"}}, []string{"b"}},
			{"provisioned before", db.NodeFilter{ProvisionedBefore: &hour}, []string{"c"}},
			{"description", db.NodeFilter{DescriptionContains: s("room 5")}, []string{"a"}},
			{"combined", db.NodeFilter{Project: s("p1"), Maintenance: &fa}, []string{"b"}},
		}
		for _, tc := range cases {
			got := must[[]models.Node](t)(e.ListNodes(ctx, tc.f, db.ListOpts{}))
			if d := cmp.Diff(tc.want, nodeNames(got)); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, d)
			}
		}
		_, err := e.ListNodes(ctx, db.NodeFilter{ChassisUUID: s("77777777-7777-7777-7777-777777777777")}, db.ListOpts{})
		wantFault(t, err, ironic.ChassisNotFound, "Chassis 77777777-7777-7777-7777-777777777777 could not be found.")

		n, err := e.CountNodesInProvisionState(ctx, "enroll", "active")
		ok(t, err)
		if n != 2 {
			t.Errorf("count = %d, want 2", n)
		}
		cols := must[[]models.Node](t)(e.ListNodeColumns(ctx, []string{"uuid", "driver", "traits"}, db.NodeFilter{Driver: s("ipmi")}, db.ListOpts{}))
		if len(cols) != 1 || cols[0].UUID != b.UUID || cols[0].ID != b.ID || cols[0].Driver != "ipmi" || cols[0].Name != nil || cols[0].Traits == nil {
			t.Errorf("ListNodeColumns = %+v", cols)
		}
		if _, err := e.ListNodeColumns(ctx, []string{"bogus"}, db.NodeFilter{}, db.ListOpts{}); err == nil {
			t.Errorf("bogus column accepted")
		}
		shards := must[[]models.Shard](t)(e.ListShards(ctx))
		if d := cmp.Diff([]models.Shard{{Name: "None", Count: 1}, {Name: "s1", Count: 1}, {Name: "s2", Count: 1}}, shards); d != "" {
			t.Errorf("shards (-want +got):\n%s", d)
		}
		mk("d", func(n *models.Node) { n.Shard = models.Ptr("s2") })
		shards = must[[]models.Shard](t)(e.ListShards(ctx))
		if d := cmp.Diff([]models.Shard{{Name: "s2", Count: 2}, {Name: "None", Count: 1}, {Name: "s1", Count: 1}}, shards); d != "" {
			t.Errorf("shards (-want +got):\n%s", d)
		}

		m := must[map[string]string](t)(e.CheckNodeList(ctx, []string{"a", b.UUID}, ""))
		if d := cmp.Diff(map[string]string{"a": a.UUID, b.UUID: b.UUID}, m); d != "" {
			t.Errorf("CheckNodeList (-want +got):\n%s", d)
		}
		_, err = e.CheckNodeList(ctx, []string{"a", "b"}, "p2")
		wantFault(t, err, ironic.NodeNotFound, "Nodes cannot be found: a, b")
		_, err = e.CheckNodeList(ctx, []string{"bad name!"}, "")
		wantFault(t, err, ironic.NodeNotFound, "Nodes cannot be found: bad name!")

		must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &a.ID, Address: models.Ptr("52:54:00:aa:aa:01")}))
		must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &b.ID, Address: models.Ptr("52:54:00:bb:bb:01")}))
		got := must[*models.Node](t)(e.GetNodeByPortAddresses(ctx, []string{"52:54:00:aa:aa:01", "ff:ff:ff:ff:ff:ff"}))
		if got.ID != a.ID {
			t.Errorf("by port addresses got %d", got.ID)
		}
		_, err = e.GetNodeByPortAddresses(ctx, []string{"ff:ff:ff:ff:ff:ff"})
		wantFault(t, err, ironic.NodeNotFound, "Node with port addresses ['ff:ff:ff:ff:ff:ff'] was not found")
		_, err = e.GetNodeByPortAddresses(ctx, []string{"52:54:00:aa:aa:01", "52:54:00:bb:bb:01"})
		wantFault(t, err, ironic.NodeNotFound, "Multiple nodes with port addresses ['52:54:00:aa:aa:01', '52:54:00:bb:bb:01'] were found")

		before := must[*models.Node](t)(e.GetNodeByID(ctx, a.ID))
		e.clock.Advance(time.Second)
		ok(t, e.TouchNodeProvisioning(ctx, db.ByID(a.ID)))
		after := must[*models.Node](t)(e.GetNodeByID(ctx, a.ID))
		if !after.ProvisionUpdatedAt.After(before.ProvisionUpdatedAt.Time) {
			t.Errorf("touch did not move provision_updated_at")
		}
		wantFault(t, e.TouchNodeProvisioning(ctx, db.ByID(999)), ironic.NodeNotFound, "Node 999 could not be found.")
	})
}

// TestPagination checks limit/marker/sort_key/sort_dir against a sort done
// here, for several keys (nullable, boolean, timestamps) and page sizes.
func TestPagination(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		var all []models.Node
		for i := range 23 {
			n := &models.Node{Driver: []string{"ipmi", "redfish", "fake"}[i%3]}
			if i%4 != 0 {
				n.Name = models.Ptr(fmt.Sprintf("n%02d", (i*7)%23))
			}
			n.Maintenance = i%2 == 0
			if i%5 == 0 {
				n.Owner = models.Ptr("o")
			}
			all = append(all, *must[*models.Node](t)(e.CreateNode(ctx, n)))
			if i%3 == 0 {
				e.clock.Advance(time.Second)
			}
		}
		key := func(n models.Node, k string) (bool, string) { // (is null, value)
			switch k {
			case "driver":
				return false, n.Driver
			case "name":
				return n.Name == nil, models.Deref(n.Name)
			case "owner":
				return n.Owner == nil, models.Deref(n.Owner)
			case "maintenance":
				return false, fmt.Sprint(n.Maintenance)
			case "created_at":
				return false, n.CreatedAt.Format(models.TimeLayout)
			}
			return false, fmt.Sprintf("%09d", n.ID)
		}
		for _, sk := range []string{"", "id", "driver", "name", "owner", "maintenance", "created_at"} {
			for _, dir := range []string{"asc", "desc"} {
				want := slices.Clone(all)
				slices.SortStableFunc(want, func(a, b models.Node) int {
					an, av := key(a, sk)
					bn, bv := key(b, sk)
					c := 0
					switch {
					case an && !bn:
						c = -1
					case !an && bn:
						c = 1
					default:
						c = strings.Compare(av, bv)
					}
					if c == 0 {
						c = int(a.ID - b.ID)
					}
					if dir == "desc" {
						c = -c
					}
					return c
				})
				for _, limit := range []int{1, 4, 100} {
					var got []int64
					marker := int64(0)
					for pages := 0; pages < 30; pages++ {
						page := must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Limit: limit, Marker: marker, SortKey: sk, SortDir: dir}))
						for _, n := range page {
							got = append(got, n.ID)
						}
						if len(page) < limit {
							break
						}
						marker = page[len(page)-1].ID
					}
					wantIDs := make([]int64, 0, len(want))
					for _, n := range want {
						wantIDs = append(wantIDs, n.ID)
					}
					// oslo.db's marker criteria skip NULL values, so paging by
					// a nullable key only matches a plain sort when the marker
					// rows are not NULL; check the single page always, and
					// every page size for non-nullable keys.
					if (sk == "name" || sk == "owner") && limit < 100 {
						continue
					}
					if d := cmp.Diff(wantIDs, got); d != "" {
						t.Errorf("sort %q %s limit %d (-want +got):\n%s", sk, dir, limit, d)
					}
				}
			}
		}
		// A NULL marker value: oslo.db only keeps the id criterion.
		var nullNamed models.Node
		for _, n := range all {
			if n.Name == nil && n.ID > all[0].ID {
				nullNamed = n
				break
			}
		}
		page := must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Marker: nullNamed.ID, SortKey: "name"}))
		for _, n := range page {
			if n.ID <= nullNamed.ID {
				t.Errorf("NULL marker: got node %d <= marker %d", n.ID, nullNamed.ID)
			}
		}
		if len(page) != int(all[len(all)-1].ID-nullNamed.ID) {
			t.Errorf("NULL marker: got %d rows, want %d", len(page), all[len(all)-1].ID-nullNamed.ID)
		}
		_, err := e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{SortKey: "traits"})
		wantFault(t, err, ironic.InvalidParameterValue, `The sort_key value "traits" is an invalid field for sorting`)
		_, err = e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{SortDir: "up"})
		wantFault(t, err, ironic.InvalidParameterValue, "")
		gone := must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Marker: 99999}))
		if len(gone) != 0 {
			t.Errorf("missing marker gave %d rows", len(gone))
		}
	})
}

// TestConcurrentUse hammers one store from several goroutines, as API
// requests and conductor workers do: no SQLITE_BUSY, no lost updates.
func TestConcurrentUse(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		const workers, rounds = 8, 25
		nodes := make([]*models.Node, workers)
		for i := range nodes {
			nodes[i] = must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Name: models.Ptr(fmt.Sprintf("w%d", i))}))
		}
		errs := make(chan error, workers)
		for w := range workers {
			go func() {
				var err error
				defer func() { errs <- err }()
				for r := range rounds {
					host := fmt.Sprintf("h%d", w)
					if _, err = e.ReserveNode(ctx, host, db.ByID(nodes[w].ID)); err != nil {
						return
					}
					if _, err = e.UpdateNode(ctx, db.ByID(nodes[w].ID), db.Values{"extra": map[string]any{"round": r}}); err != nil {
						return
					}
					if _, err = e.AddNodeTrait(ctx, nodes[w].ID, fmt.Sprintf("CUSTOM_%d", r%5)); err != nil {
						return
					}
					if _, err = e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Limit: 50}); err != nil {
						return
					}
					if err = e.ReleaseNode(ctx, host, db.ByID(nodes[w].ID)); err != nil {
						return
					}
				}
			}()
		}
		for range workers {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		for _, n := range must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{})) {
			if n.Extra["round"] != json.Number(fmt.Sprint(rounds-1)) || len(n.Traits) != 5 || n.Reservation != nil {
				t.Errorf("node %s: extra %v traits %d reservation %v", models.Deref(n.Name), n.Extra, len(n.Traits), n.Reservation)
			}
		}
	})
}
