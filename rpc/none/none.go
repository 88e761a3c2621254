// Package none is the in-process transport (rpc_transport = none): the API
// and the conductor share a process, but every call still goes through the
// oslo.messaging codec — the request is written as the message a RabbitMQ
// transport would carry and read back by the dispatcher, and the reply
// (result or failure) likewise — so neither side can depend on sharing
// memory with the other, and the codec is exercised by every API test.
package none

import (
	"context"
	"log/slog"
	"sync"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo"
)

// Transport hands encoded requests to a dispatcher in the same process.
type Transport struct {
	d   *oslo.Dispatcher
	log *slog.Logger
}

// New returns the conductor API served in-process by api. nodes resolves
// node ids for the traits methods (the caller side looks ids up through
// it too); it may be nil. log may be nil.
func New(api rpc.ConductorAPI, nodes Nodes, log *slog.Logger) *oslo.Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var lookupUUID oslo.NodeUUIDLookup
	var lookupID oslo.NodeIDLookup
	if nodes != nil {
		lookupUUID, lookupID = nodes, nodes
	}
	t := &Transport{d: oslo.NewDispatcher(api, lookupUUID), log: log}
	return oslo.NewClient(t, lookupID)
}

// Nodes is what both sides of the traits methods need: db.Store has it.
type Nodes interface {
	oslo.NodeUUIDLookup
	oslo.NodeIDLookup
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// roundTrip encodes req, decodes it as the server would, dispatches it,
// and encodes and decodes the reply.
func (t *Transport) roundTrip(ctx context.Context, topic string, req *oslo.Request) (*oslo.Reply, error) {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	msg, err := oslo.AppendRequest((*bp)[:0], req)
	*bp = msg
	if err != nil {
		return nil, err
	}
	in, err := oslo.DecodeRequest(msg)
	if err != nil {
		return nil, err
	}
	result, failure := t.d.Dispatch(ctx, topic, in)
	reply, err := oslo.AppendReply(nil, &oslo.Reply{Result: result, Failure: failure, Ending: true, MsgID: req.MsgID})
	if err != nil {
		return nil, err
	}
	return oslo.DecodeReply(reply)
}

// Call serves req in this process.
func (t *Transport) Call(ctx context.Context, topic string, req *oslo.Request) ([]byte, error) {
	req.MsgID, req.ReplyQ = "local", "local"
	r, err := t.roundTrip(ctx, topic, req)
	if err != nil {
		return nil, err
	}
	if r.Failure != nil {
		return nil, r.Failure.Fault()
	}
	return r.Result, nil
}

// Cast serves req in this process; as with oslo, the caller does not see
// the outcome, which is logged.
func (t *Transport) Cast(ctx context.Context, topic string, req *oslo.Request) error {
	r, err := t.roundTrip(ctx, topic, req)
	if err != nil {
		return err
	}
	if r.Failure != nil {
		t.log.WarnContext(ctx, "cast failed", "method", req.Method, "class", r.Failure.Class, "error", r.Failure.Message)
	}
	return nil
}
