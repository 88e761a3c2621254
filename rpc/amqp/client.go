package amqp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/rpc/oslo"
)

// Client publishes oslo requests and collects their replies. It is an
// oslo.Transport; NewConductorAPI wraps it as an rpc.ConductorAPI.
type Client struct {
	cfg    Config
	dialer dialer
	ids    ironic.UUIDSource
	log    *slog.Logger
	replyQ string

	mu      sync.Mutex
	ch      *amqp.Channel // nil while disconnected
	up      chan struct{} // closed while connected
	down    chan struct{} // closed when the current connection is lost
	replyOn *amqp.Channel // the channel the reply consumer runs on
	pending map[string]chan *oslo.Reply
	// returned holds the message IDs of mandatory publications the
	// broker gave back (no queue bound to the topic); barrier asks the
	// current channel's return reader to catch up (see publishMandatory).
	returned  map[string]bool
	barrier   chan chan struct{}
	closed    bool
	cancelRun context.CancelFunc
	done      chan struct{}
}

// NewClient starts a client: it connects in the background (and again
// whenever the connection drops) until Close. ids may be nil.
func NewClient(cfg Config, ids ironic.UUIDSource, log *slog.Logger) (*Client, error) {
	d, ids, log, err := newDialer(cfg, ids, log)
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg: d.cfg, dialer: d, ids: ids, log: log,
		up: make(chan struct{}), down: make(chan struct{}), pending: map[string]chan *oslo.Reply{},
		returned: map[string]bool{},
		done:     make(chan struct{}),
	}
	c.replyQ = "reply_" + hexID(ids)
	ctx, cancel := context.WithCancel(context.Background())
	c.cancelRun = cancel
	go c.run(ctx)
	return c, nil
}

// Close disconnects; calls waiting for replies fail.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancelRun()
	<-c.done
	return nil
}

// WaitConnected waits until the client is connected.
func (c *Client) WaitConnected(ctx context.Context) error {
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	select {
	case <-up:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) run(ctx context.Context) {
	defer close(c.done)
	for {
		conn, err := c.dialer.dial(ctx)
		if err != nil {
			return
		}
		closed := conn.NotifyClose(make(chan *amqp.Error, 1))
		ch, err := conn.Channel()
		if err == nil {
			err = declareExchange(ch, c.cfg.Exchange)
		}
		if err == nil {
			// Publisher confirms: a mandatory message the broker cannot
			// route comes back (basic.return) before its ack.
			err = ch.Confirm(false)
		}
		if err != nil {
			c.log.WarnContext(ctx, "AMQP channel setup failed", "error", err)
			_ = conn.Close()
			if !sleepCtx(ctx, c.cfg.RetryInterval) {
				return
			}
			continue
		}
		barrier := make(chan chan struct{})
		go c.readReturns(ch.NotifyReturn(make(chan amqp.Return)), barrier)
		c.mu.Lock()
		c.ch = ch
		c.barrier = barrier
		close(c.up)
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			_ = conn.Close()
		case e := <-closed:
			// A closed notification channel delivers a nil *amqp.Error:
			// keep it out of the error interface, where it is not nil.
			cause := errors.New("connection closed")
			if e != nil {
				cause = e
			}
			c.log.WarnContext(ctx, "AMQP connection lost; reconnecting", "error", cause)
		}
		c.disconnected()
		if ctx.Err() != nil {
			return
		}
	}
}

// disconnected forgets the channel and fails every pending call.
func (c *Client) disconnected() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ch, c.replyOn, c.barrier = nil, nil, nil
	c.returned = map[string]bool{}
	c.up = make(chan struct{})
	close(c.down)
	c.down = make(chan struct{})
	c.pending = map[string]chan *oslo.Reply{}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// connLost is the fault of a call whose connection went away.
func connLost(method string) error {
	return ironic.Errorf(ironic.TemporaryFailure,
		"Lost the connection to the message broker while calling %s; please retry.", method)
}

