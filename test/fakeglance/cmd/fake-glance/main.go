// Command fake-glance serves the in-memory Glance of test/fakeglance (and
// its Swift temp URL store), for CLI runs and for comparing this service's
// Glance requests with those of the reference Ironic:
//
//	fake-glance -listen 127.0.0.1:9292 -temp-url-key KEY -image ID=FILE[:FORMAT] ...
//
// Each -image is served as an active public image whose data is FILE's
// content (disk_format FORMAT, raw by default). Point [glance]
// endpoint_override at http://ADDRESS and, for Swift temp URLs,
// [glance]swift_endpoint_url at http://ADDRESS/v1/ACCOUNT with
// swift_account ACCOUNT, swift_container glance and swift_temp_url_key
// KEY. It logs one line per request to stderr and stops on SIGINT or
// SIGTERM.
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

	"github.com/goironic/ironic/test/fakeglance"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fake-glance:", err)
		os.Exit(1)
	}
}

type images []string

func (v *images) String() string     { return strings.Join(*v, ",") }
func (v *images) Set(s string) error { *v = append(*v, s); return nil }

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fake-glance", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:9292", "address to listen on")
	key := fs.String("temp-url-key", "", "the Swift temp URL key the store accepts")
	token := fs.String("token", "", "the only X-Auth-Token the image API accepts (default: none needed)")
	var imgs images
	fs.Var(&imgs, "image", "an image to serve: ID=FILE[:FORMAT] (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var list []fakeglance.Image
	for _, spec := range imgs {
		id, rest, ok := strings.Cut(spec, "=")
		if !ok {
			return fmt.Errorf("-image %q: want ID=FILE[:FORMAT]", spec)
		}
		file, format, _ := strings.Cut(rest, ":")
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		fields := map[string]any{}
		if format != "" {
			fields["disk_format"] = format
		}
		list = append(list, fakeglance.Image{ID: id, Data: data, Fields: fields})
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fakeglance.New(fakeglance.Options{TempURLKey: *key, Token: *token, Log: log}, list...), ReadHeaderTimeout: 10 * time.Second}
	log.Info("fake-glance listening", "address", ln.Addr().String())
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
