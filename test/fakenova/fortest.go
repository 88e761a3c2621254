package fakenova

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a Server listening on a loopback port for one test.
type TestServer struct {
	*Server
	// URL is the compute endpoint, "http://127.0.0.1:PORT/v2.1".
	URL string
}

// ForTest starts a server on 127.0.0.1 for the duration of t.
func ForTest(t testing.TB, opts Options) *TestServer {
	t.Helper()
	s := New(opts)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &TestServer{Server: s, URL: hs.URL + "/v2.1"}
}
