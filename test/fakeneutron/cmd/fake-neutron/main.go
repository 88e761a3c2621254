// Command fake-neutron serves the in-memory Neutron of
// test/fakeneutron, for tempest runs and for comparing the
// Neutron calls of this service with those of the reference Ironic:
//
//	fake-neutron -listen 127.0.0.1:9696 [-cleaning-network ironic-cleaning] [-v]
//
// It logs one line per request to stderr, with the request body when -v
// is given, and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/goironic/ironic/test/fakeneutron"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fake-neutron:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fake-neutron", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:9696", "address to listen on")
	cleaning := fs.String("cleaning-network", fakeneutron.CleaningNetworkName,
		"name of a network to create at start (id "+fakeneutron.CleaningNetworkID+"); empty for none")
	physnet := fs.String("physical-network", "", "provider:physical_network of that network")
	verbose := fs.Bool("v", false, "log request bodies")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := fakeneutron.Options{Log: log}
	if *cleaning != "" {
		n := map[string]any{"id": fakeneutron.CleaningNetworkID, "name": *cleaning}
		if *physnet != "" {
			n["provider:physical_network"] = *physnet
		}
		opts.Networks = append(opts.Networks, n)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fakeneutron.New(opts), ReadHeaderTimeout: 10 * time.Second}
	log.Info("fake-neutron listening", "address", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
