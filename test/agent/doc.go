// Package agent tests goironic's agent (package agent, IPA's behaviour
// in Go) against Ironic itself: our all-in-one and Python Ironic 21.4's
// (test/internal/cluster), each deploying a fake-hardware node with the
// direct deploy interface from an http image the test serves, rescuing
// and unrescuing it, undeploying it with automated cleaning, and failing
// a deploy on a bad checksum. The agent runs in the test process as a
// host process would, with a file-backed Disks: the image lands in a
// temporary file, checksummed by the fake as agent/disk does. The
// requests Ironic sent to the agent (the agent's command log),
// normalised, are compared with a golden recorded from Python Ironic;
// regenerate it with
//
//	go test -count=1 -p 1 ./test/agent -update
//
// TestFastTrack (fasttrack_test.go) cleans and deploys a node with
// [deploy]fast_track on and off on both servers; its golden is
// testdata/fasttrack.golden (regenerated with -run TestFastTrack -update).
//
// TestAgentBinary runs cmd/ironic-agent itself as a host process (flags)
// through a custom-agent deploy with our all-in-one.
package agent
