"""Prints what Ironic 21.4's ironic.common.neutron.get_neutron_port_data
returns for a Neutron port with a fixed IPv4 and a fixed IPv6 address,
each subnet with a gateway and host routes (a fake Neutron client answers
its three calls). Regenerate neutron.json with:

  /usr/bin/python3 agent/boot/testdata/netdata/neutron_port_data.py > agent/boot/testdata/netdata/neutron.json
"""
import json

from ironic.common import neutron


class Obj(dict):
    def __getattr__(self, k):
        return self[k]


class FakeClient:
    def get_port(self, vif_id):
        return Obj(id=vif_id, name='', network_id='net-1', mac_address='52:54:00:12:34:56',
                   fixed_ips=[{'subnet_id': 'subnet-v4', 'ip_address': '192.0.2.10'},
                              {'subnet_id': 'subnet-v6', 'ip_address': '2001:db8:1::10'}])

    def get_network(self, network_id):
        return Obj(id=network_id, mtu=1450)

    def get_subnet(self, subnet_id):
        if subnet_id == 'subnet-v4':
            return Obj(id=subnet_id, cidr='192.0.2.0/24', ip_version=4, gateway_ip='192.0.2.1',
                       host_routes=[{'destination': '198.51.100.0/24', 'nexthop': '192.0.2.254'}])
        return Obj(id=subnet_id, cidr='2001:db8:1::/64', ip_version=6, gateway_ip='2001:db8:1::1',
                   host_routes=[{'destination': '2001:db8:2::/48', 'nexthop': '2001:db8:1::fe'}])


print(json.dumps(neutron.get_neutron_port_data('port-uuid-1', 'vif-uuid-1', client=FakeClient()), indent=2, sort_keys=True))
