package fakeglance

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a Server listening on a loopback port for one test.
type TestServer struct {
	*Server
	// URL is the endpoint, "http://127.0.0.1:PORT" (no version suffix):
	// Glance's endpoint_override, and the Swift endpoint of its store.
	URL string
}

// ForTest starts a server on 127.0.0.1 for the duration of t.
func ForTest(t testing.TB, opts Options, images ...Image) *TestServer {
	t.Helper()
	s := New(opts, images...)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &TestServer{Server: s, URL: hs.URL}
}
