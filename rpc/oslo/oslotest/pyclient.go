package oslotest

import (
	"encoding/json"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// PyClientUUID is the node testdata/pyclient.py (rpc/amqp, rpc/jsonrpc)
// creates.
const PyClientUUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"

// SetPyClientResults prepares f for a pyclient.py run.
func SetPyClientResults(f *Fake) {
	f.SetResult("CreateNode", &models.Node{ID: 42, UUID: PyClientUUID, Name: models.Ptr("py-node"), Driver: "fake-hardware",
		Extra: models.DictOf("a", json.Number("1"))})
	f.SetResult("UpdateNode", &models.Node{ID: 42, UUID: PyClientUUID, Driver: "fake-hardware", Maintenance: true})
	f.SetResult("ValidateDriverInterfaces", map[string]rpc.ValidationResult{"power": {Result: true}})
	f.SetError("DoProvisioningAction", ironic.Errorf(ironic.NodeLocked, "Node %s is locked by host cond-py, please retry after the current operation is completed.", PyClientUUID))
}

// CheckPyClientRun checks pyclient.py's output (its last line) and what f
// saw.
func CheckPyClientRun(t testing.TB, f *Fake, out []byte) {
	t.Helper()
	lines := out
	for i := len(out) - 2; i >= 0; i-- {
		if out[i] == '\n' {
			lines = out[i+1:]
			break
		}
	}
	var res []map[string]any
	if err := json.Unmarshal(lines, &res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
	want := `[{"create_node":{"extra":{"a":1},"id":42,"name":"py-node","uuid":"1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}},{"update_node":{"maintenance":true}},{"change_node_power_state":null},{"validate_driver_interfaces":{"power":{"result":true}}},{"NodeLocked":{"code":409,"message":"Node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 is locked by host cond-py, please retry after the current operation is completed."}}]`
	got, _ := json.Marshal(res)
	if string(got) != want {
		t.Errorf("python saw\n %s\nwant\n %s", got, want)
	}
	calls := f.Calls()
	if len(calls) != 5 {
		t.Fatalf("server saw %d calls", len(calls))
	}
	created := calls[0].Args[0].(*models.Node)
	if created.UUID != PyClientUUID || models.Deref(created.Name) != "py-node" || created.Extra.Get("a") != json.Number("1") || calls[0].Context.UserID != "u1" || calls[0].Context.RequestID != "req-py" {
		t.Errorf("create_node arrived as %+v (context %+v)", created, calls[0].Context)
	}
	if upd := calls[1].Args[0].(rpc.NodeUpdate); !upd.Node.Maintenance || len(upd.Changes) == 0 {
		t.Errorf("update_node arrived as %+v", upd)
	}
	if calls[2].Method != "ChangeNodePowerState" || calls[2].Args[1] != states.PowerOn {
		t.Errorf("power: %+v", calls[2])
	}
}
