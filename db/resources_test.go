package db_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

func TestPorts(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n1 := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Owner: models.Ptr("o1"), Shard: models.Ptr("s1")}))
		n2 := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Lessee: models.Ptr("o1"), Owner: models.Ptr("o2")}))
		pg := must[*models.Portgroup](t)(e.CreatePortgroup(ctx, &models.Portgroup{NodeID: &n1.ID, Name: models.Ptr("bond0")}))
		p1 := must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &n1.ID, PortgroupID: &pg.ID, Address: models.Ptr("52:54:00:00:00:01"),
			LocalLinkConnection: models.DictOf("switch_id", "aa:bb:cc:dd:ee:ff", "port_id", "Eth1"), Name: models.Ptr("eth0")}))
		if p1.PXEEnabled == nil || !*p1.PXEEnabled || p1.IsSmartNIC == nil || *p1.IsSmartNIC || p1.Version != models.PortVersion {
			t.Errorf("port defaults: %+v", p1)
		}
		p2 := must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &n2.ID, Address: models.Ptr("52:54:00:00:00:02"), PXEEnabled: models.Ptr(false)}))
		if *p2.PXEEnabled {
			t.Errorf("explicit pxe_enabled=false overridden")
		}
		_, err := e.CreatePort(ctx, &models.Port{Address: models.Ptr("52:54:00:00:00:01")})
		wantFault(t, err, ironic.MACAlreadyExists, "A port with MAC address 52:54:00:00:00:01 already exists.")
		_, err = e.CreatePort(ctx, &models.Port{UUID: p1.UUID, Address: models.Ptr("52:54:00:00:00:03")})
		wantFault(t, err, ironic.PortAlreadyExists, "A port with UUID "+p1.UUID+" already exists.")

		for name, get := range map[string]func() (*models.Port, error){
			"id":      func() (*models.Port, error) { return e.GetPortByID(ctx, p1.ID) },
			"uuid":    func() (*models.Port, error) { return e.GetPortByUUID(ctx, p1.UUID) },
			"name":    func() (*models.Port, error) { return e.GetPortByName(ctx, "eth0") },
			"address": func() (*models.Port, error) { return e.GetPortByAddress(ctx, "52:54:00:00:00:01", "", "") },
			"owner":   func() (*models.Port, error) { return e.GetPortByAddress(ctx, "52:54:00:00:00:01", "o1", "") },
		} {
			got, err := get()
			ok(t, err)
			if d := cmp.Diff(p1, got); d != "" {
				t.Errorf("by %s (-created +got):\n%s", name, d)
			}
		}
		_, err = e.GetPortByAddress(ctx, "52:54:00:00:00:01", "o2", "")
		wantFault(t, err, ironic.PortNotFound, "Port 52:54:00:00:00:01 could not be found.")
		_, err = e.GetPortByAddress(ctx, "52:54:00:00:00:02", "", "o1")
		ok(t, err)
		_, err = e.GetPortByID(ctx, 77)
		wantFault(t, err, ironic.PortNotFound, "Port 77 could not be found.")

		ids := func(ps []models.Port) []int64 {
			out := []int64{}
			for _, p := range ps {
				out = append(out, p.ID)
			}
			return out
		}
		for name, tc := range map[string]struct {
			f    db.PortFilter
			want []int64
		}{
			"all":       {db.PortFilter{}, []int64{p1.ID, p2.ID}},
			"node":      {db.PortFilter{NodeID: &n2.ID}, []int64{p2.ID}},
			"portgroup": {db.PortFilter{PortgroupID: &pg.ID}, []int64{p1.ID}},
			"shards":    {db.PortFilter{Shards: []string{"s1"}}, []int64{p1.ID}},
			"no shards": {db.PortFilter{Shards: []string{}}, []int64{}},
			"owner":     {db.PortFilter{Owner: "o1"}, []int64{p1.ID}},
			"project":   {db.PortFilter{Project: "o1"}, []int64{p1.ID, p2.ID}},
			"owner>prj": {db.PortFilter{Owner: "o2", Project: "o1"}, []int64{p2.ID}},
		} {
			got := must[[]models.Port](t)(e.ListPorts(ctx, tc.f, db.ListOpts{}))
			if d := cmp.Diff(tc.want, ids(got)); d != "" {
				t.Errorf("%s (-want +got):\n%s", name, d)
			}
		}
		desc := must[[]models.Port](t)(e.ListPorts(ctx, db.PortFilter{}, db.ListOpts{SortKey: "address", SortDir: "desc", Limit: 1}))
		if len(desc) != 1 || desc[0].ID != p2.ID {
			t.Errorf("sorted desc: %v", ids(desc))
		}

		e.clock.Advance(time.Second)
		u := must[*models.Port](t)(e.UpdatePort(ctx, db.ByAddress("52:54:00:00:00:01"), db.Values{
			"extra": models.DictOf("a", json.Number("1")), "portgroup_id": nil, "internal_info": pyjson.DictOf("tenant_vif_port_id", "vif"),
		}))
		if u.PortgroupID != nil || u.Extra.Get("a") != json.Number("1") || u.InternalInfo.Get("tenant_vif_port_id") != "vif" || !u.UpdatedAt.Valid() {
			t.Errorf("update: %+v", u)
		}
		_, err = e.UpdatePort(ctx, db.ByID(p2.ID), db.Values{"address": "52:54:00:00:00:01"})
		wantFault(t, err, ironic.MACAlreadyExists, "A port with MAC address 52:54:00:00:00:01 already exists.")
		_, err = e.UpdatePort(ctx, db.ByID(p2.ID), db.Values{"name": "eth0"})
		wantFault(t, err, ironic.PortDuplicateName, "A port with name eth0 already exists.")
		_, err = e.UpdatePort(ctx, db.ByID(p2.ID), db.Values{"uuid": "x"})
		wantFault(t, err, ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Port.")
		_, err = e.UpdatePort(ctx, db.ByUUID("88888888-8888-8888-8888-888888888888"), db.Values{"name": "q"})
		wantFault(t, err, ironic.PortNotFound, "Port 88888888-8888-8888-8888-888888888888 could not be found.")

		ok(t, e.DestroyPort(ctx, db.ByUUID(p1.UUID)))
		wantFault(t, e.DestroyPort(ctx, db.ByUUID(p1.UUID)), ironic.PortNotFound, "Port "+p1.UUID+" could not be found.")
	})
}

