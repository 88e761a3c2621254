package fakeneutron

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// CleaningNetworkName and CleaningNetworkID name the network that the
// shared harness's fake Neutron always has (its reference Ironic uses it
// as [neutron]cleaning_network); ForTest and the fake-neutron command
// create it too.
const (
	CleaningNetworkName = "ironic-cleaning"
	CleaningNetworkID   = "5eed0000-0000-4000-8000-00000000c1ea"
)

// CleaningNetwork is the body of the cleaning network.
func CleaningNetwork() map[string]any {
	return map[string]any{"id": CleaningNetworkID, "name": CleaningNetworkName}
}

// TestServer is a Server listening on a loopback port for one test.
type TestServer struct {
	*Server
	// URL is the endpoint, "http://127.0.0.1:PORT" (no version suffix).
	URL string
}

// ForTest starts a server on 127.0.0.1 for the duration of t. Without
// opts.Networks it holds the cleaning network (CleaningNetwork).
func ForTest(t testing.TB, opts ...Options) *TestServer {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Networks == nil {
		o.Networks = []map[string]any{CleaningNetwork()}
	}
	s := New(o)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &TestServer{Server: s, URL: srv.URL}
}

// ForTestHandler serves h on 127.0.0.1 for the duration of t and returns
// its URL: a front for a Server that misbehaves in a test's way.
func ForTestHandler(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
