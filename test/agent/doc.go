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
// TestDeployFailures fails deploys as issue 13 lists them (a checksum
// mismatch, an image URL that 404s at Ironic's HEAD or only at the
// agent's GET, no disk of 4 GiB without hints, hints no disk matches, an
// image larger than its disk, cached or streamed, an agent whose
// heartbeats stop, with [conductor]deploy_callback_timeout at 6 s) on
// both servers with the same agent, here on agent/disk's real Manager
// over a fake sysfs tree and a sparse file as /dev/vda, so its errors
// are IPA's. The node afterwards (provision and target state,
// last_error, maintenance, fault, power state) and the commands Ironic
// sent are compared with testdata/failures.golden, recorded from Python
// Ironic by the same -update flag.
//
// TestAgentBinary runs cmd/ironic-agent itself as a host process (flags)
// through a custom-agent deploy with our all-in-one.
package agent
