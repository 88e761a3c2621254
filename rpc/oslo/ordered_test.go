package oslo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// orderedGolden reads a frame Python's own oslo.messaging wrote for dicts
// in no sorted order (testdata/golden/ordered/gen_ordered.py records them).
func orderedGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", "ordered", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// TestOrderedDictFramesEqualPython: for dicts in no sorted order, our
// client writes the frames Python's rpcapi writes byte for byte (a Python
// dict keeps insertion order), and the dispatcher hands the conductor the
// dicts in that order.
func TestOrderedDictFramesEqualPython(t *testing.T) {
	ctx := ironic.WithRequestContext(context.Background(), &ironic.RequestContext{RequestID: "req-0e8f1a9c-2b3d-4c5e-9f6a-7b8c9d0e1f2a"})
	const node = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	steps := []*pyjson.Dict{
		pyjson.DictOf("interface", "deploy", "step", "erase_devices", "args", pyjson.DictOf("zap", true, "all", 1)),
		pyjson.DictOf("step", "create_configuration", "interface", "raid", "priority", 5),
	}
	raid := pyjson.DictOf("logical_disks", []any{pyjson.DictOf("size_gb", "MAX", "raid_level", "1", "is_root_volume", true)})
	vif := pyjson.DictOf("port_uuid", "p1", "id", "vif-1")
	for _, tc := range []struct {
		name string
		call func(rpc.ConductorAPI) error
		arg  *pyjson.Dict // what the conductor must get (steps: the first)
	}{
		{"do_node_clean", func(c rpc.ConductorAPI) error { return c.DoNodeClean(ctx, "t", node, steps, nil) }, steps[0]},
		{"set_target_raid_config", func(c rpc.ConductorAPI) error { return c.SetTargetRAIDConfig(ctx, "t", node, raid) }, raid},
		{"vif_attach", func(c rpc.ConductorAPI) error { return c.VIFAttach(ctx, "t", node, vif) }, vif},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{msgID: "3759003adb5b4ca8ad9f78d1493f5f6a", replyQ: "reply_05e12a1b147f4373a7aa5b39ecb03286", uniqueID: "2418826c8786449a9e67fd1cc461b438"}
			if err := tc.call(NewClient(rec, nil)); err != nil {
				t.Fatal(err)
			}
			want := orderedGolden(t, tc.name)
			if !bytes.Equal(rec.sent[0], want) {
				t.Errorf("frame differs from Python's:\n ours:   %s\n python: %s", rec.sent[0], want)
			}
			in, err := DecodeRequest(want)
			if err != nil {
				t.Fatal(err)
			}
			fake := oslotest.New()
			if _, f := NewDispatcher(fake, nil).Dispatch(context.Background(), "t", in); f != nil {
				t.Fatalf("dispatch: %+v", f)
			}
			var got *pyjson.Dict
			switch a := fake.Last().Args[1].(type) {
			case []*pyjson.Dict:
				got = a[0]
			case *pyjson.Dict:
				got = a
			}
			// Written out, the same bytes: same keys, same order, same values.
			if gb, wb := mustMarshal(t, got), mustMarshal(t, tc.arg); string(gb) != string(wb) {
				t.Errorf("conductor got %s, want %s", gb, wb)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := pyjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOrderedNodeObjectEqualsPython: update_node with a node whose dicts
// are in no sorted order, as Python's rpcapi sends it. The node arrives
// with its dicts in that order, and encoded again (the fields Python set,
// in the class's order) it is the bytes Python wrote.
func TestOrderedNodeObjectEqualsPython(t *testing.T) {
	want := orderedGolden(t, "update_node")
	in, err := DecodeRequest(want)
	if err != nil {
		t.Fatal(err)
	}
	fake := oslotest.New()
	fake.SetResult("UpdateNode", &models.Node{})
	if _, f := NewDispatcher(fake, nil).Dispatch(context.Background(), "t", in); f != nil {
		t.Fatalf("dispatch: %+v", f)
	}
	n := fake.Last().Args[0].(rpc.NodeUpdate).Node
	if got := n.Extra.Keys(); len(got) != 4 || got[0] != "z" || got[3] != "b" {
		t.Errorf("extra keys %v, want z a m b", got)
	}
	rawArgs := argRaw(t, want, "node_obj")
	data := rawjson.Object(nil)
	for _, m := range mustSplit(t, rawArgs) {
		if m.Key == "ironic_object.data" {
			data = mustSplit(t, m.Raw)
		}
	}
	fields := make([]string, len(data))
	for i, m := range data {
		fields[i] = m.Key
	}
	ours, err := nodeDef.Append(nil, &n, objects.EncodeOpts{Fields: fields, Changes: []string{"extra"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, rawArgs) {
		t.Errorf("node object differs from Python's:\n ours:   %s\n python: %s", ours, rawArgs)
	}
}

func mustSplit(t *testing.T, b []byte) rawjson.Object {
	t.Helper()
	o, err := rawjson.SplitObject(b)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// argRaw is the raw value of argument name of a request message.
func argRaw(t *testing.T, msg []byte, name string) []byte {
	t.Helper()
	for _, m := range mustSplit(t, msg) {
		if m.Key == "args" {
			for _, a := range mustSplit(t, m.Raw) {
				if a.Key == name {
					return a.Raw
				}
			}
		}
	}
	t.Fatalf("no argument %s", name)
	return nil
}
