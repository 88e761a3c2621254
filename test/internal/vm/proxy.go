package vm

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"testing"
	"time"
)

// HostProxy is an HTTP proxy on 127.0.0.1 through which the host
// reaches URLs on GuestHost: the guest's name for the host's loopback,
// which the host itself cannot route. A conductor whose HTTP_PROXY is
// its URL checks the image URLs the guest downloads (HEAD requests, as
// Ironic's HttpImageService.validate_href) at the same addresses. Set
// NO_PROXY=127.0.0.1,localhost with it: Go's clients never proxy
// loopback addresses, but Python's requests (Nova, the CLI) do unless
// told. Other hosts are refused (502). It is stopped when t ends.
func HostProxy(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			_, port, _ := net.SplitHostPort(r.In.URL.Host)
			r.Out.URL.Scheme = "http"
			r.Out.URL.Host = net.JoinHostPort("127.0.0.1", port)
			r.Out.Host = r.In.Host
		},
		Transport: &http.Transport{Proxy: nil, ResponseHeaderTimeout: 30 * time.Second},
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.URL.Host)
		if err != nil || host != GuestHost || r.URL.Scheme != "http" {
			http.Error(w, fmt.Sprintf("this proxy only reaches http://%s:PORT", GuestHost), http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}
