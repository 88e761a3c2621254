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

// Listen opens [api]host_ip:[api]port.
func Listen(cfg *conf.Config) (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort(cfg.API.HostIP, strconv.Itoa(cfg.API.Port)))
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
