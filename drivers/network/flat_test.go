package network_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/drivers/network/neutronclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/test/fakeneutron"
)

const (
	nodeUUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	port1    = "8a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b0001"
	port2    = "8a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b0002"
	group1   = "5a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b00aa"
	mac1     = "52:54:00:00:00:01"
	mac2     = "52:54:00:00:00:02"
	macPG    = "52:54:00:00:00:aa"
)

// env is the flat interface over the real Neutron client, talking to a
// fake Neutron, with an in-memory task.
type env struct {
	neutron *fakeneutron.TestServer
	flat    *network.Flat
	task    *fake.Task
	// tenant is a network to create VIFs on.
	tenant string
}

type envOpt func(*network.Config, *fakeneutron.Options)

func newEnv(t *testing.T, opts ...envOpt) *env {
	t.Helper()
	cfg := network.DefaultConfig()
	cfg.CleaningNetwork = fakeneutron.CleaningNetworkName
	cfg.DHCPProvider = "none"
	n := 0
	fo := fakeneutron.Options{
		NewID:    func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) },
		Networks: []map[string]any{fakeneutron.CleaningNetwork()},
	}
	for _, o := range opts {
		o(&cfg, &fo)
	}
	srv := fakeneutron.ForTest(t, fo)
	client := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: srv.URL}}, nil)
	sleep := func(context.Context, time.Duration) error { return nil }
	e := &env{
		neutron: srv,
		flat:    network.NewFlat(cfg, network.Deps{Neutron: client, Sleep: sleep}),
		task: &fake.Task{
			Node: &fake.Node{UUID: nodeUUID, Driver: "fake-hardware", ProvisionState: "enroll",
				Interfaces: map[drivers.Kind]string{drivers.Network: "flat"}},
			PortList: []drivers.Port{{UUID: port1, Address: mac1, PXEEnabled: true, InternalInfo: map[string]any{}, Extra: map[string]any{}}},
		},
	}
	net, err := srv.CreateNetwork(map[string]any{"name": "tenant"})
	if err != nil {
		t.Fatal(err)
	}
	e.tenant = net["id"].(string)
	return e
}

// vif creates a Neutron port on the tenant network and returns its ID.
func (e *env) vif(t *testing.T) string {
	t.Helper()
	p, err := e.neutron.CreatePort(map[string]any{"network_id": e.tenant})
	if err != nil {
		t.Fatal(err)
	}
	return p["id"].(string)
}

// calls returns the requests made since the last call, as
// "METHOD path[?query] [body]" lines.
func (e *env) calls() []string {
	var out []string
	for _, r := range e.neutron.Requests() {
		line := r.Method + " " + r.Path
		if r.Query != "" {
			line += "?" + r.Query
		}
		if r.Body != nil {
			line += " " + canonical(r.Body)
		}
		out = append(out, line)
	}
	e.neutron.ResetRequests()
	return out
}