func TestPortgroups(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Owner: models.Ptr("o1")}))
		pg := must[*models.Portgroup](t)(e.CreatePortgroup(ctx, &models.Portgroup{NodeID: &n.ID, Name: models.Ptr("bond0"), Address: models.Ptr("52:54:00:00:01:01")}))
		if models.Deref(pg.Mode) != "active-backup" || pg.StandalonePortsSupported == nil || !*pg.StandalonePortsSupported {
			t.Errorf("portgroup defaults: %+v", pg)
		}
		_, err := e.CreatePortgroup(ctx, &models.Portgroup{Name: models.Ptr("bond0")})
		wantFault(t, err, ironic.PortgroupDuplicateName, "A portgroup with name bond0 already exists.")
		_, err = e.CreatePortgroup(ctx, &models.Portgroup{Address: models.Ptr("52:54:00:00:01:01")})
		wantFault(t, err, ironic.PortgroupMACAlreadyExists, "A portgroup with MAC address 52:54:00:00:01:01 already exists.")
		_, err = e.CreatePortgroup(ctx, &models.Portgroup{UUID: pg.UUID})
		wantFault(t, err, ironic.PortgroupAlreadyExists, "A portgroup with UUID "+pg.UUID+" already exists.")
		pg2 := must[*models.Portgroup](t)(e.CreatePortgroup(ctx, &models.Portgroup{Mode: models.Ptr("802.3ad")}))

		for name, get := range map[string]func() (*models.Portgroup, error){
			"id":      func() (*models.Portgroup, error) { return e.GetPortgroupByID(ctx, pg.ID, "") },
			"id+prj":  func() (*models.Portgroup, error) { return e.GetPortgroupByID(ctx, pg.ID, "o1") },
			"uuid":    func() (*models.Portgroup, error) { return e.GetPortgroupByUUID(ctx, pg.UUID) },
			"name":    func() (*models.Portgroup, error) { return e.GetPortgroupByName(ctx, "bond0") },
			"address": func() (*models.Portgroup, error) { return e.GetPortgroupByAddress(ctx, "52:54:00:00:01:01", "o1") },
		} {
			got, err := get()
			ok(t, err)
			if d := cmp.Diff(pg, got); d != "" {
				t.Errorf("by %s (-created +got):\n%s", name, d)
			}
		}
		_, err = e.GetPortgroupByID(ctx, pg.ID, "o2")
		wantFault(t, err, ironic.PortgroupNotFound, fmt.Sprintf("Portgroup %d could not be found.", pg.ID))
		if l := must[[]models.Portgroup](t)(e.ListPortgroups(ctx, db.PortgroupFilter{NodeID: &n.ID}, db.ListOpts{})); len(l) != 1 {
			t.Errorf("by node: %d", len(l))
		}
		if l := must[[]models.Portgroup](t)(e.ListPortgroups(ctx, db.PortgroupFilter{Project: "o1"}, db.ListOpts{})); len(l) != 1 {
			t.Errorf("by project: %d", len(l))
		}
		_, err = e.UpdatePortgroup(ctx, db.ByID(pg2.ID), db.Values{"name": "bond0"})
		wantFault(t, err, ironic.PortgroupDuplicateName, "A portgroup with name bond0 already exists.")
		_, err = e.UpdatePortgroup(ctx, db.ByID(pg2.ID), db.Values{"address": "52:54:00:00:01:01"})
		wantFault(t, err, ironic.PortgroupMACAlreadyExists, "A portgroup with MAC address 52:54:00:00:01:01 already exists.")
		u := must[*models.Portgroup](t)(e.UpdatePortgroup(ctx, db.ByAddress("52:54:00:00:01:01"), db.Values{"standalone_ports_supported": false}))
		if *u.StandalonePortsSupported {
			t.Errorf("update not applied")
		}
		must[*models.Port](t)(e.CreatePort(ctx, &models.Port{NodeID: &n.ID, PortgroupID: &pg.ID, Address: models.Ptr("52:54:00:00:01:02")}))
		wantFault(t, e.DestroyPortgroup(ctx, db.ByUUID(pg.UUID)), ironic.PortgroupNotEmpty,
			"Cannot complete the requested action because portgroup "+pg.UUID+" contains ports.")
		ok(t, e.DestroyPortgroup(ctx, db.ByID(pg2.ID)))
		wantFault(t, e.DestroyPortgroup(ctx, db.ByID(pg2.ID)), ironic.PortgroupNotFound, fmt.Sprintf("Portgroup %d could not be found.", pg2.ID))
	})
}

