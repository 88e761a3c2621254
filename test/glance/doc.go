// Package glance deploys nodes whose image comes from Glance (a fake
// Glance v2 with a Swift temp URL store, test/fakeglance), from an http
// URL and from file:// paths, on our all-in-one and on Python Ironic
// 21.4, with a fake agent (test/fakeipa), and compares the outcome: the
// deploy request's answer, the node's state, last_error, instance_info
// and the image_info the agent was sent (testdata/reference.json,
// re-recorded from the reference with go test ./test/glance -update).
package glance