// canonical re-encodes JSON with sorted keys.
func canonical(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func wantFault(t *testing.T, err error, class ironic.Class, msg string) {
	t.Helper()
	var f *ironic.Fault
	if !errors.As(err, &f) {
		t.Fatalf("error %v (%T), want a %s fault", err, err, class)
	}
	if f.Class != class || f.Message != msg {
		t.Errorf("fault %s %q\nwant      %s %q", f.Class, f.Message, class, msg)
	}
}

func (e *env) attach(t *testing.T, vif string) {
	t.Helper()
	if err := e.flat.VIFAttach(context.Background(), e.task, drivers.VIF{"id": vif}); err != nil {
		t.Fatalf("attach %s: %v", vif, err)
	}
}

func (e *env) vifs(t *testing.T) []drivers.VIF {
	t.Helper()
	l, err := e.flat.VIFList(context.Background(), e.task)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestAttachListDetachOnPort(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	vif := e.vif(t)
	e.calls()
	e.attach(t, vif)
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":"` + mac1 + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of attach (-want +got):\n%s", diff)
	}
	if got := e.task.PortList[0].InternalInfo["tenant_vif_port_id"]; got != vif {
		t.Errorf("port internal_info tenant_vif_port_id = %v", got)
	}
	if p, _ := e.neutron.Port(vif); p["mac_address"] != mac1 {
		t.Errorf("Neutron port MAC %v, want the Ironic port's", p["mac_address"])
	}
	if diff := cmp.Diff([]drivers.VIF{{"id": vif}}, e.vifs(t)); diff != "" {
		t.Errorf("VIF list (-want +got):\n%s", diff)
	}
	if cur, _ := e.flat.GetCurrentVIF(ctx, e.task, port1); cur != vif {
		t.Errorf("current VIF %q", cur)
	}

	// The same VIF again, another one without a free port.
	err := e.flat.VIFAttach(ctx, e.task, drivers.VIF{"id": vif})
	wantFault(t, err, ironic.VifAlreadyAttached, "Unable to attach VIF because VIF "+vif+" is already attached to Ironic Port "+port1)
	other := e.vif(t)
	err = e.flat.VIFAttach(ctx, e.task, drivers.VIF{"id": other})
	wantFault(t, err, ironic.NoFreePhysicalPorts, "Unable to attach VIF "+other+", not enough free physical ports.")

	e.calls()
	if err := e.flat.VIFDetach(ctx, e.task, vif); err != nil {
		t.Fatal(err)
	}
	if calls := e.calls(); len(calls) != 0 {
		t.Errorf("detach from an enrolled node called Neutron: %v", calls)
	}
	if _, ok := e.task.PortList[0].InternalInfo["tenant_vif_port_id"]; ok {
		t.Errorf("VIF still recorded: %v", e.task.PortList[0].InternalInfo)
	}
	if l := e.vifs(t); len(l) != 0 {
		t.Errorf("VIFs after detach: %v", l)
	}
	err = e.flat.VIFDetach(ctx, e.task, vif)
	wantFault(t, err, ironic.VifNotAttached, "Unable to detach VIF "+vif+" from node "+nodeUUID+" because it is not attached to it.")
}

func TestAttachUnknownVIF(t *testing.T) {
	const unknown = "11111111-2222-3333-4444-555555555555"
	e := newEnv(t)
	err := e.flat.VIFAttach(context.Background(), e.task, drivers.VIF{"id": unknown})
	wantFault(t, err, ironic.NetworkError, "Unable to attach VIF "+unknown+
		" because Ironic can not update Neutron port "+unknown+" MAC address to match physical MAC address "+mac1)

	// With a physical network on a port, Ironic looks the VIF's network
	// up first.
	e.task.PortList[0].PhysicalNetwork = "physnet1"
	err = e.flat.VIFAttach(context.Background(), e.task, drivers.VIF{"id": unknown})
	wantFault(t, err, ironic.InvalidParameterValue, "Neutron port "+unknown+" was not found")
}

func TestAttachToPortgroup(t *testing.T) {
	e := newEnv(t)
	e.task.PortList[0].PortgroupUUID = group1
	e.task.PortgroupList = []drivers.Portgroup{{UUID: group1, Name: "pg1", Address: macPG, Mode: "active-backup",
		StandalonePortsSupported: true, InternalInfo: map[string]any{}, Extra: map[string]any{}}}
	vif := e.vif(t)
	e.attach(t, vif)
	if got := e.task.PortgroupList[0].InternalInfo["tenant_vif_port_id"]; got != vif {
		t.Errorf("port group internal_info %v", e.task.PortgroupList[0].InternalInfo)
	}
	if _, ok := e.task.PortList[0].InternalInfo["tenant_vif_port_id"]; ok {
		t.Errorf("VIF recorded on the member port too")
	}
	if p, _ := e.neutron.Port(vif); p["mac_address"] != macPG {
		t.Errorf("Neutron port MAC %v, want the port group's", p["mac_address"])
	}
	// A port group is preferred to a standalone port.
	e.task.PortList = append(e.task.PortList, drivers.Port{UUID: port2, Address: mac2, PXEEnabled: true})
	other := e.vif(t)
	e.attach(t, other)
	if e.task.PortList[1].InternalInfo["tenant_vif_port_id"] != other {
		t.Errorf("second VIF not on the standalone port: %+v", e.task.PortList)
	}
	if diff := cmp.Diff([]drivers.VIF{{"id": other}, {"id": vif}}, e.vifs(t)); diff != "" {
		t.Errorf("VIF list, ports first (-want +got):\n%s", diff)
	}
	if err := e.flat.VIFDetach(context.Background(), e.task, vif); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.task.PortgroupList[0].InternalInfo["tenant_vif_port_id"]; ok {
		t.Errorf("VIF still on the port group")
	}
}

func TestAttachByPhysicalNetwork(t *testing.T) {
	e := newEnv(t)
	net, _ := e.neutron.CreateNetwork(map[string]any{"name": "phys", "provider:physical_network": "physnet2"})
	e.task.PortList = []drivers.Port{
		{UUID: port1, Address: mac1, PXEEnabled: true, PhysicalNetwork: "physnet1"},
		{UUID: port2, Address: mac2, PXEEnabled: false, PhysicalNetwork: "physnet2"},
	}
	p, _ := e.neutron.CreatePort(map[string]any{"network_id": net["id"]})
	vif := p["id"].(string)
	e.calls()
	e.attach(t, vif)
	if e.task.PortList[1].InternalInfo["tenant_vif_port_id"] != vif {
		t.Errorf("VIF not on the port of its physical network: %+v", e.task.PortList)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/networks/" + net["id"].(string),
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":"` + mac2 + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
	// physnet1 ports don't take VIFs of physnet2 networks.
	p, _ = e.neutron.CreatePort(map[string]any{"network_id": net["id"]})
	err := e.flat.VIFAttach(context.Background(), e.task, drivers.VIF{"id": p["id"]})
	wantFault(t, err, ironic.NoFreePhysicalPorts, "Unable to attach VIF "+p["id"].(string)+", not enough free physical ports.")
}

func TestValidateCleaningNetwork(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if err := e.flat.Validate(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/networks/ironic-cleaning",
		"GET /v2.0/networks?name=ironic-cleaning",
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of validate (-want +got):\n%s", diff)
	}
	// driver_info takes precedence; an ID is found at once.
	e.task.Node.DriverInfo = map[string]any{"cleaning_network": fakeneutron.CleaningNetworkID}
	if err := e.flat.Validate(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GET /v2.0/networks/" + fakeneutron.CleaningNetworkID}, e.calls()); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
	e.task.Node.DriverInfo = map[string]any{"cleaning_network": "nope"}
	wantFault(t, e.flat.Validate(ctx, e.task), ironic.InvalidParameterValue, "cleaning network with name or UUID nope was not found")

	for _, id := range []string{"dup-1", "dup-2"} {
		if _, err := e.neutron.CreateNetwork(map[string]any{"id": id, "name": "dup"}); err != nil {
			t.Fatal(err)
		}
	}
	e.task.Node.DriverInfo = map[string]any{"cleaning_network": "dup"}
	wantFault(t, e.flat.Validate(ctx, e.task), ironic.InvalidParameterValue, "More than one cleaning network was found for name dup: dup-1, dup-2")

	unset := newEnv(t, func(c *network.Config, _ *fakeneutron.Options) { c.CleaningNetwork = "" })
	wantFault(t, unset.flat.Validate(ctx, unset.task), ironic.MissingParameterValue, "UUID or name of cleaning network is not set in configuration")
	wantFault(t, unset.flat.ValidateInspection(ctx, unset.task), ironic.UnsupportedDriverExtension,
		"Driver fake-hardware does not support inspection (disabled or not implemented).")
}

func TestNeutronUnreachable(t *testing.T) {
	cfg := network.DefaultConfig()
	cfg.CleaningNetwork = "net"
	client := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: "http://127.0.0.1:9"}}, nil)
	flat := network.NewFlat(cfg, network.Deps{Neutron: client})
	err := flat.Validate(context.Background(), &fake.Task{Node: &fake.Node{UUID: nodeUUID}})
	// Ironic's client starts with a version discovery request.
	wantFault(t, err, ironic.NetworkError, "Unable to find a version discovery document at http://127.0.0.1:9, "+
		"the service is unavailable or misconfigured. Required version range (any - any), version hack disabled.")
	noEndpoint := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none"}}, nil)
	flat = network.NewFlat(cfg, network.Deps{Neutron: noEndpoint})
	wantFault(t, flat.Validate(context.Background(), &fake.Task{Node: &fake.Node{UUID: nodeUUID}}), ironic.CatalogNotFound,
		"Service type network with endpoint type internal not found in keystone service catalog.")
}