func TestChassis(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		c := must[*models.Chassis](t)(e.CreateChassis(ctx, &models.Chassis{Description: models.Ptr("rack"), Extra: models.DictOf("x", "ü")}))
		got := must[*models.Chassis](t)(e.GetChassisByUUID(ctx, c.UUID))
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("(-created +got):\n%s", d)
		}
		_, err := e.CreateChassis(ctx, &models.Chassis{UUID: c.UUID})
		wantFault(t, err, ironic.ChassisAlreadyExists, "A chassis with UUID "+c.UUID+" already exists.")
		e.clock.Advance(time.Second)
		u := must[*models.Chassis](t)(e.UpdateChassis(ctx, db.ByUUID(c.UUID), db.Values{"description": "new"}))
		if models.Deref(u.Description) != "new" || !u.UpdatedAt.Valid() {
			t.Errorf("update: %+v", u)
		}
		_, err = e.UpdateChassis(ctx, db.ByID(999), db.Values{"description": "x"})
		wantFault(t, err, ironic.ChassisNotFound, "Chassis 999 could not be found.")
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", ChassisID: &c.ID}))
		wantFault(t, e.DestroyChassis(ctx, db.ByUUID(c.UUID)), ironic.ChassisNotEmpty,
			"Cannot complete the requested action because chassis "+c.UUID+" contains nodes.")
		wantFault(t, e.DestroyChassis(ctx, db.ByID(c.ID)), ironic.ChassisNotEmpty, "")
		ok(t, e.DestroyNode(ctx, db.ByID(n.ID)))
		ok(t, e.DestroyChassis(ctx, db.ByUUID(c.UUID)))
		wantFault(t, e.DestroyChassis(ctx, db.ByUUID(c.UUID)), ironic.ChassisNotFound, "Chassis "+c.UUID+" could not be found.")
		if l := must[[]models.Chassis](t)(e.ListChassis(ctx, db.ListOpts{})); len(l) != 0 {
			t.Errorf("chassis left: %d", len(l))
		}
	})
}

func TestConductors(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		c := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c1", Drivers: models.StringList([]string{"ipmi"}), ConductorGroup: "g"}, false))
		if !c.Online || c.Version != models.ConductorVersion || !c.UpdatedAt.Valid() {
			t.Errorf("registered: %+v", c)
		}
		_, err := e.RegisterConductor(ctx, &models.Conductor{Hostname: "c1"}, false)
		wantFault(t, err, ironic.ConductorAlreadyRegistered, "Conductor c1 already registered.")
		e.clock.Advance(time.Second)
		c2 := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c1", Drivers: models.StringList([]string{"ipmi", "redfish"})}, true))
		if c2.ID != c.ID || len(c2.Drivers) != 2 || c2.ConductorGroup != "" {
			t.Errorf("re-registered: %+v", c2)
		}
		must[*models.Conductor](t)(e.GetConductor(ctx, "c1", true))
		ok(t, e.UnregisterConductor(ctx, "c1"))
		wantFault(t, e.UnregisterConductor(ctx, "c1"), ironic.ConductorNotFound, "Conductor c1 could not be found.")
		_, err = e.GetConductor(ctx, "c1", true)
		wantFault(t, err, ironic.ConductorNotFound, "Conductor c1 could not be found.")
		must[*models.Conductor](t)(e.GetConductor(ctx, "c1", false))
		// Offline rows can be registered again without updateExisting.
		must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c1", Drivers: models.StringList([]string{"ipmi"})}, false))
		wantFault(t, e.TouchConductor(ctx, "nope"), ironic.ConductorNotFound, "Conductor nope could not be found.")

		ok(t, e.RegisterConductorHardwareInterfaces(ctx, c.ID, []models.ConductorHardwareInterface{
			{HardwareType: "ipmi", InterfaceType: "power", InterfaceName: "ipmitool", Default: true},
			{HardwareType: "ipmi", InterfaceType: "boot", InterfaceName: "pxe", Default: true},
			{HardwareType: "ipmi", InterfaceType: "boot", InterfaceName: "ipxe"},
		}))
		err = e.RegisterConductorHardwareInterfaces(ctx, c.ID, []models.ConductorHardwareInterface{
			{HardwareType: "ipmi", InterfaceType: "boot", InterfaceName: "pxe"},
		})
		wantFault(t, err, ironic.ConductorHardwareInterfacesAlreadyRegistered, "")
		ifs := must[[]models.ConductorHardwareInterface](t)(e.ListConductorHardwareInterfaces(ctx, c.ID))
		if len(ifs) != 3 || ifs[0].InterfaceName != "ipmitool" || !ifs[0].Default || ifs[2].Default {
			t.Errorf("interfaces: %+v", ifs)
		}
		c3 := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c3", ConductorGroup: "g"}, false))
		ok(t, e.RegisterConductorHardwareInterfaces(ctx, c3.ID, []models.ConductorHardwareInterface{
			{HardwareType: "redfish", InterfaceType: "power", InterfaceName: "redfish", Default: true},
			{HardwareType: "ipmi", InterfaceType: "power", InterfaceName: "ipmitool", Default: true},
		}))
		timeout := 60 * time.Second
		d := must[map[string][]string](t)(e.GetActiveHardwareTypeDict(ctx, false, timeout))
		if diff := cmp.Diff(map[string][]string{"ipmi": {"c1", "c3"}, "redfish": {"c3"}}, d); diff != "" {
			t.Errorf("hardware types (-want +got):\n%s", diff)
		}
		d = must[map[string][]string](t)(e.GetActiveHardwareTypeDict(ctx, true, timeout))
		if diff := cmp.Diff(map[string][]string{":ipmi": {"c1"}, "g:ipmi": {"c3"}, "g:redfish": {"c3"}}, d); diff != "" {
			t.Errorf("hardware types by group (-want +got):\n%s", diff)
		}
		if l := must[[]models.ConductorHardwareInterface](t)(e.ListHardwareTypeInterfaces(ctx, []string{"redfish"}, timeout)); len(l) != 1 {
			t.Errorf("redfish interfaces: %+v", l)
		}
		// c1 goes silent; c3 keeps its heartbeat.
		e.clock.Advance(45 * time.Second)
		ok(t, e.TouchConductor(ctx, "c3"))
		e.clock.Advance(30 * time.Second)
		online := must[[]string](t)(e.GetOnlineConductors(ctx, timeout))
		if diff := cmp.Diff([]string{"c3"}, online); diff != "" {
			t.Errorf("online (-want +got):\n%s", diff)
		}
		off := must[[]models.Conductor](t)(e.GetOfflineConductors(ctx, timeout))
		if len(off) != 1 || off[0].Hostname != "c1" {
			t.Errorf("offline: %+v", off)
		}
		d = must[map[string][]string](t)(e.GetActiveHardwareTypeDict(ctx, false, timeout))
		if diff := cmp.Diff(map[string][]string{"ipmi": {"c3"}, "redfish": {"c3"}}, d); diff != "" {
			t.Errorf("hardware types after timeout (-want +got):\n%s", diff)
		}
		ok(t, e.UnregisterConductorHardwareInterfaces(ctx, c.ID))
		if l := must[[]models.ConductorHardwareInterface](t)(e.ListConductorHardwareInterfaces(ctx, c.ID)); len(l) != 0 {
			t.Errorf("interfaces left: %d", len(l))
		}
		if l := must[[]models.Conductor](t)(e.ListConductors(ctx, db.ListOpts{SortKey: "hostname", SortDir: "desc"})); len(l) != 2 || l[0].Hostname != "c3" {
			t.Errorf("list: %+v", l)
		}
	})
}

