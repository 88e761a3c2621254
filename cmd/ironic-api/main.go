// Command ironic-api is the REST API half of a split Ironic deployment: it
// reads the database directly and reaches the conductors over
// oslo.messaging on RabbitMQ ([DEFAULT]rpc_transport = oslo,
// transport_url = rabbit://...) or over json-rpc ([DEFAULT]rpc_transport
// = json-rpc: each conductor at its host name and [json_rpc]port),
// exactly like Python's ironic-api.
package main

import (
	"context"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	wire.Main("ironic-api", run)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, ok, err := wire.StartServer(ctx, "ironic-api", args, stdout, stderr, false)
	if err != nil || !ok {
		return err
	}
	defer s.Store.Close()
	cfg, log, store := s.Cfg, s.Log, s.Store
	client, calls, err := wire.ConductorClient(cfg, store, log)
	if err != nil {
		return err
	}
	defer client.Close()
	pol, err := wire.Policy(cfg, log)
	if err != nil {
		return err
	}
	api, err := wire.API(cfg, store, calls, pol, log)
	if err != nil {
		return err
	}
	h, err := wire.Authenticated(cfg, api, log)
	if err != nil {
		return err
	}
	ep, err := wire.APIEndpoint(cfg)
	if err != nil {
		return err
	}
	if s.PrintOptions {
		return wire.PrintEffectiveOptions(cfg, stdout)
	}
	ln, err := ep.Listen()
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "ironic-api listening", "address", ln.Addr().String())
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return pol.Watch(gctx, time.Second) })
	g.Go(func() error { return wire.Serve(gctx, ln, h, log) })
	return g.Wait()
}
