// Package redfish holds the black-box test of the redfish hardware type:
// the same `openstack baremetal` scenario runs against Python Ironic 21.4
// (with Debian's python3-sushy) and against our all-in-one, each talking
// to a fresh emulated BMC (test/redfishbmc); the BMC's request log (method,
// path, body, in order) and the node's fields after every step are
// compared. The reference's side is recorded in testdata/reference.json:
//
//	go test -count=1 -p 1 ./test/redfish -run TestScenario -update
//
// re-records it from a live reference (Python Ironic required).
// Differences that are ours on purpose are listed, step by step, in
// departures (scenario_test.go) and in docs/departures.md.
package redfish