func TestAllocations(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		cond := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c1"}, false))
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", InstanceInfo: models.DictOf("image_source", "img")}))
		a := must[*models.Allocation](t)(e.CreateAllocation(ctx, &models.Allocation{Name: models.Ptr("alloc-1"), ResourceClass: models.Ptr("gold"),
			Traits: models.StringList([]string{"CUSTOM_GPU"}), Owner: models.Ptr("p1"), ConductorAffinity: &cond.ID}))
		if a.State != "allocating" || a.Version != models.AllocationVersion || len(a.CandidateNodes) != 0 || a.CandidateNodes == nil {
			t.Errorf("defaults: %+v", a)
		}
		_, err := e.CreateAllocation(ctx, &models.Allocation{Name: models.Ptr("alloc-1")})
		wantFault(t, err, ironic.AllocationDuplicateName, "An allocation with name alloc-1 already exists.")
		_, err = e.CreateAllocation(ctx, &models.Allocation{UUID: a.UUID})
		wantFault(t, err, ironic.AllocationAlreadyExists, "An allocation with UUID "+a.UUID+" already exists.")
		a2 := must[*models.Allocation](t)(e.CreateAllocation(ctx, &models.Allocation{State: "error"}))

		got := must[*models.Allocation](t)(e.GetAllocationByName(ctx, "alloc-1"))
		if d := cmp.Diff(a, got); d != "" {
			t.Errorf("by name (-created +got):\n%s", d)
		}
		_, err = e.GetAllocationByUUID(ctx, "99999999-9999-9999-9999-999999999999")
		wantFault(t, err, ironic.AllocationNotFound, "Allocation 99999999-9999-9999-9999-999999999999 could not be found.")

		u := must[*models.Allocation](t)(e.UpdateAllocation(ctx, db.ByUUID(a.UUID), db.Values{"node_id": n.ID, "state": "active"}, true))
		if models.Deref(u.NodeID) != n.ID || u.State != "active" {
			t.Errorf("update: %+v", u)
		}
		bound := must[*models.Node](t)(e.GetNodeByID(ctx, n.ID))
		if models.Deref(bound.AllocationID) != a.ID || models.Deref(bound.InstanceUUID) != a.UUID {
			t.Errorf("node not bound: alloc=%v instance=%v", bound.AllocationID, bound.InstanceUUID)
		}
		if d := cmp.Diff(models.DictOf("image_source", "img", "traits", []any{"CUSTOM_GPU"}), bound.InstanceInfo); d != "" {
			t.Errorf("instance_info (-want +got):\n%s", d)
		}
		_, err = e.UpdateAllocation(ctx, db.ByID(a2.ID), db.Values{"node_id": n.ID}, true)
		wantFault(t, err, ironic.NodeAssociated, "Node "+n.UUID+" is associated with instance "+a.UUID+".")
		_, err = e.UpdateAllocation(ctx, db.ByID(a2.ID), db.Values{"name": "alloc-1"}, true)
		wantFault(t, err, ironic.AllocationDuplicateName, "An allocation with name alloc-1 already exists.")

		for name, tc := range map[string]struct {
			f    db.AllocationFilter
			want int
		}{
			"all":        {db.AllocationFilter{}, 2},
			"state":      {db.AllocationFilter{State: models.Ptr(states.AllocationError)}, 1},
			"rc":         {db.AllocationFilter{ResourceClass: models.Ptr("gold")}, 1},
			"owner":      {db.AllocationFilter{Owner: models.Ptr("p1")}, 1},
			"node":       {db.AllocationFilter{NodeID: &n.ID}, 1},
			"node uuid":  {db.AllocationFilter{NodeUUID: &n.UUID}, 1},
			"conductor":  {db.AllocationFilter{ConductorID: &cond.ID}, 1},
			"hostname":   {db.AllocationFilter{ConductorHostname: models.Ptr("c1")}, 1},
			"hostname 2": {db.AllocationFilter{ConductorHostname: models.Ptr("c2")}, 0},
		} {
			if l := must[[]models.Allocation](t)(e.ListAllocations(ctx, tc.f, db.ListOpts{})); len(l) != tc.want {
				t.Errorf("%s: got %d, want %d", name, len(l), tc.want)
			}
		}
		if won := must[bool](t)(e.TakeOverAllocation(ctx, a.ID, cond.ID+1, 42)); won {
			t.Errorf("take over with the wrong old conductor succeeded")
		}
		c2 := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c2"}, false))
		if won := must[bool](t)(e.TakeOverAllocation(ctx, a.ID, cond.ID, c2.ID)); !won {
			t.Errorf("take over failed")
		}
		ok(t, e.DestroyAllocation(ctx, db.ByUUID(a.UUID)))
		unbound := must[*models.Node](t)(e.GetNodeByID(ctx, n.ID))
		if unbound.AllocationID != nil || unbound.InstanceUUID != nil {
			t.Errorf("node still bound after destroy: %+v", unbound)
		}
		wantFault(t, e.DestroyAllocation(ctx, db.ByUUID(a.UUID)), ironic.AllocationNotFound, "Allocation "+a.UUID+" could not be found.")
	})
}

