package amqp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/states"
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
	uuid := "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	fake.SetResult("CreateNode", &models.Node{ID: 42, UUID: uuid, Name: models.Ptr("py-node"), Driver: "fake-hardware",
		Extra: models.JSONDict{"a": json.Number("1")}})
	fake.SetResult("UpdateNode", &models.Node{ID: 42, UUID: uuid, Driver: "fake-hardware", Maintenance: true})
	fake.SetResult("ValidateDriverInterfaces", map[string]rpc.ValidationResult{"power": {Result: true}})
	fake.SetError("DoProvisioningAction", ironic.Errorf(ironic.NodeLocked, "Node %s is locked by host cond-py, please retry after the current operation is completed.", uuid))
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
	if created.UUID != uuid || models.Deref(created.Name) != "py-node" || created.Extra["a"] != json.Number("1") || calls[0].Context.UserID != "u1" || calls[0].Context.RequestID != "req-py" {
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
