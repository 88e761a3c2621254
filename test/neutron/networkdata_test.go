package neutron

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/drivers/network/neutronclient"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/fakeneutron"
	"github.com/goironic/ironic/test/internal/cluster"
)

// portDataScript prints 21.4's neutron.get_neutron_port_data for each
// (Ironic port, VIF) pair given, merged as NeutronVIFPortIDMixin.
// get_node_network_data merges them, as JSON in Python's key order.
const portDataScript = `
import collections, json, sys
from ironic.common import neutron
from ironic.conf import CONF
CONF(['--config-file', sys.argv[1]], project='ironic')
data = collections.defaultdict(list)
for pair in sys.argv[2:]:
    port, vif = pair.split('=')
    for field, value in neutron.get_neutron_port_data(port, vif).items():
        if value:
            data[field].extend(value)
print(json.dumps(data))
`

// TestNetworkDataAgainstReference builds network_data from Neutron's
// ports, subnets and networks (two ports with tenant VIFs; a dual-stack
// VIF with a name, a gateway, host routes and DNS servers; an IPv4-only
// VIF; a port group member without VIF) and compares it, key order
// included, with what 21.4's get_neutron_port_data builds from the same
// Neutron state (testdata/network_data.golden; -update runs Python).
func TestNetworkDataAgainstReference(t *testing.T) {
	const (
		port1 = "8a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b0001"
		port2 = "8a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b0002"
		port3 = "8a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b0003"
		v6    = "5eed0000-0000-4000-8000-0000000000a4"
		vif1  = "5eed0000-0000-4000-8000-0000000000e1"
		vif2  = "5eed0000-0000-4000-8000-0000000000e2"
	)
	fn := fakeneutron.New(fakeneutron.Options{Networks: networks()})
	mustCreate := func(f func(map[string]any) (map[string]any, error), body map[string]any) {
		t.Helper()
		if _, err := f(body); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(fn.CreateSubnet, map[string]any{"id": subnetID, "network_id": tenantID, "cidr": "10.20.0.0/24", "ip_version": 4,
		"gateway_ip": "10.20.0.1", "dns_nameservers": []any{"10.20.0.53"},
		"host_routes": []any{map[string]any{"destination": "192.168.0.0/16", "nexthop": "10.20.0.254"}}})
	mustCreate(fn.CreateSubnet, map[string]any{"id": v6, "network_id": tenantID, "cidr": "2001:db8::/64", "ip_version": 6,
		"gateway_ip": "2001:db8::1", "ipv6_address_mode": "dhcpv6-stateful",
		"host_routes": []any{map[string]any{"destination": "2001:db8:1::/48", "nexthop": "2001:db8::fe"}}})
	mustCreate(fn.CreatePort, map[string]any{"id": vif1, "name": "eth0-vif", "network_id": tenantID, "mac_address": mac1,
		"fixed_ips": []any{map[string]any{"subnet_id": subnetID, "ip_address": "10.20.0.10"},
			map[string]any{"subnet_id": v6, "ip_address": "2001:db8::10"}}})
	mustCreate(fn.CreatePort, map[string]any{"id": vif2, "network_id": tenantID, "mac_address": mac2,
		"fixed_ips": []any{map[string]any{"subnet_id": subnetID, "ip_address": "10.20.0.11"}}})
	srv := httptest.NewServer(fn)
	t.Cleanup(srv.Close)

	golden := filepath.Join("testdata", "network_data.golden")
	if *update {
		cluster.RequirePython(t, "ironic.common.neutron", "python3-ironic")
		conf := filepath.Join(t.TempDir(), "ironic.conf")
		ini := cluster.INI{"neutron": {"auth_type": "none", "endpoint_override": srv.URL}}
		if err := os.WriteFile(conf, []byte(ini.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, cluster.PythonBin, "-c", portDataScript, conf, port1+"="+vif1, port2+"="+vif2).Output()
		if err != nil {
			t.Fatalf("21.4's get_neutron_port_data: %v\n%s", err, out)
		}
		// Python's json.dumps separators; ours is compact.
		var v pyjson.Dict
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(&v)
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}

	cfg := network.DefaultConfig()
	client := neutronclient.New(neutronclient.Config{Options: keystoneauth.Options{AuthType: "none", EndpointOverride: srv.URL}}, nil)
	nif := network.NewNeutron(cfg, network.Deps{Neutron: client})
	task := &fake.Task{
		Node: &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Interfaces: map[drivers.Kind]string{drivers.Network: "neutron"}},
		PortList: []drivers.Port{
			{UUID: port1, Address: mac1, InternalInfo: pyjson.DictOf("tenant_vif_port_id", vif1)},
			{UUID: port2, Address: mac2, InternalInfo: pyjson.DictOf("tenant_vif_port_id", vif2)},
			{UUID: port3, Address: macPG, PortgroupUUID: "5a2bd8f1-7f1a-4e0a-9f8e-0b7d1c0b00aa", InternalInfo: pyjson.DictOf()},
		},
	}
	nd, err := nif.GetNodeNetworkData(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(nd)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Errorf("network_data differs from 21.4's (%s)\n got %s\nwant %s", golden, got, bytes.TrimSpace(want))
	}

	// A VIF Neutron doesn't know: 21.4's NetworkError.
	task.PortList[1].InternalInfo = pyjson.DictOf("tenant_vif_port_id", "gone")
	_, err = nif.GetNodeNetworkData(context.Background(), task)
	wantMsg := "Unable to get port info for gone. Error: No Port found for gone: Client Error for url: " + srv.URL + "/v2.0/ports/gone, Port gone could not be found."
	if err == nil || err.Error() != wantMsg {
		t.Errorf("error %v\nwant %s", err, wantMsg)
	}
}
