package wire

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/goironic/ironic/conf"
)

// ListenAddress is where the API listens: [api]host_ip:[api]port.
func ListenAddress(cfg *conf.Config) (string, error) {
	b := cfg.Binder()
	lc := bound[listenConfig](b, compListen)
	if err := b.Err(); err != nil {
		return "", err
	}
	return net.JoinHostPort(lc.HostIP, strconv.Itoa(lc.Port)), nil
}

// Serve answers HTTP on ln with h until ctx ends, then shuts down,
// giving requests in flight 10 s.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
		close(errc)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.WarnContext(sctx, "shutting down the API", "error", err)
	}
	return <-errc
}