func TestBIOSSettings(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d"}))
		in := []models.BIOSSetting{
			{Name: "A", Value: models.Ptr("1"), AttributeType: models.Ptr("Enumeration"), AllowableValues: models.StringList([]string{"1", "2"}), ReadOnly: models.Ptr(false)},
			{Name: "B", Value: models.Ptr("x"), LowerBound: models.Ptr(int64(0)), UpperBound: models.Ptr(int64(9)), Unique: models.Ptr(true)},
		}
		created := must[[]models.BIOSSetting](t)(e.CreateBIOSSettings(ctx, n.ID, in))
		list := must[[]models.BIOSSetting](t)(e.ListBIOSSettings(ctx, n.ID))
		if d := cmp.Diff(created, list); d != "" {
			t.Errorf("(-created +listed):\n%s", d)
		}
		_, err := e.CreateBIOSSettings(ctx, n.ID, []models.BIOSSetting{{Name: "A"}, {Name: "C"}})
		wantFault(t, err, ironic.BIOSSettingAlreadyExists, fmt.Sprintf("A BIOS setting C for node %d already exists.", n.ID))
		_, err = e.CreateBIOSSettings(ctx, 999, in)
		wantFault(t, err, ironic.NodeNotFound, "Node 999 could not be found.")
		e.clock.Advance(time.Second)
		up := must[[]models.BIOSSetting](t)(e.UpdateBIOSSettings(ctx, n.ID, []models.BIOSSetting{{Name: "A", Value: models.Ptr("2")}}))
		if models.Deref(up[0].Value) != "2" || up[0].AttributeType != nil || len(up[0].AllowableValues) != 0 || !up[0].UpdatedAt.Valid() {
			t.Errorf("update rewrites the registry fields: %+v", up[0])
		}
		_, err = e.UpdateBIOSSettings(ctx, n.ID, []models.BIOSSetting{{Name: "Z"}})
		wantFault(t, err, ironic.BIOSSettingNotFound, fmt.Sprintf("Node %d doesn't have a BIOS setting 'Z'", n.ID))
		got := must[*models.BIOSSetting](t)(e.GetBIOSSetting(ctx, n.ID, "B"))
		if models.Deref(got.UpperBound) != 9 || !models.Deref(got.Unique) {
			t.Errorf("get: %+v", got)
		}
		err = e.DeleteBIOSSettings(ctx, n.ID, []string{"A", "Y", "Z"})
		wantFault(t, err, ironic.BIOSSettingListNotFound, fmt.Sprintf("Node %d doesn't have BIOS settings 'Y,Z'", n.ID))
		_, err = e.GetBIOSSetting(ctx, n.ID, "A")
		wantFault(t, err, ironic.BIOSSettingNotFound, "") // deleted although the call failed, as in Ironic
	})
}

