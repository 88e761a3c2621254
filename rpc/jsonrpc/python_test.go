package jsonrpc_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// TestPythonClientCallsGoServer: Ironic 21.4's rpcapi.ConductorAPI on
// ironic_lib's json-rpc client calls our server; the objects, the context
// and a fault's class and code must survive both ways.
func TestPythonClientCallsGoServer(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/ironic_lib/json_rpc/client.py"); err != nil {
		t.Skip("python3-ironic-lib is not installed")
	}
	fake := oslotest.New()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: jsonrpc.NewServer("127.0.0.1", fake, nil, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := l.Addr().(*net.TCPAddr).Port

	oslotest.SetPyClientResults(fake)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/python3", "testdata/pyclient.py", strconv.Itoa(port), ".127.0.0.1").CombinedOutput()
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)
}
