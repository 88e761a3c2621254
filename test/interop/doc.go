// Package interop is the drop-in proof of the split deployment: our
// ironic-api and ironic-conductor and Debian's Python ones (python3-ironic
// 21.4) run on one MariaDB database and one RabbitMQ, talk to each other
// over oslo.messaging, and the unmodified `openstack baremetal` CLI takes
// fake-hardware nodes through their lifecycle:
//
//   - TestPythonAPIGoConductor: Python's ironic-api in front of our
//     ironic-conductor, on a schema created by Python's ironic-dbsync;
//   - TestGoAPIPythonConductor: our ironic-api in front of Python's
//     ironic-conductor, on a schema created by our ironic-dbsync;
//   - TestMixedRing: both conductors at once behind both APIs; every node
//     is served by the conductor that both APIs' hash rings agree on;
//   - TestJSONRPCPythonAPIGoConductor, TestJSONRPCGoAPIPythonConductor:
//     the same pairs on json-rpc ([DEFAULT]rpc_transport = json-rpc, no
//     broker), ironic_lib 5.3's client and server against ours, through
//     the REST API (create, properties, update, NodeLocked, provisioning,
//     power, delete); TestJSONRPCMixedRing: the mixed ring on json-rpc,
//     both conductors on one [json_rpc]port, each at its own loopback
//     address.
//
// The tests build ./cmd/ironic-api, ./cmd/ironic-conductor and
// ./cmd/ironic-dbsync. They skip when Python Ironic or the CLI is missing
// unless IRONIC_TEST_REQUIRE_PYTHON=1, when MariaDB is missing unless
// IRONIC_TEST_REQUIRE_MARIADB=1, and when rabbitmq-server is missing unless
// IRONIC_TEST_REQUIRE_RABBITMQ=1 (then they fail); test.sh sets all three
// and scripts/install-test-deps.sh installs the packages. They skip in
// -short mode.
package interop
