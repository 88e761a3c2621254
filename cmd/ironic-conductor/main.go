// Command ironic-conductor is the conductor half of a split Ironic
// deployment: it registers in the conductors table, serves the conductor
// RPC API on its queues over oslo.messaging on RabbitMQ
// ([DEFAULT]rpc_transport = oslo) or as JSON-RPC on [json_rpc]host_ip
// and port ([DEFAULT]rpc_transport = json-rpc), and runs the periodic
// jobs.
package main

import (
	"context"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	wire.Main("ironic-conductor", run)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, ok, err := wire.StartServer(ctx, "ironic-conductor", args, stdout, stderr, false)
	if err != nil || !ok {
		return err
	}
	defer s.Store.Close()
	cfg, log, store := s.Cfg, s.Log, s.Store
	reg, err := wire.Registry(cfg, log)
	if err != nil {
		return err
	}
	cond := wire.Conductor(cfg, store, reg, log)
	srv, err := wire.ConductorServer(cfg, cond, store, log)
	if err != nil {
		return err
	}
	if s.PrintOptions {
		return wire.PrintEffectiveOptions(cfg, stdout)
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	if err := cond.Register(ctx); err != nil {
		return err
	}
	log.InfoContext(ctx, "ironic-conductor started", "host", cond.Host())
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	g.Go(func() error { return cond.Run(gctx) })
	return g.Wait()
}
