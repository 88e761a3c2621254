package network_test

import (
	"context"
	"net/http"
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
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/fakeneutron"
)

const (
	provisionNet  = "ironic-provision"
	provisionID   = "5eed0000-0000-4000-8000-0000000000a1"
	rescueNet     = "ironic-rescue"
	rescueID      = "5eed0000-0000-4000-8000-0000000000a2"
	secGroupKnown = "5eed0000-0000-4000-8000-0000000000b1"
)

// nenv is the neutron interface over the real client and a fake Neutron
// (through front, when a test makes Neutron misbehave).
type nenv struct {
	*env
	nif *network.NeutronInterface
	cfg network.Config
}

func newNeutronEnv(t *testing.T, front func(http.Handler) http.Handler, opts ...envOpt) *nenv {
	t.Helper()
	var cfg network.Config
	opts = append([]envOpt{func(c *network.Config, o *fakeneutron.Options) {
		c.ProvisioningNetwork = provisionNet
		c.RescuingNetwork = rescueNet
		o.Networks = append(o.Networks,
			map[string]any{"id": provisionID, "name": provisionNet},
			map[string]any{"id": rescueID, "name": rescueNet})
	}}, opts...)
	opts = append(opts, func(c *network.Config, _ *fakeneutron.Options) { cfg = *c })
	e := newEnv(t, opts...)
	url := e.neutron.URL
	if front != nil {
		url = fakeneutron.ForTestHandler(t, front(e.neutron.Server))
	}
	client := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: url}}, nil)
	sleep := func(context.Context, time.Duration) error { return nil }
	e.task.Node.Interfaces[drivers.Network] = "neutron"
	return &nenv{env: e, cfg: cfg, nif: network.NewNeutron(cfg, network.Deps{Neutron: client, Sleep: sleep})}
}

// withGroup gives the node a standalone PXE port (port1) and a port
// group of two ports without PXE, all with switch ports and physnet1.
func (e *nenv) withGroup() {
	llc := func(port string) *pyjson.Dict {
		return pyjson.DictOf("switch_id", "aa:bb:cc:dd:ee:ff", "port_id", port, "switch_info", "sw1")
	}
	e.task.PortList = []drivers.Port{
		{UUID: port1, Address: mac1, PXEEnabled: true, PhysicalNetwork: "physnet1", LocalLinkConnection: llc("Eth1"),
			InternalInfo: pyjson.DictOf(), Extra: pyjson.DictOf()},
		{UUID: port2, Address: mac2, PortgroupUUID: group1, PhysicalNetwork: "physnet1", LocalLinkConnection: llc("Eth2"),
			InternalInfo: pyjson.DictOf(), Extra: pyjson.DictOf()},
	}
	e.task.PortgroupList = []drivers.Portgroup{{UUID: group1, Name: "bond0", Address: macPG, Mode: "802.3ad",
		Properties:   pyjson.DictOf("miimon", "100", "bond_xmit_hash_policy", "layer3+4"),
		InternalInfo: pyjson.DictOf(), Extra: pyjson.DictOf()}}
}

func esc(mac string) string { return strings.ReplaceAll(mac, ":", "%3A") }

