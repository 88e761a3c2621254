package amqp

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo"
)

// Server consumes a conductor's queues and serves them with a dispatcher:
// Target(topic='ironic.conductor_manager', server=host), as Ironic's
// conductor does.
type Server struct {
	cfg    Config
	dialer dialer
	host   string
	d      *oslo.Dispatcher
	ids    ironic.UUIDSource
	log    *slog.Logger

	mu sync.Mutex
	up chan struct{} // closed while consuming
}

// NewServer serves api on the queues of host. nodes resolves integer node
// ids (db.Store); may be nil. ids may be nil.
func NewServer(cfg Config, host string, api rpc.ConductorAPI, nodes oslo.NodeUUIDLookup, ids ironic.UUIDSource, log *slog.Logger) (*Server, error) {
	d, ids, log, err := newDialer(cfg, ids, log)
	if err != nil {
		return nil, err
	}
	return &Server{cfg: d.cfg, dialer: d, host: host,
		d: oslo.NewDispatcher(api, nodes), ids: ids, log: log, up: make(chan struct{})}, nil
}

// WaitReady waits until the server consumes its queues.
func (s *Server) WaitReady(ctx context.Context) error {
	s.mu.Lock()
	up := s.up
	s.mu.Unlock()
	select {
	case <-up:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run serves until ctx is done, reconnecting whenever the connection
// drops. Requests being served when ctx ends are finished first.
func (s *Server) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, s.cfg.Executors)
	for {
		conn, err := s.dialer.dial(ctx)
		if err != nil {
			return nil
		}
		err = s.serve(ctx, conn, sem, &wg)
		_ = conn.Close()
		s.mu.Lock()
		s.up = make(chan struct{})
		s.mu.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		s.log.WarnContext(ctx, "AMQP connection lost; reconnecting", "error", err)
		if !sleepCtx(ctx, s.cfg.RetryInterval) {
			return nil
		}
	}
}

// serve declares the topology on conn and dispatches its messages until
// the connection or ctx ends.
func (s *Server) serve(ctx context.Context, conn *amqp.Connection, sem chan struct{}, wg *sync.WaitGroup) error {
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if err := declareExchange(ch, s.cfg.Exchange); err != nil {
		return err
	}
	var deliveries []<-chan amqp.Delivery
	for _, q := range []string{rpc.Topic, rpc.Topic + "." + s.host} {
		if _, err := ch.QueueDeclare(q, false, false, false, false, nil); err != nil {
			return err
		}
		if err := ch.QueueBind(q, q, s.cfg.Exchange, false, nil); err != nil {
			return err
		}
		d, err := ch.Consume(q, "", false, false, false, false, nil)
		if err != nil {
			return err
		}
		deliveries = append(deliveries, d)
	}
	// The fanout exchange and queue oslo declares for every server
	// (Ironic sends nothing to it).
	fanout := rpc.Topic + "_fanout"
	if err := ch.ExchangeDeclare(fanout, "fanout", false, true, false, false, nil); err != nil {
		return err
	}
	fq := fanout + "_" + hexID(s.ids)
	if _, err := ch.QueueDeclare(fq, false, false, false, false,
		amqp.Table{"x-expires": int32(s.cfg.TransientQueuesTTL / time.Millisecond)}); err != nil {
		return err
	}
	if err := ch.QueueBind(fq, rpc.Topic, fanout, false, nil); err != nil {
		return err
	}
	d, err := ch.Consume(fq, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	deliveries = append(deliveries, d)
	returns := ch.NotifyReturn(make(chan amqp.Return, 16))
	go func() {
		for r := range returns {
			s.log.Warn("reply queue gone; reply dropped", "reply_q", r.RoutingKey)
		}
	}()

	var pubMu sync.Mutex
	merged := make(chan amqp.Delivery)
	var readers sync.WaitGroup
	for _, d := range deliveries {
		readers.Add(1)
		go func(d <-chan amqp.Delivery) {
			defer readers.Done()
			for m := range d {
				select {
				case merged <- m:
				case <-ctx.Done():
					return
				}
			}
		}(d)
	}
	s.mu.Lock()
	close(s.up)
	s.mu.Unlock()
	s.log.InfoContext(ctx, "serving RPC", "host", s.host, "exchange", s.cfg.Exchange)
	for {
		select {
		case <-ctx.Done():
			_ = ch.Close()
			readers.Wait()
			return ctx.Err()
		case e := <-closed:
			if e == nil {
				return errors.New("connection closed")
			}
			return e
		case m := <-merged:
			// oslo acknowledges a message before dispatching it.
			if err := m.Ack(false); err != nil {
				s.log.WarnContext(ctx, "ack failed", "error", err)
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				continue
			}
			wg.Add(1)
			go func(m amqp.Delivery) {
				defer wg.Done()
				defer func() { <-sem }()
				s.handle(ctx, ch, &pubMu, m)
			}(m)
		}
	}
}

// handle decodes one request, dispatches it and, for a call, replies.
func (s *Server) handle(ctx context.Context, ch *amqp.Channel, pubMu *sync.Mutex, m amqp.Delivery) {
	msg, err := oslo.Unwrap(m.Body)
	var in *oslo.Incoming
	if err == nil {
		in, err = oslo.DecodeRequest(msg)
	}
	if err != nil {
		s.log.WarnContext(ctx, "undecodable RPC message dropped", "error", err, "routing_key", m.RoutingKey)
		return
	}
	result, failure := s.d.Dispatch(ctx, m.RoutingKey, in)
	if !in.IsCall() {
		if failure != nil {
			s.log.WarnContext(ctx, "cast failed", "method", in.Method, "class", failure.Class, "error", failure.Message)
		}
		return
	}
	reply, err := oslo.AppendReply(nil, &oslo.Reply{Result: result, Failure: failure, Ending: true,
		MsgID: in.MsgID, UniqueID: hexID(s.ids)})
	if err != nil {
		s.log.ErrorContext(ctx, "encoding reply", "error", err)
		return
	}
	pubMu.Lock()
	defer pubMu.Unlock()
	// The reply goes to the caller's queue through the default exchange,
	// mandatory (oslo's direct_mandatory_flag).
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ResponseTimeout)
	defer cancel()
	if err := ch.PublishWithContext(pctx, "", in.ReplyQ, true, false, props(oslo.Wrap(reply))); err != nil {
		s.log.WarnContext(ctx, "reply not sent", "method", in.Method, "error", err)
	}
}
