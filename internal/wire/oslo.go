package wire

import (
	"log/slog"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
)

// amqpConfig is the RabbitMQ transport's configuration.
func amqpConfig(cfg *conf.Config) (amqp.Config, error) {
	b := cfg.Binder()
	ac := bound[amqp.Config](b, compAMQP)
	return ac, b.Err()
}

// osloClient is the API's conductor client over RabbitMQ. The caller
// closes the returned client.
func osloClient(cfg *conf.Config, store *db.Store, log *slog.Logger) (*amqp.Client, rpc.ConductorAPI, error) {
	ac, err := amqpConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	c, err := amqp.NewClient(ac, nil, log.With("component", "rpc"))
	if err != nil {
		return nil, nil, err
	}
	return c, amqp.NewConductorAPI(c, store), nil
}

// osloServer serves cond on this host's conductor queues.
func osloServer(cfg *conf.Config, cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) (*amqp.Server, error) {
	ac, err := amqpConfig(cfg)
	if err != nil {
		return nil, err
	}
	host := bound[conductor.Config](cfg.Binder(), compConductor).Host
	return amqp.NewServer(ac, host, cond, store, nil, log.With("component", "rpc"))
}
