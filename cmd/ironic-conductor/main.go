// Command ironic-conductor is the conductor half of a split Ironic
// deployment: it registers in the conductors table, serves the conductor
// RPC API on its queues over oslo.messaging on RabbitMQ
// ([DEFAULT]rpc_transport = oslo), and runs the periodic jobs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ironic-conductor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, ok, err := wire.Config("ironic-conductor", args, stdout, false)
	if err != nil || !ok {
		return err
	}
	log := wire.Logger(cfg, stderr)
	cfg.Report(ctx, log)
	store, err := wire.OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	reg, err := wire.Registry(cfg)
	if err != nil {
		return err
	}
	cond := wire.Conductor(cfg, store, reg, log)
	srv, err := wire.OsloServer(cfg, cond, store, log)
	if err != nil {
		return err
	}
	if err := cond.Register(ctx); err != nil {
		return err
	}
	log.InfoContext(ctx, "ironic-conductor started", "host", cfg.Default.Host)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	g.Go(func() error { return cond.Run(gctx) })
	return g.Wait()
}
