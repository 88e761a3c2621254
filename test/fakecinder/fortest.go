package fakecinder

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a Server listening on a loopback port for one test.
type TestServer struct {
	*Server
	// URL is the endpoint, "http://127.0.0.1:PORT" (no version suffix).
	URL string
}

// ForTest starts a server on 127.0.0.1 for the duration of t.
func ForTest(t testing.TB, opts ...Options) *TestServer {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s := New(o)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &TestServer{Server: s, URL: hs.URL}
}
