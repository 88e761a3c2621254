// Command fake-cinder serves the in-memory Cinder of test/fakecinder, for
// CLI runs and for comparing the Cinder calls of this service with those
// of the reference Ironic:
//
//	fake-cinder -listen 127.0.0.1:8776 -volume ID[:fibre_channel] ... [-v]
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
	"strings"
	"syscall"
	"time"

	"github.com/goironic/ironic/test/fakecinder"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fake-cinder:", err)
		os.Exit(1)
	}
}

type volumes []string

func (v *volumes) String() string     { return strings.Join(*v, ",") }
func (v *volumes) Set(s string) error { *v = append(*v, s); return nil }

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fake-cinder", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8776", "address to listen on")
	portal := fs.String("portal", "", "iSCSI portal of connection data (host:port)")
	var vols volumes
	fs.Var(&vols, "volume", "volume to create at start: ID or ID:fibre_channel (repeatable)")
	verbose := fs.Bool("v", false, "log request bodies")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := fakecinder.Options{Log: log, Portal: *portal}
	for _, v := range vols {
		id, typ, _ := strings.Cut(v, ":")
		vol := map[string]any{"id": id}
		if typ != "" {
			vol["connection_type"] = typ
		}
		opts.Volumes = append(opts.Volumes, vol)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fakecinder.New(opts), ReadHeaderTimeout: 10 * time.Second}
	log.Info("fake-cinder listening", "address", ln.Addr().String())
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