// channel waits (within ctx: the call's deadline) for a connection and
// returns its channel and the signal of its loss.
func (c *Client) channel(ctx context.Context, method string) (*amqp.Channel, chan struct{}, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, nil, ironic.Errorf(ironic.TemporaryFailure, "The RPC client is closed.")
	}
	up := c.up
	c.mu.Unlock()
	select {
	case <-up:
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errCallDeadline) {
			return nil, nil, ironic.Errorf(ironic.TemporaryFailure,
				"Could not reach the message broker to call %s; please retry.", method)
		}
		return nil, nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		return nil, nil, connLost(method)
	}
	return c.ch, c.down, nil
}

// ensureReplyQueue declares the client's reply queue on this connection
// (at the first call after connecting) and starts reading it.
func (c *Client) ensureReplyQueue(ch *amqp.Channel) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.replyOn == ch {
		return nil
	}
	_, err := ch.QueueDeclare(c.replyQ, false, false, false, false,
		amqp.Table{"x-expires": int32(c.cfg.TransientQueuesTTL / time.Millisecond)})
	if err != nil {
		return err
	}
	deliveries, err := ch.Consume(c.replyQ, "", true, false, false, false, nil)
	if err != nil {
		return err
	}
	c.replyOn = ch
	go c.readReplies(deliveries)
	return nil
}

func (c *Client) readReplies(deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		msg, err := oslo.Unwrap(d.Body)
		if err != nil {
			c.log.Warn("bad reply", "error", err)
			continue
		}
		r, err := oslo.DecodeReply(msg)
		if err != nil {
			c.log.Warn("bad reply", "error", err)
			continue
		}
		if !r.Ending {
			continue // a call-monitor heartbeat
		}
		c.mu.Lock()
		w := c.pending[r.MsgID]
		delete(c.pending, r.MsgID)
		c.mu.Unlock()
		if w == nil {
			c.log.Warn("reply for an unknown or finished call", "msg_id", r.MsgID)
			continue
		}
		w <- r
	}
}

// errCallDeadline is the cause of a call's context when its
// [DEFAULT]rpc_response_timeout is over.
var errCallDeadline = errors.New("rpc_response_timeout")

// readReturns records the mandatory publications the broker returns on
// one channel, and answers barriers: a barrier is answered after every
// return received before it was recorded.
func (c *Client) readReturns(returns <-chan amqp.Return, barrier chan chan struct{}) {
	for {
		select {
		case r, ok := <-returns:
			if !ok {
				return // the channel closed
			}
			c.mu.Lock()
			c.returned[r.MessageId] = true
			c.mu.Unlock()
		case done := <-barrier:
			close(done)
		}
	}
}

// publishMandatory publishes req to topic, mandatory and confirmed, and
// tells whether the broker gave it back because no queue is bound to the
// topic (a conductor that has not declared its queue yet, after a broker
// restart). The broker sends a message's basic.return before its ack,
// and the return reader gets it before the ack is dispatched; the
// barrier waits until it has recorded it.
func (c *Client) publishMandatory(ctx context.Context, ch *amqp.Channel, down chan struct{}, topic string, req *oslo.Request, expiration string) (bool, error) {
	req.UniqueID = hexID(c.ids)
	msg, err := oslo.AppendRequest(nil, req)
	if err != nil {
		return false, err
	}
	p := props(oslo.Wrap(msg))
	p.Expiration = expiration
	p.MessageId = req.UniqueID
	dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, c.cfg.Exchange, topic, true, false, p)
	if err != nil {
		return false, err
	}
	acked, err := dc.WaitContext(ctx)
	if err != nil {
		return false, err
	}
	if !acked {
		return false, errors.New("the broker refused the message (nack)")
	}
	c.mu.Lock()
	barrier := c.barrier
	c.mu.Unlock()
	if barrier == nil {
		return false, errors.New("connection lost")
	}
	done := make(chan struct{})
	select {
	case barrier <- done:
	case <-down:
		return false, errors.New("connection lost")
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case <-done:
	case <-down:
		return false, errors.New("connection lost")
	case <-ctx.Done():
		return false, ctx.Err()
	}
	c.mu.Lock()
	returned := c.returned[req.UniqueID]
	delete(c.returned, req.UniqueID)
	c.mu.Unlock()
	return returned, nil
}

// noConsumer is the fault of a call or cast that found no queue for its
// topic until its deadline.
func noConsumer(topic, method string) error {
	return ironic.Errorf(ironic.TemporaryFailure,
		"No conductor is listening on %s to call %s; please retry.", topic, method)
}

