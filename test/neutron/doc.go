// Package neutron compares the "neutron" network interface of our
// all-in-one with Python Ironic 21.4's (test/internal/cluster), both
// talking to a fake Neutron (test/fakeneutron) that records every
// request. The scenario: a fake-hardware node with the direct deploy
// interface and a fake agent (test/fakeipa), a PXE port and a port group
// of one more port, all with local_link_connection and physnet1;
// manage → provide with automated cleaning through the cleaning network;
// two tenant VIFs attached; deploy through the provisioning network,
// switching to the tenant VIFs at the end; undeploy with cleaning; then
// bad input (a provisioning network that does not exist, two networks of
// one name, a port create Neutron refuses, Neutron down). The Neutron
// requests of each phase (UUIDs normalised in order of appearance) and
// each phase's outcome are compared with a golden recorded from Python:
//
//	go test -count=1 -p 1 ./test/neutron -update
//
// TestNetworkDataAgainstReference compares get_node_network_data with
// 21.4's neutron.get_neutron_port_data, run by /usr/bin/python3 against
// the same fake Neutron state.
package neutron
