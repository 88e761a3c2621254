// Package split holds black-box tests of the split deployment: the
// ironic-api and ironic-conductor binaries, built from this module, run as
// separate processes on a private MariaDB (db/dbtest) and a private
// RabbitMQ (rpc/amqp/rabbittest), driven through the REST API and the real
// `openstack baremetal` CLI. They cover the node lifecycle spread over two
// conductors, a conductor killed with SIGKILL, a broker restart and a
// database outage. TestJSONRPCSplit runs the deployment on json-rpc
// instead of RabbitMQ: each conductor listens on its own loopback
// address, which is its host name.
//
// The tests skip when RabbitMQ, MariaDB or the CLI is missing, unless the
// environment says they are expected: IRONIC_TEST_REQUIRE_RABBITMQ=1,
// IRONIC_TEST_REQUIRE_MARIADB=1, and a missing CLI fails unless
// IRONIC_TEST_SKIP_CLI=1 (as in test/cli). test.sh sets the first two.
package split
