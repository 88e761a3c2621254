package wire

import (
	"fmt"
	"log/slog"

	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
)

// amqpConfig is the RabbitMQ transport's configuration, after checking
// that [DEFAULT]rpc_transport asks for it.
func amqpConfig(cfg *conf.Config, prog string) (amqp.Config, error) {
	b := cfg.Binder()
	tc := bound[transportConfig](b, compTransport)
	ac := bound[amqp.Config](b, compAMQP)
	if err := b.Err(); err != nil {
		return amqp.Config{}, err
	}
	if tc.RPCTransport != "oslo" {
		return amqp.Config{}, fmt.Errorf("%s needs [DEFAULT]rpc_transport = oslo (with transport_url = rabbit://...), not %q; the all-in-one `ironic` runs API and conductor in one process", prog, tc.RPCTransport)
	}
	return ac, nil
}

// OsloClient is the API's conductor client over RabbitMQ. The caller
// closes the returned client.
func OsloClient(cfg *conf.Config, store *db.Store, log *slog.Logger) (*amqp.Client, rpc.ConductorAPI, error) {
	ac, err := amqpConfig(cfg, "ironic-api")
	if err != nil {
		return nil, nil, err
	}
	c, err := amqp.NewClient(ac, nil, log.With("component", "rpc"))
	if err != nil {
		return nil, nil, err
	}
	return c, amqp.NewConductorAPI(c, store), nil
}

// OsloServer serves cond on this host's conductor queues.
func OsloServer(cfg *conf.Config, cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) (*amqp.Server, error) {
	ac, err := amqpConfig(cfg, "ironic-conductor")
	if err != nil {
		return nil, err
	}
	host := bound[conductor.Config](cfg.Binder(), compConductor).Host
	return amqp.NewServer(ac, host, cond, store, nil, log.With("component", "rpc"))
}
