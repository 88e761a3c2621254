// Package glance deploys nodes whose image comes from Glance (a fake
// Glance v2 with a Swift temp URL store, test/fakeglance), from an http
// URL and from file:// paths, on our all-in-one and on Python Ironic
// 21.4, with a fake agent (test/fakeipa), and compares the outcome: the
// deploy request's answer, the node's state, last_error, instance_info
// and the image_info the agent was sent.
//
// TestAgainstReference compares ours with the reference's run recorded in
// testdata/reference.json (re-record it with go test ./test/glance
// -update, which needs python3-ironic, python3-glanceclient and
// python3-swiftclient). What differs between runs is normalised: the
// servers' URLs, the node's UUID, the test's directory, and a Swift temp
// URL's signature and expiry, which are first checked to be a valid
// signature with the configured key (the exact signature is held to
// python3-swiftclient's in internal/glance TestSwiftTempURL). Glance's
// image_properties are compared as a set: the reference's order is a
// Python set's. TestGlanceThroughKeystone runs a few cases on both with
// Glance found in a real Keystone's catalog (skipped without Keystone).
package glance
