package oslo

import (
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
)

// Wrap puts an encoded message into oslo's envelope (version 2.0):
// {"oslo.version": "2.0", "oslo.message": "<the message as a JSON string>"}.
func Wrap(msg []byte) []byte {
	dst := make([]byte, 0, len(msg)+len(msg)/8+48)
	dst = append(dst, `{"oslo.version": "2.0", "oslo.message": `...)
	dst = pyjson.AppendString(dst, string(msg))
	return append(dst, '}')
}

// Unwrap takes a message out of oslo's envelope. A body without the
// envelope is the message itself (oslo's pre-2.0 format).
func Unwrap(body []byte) ([]byte, error) {
	o, err := rawjson.SplitObject(body)
	if err != nil {
		return nil, err
	}
	ver := o.Get("oslo.version")
	if ver == nil {
		return body, nil
	}
	v, err := rawjson.DecodeString(ver)
	if err != nil {
		return nil, err
	}
	if major, _, _ := strings.Cut(v, "."); major != "2" {
		return nil, fmt.Errorf("oslo: unsupported envelope version %q", v)
	}
	raw := o.Get("oslo.message")
	if raw == nil {
		return nil, fmt.Errorf("oslo: envelope without oslo.message")
	}
	s, err := rawjson.DecodeString(raw)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// Arg is one named argument of a request, in the order it is written.
type Arg struct {
	Name  string
	Value any // anything pyjson can write; objects are pyjson.Marshalers
}

// Request is an RPC request to be sent.
type Request struct {
	Method  string
	Args    []Arg
	Version string
	// MsgID and ReplyQ are set for a call and empty for a cast.
	MsgID    string
	ReplyQ   string
	UniqueID string
	Context  *ironic.RequestContext
}

// AppendRequest writes the message (without envelope) in the key order of
// oslo.messaging's rabbit driver.
func AppendRequest(dst []byte, r *Request) ([]byte, error) {
	dst = append(dst, `{"method": `...)
	dst = pyjson.AppendString(dst, r.Method)
	dst = append(dst, `, "args": {`...)
	var err error
	for i, a := range r.Args {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = pyjson.AppendString(dst, a.Name)
		dst = append(dst, ": "...)
		if dst, err = pyjson.Append(dst, a.Value); err != nil {
			return dst, fmt.Errorf("oslo: %s(%s): %w", r.Method, a.Name, err)
		}
	}
	dst = append(dst, `}, "version": `...)
	dst = pyjson.AppendString(dst, r.Version)
	if r.MsgID != "" {
		dst = append(dst, `, "_msg_id": `...)
		dst = pyjson.AppendString(dst, r.MsgID)
		dst = append(dst, `, "_reply_q": `...)
		dst = pyjson.AppendString(dst, r.ReplyQ)
		dst = append(dst, `, "_timeout": null`...)
	}
	dst = append(dst, `, "_unique_id": `...)
	dst = pyjson.AppendString(dst, r.UniqueID)
	dst = appendContext(dst, r.Context)
	return append(dst, '}'), nil
}

// Incoming is a request as received: the arguments stay undecoded until
// the method is known.
type Incoming struct {
	Method    string
	Namespace string
	Version   string
	MsgID     string
	ReplyQ    string
	UniqueID  string
	Args      rawjson.Object
	Context   *ironic.RequestContext
}

// IsCall reports whether the sender waits for a reply.
func (in *Incoming) IsCall() bool { return in.MsgID != "" }

// ArgNames lists the argument names in the order received.
func (in *Incoming) ArgNames() []string {
	out := make([]string, len(in.Args))
	for i, m := range in.Args {
		out[i] = m.Key
	}
	return out
}

// DecodeRequest reads a request message (already out of its envelope).
func DecodeRequest(msg []byte) (*Incoming, error) {
	o, err := rawjson.SplitObject(msg)
	if err != nil {
		return nil, err
	}
	in := &Incoming{}
	for _, m := range o {
		switch m.Key {
		case "method":
			in.Method, err = rawjson.DecodeString(m.Raw)
		case "namespace":
			var s *string
			s, err = rawjson.DecodeOptString(m.Raw)
			if s != nil {
				in.Namespace = *s
			}
		case "version":
			var s *string
			s, err = rawjson.DecodeOptString(m.Raw)
			if s != nil {
				in.Version = *s
			}
		case "_msg_id":
			in.MsgID, err = rawjson.DecodeString(m.Raw)
		case "_reply_q":
			in.ReplyQ, err = rawjson.DecodeString(m.Raw)
		case "_unique_id":
			in.UniqueID, err = rawjson.DecodeString(m.Raw)
		case "args":
			if !rawjson.IsNull(m.Raw) {
				in.Args, err = rawjson.SplitObject(m.Raw)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("oslo: request %s: %w", m.Key, err)
		}
	}
	if in.Method == "" {
		return nil, fmt.Errorf("oslo: request without a method")
	}
	in.Context, err = decodeContext(o)
	if err != nil {
		return nil, err
	}
	if in.Version == "" {
		in.Version = "1.0"
	}
	return in, nil
}

// Reply is a reply message. Result is written as is (already encoded);
// Failure is nil on success.
type Reply struct {
	Result   []byte // encoded JSON; nil means null
	Failure  *Failure
	Ending   bool
	MsgID    string
	UniqueID string
}

// AppendReply writes the reply message (without envelope).
func AppendReply(dst []byte, r *Reply) ([]byte, error) {
	dst = append(dst, `{"result": `...)
	if r.Result == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, r.Result...)
	}
	dst = append(dst, `, "failure": `...)
	if r.Failure == nil {
		dst = append(dst, "null"...)
	} else {
		f, err := r.Failure.encode()
		if err != nil {
			return dst, err
		}
		dst = pyjson.AppendString(dst, string(f))
	}
	if r.Ending {
		dst = append(dst, `, "ending": true`...)
	} else {
		dst = append(dst, `, "ending": false`...)
	}
	dst = append(dst, `, "_msg_id": `...)
	dst = pyjson.AppendString(dst, r.MsgID)
	dst = append(dst, `, "_unique_id": `...)
	dst = pyjson.AppendString(dst, r.UniqueID)
	return append(dst, '}'), nil
}

// DecodeReply reads a reply message (already out of its envelope). The
// result stays undecoded.
func DecodeReply(msg []byte) (*Reply, error) {
	o, err := rawjson.SplitObject(msg)
	if err != nil {
		return nil, err
	}
	r := &Reply{Ending: true}
	for _, m := range o {
		switch m.Key {
		case "result":
			if !rawjson.IsNull(m.Raw) {
				r.Result = m.Raw
			}
		case "failure":
			if !rawjson.IsNull(m.Raw) {
				var s string
				if s, err = rawjson.DecodeString(m.Raw); err == nil {
					r.Failure, err = decodeFailure([]byte(s))
				}
			}
		case "ending":
			r.Ending, err = rawjson.DecodeBool(m.Raw)
		case "_msg_id":
			r.MsgID, err = rawjson.DecodeString(m.Raw)
		case "_unique_id":
			r.UniqueID, err = rawjson.DecodeString(m.Raw)
		}
		if err != nil {
			return nil, fmt.Errorf("oslo: reply %s: %w", m.Key, err)
		}
	}
	return r, nil
}
