package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/goironic/ironic/conf"
)

// Endpoint is where and how the API listens: [api]host_ip:[api]port,
// over TLS when [api]enable_ssl_api is set.
type Endpoint struct {
	// Addr is host_ip:port.
	Addr string
	// TLS is the server's TLS configuration; nil serves plain HTTP.
	TLS *tls.Config
}

// APIEndpoint binds the API's listening options and, with
// enable_ssl_api, loads the certificates: a file that is missing or
// unreadable, or an option this build cannot honour, is an error here,
// at start-up.
func APIEndpoint(cfg *conf.Config) (Endpoint, error) {
	b := cfg.Binder()
	lc := bound[listenConfig](b, compListen)
	if err := b.Err(); err != nil {
		return Endpoint{}, err
	}
	ep := Endpoint{Addr: net.JoinHostPort(lc.HostIP, strconv.Itoa(lc.Port))}
	if lc.SSL {
		t, err := apiTLS(lc)
		if err != nil {
			return Endpoint{}, err
		}
		ep.TLS = t
	}
	return ep, nil
}

// Listen listens on the endpoint's address, with TLS when it has it.
func (e Endpoint) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", e.Addr)
	if err != nil || e.TLS == nil {
		return ln, err
	}
	return tls.NewListener(ln, e.TLS), nil
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
