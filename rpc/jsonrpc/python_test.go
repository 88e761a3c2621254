package jsonrpc_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
	"github.com/goironic/ironic/states"
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

	uuid := "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	fake.SetResult("CreateNode", &models.Node{ID: 42, UUID: uuid, Name: models.Ptr("py-node"), Driver: "fake-hardware",
		Extra: models.DictOf("a", json.Number("1"))})
	fake.SetResult("UpdateNode", &models.Node{ID: 42, UUID: uuid, Driver: "fake-hardware", Maintenance: true})
	fake.SetResult("ValidateDriverInterfaces", map[string]rpc.ValidationResult{"power": {Result: true}})
	fake.SetError("DoProvisioningAction", ironic.Errorf(ironic.NodeLocked, "Node %s is locked by host cond-py, please retry after the current operation is completed.", uuid))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/python3", "testdata/pyclient.py", strconv.Itoa(port), ".127.0.0.1").CombinedOutput()
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	var res []map[string]any
	lines := out
	if i := lastLine(out); i >= 0 {
		lines = out[i:]
	}
	if err := json.Unmarshal(lines, &res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
	want := `[{"create_node":{"extra":{"a":1},"id":42,"name":"py-node","uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}},{"update_node":{"maintenance":true}},{"change_node_power_state":null},{"validate_driver_interfaces":{"power":{"result":true}}},{"NodeLocked":{"code":409,"message":"Node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 is locked by host cond-py, please retry after the current operation is completed."}}]`
	got, _ := json.Marshal(res)
	if string(got) != want {
		t.Errorf("python saw\n %s\nwant\n %s", got, want)
	}
	calls := fake.Calls()
	if len(calls) != 5 {
		t.Fatalf("server saw %d calls", len(calls))
	}
	created := calls[0].Args[0].(*models.Node)
	if created.UUID != uuid || models.Deref(created.Name) != "py-node" || created.Extra.Get("a") != json.Number("1") || calls[0].Context.UserID != "u1" || calls[0].Context.RequestID != "req-py" {
		t.Errorf("create_node arrived as %+v (context %+v)", created, calls[0].Context)
	}
	if upd := calls[1].Args[0].(rpc.NodeUpdate); !upd.Node.Maintenance || len(upd.Changes) == 0 {
		t.Errorf("update_node arrived as %+v", upd)
	}
	if calls[2].Method != "ChangeNodePowerState" || calls[2].Args[1] != states.PowerOn {
		t.Errorf("power: %+v", calls[2])
	}
}

func lastLine(b []byte) int {
	for i := len(b) - 2; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return -1
}