func TestNeutronValidate(t *testing.T) {
	ctx := context.Background()
	e := newNeutronEnv(t, nil)
	if err := e.nif.Validate(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/networks/ironic-cleaning",
		"GET /v2.0/networks?name=ironic-cleaning",
		"GET /v2.0/networks/ironic-provision",
		"GET /v2.0/networks?name=ironic-provision",
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of validate (-want +got):\n%s", diff)
	}
	e.task.Node.DriverInfo = pyjson.DictOf("provisioning_network", "nope")
	wantFault(t, e.nif.Validate(ctx, e.task), ironic.InvalidParameterValue, "provisioning network with name or UUID nope was not found")
	for _, id := range []string{"dup-1", "dup-2"} {
		if _, err := e.neutron.CreateNetwork(map[string]any{"id": id, "name": "dup"}); err != nil {
			t.Fatal(err)
		}
	}
	e.task.Node.DriverInfo = pyjson.DictOf("provisioning_network", "dup")
	wantFault(t, e.nif.Validate(ctx, e.task), ironic.InvalidParameterValue, "More than one provisioning network was found for name dup: dup-1, dup-2")
	e.task.Node.DriverInfo = pyjson.DictOf("rescuing_network", "dup")
	wantFault(t, e.nif.ValidateRescue(ctx, e.task), ironic.InvalidParameterValue, "More than one rescuing network was found for name dup: dup-1, dup-2")

	unset := newNeutronEnv(t, nil, func(c *network.Config, _ *fakeneutron.Options) { c.ProvisioningNetwork = "" })
	wantFault(t, unset.nif.Validate(ctx, unset.task), ironic.MissingParameterValue, "UUID or name of provisioning network is not set in configuration")
	wantFault(t, unset.nif.ValidateInspection(ctx, unset.task), ironic.UnsupportedDriverExtension,
		"Driver fake-hardware does not support inspection (disabled or not implemented).")
	// The cleaning network is checked first.
	noClean := newNeutronEnv(t, nil, func(c *network.Config, _ *fakeneutron.Options) { c.CleaningNetwork = "" })
	wantFault(t, noClean.nif.Validate(ctx, noClean.task), ironic.MissingParameterValue, "UUID or name of cleaning network is not set in configuration")
}

