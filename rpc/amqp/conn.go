package amqp

import (
	"context"
	"crypto/tls"
	"log/slog"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic"
)

// dialer connects to the first broker of the URL that answers, waiting
// longer between rounds as oslo does.
type dialer struct {
	cfg     Config
	brokers []broker
	tls     *tls.Config
	log     *slog.Logger
}

// newDialer fills in cfg's defaults and parses its transport URL; nil ids
// and log get their defaults too. Client and Server start from it.
func newDialer(cfg Config, ids ironic.UUIDSource, log *slog.Logger) (dialer, ironic.UUIDSource, *slog.Logger, error) {
	cfg = cfg.withDefaults()
	brokers, err := parseTransportURL(cfg.TransportURL, cfg.SSL)
	if err != nil {
		return dialer{}, nil, nil, err
	}
	tc, err := cfg.tlsConfig()
	if err != nil {
		return dialer{}, nil, nil, err
	}
	if ids == nil {
		ids = ironic.RandomUUIDs{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return dialer{cfg: cfg, brokers: brokers, tls: tc, log: log}, ids, log, nil
}

// dial returns a connection, or ctx's error once ctx is done.
func (d *dialer) dial(ctx context.Context) (*amqp.Connection, error) {
	wait := d.cfg.RetryInterval
	for attempt := 0; ; attempt++ {
		for _, b := range d.brokers {
			conn, err := amqp.DialConfig(b.uri, d.cfg.amqpConfig(b, d.tls))
			if err == nil {
				if attempt > 0 {
					d.log.InfoContext(ctx, "reconnected to AMQP server", "attempts", attempt+1)
				}
				return conn, nil
			}
			d.log.WarnContext(ctx, "AMQP server unreachable; retrying", "error", err, "retry_in", wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait += d.cfg.RetryBackoff
		if wait > d.cfg.IntervalMax {
			wait = d.cfg.IntervalMax
		}
	}
}

// hexID is a uuid4 without dashes, as oslo's ids are.
func hexID(ids ironic.UUIDSource) string { return strings.ReplaceAll(ids.NewUUID(), "-", "") }

// props are the AMQP properties of every oslo message (kombu defaults).
func props(body []byte) amqp.Publishing {
	return amqp.Publishing{
		ContentType:     "application/json",
		ContentEncoding: "utf-8",
		DeliveryMode:    amqp.Persistent,
		Body:            body,
	}
}

// declareExchange declares the RPC topic exchange (non-durable, not
// auto-deleted: amqp_durable_queues and amqp_auto_delete default False).
func declareExchange(ch *amqp.Channel, name string) error {
	return ch.ExchangeDeclare(name, "topic", false, false, false, false, nil)
}