// On an active node an attached VIF is bound at once, and unbound when
// detached.
func TestAttachDetachOnActiveNode(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.task.Node.ProvisionState = "active"
	e.task.PortList[0].LocalLinkConnection = map[string]any{"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Eth1"}
	vif := e.vif(t)
	e.calls()
	e.attach(t, vif)
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":"` + mac1 + `"}}`,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_link_information":[{"port_id":"Eth1","switch_id":"aa:bb:cc:dd:ee:ff"}]},"binding:vnic_type":"baremetal","mac_address":"` + mac1 + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of attach (-want +got):\n%s", diff)
	}
	if p, _ := e.neutron.Port(vif); p["binding:host_id"] != nodeUUID || p["binding:vnic_type"] != "baremetal" {
		t.Errorf("port not bound: %v", p)
	}
	// Changing the MAC of a bound VIF goes through an unbind and a rebind.
	changed := e.task.PortList[0]
	changed.Address = mac2
	changed.InternalInfo = map[string]any{"tenant_vif_port_id": vif}
	if err := e.flat.PortChanged(ctx, e.task, changed); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"","binding:profile":{}}}`,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":null}}`,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":"` + mac2 + `"}}`,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_link_information":[{"port_id":"Eth1","switch_id":"aa:bb:cc:dd:ee:ff"}]}}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of a MAC change (-want +got):\n%s", diff)
	}
	if err := e.flat.VIFDetach(ctx, e.task, vif); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"","binding:profile":{}}}`,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":null}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of detach (-want +got):\n%s", diff)
	}
	// A VIF deleted from Neutron meanwhile is fine to detach.
	e.task.Node.ProvisionState = "deleting"
	gone := e.vif(t)
	e.task.PortList = append(e.task.PortList, drivers.Port{UUID: port2, Address: mac2, PXEEnabled: true})
	e.attach(t, gone)
	if err := e.neutron.DeletePort(gone); err != nil {
		t.Fatal(err)
	}
	e.calls()
	if err := e.flat.VIFDetach(ctx, e.task, gone); err != nil {
		t.Errorf("detaching a VIF Neutron lost: %v", err)
	}
	if diff := cmp.Diff([]string{"GET /v2.0/ports/" + gone}, e.calls()); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
}

// Deploying binds the tenant VIFs to the node (flat provisions on the
// tenant network), tearing down unbinds them: ports outside port groups
// and port groups.
func TestDeployBindsAndTearDownUnbinds(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.task.PortList = append(e.task.PortList, drivers.Port{UUID: port2, Address: mac2, PortgroupUUID: group1})
	e.task.PortgroupList = []drivers.Portgroup{{UUID: group1, StandalonePortsSupported: true}}
	vg, v1 := e.vif(t), e.vif(t)
	e.attach(t, vg) // port groups first
	e.attach(t, v1)
	if e.task.PortgroupList[0].InternalInfo["tenant_vif_port_id"] != vg || e.task.PortList[0].InternalInfo["tenant_vif_port_id"] != v1 {
		t.Fatalf("setup: %+v", e.task.PortgroupList)
	}
	bind := func(vif, mac string) []string {
		m := `null`
		if mac != "" {
			m = `"` + mac + `"`
		}
		return []string{"GET /v2.0/ports/" + vif,
			`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:vnic_type":"baremetal","mac_address":` + m + `}}`}
	}
	unbind := func(vif string) []string {
		return []string{"GET /v2.0/ports/" + vif,
			`PUT /v2.0/ports/` + vif + ` {"port":{"binding:host_id":"","binding:profile":{}}}`,
			"GET /v2.0/ports/" + vif,
			`PUT /v2.0/ports/` + vif + ` {"port":{"mac_address":null}}`}
	}
	// In the order a deployment, tear down and rescue use them. The port
	// group has no address: its VIF gets a MAC of Neutron's.
	for _, tc := range []struct {
		name string
		call func() error
		want []string
	}{
		{"add provisioning network", func() error { return e.flat.AddProvisioningNetwork(ctx, e.task) }, append(bind(v1, mac1), bind(vg, "")...)},
		{"remove provisioning network", func() error { return e.flat.RemoveProvisioningNetwork(ctx, e.task) }, append(unbind(v1), unbind(vg)...)},
		{"configure tenant networks", func() error { return e.flat.ConfigureTenantNetworks(ctx, e.task) }, append(bind(v1, mac1), bind(vg, "")...)},
		{"unconfigure tenant networks", func() error { return e.flat.UnconfigureTenantNetworks(ctx, e.task) }, append(unbind(v1), unbind(vg)...)},
		{"add rescuing network", func() error {
			ports, err := e.flat.AddRescuingNetwork(ctx, e.task)
			if ports != nil {
				t.Errorf("rescuing ports %v, want none", ports)
			}
			return err
		}, append(bind(v1, mac1), bind(vg, "")...)},
		{"remove rescuing network", func() error { return e.flat.RemoveRescuingNetwork(ctx, e.task) }, append(unbind(v1), unbind(vg)...)},
	} {
		e.calls()
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, e.calls()); diff != "" {
			t.Errorf("%s: Neutron calls (-want +got):\n%s", tc.name, diff)
		}
	}

	// A VIF Neutron doesn't know fails binding, not unbinding.
	e.task.PortList[0].InternalInfo = map[string]any{"tenant_vif_port_id": "gone"}
	wantFault(t, e.flat.ConfigureTenantNetworks(ctx, e.task), ironic.NetworkError,
		"Unable to set binding:host_id for neutron port gone. Error: No Port found for gone: Client Error for url: "+
			e.neutron.URL+"/v2.0/ports/gone, Port gone could not be found.")
	if err := e.flat.UnconfigureTenantNetworks(ctx, e.task); err != nil {
		t.Errorf("unbinding a lost VIF: %v", err)
	}
}

