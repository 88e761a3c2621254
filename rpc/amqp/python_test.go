package amqp_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// TestPythonClientCallsGoServer: Ironic's own rpcapi.ConductorAPI (Debian's
// python3-ironic on oslo.messaging) calls our server; both sides must read
// each other's messages.
func TestPythonClientCallsGoServer(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/ironic/conductor/rpcapi.py"); err != nil {
		t.Skip("python3-ironic is not installed")
	}
	b := rabbittest.Shared(t)
	fake, _, _ := setup(t, b, "cond-py", testConfig(b))
	oslotest.SetPyClientResults(fake)
	cmd := exec.Command("/usr/bin/python3", "testdata/pyclient.py", b.TransportURL(), rpc.Topic+".cond-py")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("python client hung")
	}
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)
}
