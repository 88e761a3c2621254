// Package ipa tests the agent deploy path end to end: the all-in-one
// (cmd/ironic, built and run by test/internal/cluster) with a fake Ironic
// Python Agent (test/fakeipa) and an HTTP file server for the image. A
// fake-hardware node with the "direct" deploy interface is deployed
// through the API from an http image_source; the agent looks its node up,
// heartbeats, writes the image, reports partitions, installs the boot
// loader and powers off; the node becomes active. Undeploying with
// automated cleaning runs the agent's erase_devices_metadata and
// erase_devices, and the node becomes available.
package ipa
