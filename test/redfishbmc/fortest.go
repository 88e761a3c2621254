package redfishbmc

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a Server listening on a loopback port for one test.
type TestServer struct {
	*Server
	// URL is the shared listener, "http://127.0.0.1:PORT": the default
	// BMC's service root is URL + "/redfish/v1", another BMC's
	// URL + "/bmc/<name>/redfish/v1".
	URL string
	t   testing.TB
}

// ForTest starts a Server on 127.0.0.1 for the duration of t. Its
// default BMC has no system until the test adds one.
func ForTest(t testing.TB, opts Options) *TestServer {
	t.Helper()
	s := New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases hanging requests
	return &TestServer{Server: s, URL: srv.URL, t: t}
}

// ListenBMC serves b alone at /redfish/v1 on a new loopback port for the
// duration of the test and returns its URL ("http://127.0.0.1:PORT").
func (ts *TestServer) ListenBMC(b *BMC) string {
	ts.t.Helper()
	srv := httptest.NewServer(b.Handler())
	ts.t.Cleanup(srv.Close)
	return srv.URL
}
