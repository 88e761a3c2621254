package oslo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// nodeUUIDs is a NodeUUIDLookup over a map.
type nodeUUIDs map[int64]string

func (m nodeUUIDs) NodeUUIDsByID(_ context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	for _, id := range ids {
		if u, ok := m[id]; ok {
			out[id] = u
		}
	}
	return out, nil
}

// TestPortResultsCarryNodeUUID: the Port and Portgroup that create_port,
// update_port and update_portgroup return carry node_uuid, as Python's
// conductor fills it from the database; Ironic's API reads it to show the
// object and fails with "Cannot load 'node_uuid' in the base class"
// without it.
func TestPortResultsCarryNodeUUID(t *testing.T) {
	const nodeUUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	nodeID := int64(7)
	port := &models.Port{ID: 3, UUID: "5b0d3c1e-0000-4000-8000-000000000003", NodeID: &nodeID, Address: models.Ptr("52:54:00:00:00:01")}
	pg := &models.Portgroup{ID: 4, UUID: "5b0d3c1e-0000-4000-8000-000000000004", NodeID: &nodeID}
	fake := oslotest.New()
	fake.SetResult("CreatePort", port)
	fake.SetResult("UpdatePort", port)
	fake.SetResult("UpdatePortgroup", pg)

	ctx := context.Background()
	rec := &recorder{msgID: "m", replyQ: "r", uniqueID: "u"}
	c := NewClient(rec, nil)
	_, _ = c.CreatePort(ctx, "t", port)
	_, _ = c.UpdatePort(ctx, "t", port, []string{"extra"})
	_, _ = c.UpdatePortgroup(ctx, "t", pg, []string{"extra"})
	for _, lookup := range []struct {
		name  string
		nodes NodeUUIDLookup
		want  any
	}{{"with lookup", nodeUUIDs{nodeID: nodeUUID}, nodeUUID}, {"without lookup", nil, nil}} {
		d := NewDispatcher(fake, lookup.nodes)
		for _, msg := range rec.sent {
			in, err := DecodeRequest(msg)
			if err != nil {
				t.Fatal(err)
			}
			res, f := d.Dispatch(ctx, "t", in)
			if f != nil {
				t.Fatalf("%s: %+v", in.Method, f)
			}
			var obj struct {
				Data map[string]any `json:"ironic_object.data"`
			}
			if err := json.Unmarshal(res, &obj); err != nil {
				t.Fatalf("%s: %v: %s", in.Method, err, res)
			}
			if got, ok := obj.Data["node_uuid"]; got != lookup.want || ok != (lookup.want != nil) {
				t.Errorf("%s %s: node_uuid = %v (present %v), want %v", lookup.name, in.Method, got, ok, lookup.want)
			}
		}
	}
	if len(rec.sent) != 3 {
		t.Fatalf("client sent %d requests, want 3", len(rec.sent))
	}
}