// deliver publishes req to topic until a queue takes it, retrying every
// 100 ms while the broker returns it, within ctx (the call's deadline).
// It returns the channel's loss signal.
func (c *Client) deliver(ctx context.Context, topic string, req *oslo.Request, deadline time.Time, call bool) (chan struct{}, error) {
	for attempt := 0; ; attempt++ {
		ch, down, err := c.channel(ctx, req.Method)
		if err != nil {
			return nil, err
		}
		if call {
			if err := c.ensureReplyQueue(ch); err != nil {
				return nil, connLost(req.Method)
			}
		}
		exp := ""
		if call {
			// oslo's expiration is the call's timeout; a message
			// published again gets what is left of it.
			left := c.cfg.ResponseTimeout
			if attempt > 0 {
				left = max(time.Until(deadline), time.Millisecond)
			}
			exp = strconv.FormatInt(left.Milliseconds(), 10)
		}
		returned, err := c.publishMandatory(ctx, ch, down, topic, req, exp)
		if err != nil {
			if errors.Is(context.Cause(ctx), errCallDeadline) {
				return nil, ironic.Errorf(ironic.TemporaryFailure,
					"Could not reach the message broker to call %s; please retry.", req.Method)
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, connLost(req.Method)
		}
		if !returned {
			return down, nil
		}
		c.log.DebugContext(ctx, "no queue for the topic yet; publishing again", "topic", topic, "method", req.Method)
		if !sleepCtx(ctx, 100*time.Millisecond) {
			if errors.Is(context.Cause(ctx), errCallDeadline) {
				return nil, noConsumer(topic, req.Method)
			}
			return nil, ctx.Err()
		}
	}
}

// Call sends req to topic and waits for its reply: all within the
// response timeout, counted from the call (waiting for a connection,
// publishing again while no queue is bound to the topic, the reply). A
// lost connection fails the call at once (TemporaryFailure).
func (c *Client) Call(ctx context.Context, topic string, req *oslo.Request) ([]byte, error) {
	deadline := time.Now().Add(c.cfg.ResponseTimeout)
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errCallDeadline)
	defer cancel()
	req.MsgID, req.ReplyQ = hexID(c.ids), c.replyQ
	w := make(chan *oslo.Reply, 1)
	c.mu.Lock()
	c.pending[req.MsgID] = w
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, req.MsgID)
		c.mu.Unlock()
	}
	down, err := c.deliver(ctx, topic, req, deadline, true)
	if err != nil {
		forget()
		return nil, err
	}
	// A reconnection in between forgot the pending calls: register again
	// (a reply can't have come, the message was published after it).
	c.mu.Lock()
	if c.down != down {
		c.mu.Unlock()
		return nil, connLost(req.Method)
	}
	c.pending[req.MsgID] = w
	c.mu.Unlock()
	select {
	case r := <-w:
		if r.Failure != nil {
			return nil, r.Failure.Fault()
		}
		return r.Result, nil
	case <-down:
		return nil, connLost(req.Method)
	case <-ctx.Done():
		forget()
		if !errors.Is(context.Cause(ctx), errCallDeadline) {
			return nil, ctx.Err()
		}
		// oslo's MessagingTimeout, which Ironic's API answers with 500.
		return nil, ironic.Errorf(ironic.IronicException,
			"Timed out waiting for a reply to message ID %s", req.MsgID)
	}
}

// Cast sends req to topic without a reply: once a queue took it, or a
// fault within the response timeout.
func (c *Client) Cast(ctx context.Context, topic string, req *oslo.Request) error {
	deadline := time.Now().Add(c.cfg.ResponseTimeout)
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errCallDeadline)
	defer cancel()
	_, err := c.deliver(ctx, topic, req, deadline, false)
	return err
}

var _ oslo.Transport = (*Client)(nil)

// NewConductorAPI is the conductor API over a client. nodes (db.Store)
// turns node UUIDs into the ids the traits methods carry; may be nil.
func NewConductorAPI(c *Client, nodes oslo.NodeIDLookup) *oslo.Client {
	return oslo.NewClient(c, nodes)
}

func (c *Client) String() string { return fmt.Sprintf("amqp.Client(%s)", c.replyQ) }