func TestVolumes(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Owner: models.Ptr("p")}))
		vc := must[*models.VolumeConnector](t)(e.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &n.ID, Type: models.Ptr("iqn"), ConnectorID: models.Ptr("iqn.2017")}))
		_, err := e.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &n.ID, Type: models.Ptr("iqn"), ConnectorID: models.Ptr("iqn.2017")})
		wantFault(t, err, ironic.VolumeConnectorTypeAndIdAlreadyExists, "A volume connector with type iqn and connector ID iqn.2017 already exists.")
		vc2 := must[*models.VolumeConnector](t)(e.CreateVolumeConnector(ctx, &models.VolumeConnector{NodeID: &n.ID, Type: models.Ptr("ip"), ConnectorID: models.Ptr("10.0.0.1")}))
		_, err = e.UpdateVolumeConnector(ctx, db.ByID(vc2.ID), db.Values{"type": "iqn", "connector_id": "iqn.2017"})
		wantFault(t, err, ironic.VolumeConnectorTypeAndIdAlreadyExists, "A volume connector with type iqn and connector ID iqn.2017 already exists.")
		_, err = e.UpdateVolumeConnector(ctx, db.ByID(vc2.ID), db.Values{"connector_id": "iqn.2017", "type": "iqn"})
		wantFault(t, err, ironic.VolumeConnectorTypeAndIdAlreadyExists, "")
		if l := must[[]models.VolumeConnector](t)(e.ListVolumeConnectors(ctx, db.VolumeFilter{Project: "p"}, db.ListOpts{})); len(l) != 2 {
			t.Errorf("by project: %d", len(l))
		}
		if l := must[[]models.VolumeConnector](t)(e.ListVolumeConnectors(ctx, db.VolumeFilter{Project: "q"}, db.ListOpts{})); len(l) != 0 {
			t.Errorf("by other project: %d", len(l))
		}
		got := must[*models.VolumeConnector](t)(e.GetVolumeConnector(ctx, db.ByUUID(vc.UUID)))
		if d := cmp.Diff(vc, got); d != "" {
			t.Errorf("(-created +got):\n%s", d)
		}
		ok(t, e.DestroyVolumeConnector(ctx, db.ByUUID(vc.UUID)))
		_, err = e.GetVolumeConnector(ctx, db.ByUUID(vc.UUID))
		wantFault(t, err, ironic.VolumeConnectorNotFound, "Volume connector "+vc.UUID+" could not be found.")

		vt := must[*models.VolumeTarget](t)(e.CreateVolumeTarget(ctx, &models.VolumeTarget{NodeID: &n.ID, VolumeType: models.Ptr("iscsi"), BootIndex: models.Ptr(int64(0)), VolumeID: models.Ptr("v1"), Properties: models.DictOf("target_lun", json.Number("0"))}))
		_, err = e.CreateVolumeTarget(ctx, &models.VolumeTarget{NodeID: &n.ID, BootIndex: models.Ptr(int64(0))})
		wantFault(t, err, ironic.VolumeTargetBootIndexAlreadyExists, "A volume target with boot index '0' for the same node already exists.")
		vt2 := must[*models.VolumeTarget](t)(e.CreateVolumeTarget(ctx, &models.VolumeTarget{NodeID: &n.ID, BootIndex: models.Ptr(int64(1)), VolumeID: models.Ptr("v2")}))
		_, err = e.UpdateVolumeTarget(ctx, db.ByUUID(vt2.UUID), db.Values{"boot_index": 0})
		wantFault(t, err, ironic.VolumeTargetBootIndexAlreadyExists, "A volume target with boot index '0' for the same node already exists.")
		if l := must[[]models.VolumeTarget](t)(e.ListVolumeTargets(ctx, db.VolumeFilter{VolumeID: models.Ptr("v2")}, db.ListOpts{})); len(l) != 1 || l[0].ID != vt2.ID {
			t.Errorf("by volume id: %+v", l)
		}
		got2 := must[*models.VolumeTarget](t)(e.GetVolumeTarget(ctx, db.ByID(vt.ID)))
		if d := cmp.Diff(vt, got2); d != "" {
			t.Errorf("(-created +got):\n%s", d)
		}
		ok(t, e.DestroyVolumeTarget(ctx, db.ByID(vt.ID)))
		wantFault(t, e.DestroyVolumeTarget(ctx, db.ByID(vt.ID)), ironic.VolumeTargetNotFound, fmt.Sprintf("Volume target %d could not be found.", vt.ID))
	})
}