// The provisioning network gets a port for each PXE port, with the
// security groups; deploy then binds the tenant VIFs with the switch
// ports (and the bond of the port group), tear down unbinds them.
func TestNeutronProvisioningAndTenantNetworks(t *testing.T) {
	ctx := context.Background()
	e := newNeutronEnv(t, nil, func(c *network.Config, _ *fakeneutron.Options) {
		c.ProvisioningSecurityGroups = []string{secGroupKnown}
	})
	if _, err := e.neutron.CreateSecurityGroup(map[string]any{"id": secGroupKnown, "name": "prov"}); err != nil {
		t.Fatal(err)
	}
	e.withGroup()
	e.calls()
	if err := e.nif.AddProvisioningNetwork(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	nid := e.task.PortList[0].InternalInfo.Get("provisioning_vif_port_id")
	id, _ := nid.(string)
	if id == "" {
		t.Fatalf("provisioning_vif_port_id not recorded: %v", e.task.PortList[0].InternalInfo)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/networks/ironic-provision",
		"GET /v2.0/networks?name=ironic-provision",
		"GET /v2.0/ports?mac_address=" + esc(mac1) + "&network_id=" + provisionID,
		"GET /v2.0/security-groups?id=" + secGroupKnown,
		`POST /v2.0/ports {"port":{"admin_state_up":true,"binding:vnic_type":"baremetal","device_id":"` + nodeUUID + `","network_id":"` + provisionID + `","security_groups":["` + secGroupKnown + `"]}}`,
		"GET /v2.0/ports/" + id,
		`PUT /v2.0/ports/` + id + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_link_information":[{"port_id":"Eth1","switch_id":"aa:bb:cc:dd:ee:ff","switch_info":"sw1"}]},"device_owner":"baremetal:none","mac_address":"` + mac1 + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of add_provisioning_network (-want +got):\n%s", diff)
	}
	if p, _ := e.neutron.Port(id); p["binding:host_id"] != nodeUUID || p["binding:vnic_type"] != "baremetal" {
		t.Errorf("provisioning port %v", p)
	}
	if err := e.nif.RemoveProvisioningNetwork(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.neutron.Port(id); ok {
		t.Errorf("provisioning port left in Neutron")
	}
	if _, ok := e.task.PortList[0].InternalInfo.Lookup("provisioning_vif_port_id"); ok {
		t.Errorf("provisioning_vif_port_id left")
	}

	// Tenant VIFs: the port group's first, then port1's.
	net, _ := e.neutron.CreateNetwork(map[string]any{"name": "tenant-phys", "provider:physical_network": "physnet1"})
	vifPG, _ := e.neutron.CreatePort(map[string]any{"network_id": net["id"]})
	vif1, _ := e.neutron.CreatePort(map[string]any{"network_id": net["id"]})
	vg, v1 := vifPG["id"].(string), vif1["id"].(string)
	e.nif.VIFAttach(ctx, e.task, drivers.VIF{"id": vg}) //nolint:errcheck // checked below
	e.nif.VIFAttach(ctx, e.task, drivers.VIF{"id": v1}) //nolint:errcheck // checked below
	if e.task.PortgroupList[0].InternalInfo.Get("tenant_vif_port_id") != vg || e.task.PortList[0].InternalInfo.Get("tenant_vif_port_id") != v1 {
		t.Fatalf("attach: %v %v", e.task.PortgroupList[0].InternalInfo, e.task.PortList[0].InternalInfo)
	}
	e.calls()
	if err := e.nif.ConfigureTenantNetworks(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + v1,
		`PUT /v2.0/ports/` + v1 + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_link_information":[{"port_id":"Eth1","switch_id":"aa:bb:cc:dd:ee:ff","switch_info":"sw1"}]},"binding:vnic_type":"baremetal","mac_address":"` + mac1 + `"}}`,
		"GET /v2.0/ports/" + vg,
		`PUT /v2.0/ports/` + vg + ` {"port":{"binding:host_id":"` + nodeUUID + `","binding:profile":{"local_group_information":{"bond_mode":"802.3ad","bond_properties":{"bond_miimon":"100","bond_xmit_hash_policy":"layer3+4"},"id":"` + group1 + `","name":"bond0"},"local_link_information":[{"port_id":"Eth2","switch_id":"aa:bb:cc:dd:ee:ff","switch_info":"sw1"}]},"binding:vnic_type":"baremetal","mac_address":"` + macPG + `"}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of configure_tenant_networks (-want +got):\n%s", diff)
	}
	// A port group without an address keeps its VIF's MAC.
	e.task.PortgroupList[0].Address = ""
	if err := e.nif.UnconfigureTenantNetworks(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{
		"GET /v2.0/ports/" + v1,
		`PUT /v2.0/ports/` + v1 + ` {"port":{"binding:host_id":"","binding:profile":{}}}`,
		"GET /v2.0/ports/" + v1,
		`PUT /v2.0/ports/` + v1 + ` {"port":{"mac_address":null}}`,
		"GET /v2.0/ports/" + vg,
		`PUT /v2.0/ports/` + vg + ` {"port":{"binding:host_id":"","binding:profile":{}}}`,
	}, e.calls()); diff != "" {
		t.Errorf("Neutron calls of unconfigure_tenant_networks (-want +got):\n%s", diff)
	}
	if e.nif.NeedPowerOn(ctx, e.task) {
		t.Errorf("need_power_on without Smart NIC ports")
	}
	e.task.PortList[0].IsSmartNIC = true
	if !e.nif.NeedPowerOn(ctx, e.task) {
		t.Errorf("need_power_on with a Smart NIC port is false")
	}
}

func TestNeutronTenantNetworksWithoutVIFs(t *testing.T) {
	ctx := context.Background()
	e := newNeutronEnv(t, nil)
	e.withGroup()
	wantFault(t, e.nif.ConfigureTenantNetworks(ctx, e.task), ironic.NetworkError,
		"No neutron ports or portgroups are associated with node "+nodeUUID)
	e.task.PortList, e.task.PortgroupList = nil, nil
	wantFault(t, e.nif.ConfigureTenantNetworks(ctx, e.task), ironic.NetworkError, "No ports are associated with node "+nodeUUID)
}

func TestNeutronRescuingAndInspectionNetworks(t *testing.T) {
	ctx := context.Background()
	e := newNeutronEnv(t, nil, func(c *network.Config, _ *fakeneutron.Options) { c.InspectionNetwork = rescueID })
	e.withGroup()
	ports, err := e.nif.AddRescuingNetwork(ctx, e.task)
	if err != nil {
		t.Fatal(err)
	}
	id := e.task.PortList[0].InternalInfo.Get("rescuing_vif_port_id")
	if len(ports) != 1 || ports[port1] != id {
		t.Fatalf("rescuing ports %v, internal_info %v", ports, e.task.PortList[0].InternalInfo)
	}
	if p, _ := e.neutron.Port(ports[port1]); p["network_id"] != rescueID {
		t.Errorf("rescuing port on %v", p["network_id"])
	}
	if cur, _ := e.nif.GetCurrentVIF(ctx, e.task, port1); cur != id {
		t.Errorf("current VIF while rescuing %q", cur)
	}
	if err := e.nif.RemoveRescuingNetwork(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.neutron.Port(ports[port1]); ok {
		t.Errorf("rescuing port left")
	}
	if err := e.nif.ValidateInspection(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	ports, err = e.nif.AddInspectionNetwork(ctx, e.task)
	if err != nil || e.task.PortList[0].InternalInfo.Get("inspection_vif_port_id") != ports[port1] {
		t.Fatalf("inspection ports %v, %v", ports, err)
	}
	if err := e.nif.RemoveInspectionNetwork(ctx, e.task); err != nil {
		t.Fatal(err)
	}
	// driver_info overrides the option.
	e.task.Node.DriverInfo = pyjson.DictOf("inspection_network", "nope")
	_, err = e.nif.AddInspectionNetwork(ctx, e.task)
	wantFault(t, err, ironic.InvalidParameterValue, "inspection network with name or UUID nope was not found")
}

func TestNeutronMissingSecurityGroup(t *testing.T) {
	e := newNeutronEnv(t, nil, func(c *network.Config, _ *fakeneutron.Options) {
		c.CleaningSecurityGroups = []string{"5eed0000-0000-4000-8000-0000000000ff"}
	})
	e.withGroup()
	_, err := e.nif.AddCleaningNetwork(context.Background(), e.task)
	wantFault(t, err, ironic.NetworkError,
		"Could not find these security groups (specified via ironic config) in neutron: ['5eed0000-0000-4000-8000-0000000000ff']")
}

// A port create Neutron refuses fails the whole network when no port
// could be created; the ports on the network are rolled back.
func TestNeutronPortCreateFails(t *testing.T) {
	failCreate := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/v2.0/ports" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusConflict)
				_, _ = w.Write([]byte(`{"NeutronError": {"type": "MacAddressInUse", "message": "Unable to complete operation for network. The mac address is in use.", "detail": ""}}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	e := newNeutronEnv(t, failCreate)
	e.withGroup()
	// A leftover port of an earlier run, which the rollbacks delete.
	left, _ := e.neutron.CreatePort(map[string]any{"network_id": provisionID, "mac_address": mac1})
	e.calls()
	err := e.nif.AddProvisioningNetwork(context.Background(), e.task)
	wantFault(t, err, ironic.NetworkError, "Failed to create neutron ports for node's "+nodeUUID+" ports ['"+port1+"'].")
	list := "GET /v2.0/ports?mac_address=" + esc(mac1) + "&network_id=" + provisionID
	got := e.calls()
	want := []string{
		"GET /v2.0/networks/ironic-provision",
		"GET /v2.0/networks?name=ironic-provision",
		list,
		"DELETE /v2.0/ports/" + left["id"].(string),
		// The POST, which the front refused, then the rollback.
		list,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Neutron calls (-want +got):\n%s", diff)
	}
	if _, ok := e.task.PortList[0].InternalInfo.Lookup("provisioning_vif_port_id"); ok {
		t.Errorf("provisioning_vif_port_id recorded after a failure")
	}
}

// A Neutron that can't be reached is a NetworkError with the client's
// text, and no port is changed.
func TestNeutronDown(t *testing.T) {
	cfg := network.DefaultConfig()
	cfg.CleaningNetwork, cfg.ProvisioningNetwork = "c", "p"
	client := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: "http://127.0.0.1:9"}}, nil)
	nif := network.NewNeutron(cfg, network.Deps{Neutron: client})
	task := &fake.Task{Node: &fake.Node{UUID: nodeUUID}, PortList: []drivers.Port{{UUID: port1, Address: mac1, PXEEnabled: true}}}
	const msg = "Unable to find a version discovery document at http://127.0.0.1:9, " +
		"the service is unavailable or misconfigured. Required version range (any - any), version hack disabled."
	wantFault(t, nif.Validate(context.Background(), task), ironic.NetworkError, msg)
	wantFault(t, nif.AddProvisioningNetwork(context.Background(), task), ironic.NetworkError, msg)
	_, err := nif.AddCleaningNetwork(context.Background(), task)
	wantFault(t, err, ironic.NetworkError, msg)
}
