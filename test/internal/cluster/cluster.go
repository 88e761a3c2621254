// Package cluster is the harness of the black-box tests: it builds this
// module's commands once per test process, writes ironic.conf, starts and
// stops our servers and Debian's Python Ironic (all-in-one, ironic-api,
// ironic-conductor, ironic-dbsync) as processes, gives tests databases on
// MariaDB (db/dbtest) beside the RabbitMQ broker (rpc/amqp/rabbittest),
// waits for readiness within bounded timeouts, and prints the end of a
// service's log when its test failed.
//
//   - Build and Bin: `go build -o` into a temporary directory of the
//     test process, never into the source tree.
//   - Start and Spec: one service; Deployment: the services of one test
//     sharing a directory and a base INI (split deployments, interop).
//   - Process: a process group with its log, stopped with SIGTERM, then
//     SIGKILL; it dies with the test process.
//   - Client: REST requests at a microversion; Eventually: bounded polls.
//
// A package that uses it calls Main from TestMain.
package cluster

import (
	"os"
	"testing"

	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
)

// Main runs the tests, then stops the shared MariaDB and RabbitMQ (if
// started) and removes the built binaries: func TestMain(m *testing.M) {
// cluster.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	rabbittest.StopShared()
	dbtest.StopShared()
	removeBinaries()
	os.Exit(code)
}