func TestDeployTemplates(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		step := func(iface, name string, prio int64, args models.JSONDict) models.DeployTemplateStep {
			return models.DeployTemplateStep{Interface: iface, Step: name, Priority: prio, Args: args}
		}
		tpl := must[*models.DeployTemplate](t)(e.CreateDeployTemplate(ctx, &models.DeployTemplate{Name: "CUSTOM_RAID", Steps: []models.DeployTemplateStep{
			step("raid", "create_configuration", 10, models.DictOf("logical_disks", []any{})),
			step("bios", "apply_configuration", 20, models.JSONDict{}),
		}}))
		if len(tpl.Steps) != 2 || tpl.Steps[0].ID == 0 || tpl.Steps[1].DeployTemplateID != tpl.ID || tpl.Version != models.DeployTemplateVersion {
			t.Fatalf("created: %+v", tpl)
		}
		got := must[*models.DeployTemplate](t)(e.GetDeployTemplateByName(ctx, "CUSTOM_RAID"))
		if d := cmp.Diff(tpl, got); d != "" {
			t.Errorf("(-created +got):\n%s", d)
		}
		_, err := e.CreateDeployTemplate(ctx, &models.DeployTemplate{Name: "CUSTOM_RAID"})
		wantFault(t, err, ironic.DeployTemplateDuplicateName, "A deploy template with name CUSTOM_RAID already exists.")
		_, err = e.CreateDeployTemplate(ctx, &models.DeployTemplate{Name: "CUSTOM_X", UUID: tpl.UUID})
		wantFault(t, err, ironic.DeployTemplateAlreadyExists, "A deploy template with UUID "+tpl.UUID+" already exists.")
		other := must[*models.DeployTemplate](t)(e.CreateDeployTemplate(ctx, &models.DeployTemplate{Name: "CUSTOM_OTHER"}))

		keptID := tpl.Steps[0].ID
		u := must[*models.DeployTemplate](t)(e.UpdateDeployTemplate(ctx, db.ByUUID(tpl.UUID), db.Values{"extra": pyjson.DictOf("a", "b")}, []models.DeployTemplateStep{
			step("raid", "create_configuration", 10, models.DictOf("logical_disks", []any{})),
			step("deploy", "write_image", 80, models.DictOf("force", true)),
		}))
		if len(u.Steps) != 2 || u.Steps[0].ID != keptID || u.Steps[1].Step != "write_image" || u.Extra.Get("a") != "b" {
			t.Errorf("updated: %+v", u)
		}
		u = must[*models.DeployTemplate](t)(e.UpdateDeployTemplate(ctx, db.ByID(tpl.ID), db.Values{"name": "CUSTOM_NEW"}, nil))
		if len(u.Steps) != 2 || u.Name != "CUSTOM_NEW" {
			t.Errorf("nil steps changed the steps: %+v", u)
		}
		_, err = e.UpdateDeployTemplate(ctx, db.ByID(tpl.ID), db.Values{"name": "CUSTOM_OTHER"}, nil)
		wantFault(t, err, ironic.DeployTemplateDuplicateName, "A deploy template with name CUSTOM_OTHER already exists.")
		_, err = e.UpdateDeployTemplate(ctx, db.ByID(9999), db.Values{"name": "x"}, nil)
		wantFault(t, err, ironic.DeployTemplateNotFound, "Deploy template 9999 could not be found.")
		byNames := must[[]models.DeployTemplate](t)(e.ListDeployTemplatesByNames(ctx, []string{"CUSTOM_NEW", "CUSTOM_OTHER", "CUSTOM_NONE"}))
		if len(byNames) != 2 || len(byNames[0].Steps) != 2 || len(byNames[1].Steps) != 0 {
			t.Errorf("by names: %+v", byNames)
		}
		all := must[[]models.DeployTemplate](t)(e.ListDeployTemplates(ctx, db.ListOpts{SortKey: "name"}))
		if len(all) != 2 || all[0].Name != "CUSTOM_NEW" {
			t.Errorf("list: %+v", all)
		}
		u = must[*models.DeployTemplate](t)(e.UpdateDeployTemplate(ctx, db.ByID(tpl.ID), db.Values{}, []models.DeployTemplateStep{}))
		if len(u.Steps) != 0 {
			t.Errorf("empty steps kept %d", len(u.Steps))
		}
		ok(t, e.DestroyDeployTemplate(ctx, other.ID))
		wantFault(t, e.DestroyDeployTemplate(ctx, other.ID), ironic.DeployTemplateNotFound, fmt.Sprintf("Deploy template %d could not be found.", other.ID))
	})
}

