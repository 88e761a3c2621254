package oslo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// framesTransport is loopback keeping the request and reply frames.
type framesTransport struct {
	d          *Dispatcher
	req, reply []byte
}

func (f *framesTransport) Call(ctx context.Context, topic string, req *Request) ([]byte, error) {
	req.MsgID, req.ReplyQ, req.UniqueID = "3759003adb5b4ca8ad9f78d1493f5f6a", "reply_05e12a1b147f4373a7aa5b39ecb03286", "2418826c8786449a9e67fd1cc461b438"
	b, err := AppendRequest(nil, req)
	if err != nil {
		return nil, err
	}
	f.req = b
	in, err := DecodeRequest(b)
	if err != nil {
		return nil, err
	}
	res, fl := f.d.Dispatch(ctx, topic, in)
	rb, err := AppendReply(nil, &Reply{Result: res, Failure: fl, Ending: true, MsgID: in.MsgID, UniqueID: "90f3d2bb01e14bbd9b2f4bbad4ad1c8e"})
	if err != nil {
		return nil, err
	}
	f.reply = rb
	r, err := DecodeReply(rb)
	if err != nil {
		return nil, err
	}
	if r.Failure != nil {
		return nil, r.Failure.Fault()
	}
	return r.Result, nil
}

func (f *framesTransport) Cast(ctx context.Context, topic string, req *Request) error {
	_, err := f.Call(ctx, topic, req)
	return err
}

// TestIPXEConfigFrames: the ipxe_config call (driver_vendor_passthru with
// the query as info) and its reply, whose result dict carries Ironic's
// {"return", "async", "attach"} with attach true and the script as the
// return value. The reply golden is the frame Python writes, keys in the
// manager's order (testdata/golden/reply/vendor_reply.py prints it).
func TestIPXEConfigFrames(t *testing.T) {
	fake := oslotest.New()
	script := "#!ipxe\n\ngoto deploy\n"
	fake.SetResult("DriverVendorPassthru", &rpc.VendorResult{Return: script, Attach: true})
	ft := &framesTransport{d: NewDispatcher(fake, nil)}
	c := NewClient(ft, nil)
	res, err := c.DriverVendorPassthru(context.Background(), "ironic.conductor_manager.host-1", "fake-hardware", "ipxe_config", "GET",
		map[string]any{"port_address": "52-54-00-12-34-56"})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := res.Return.(string); s != script || !res.Attach || res.Async {
		t.Errorf("result %+v", res)
	}
	for name, frame := range map[string][]byte{"driver_vendor_passthru#ipxe_config.json": ft.req, "reply/driver_vendor_passthru#ipxe_config.json": ft.reply} {
		golden := filepath.Join("testdata", "golden", name)
		frame = append(append([]byte(nil), frame...), '\n')
		if *update {
			_ = os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, frame, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if !bytes.Equal(frame, want) {
			t.Errorf("frame differs from %s:\n ours: %s\n want: %s", golden, frame, want)
		}
	}
}
