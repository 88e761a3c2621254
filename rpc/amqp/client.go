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

	mu        sync.Mutex
	ch        *amqp.Channel // nil while disconnected
	up        chan struct{} // closed while connected
	down      chan struct{} // closed when the current connection is lost
	replyOn   *amqp.Channel // the channel the reply consumer runs on
	pending   map[string]chan *oslo.Reply
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
		done: make(chan struct{}),
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
		if err != nil {
			c.log.WarnContext(ctx, "AMQP channel setup failed", "error", err)
			_ = conn.Close()
			if !sleepCtx(ctx, c.cfg.RetryInterval) {
				return
			}
			continue
		}
		c.mu.Lock()
		c.ch = ch
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
	c.ch, c.replyOn = nil, nil
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

// channel waits (up to the response timeout, or ctx) for a connection and
// returns its channel and the signal of its loss.
func (c *Client) channel(ctx context.Context, method string) (*amqp.Channel, chan struct{}, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, nil, ironic.Errorf(ironic.TemporaryFailure, "The RPC client is closed.")
	}
	up := c.up
	c.mu.Unlock()
	t := time.NewTimer(c.cfg.ResponseTimeout)
	defer t.Stop()
	select {
	case <-up:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-t.C:
		return nil, nil, ironic.Errorf(ironic.TemporaryFailure,
			"Could not reach the message broker to call %s; please retry.", method)
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

func (c *Client) publish(ctx context.Context, ch *amqp.Channel, topic string, req *oslo.Request, expiration string) error {
	req.UniqueID = hexID(c.ids)
	msg, err := oslo.AppendRequest(nil, req)
	if err != nil {
		return err
	}
	p := props(oslo.Wrap(msg))
	p.Expiration = expiration
	return ch.PublishWithContext(ctx, c.cfg.Exchange, topic, false, false, p)
}

// Call sends req to topic and waits for its reply, at most the response
// timeout. A lost connection fails the call at once (TemporaryFailure).
func (c *Client) Call(ctx context.Context, topic string, req *oslo.Request) ([]byte, error) {
	ch, down, err := c.channel(ctx, req.Method)
	if err != nil {
		return nil, err
	}
	if err := c.ensureReplyQueue(ch); err != nil {
		return nil, connLost(req.Method)
	}
	req.MsgID, req.ReplyQ = hexID(c.ids), c.replyQ
	w := make(chan *oslo.Reply, 1)
	c.mu.Lock()
	if c.down != down {
		c.mu.Unlock()
		return nil, connLost(req.Method)
	}
	c.pending[req.MsgID] = w
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, req.MsgID)
		c.mu.Unlock()
	}
	exp := strconv.FormatInt(int64(c.cfg.ResponseTimeout/time.Millisecond), 10)
	if err := c.publish(ctx, ch, topic, req, exp); err != nil {
		forget()
		return nil, connLost(req.Method)
	}
	t := time.NewTimer(c.cfg.ResponseTimeout)
	defer t.Stop()
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
		return nil, ctx.Err()
	case <-t.C:
		forget()
		// oslo's MessagingTimeout, which Ironic's API answers with 500.
		return nil, ironic.Errorf(ironic.IronicException,
			"Timed out waiting for a reply to message ID %s", req.MsgID)
	}
}

// Cast sends req to topic without a reply.
func (c *Client) Cast(ctx context.Context, topic string, req *oslo.Request) error {
	ch, _, err := c.channel(ctx, req.Method)
	if err != nil {
		return err
	}
	if err := c.publish(ctx, ch, topic, req, ""); err != nil {
		return connLost(req.Method)
	}
	return nil
}

var _ oslo.Transport = (*Client)(nil)

// NewConductorAPI is the conductor API over a client. nodes (db.Store)
// turns node UUIDs into the ids the traits methods carry; may be nil.
func NewConductorAPI(c *Client, nodes oslo.NodeIDLookup) *oslo.Client {
	return oslo.NewClient(c, nodes)
}

func (c *Client) String() string { return fmt.Sprintf("amqp.Client(%s)", c.replyQ) }
