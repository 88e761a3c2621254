// Command ironic is the all-in-one Ironic: the REST API and a conductor in
// one process, talking through the in-process RPC transport. Without
// --config-file it listens on 127.0.0.1:6385 with a SQLite database under
// ./data, no authentication and the fake-hardware driver.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	tuneGC()
	wire.Main("ironic", run)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, ok, err := wire.StartServer(ctx, "ironic", args, stdout, stderr, true)
	if err != nil || !ok {
		return err
	}
	defer s.Store.Close()
	cfg, log, store := s.Cfg, s.Log, s.Store
	if !s.PrintOptions {
		if err := store.Upgrade(ctx); err != nil {
			return fmt.Errorf("preparing the database: %w", err)
		}
	}
	reg, err := wire.Registry(cfg, log)
	if err != nil {
		return err
	}
	cond := wire.Conductor(cfg, store, reg, log)
	pol, err := wire.Policy(cfg, log)
	if err != nil {
		return err
	}
	api, err := wire.API(cfg, store, wire.InProcess(cond, store, log), pol, log)
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
	if err := cond.Register(ctx); err != nil {
		return err
	}
	ln, err := ep.Listen()
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "ironic all-in-one listening", "address", ln.Addr().String(), "host", cond.Host())
	// Start-up garbage (schema compilation, config parsing) is returned to
	// the system once serving has begun, rather than lingering under the
	// relaxed GC target.
	go debug.FreeOSMemory()

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return cond.Run(gctx) })
	g.Go(func() error { return pol.Watch(gctx, time.Second) })
	g.Go(func() error { return wire.Serve(gctx, ln, h, log) })
	return g.Wait()
}

// tuneGC trades memory for CPU unless the operator chose: the API's
// allocation rate per request is high and its live heap small, so the
// default GOGC=100 collects far too often under load.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