func TestHistoryInventory(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		c := must[*models.Conductor](t)(e.RegisterConductor(ctx, &models.Conductor{Hostname: "c"}, false))
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d"}))
		must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"conductor_affinity": c.ID}))
		var hs []*models.NodeHistory
		for i := range 5 {
			h := must[*models.NodeHistory](t)(e.CreateNodeHistory(ctx, &models.NodeHistory{NodeID: &n.ID, Event: models.Ptr(fmt.Sprintf("e%d", i)),
				Severity: models.Ptr("INFO"), EventType: models.Ptr("provisioning"), Conductor: models.Ptr("c"), User: models.Ptr("u")}))
			hs = append(hs, h)
			e.clock.Advance(24 * time.Hour)
		}
		got := must[*models.NodeHistory](t)(e.GetNodeHistory(ctx, db.ByUUID(hs[1].UUID)))
		if d := cmp.Diff(hs[1], got); d != "" {
			t.Errorf("(-created +got):\n%s", d)
		}
		page := must[[]models.NodeHistory](t)(e.ListNodeHistoryByNode(ctx, n.ID, db.ListOpts{Limit: 2, Marker: hs[1].ID, SortKey: "created_at"}))
		if len(page) != 2 || page[0].ID != hs[2].ID {
			t.Errorf("page: %+v", page)
		}
		purge := must[map[int64][]int64](t)(e.QueryNodeHistoryRecordsForPurge(ctx, c.ID, 0, 3))
		if d := cmp.Diff(map[int64][]int64{n.ID: {hs[0].ID, hs[1].ID}}, purge); d != "" {
			t.Errorf("purge (-want +got):\n%s", d)
		}
		purge = must[map[int64][]int64](t)(e.QueryNodeHistoryRecordsForPurge(ctx, c.ID, 3, 1))
		if d := cmp.Diff(map[int64][]int64{n.ID: {hs[0].ID}}, purge); d != "" {
			t.Errorf("purge with min days (-want +got):\n%s", d)
		}
		ok(t, e.BulkDeleteNodeHistoryRecords(ctx, []int64{hs[0].ID, hs[1].ID}))
		ok(t, e.DestroyNodeHistoryByUUID(ctx, hs[2].UUID))
		wantFault(t, e.DestroyNodeHistoryByUUID(ctx, hs[2].UUID), ironic.NodeHistoryNotFound, "Node history record "+hs[2].UUID+" could not be found.")
		if l := must[[]models.NodeHistory](t)(e.ListNodeHistory(ctx, db.ListOpts{})); len(l) != 2 {
			t.Errorf("left: %d", len(l))
		}

		inv := must[*models.NodeInventory](t)(e.CreateNodeInventory(ctx, &models.NodeInventory{NodeID: &n.ID,
			InventoryData: models.DictOf("cpu", pyjson.DictOf("count", json.Number("8"))), PluginData: models.DictOf("x", 1.5)}))
		gotInv := must[*models.NodeInventory](t)(e.GetNodeInventoryByNodeID(ctx, n.ID))
		if gotInv.ID != inv.ID || gotInv.PluginData.Get("x") != json.Number("1.5") || gotInv.Version != models.NodeInventoryVersion {
			t.Errorf("inventory: %+v", gotInv)
		}
		// Re-inspection: one row, the new data.
		must[*models.NodeInventory](t)(e.ReplaceNodeInventory(ctx, &models.NodeInventory{NodeID: &n.ID,
			InventoryData: models.DictOf("cpu", pyjson.DictOf("count", json.Number("16")))}))
		gotInv = must[*models.NodeInventory](t)(e.GetNodeInventoryByNodeID(ctx, n.ID))
		if c, _ := gotInv.InventoryData.Get("cpu").(*pyjson.Dict); c == nil || c.Get("count") != json.Number("16") || gotInv.PluginData.Len() != 0 {
			t.Errorf("replaced inventory: %+v", gotInv)
		}
		ok(t, e.DestroyNodeInventoryByNodeID(ctx, n.ID))
		wantFault(t, e.DestroyNodeInventoryByNodeID(ctx, n.ID), ironic.NodeInventoryNotFound, fmt.Sprintf("Node inventory record for node %d could not be found.", n.ID))
	})
}

func TestUpdateToLatestVersions(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		for range 3 {
			n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d"}))
			must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), db.Values{"version": "1.36"}))
		}
		c := must[*models.Chassis](t)(e.CreateChassis(ctx, &models.Chassis{}))
		must[*models.Chassis](t)(e.UpdateChassis(ctx, db.ByID(c.ID), db.Values{"version": "1.2"}))
		total, done, err := e.UpdateToLatestVersions(ctx, 2)
		ok(t, err)
		if total != 4 || done != 2 {
			t.Errorf("first pass: total %d done %d, want 4 2", total, done)
		}
		total, done, err = e.UpdateToLatestVersions(ctx, 0)
		ok(t, err)
		if total != 2 || done != 2 {
			t.Errorf("second pass: total %d done %d, want 2 2", total, done)
		}
		total, _, err = e.UpdateToLatestVersions(ctx, 0)
		ok(t, err)
		if total != 0 {
			t.Errorf("third pass: total %d", total)
		}
		for _, n := range must[[]models.Node](t)(e.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{})) {
			if n.Version != models.NodeVersion {
				t.Errorf("node %d at %s", n.ID, n.Version)
			}
		}
	})
}

// TestRowValuesRoundTrip: values read from a model with NodeValues (the
// conductor's save path) are accepted by UpdateNode and change exactly the
// fields that were modified.
func TestRowValuesRoundTrip(t *testing.T) {
	both(t, func(t *testing.T, e *env) {
		n := must[*models.Node](t)(e.CreateNode(ctx, &models.Node{Driver: "d", Name: models.Ptr("rt")}))
		all := []string{"driver", "name", "power_state", "provision_updated_at", "properties", "maintenance",
			"automated_clean", "conductor_affinity", "conductor_group", "retired", "instance_info", "shard"}
		same := must[db.Values](t)(e.NodeValues(n, all))
		e.clock.Advance(time.Second)
		u := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), same))
		if u.UpdatedAt.Valid() {
			t.Errorf("writing back unchanged values touched updated_at")
		}
		m := *u
		m.PowerState = models.Ptr(states.PowerOn)
		m.Properties = models.DictOf("cpus", json.Number("2"))
		m.Maintenance = true
		m.Shard = models.Ptr("s")
		m.ProvisionUpdatedAt = models.NewTime(e.clock.Now())
		u2 := must[*models.Node](t)(e.UpdateNode(ctx, db.ByID(n.ID), must[db.Values](t)(e.NodeValues(&m, all))))
		if models.Deref(u2.PowerState) != "power on" || u2.Properties.Get("cpus") != json.Number("2") || !u2.Maintenance ||
			models.Deref(u2.Shard) != "s" || !u2.ProvisionUpdatedAt.Valid() || !u2.UpdatedAt.Valid() || models.Deref(u2.Name) != "rt" {
			t.Errorf("round trip: %+v", u2)
		}
	})
}