// Cleaning (and inspection) create the node's PXE ports on their network
// and delete them afterwards.
func TestCleaningNetwork(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.task.PortList = append(e.task.PortList, drivers.Port{UUID: port2, Address: mac2, PXEEnabled: false})
	e.task.PortList[0].LocalLinkConnection = map[string]any{"switch_id": "aa:bb:cc:dd:ee:ff", "port_id": "Eth1"}
	e.calls()
	ports, err := e.flat.AddCleaningNetwork(ctx, e.task)
	if err != nil {
		t.Fatal(err)
	}
	nid := ports[port1]
	if len(ports) != 1 || nid == "" {
		t.Fatalf("cleaning ports %v", ports)
	}
	net := fakeneutron.CleaningNetworkID
	if diff := cmp.Diff([]string{
		"GET /v2.0/networks/ironic-cleaning",
		"GET /v2.0/networks?name=ironic-cleaning",
		"GET /v2.0/ports?mac_address=" + strings.ReplaceAll(mac1, ":", "%3A") + "&network_id=" + net,
		`POST /v2.0/ports {"port":{"admin_state_up":true,"binding:vnic_type":"baremetal","device_id":"` + nodeUUID + `","network_id":"` + net + `"}}`,
		"GET /v2.0/ports/" + nid,
		`PUT /v2.0/ports/` + nid + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_link_information":[{"port_id":"Eth1","switch_id":"aa:bb:cc:dd:ee:ff"}]},"device_owner":"baremetal:none","mac_address":"` + mac1 + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
	if got := e.task.PortList[0].InternalInfo["cleaning_vif_port_id"]; got != nid {
		t.Errorf("cleaning_vif_port_id %v", got)
	}
	if cur, _ := e.flat.GetCurrentVIF(ctx, e.task, port1); cur != nid {
		t.Errorf("current VIF while cleaning %q", cur)
	}
	if err := e.flat.RemoveCleaningNetwork(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.neutron.Port(nid); ok {
		t.Errorf("cleaning port left in Neutron")
	}
	if _, ok := e.task.PortList[0].InternalInfo["cleaning_vif_port_id"]; ok {
		t.Errorf("cleaning_vif_port_id left: %v", e.task.PortList[0].InternalInfo)
	}

	// No PXE-enabled port: nothing to boot the ramdisk from.
	e.task.PortList[0].PXEEnabled = false
	_, err = e.flat.AddCleaningNetwork(ctx, e.task)
	wantFault(t, err, ironic.NetworkError, "No available PXE-enabled ports on node "+nodeUUID+".")
	// Inspection needs its network configured.
	_, err = e.flat.AddInspectionNetwork(ctx, e.task)
	wantFault(t, err, ironic.MissingParameterValue, "UUID or name of inspection network is not set in configuration")
}

func TestPortChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.task.PortList[0].PortgroupUUID = group1
	e.task.PortgroupList = []drivers.Portgroup{{UUID: group1, Address: macPG, StandalonePortsSupported: true}}
	vif := e.vif(t)
	e.attach(t, vif)

	// A new port group MAC goes to the VIF.
	pg := e.task.PortgroupList[0]
	pg.Address = "52:54:00:00:00:bb"
	if err := e.flat.PortgroupChanged(ctx, e.task, pg); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.neutron.Port(vif); p["mac_address"] != "52:54:00:00:00:bb" {
		t.Errorf("VIF MAC %v", p["mac_address"])
	}
	// Standalone ports can't be turned off while a member is PXE-enabled.
	pg.StandalonePortsSupported = false
	wantFault(t, e.flat.PortgroupChanged(ctx, e.task, pg), ironic.Conflict,
		"standalone_ports_supported can not be set to False, because the port group "+group1+" contains port with 'pxe_enabled' is set to True")
	// Nor may a port join such a group with PXE enabled.
	e.task.PortgroupList[0].StandalonePortsSupported = false
	p := e.task.PortList[0]
	p.InternalInfo = map[string]any{"tenant_vif_port_id": "v9"}
	wantFault(t, e.flat.PortChanged(ctx, e.task, p), ironic.Conflict,
		"Port group "+group1+" doesn't support standalone ports. This port "+port1+" cannot be  a member of that port group because of: 'pxe_enabled' was set to True, VIF v9 is attached to the port")
}

// A new client-id reaches the VIF's DHCP options with the neutron DHCP
// provider.
func TestClientIDChange(t *testing.T) {
	e := newEnv(t, func(c *network.Config, _ *fakeneutron.Options) { c.DHCPProvider = "neutron" })
	if _, err := e.neutron.CreateSubnet(map[string]any{"network_id": e.tenant, "cidr": "10.0.0.0/24"}); err != nil {
		t.Fatal(err)
	}
	vif := e.vif(t)
	e.attach(t, vif)
	p := e.task.PortList[0]
	p.Extra = map[string]any{"client-id": "ff:00:00:00:00:00:02:00:00:02:c9:00:52:54:00:00:00:01"}
	e.calls()
	if err := e.flat.PortChanged(context.Background(), e.task, p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + vif,
		"GET /v2.0/ports/" + vif,
		`PUT /v2.0/ports/` + vif + ` {"port":{"extra_dhcp_opts":[{"opt_name":"61","opt_value":"ff:00:00:00:00:00:02:00:00:02:c9:00:52:54:00:00:00:01"}]}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
}

// A Smart NIC port is bound to its own host once that host's agent is up.
func TestSmartNICPlug(t *testing.T) {
	e := newEnv(t, func(_ *network.Config, o *fakeneutron.Options) {
		o.Agents = []map[string]any{{"id": "a1", "host": "nic-host", "alive": true, "agent_type": "Open vSwitch agent"}}
	})
	e.task.Node.ProvisionState = "active"
	e.task.PortList[0].IsSmartNIC = true
	e.task.PortList[0].LocalLinkConnection = map[string]any{"port_id": "rep0", "hostname": "nic-host"}
	vif := e.vif(t)
	e.attach(t, vif)
	if p, _ := e.neutron.Port(vif); p["binding:host_id"] != "nic-host" || p["binding:vnic_type"] != "smart-nic" || p["status"] != "ACTIVE" {
		t.Errorf("port %v", p)
	}
	if calls := e.calls(); !slices.Contains(calls, "GET /v2.0/agents?host=nic-host") {
		t.Errorf("no agent check before binding: %v", calls)
	}
}

func TestNodeNetworkData(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	sn, _ := e.neutron.CreateSubnet(map[string]any{"network_id": e.tenant, "cidr": "10.0.0.0/24",
		"host_routes": []any{map[string]any{"destination": "192.168.0.0/16", "nexthop": "10.0.0.254"}}})
	vif := e.vif(t)
	e.attach(t, vif)
	nd, err := e.flat.GetNodeNetworkData(ctx, e.task)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"links": []any{map[string]any{"id": port1, "type": "vif", "ethernet_mac_address": mac1, "vif_id": vif, "mtu": 1500}},
		"networks": []any{map[string]any{"id": sn["id"], "network_id": e.tenant, "type": "ipv4", "link": port1,
			"ip_address": "10.0.0.2", "netmask": "255.255.255.0", "routes": []any{
				map[string]any{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.0.0.1"},
				map[string]any{"network": "192.168.0.0", "netmask": "255.255.0.0", "gateway": "10.0.0.254"},
			}}},
	}
	if diff := cmp.Diff(want, nd); diff != "" {
		t.Errorf("network data (-want +got):\n%s", diff)
	}
	// Static network data wins.
	e.task.Node.NetworkData = map[string]any{"links": []any{}}
	if nd, _ := e.flat.GetNodeNetworkData(ctx, e.task); !cmp.Equal(nd, e.task.Node.NetworkData) {
		t.Errorf("static network data ignored: %v", nd)
	}
}

// API 1.67 lets the caller pick the port or port group.
func TestAttachToChosenPort(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.task.PortList = append(e.task.PortList, drivers.Port{UUID: port2, Address: mac2, PXEEnabled: true, PortgroupUUID: group1})
	e.task.PortgroupList = []drivers.Portgroup{{UUID: group1, Address: macPG, StandalonePortsSupported: true}}
	vif, other := e.vif(t), e.vif(t)
	// As in Ironic, a member of a port group can't be chosen.
	err := e.flat.VIFAttach(ctx, e.task, drivers.VIF{"id": vif, "port_uuid": port2})
	wantFault(t, err, ironic.NoFreePhysicalPorts, "Unable to attach VIF "+vif+", not enough free physical ports.")
	if err := e.flat.VIFAttach(ctx, e.task, drivers.VIF{"id": vif, "port_uuid": port1}); err != nil {
		t.Fatal(err)
	}
	if e.task.PortList[0].InternalInfo["tenant_vif_port_id"] != vif {
		t.Errorf("VIF not on the chosen port: %+v", e.task.PortList)
	}
	if err := e.flat.VIFAttach(ctx, e.task, drivers.VIF{"id": other, "portgroup_uuid": group1}); err != nil {
		t.Fatal(err)
	}
	if e.task.PortgroupList[0].InternalInfo["tenant_vif_port_id"] != other {
		t.Errorf("VIF not on the chosen port group: %+v", e.task.PortgroupList)
	}
}

// failingTask fails to save ports, as a task whose database went away.
type failingTask struct{ *fake.Task }

var errDB = errors.New("invalid connection")

func (failingTask) SavePort(context.Context, drivers.Port) error { return errDB }

// A failing database is not a network error: the conductor decides what
// it is.
func TestDatabaseErrorsPassThrough(t *testing.T) {
	e := newEnv(t)
	err := e.flat.VIFAttach(context.Background(), failingTask{e.task}, drivers.VIF{"id": e.vif(t)})
	if !errors.Is(err, errDB) {
		t.Errorf("error %v (%T), want the database's", err, err)
	}
}
