// Command ironic-api is the REST API half of a split Ironic deployment: it
// reads the database directly and reaches the conductors over
// oslo.messaging on RabbitMQ ([DEFAULT]rpc_transport = oslo,
// transport_url = rabbit://...), exactly like Python's ironic-api.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ironic-api:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, ok, err := wire.Config("ironic-api", args, stdout, false)
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
	client, calls, err := wire.OsloClient(cfg, store, log)
	if err != nil {
		return err
	}
	defer client.Close()
	api, err := wire.API(cfg, store, calls, log)
	if err != nil {
		return err
	}
	ln, err := wire.Listen(cfg)
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "ironic-api listening", "address", ln.Addr().String())
	return wire.Serve(ctx, ln, api, log)
}
