// Package cli checks that the unmodified OpenStack command-line client
// (`openstack baremetal`, from python3-openstackclient and
// python3-ironicclient) works against our all-in-one Ironic.
//
// The test (TestBaremetalCLI) builds github.com/goironic/ironic/cmd/ironic,
// starts it with a generated ironic.conf (noauth, in-process RPC, SQLite in
// a temporary directory, a free loopback port), runs the CLI with
// `-f json` and checks the parsed answers. It is black-box: nothing here
// imports the server's packages.
//
// The sub-tests run in parallel, one per resource; each CLI call costs
// about two seconds of CPU (Python start-up), so the test takes minutes
// and is skipped with -short.
//
// Environment:
//
//	IRONIC_TEST_SKIP_CLI=1   skip (rather than fail) when the CLI is not installed
//	IRONIC_CLI_PORT=N      our server listens on port N (else a free one)
//	IRONIC_CLI_TARGET=URL    run the CLI against an already running Ironic
//	                         (e.g. the reference at http://127.0.0.1:6390)
//	                         instead of building and starting ours; checks
//	                         that depend on our configuration are skipped and
//	                         the objects created are deleted afterwards
package cli
