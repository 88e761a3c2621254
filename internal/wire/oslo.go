package wire

import (
	"fmt"
	"log/slog"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
)

// AMQPConfig is the RabbitMQ transport's configuration from
// [DEFAULT]transport_url, rpc_response_timeout and [oslo_messaging_rabbit].
func AMQPConfig(cfg *conf.Config) amqp.Config {
	r := cfg.OsloMessagingRabbit
	hb := r.HeartbeatTimeoutThreshold / 2
	return amqp.Config{
		TransportURL:       cfg.Default.TransportURL,
		ResponseTimeout:    cfg.Default.RPCResponseTimeout,
		RetryInterval:      r.RabbitRetryInterval,
		RetryBackoff:       r.RabbitRetryBackoff,
		IntervalMax:        r.RabbitIntervalMax,
		TransientQueuesTTL: r.RabbitTransientQueuesTTL,
		Heartbeat:          hb,
	}
}

// checkOslo refuses transports other than oslo for the split binaries.
func checkOslo(cfg *conf.Config, prog string) error {
	if t := cfg.Default.RPCTransport; t != "oslo" {
		return fmt.Errorf("%s needs [DEFAULT]rpc_transport = oslo (with transport_url = rabbit://...), not %q; the all-in-one `ironic` runs API and conductor in one process", prog, t)
	}
	return nil
}

// OsloClient is the API's conductor client over RabbitMQ. The caller
// closes the returned client.
func OsloClient(cfg *conf.Config, store *db.Store, log *slog.Logger) (*amqp.Client, rpc.ConductorAPI, error) {
	if err := checkOslo(cfg, "ironic-api"); err != nil {
		return nil, nil, err
	}
	c, err := amqp.NewClient(AMQPConfig(cfg), nil, log.With("component", "rpc"))
	if err != nil {
		return nil, nil, err
	}
	return c, amqp.NewConductorAPI(c, store), nil
}

// OsloServer serves cond on this host's conductor queues.
func OsloServer(cfg *conf.Config, cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) (*amqp.Server, error) {
	if err := checkOslo(cfg, "ironic-conductor"); err != nil {
		return nil, err
	}
	return amqp.NewServer(AMQPConfig(cfg), cfg.Default.Host, cond, store, nil, log.With("component", "rpc"))
}
