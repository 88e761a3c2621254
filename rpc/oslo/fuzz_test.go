package oslo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// FuzzDispatch: no message, however malformed, panics the decoder or the
// dispatcher.
func FuzzDispatch(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"method": "update_node", "args": {"node_obj": {"ironic_object.name": "Node", "ironic_object.namespace": "ironic", "ironic_object.version": "1.37", "ironic_object.data": {"traits": {"ironic_object.name": "TraitList", "ironic_object.namespace": "ironic", "ironic_object.data": {"objects": [1]}}}}}}`))
	d := NewDispatcher(oslotest.New(), nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		if msg, err := Unwrap(b); err == nil {
			b = msg
		}
		_, _ = DecodeReply(b)
		in, err := DecodeRequest(b)
		if err != nil {
			return
		}
		d.Dispatch(context.Background(), "t", in)
	})
}
