// Package allinone builds and runs our all-in-one server (cmd/ironic) in
// a subprocess for the tests that talk to it over HTTP with real clients
// (test/cli, test/authz, test/gophercloud, test/ipxe, test/tempest). Each
// test brings its own ironic.conf; this package writes it, picks the port,
// starts the server, waits for its first answer, and stops it (printing
// the end of its log if the test failed) when the test ends.
package allinone

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/test/differential"
)

// Defaults of the Options fields left zero.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultStopGrace    = 10 * time.Second
	DefaultLogTail      = 6000
)

// Build compiles cmd/ironic into a directory of t's and returns the
// binary. Since the server runs in a subprocess, it first stats the
// module's sources, so that go test does not serve a cached result after
// they changed.
func Build(ctx context.Context, t testing.TB) string {
	t.Helper()
	root, err := differential.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := differential.StatSources(root); err != nil {
		t.Fatal(err)
	}
	bin, err := differential.Build(ctx, differential.ServerPackage, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Options say how to run one server.
type Options struct {
	// Bin is the server binary (from Build).
	Bin string
	// Config returns the text of ironic.conf for the port the server is
	// to listen on ([api]port, normally with host_ip 127.0.0.1).
	Config func(port int) string
	// Port is the port; zero takes a free one (differential.FreePort).
	Port int
	// Dir receives ironic.conf and ironic.log; empty means a new
	// directory of t's.
	Dir string
	// StartTimeout bounds the wait for the server's first answer
	// (DefaultStartTimeout when zero).
	StartTimeout time.Duration
	// StopGrace is how long the server gets to exit after SIGINT before
	// it is killed (DefaultStopGrace when zero).
	StopGrace time.Duration
	// LogTail is how many bytes of the log's end a failed test prints
	// (DefaultLogTail when zero; negative prints the whole log).
	LogTail int
}

// Server is a running all-in-one.
type Server struct {
	// URL is the endpoint, http://127.0.0.1:<Port>, without a slash.
	URL  string
	Port int
	// ConfPath and LogPath are the ironic.conf written and the server's
	// output (stdout and stderr).
	ConfPath, LogPath string
}

// Start writes ironic.conf, starts the server and returns once it answers
// GET /. It is stopped when t ends; if t failed, the end of its log is
// logged then. Any failure to get there ends t.
func Start(ctx context.Context, t testing.TB, o Options) *Server {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Port == 0 {
		p, err := differential.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		o.Port = p
	}
	s := &Server{
		URL:      fmt.Sprintf("http://127.0.0.1:%d", o.Port),
		Port:     o.Port,
		ConfPath: filepath.Join(o.Dir, "ironic.conf"),
		LogPath:  filepath.Join(o.Dir, "ironic.log"),
	}
	if err := os.WriteFile(s.ConfPath, []byte(o.Config(o.Port)), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := differential.Start(o.Bin, []string{"--config-file", s.ConfPath}, s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(or(o.StopGrace, DefaultStopGrace)); err != nil {
			t.Logf("server: %v", err)
		}
		if t.Failed() {
			s.logTail(t, or(o.LogTail, DefaultLogTail))
		}
	})
	if err := differential.WaitReady(ctx, s.URL+"/", or(o.StartTimeout, DefaultStartTimeout), p); err != nil {
		t.Fatal(err)
	}
	return s
}

// logTail logs the last max bytes of the server's log (all of it when max
// is negative).
func (s *Server) logTail(t testing.TB, max int) {
	data, err := os.ReadFile(s.LogPath)
	if err != nil {
		t.Logf("server log: %v", err)
		return
	}
	if max >= 0 && len(data) > max {
		t.Logf("server log (%s), last %d bytes:\n%s", s.LogPath, max, data[len(data)-max:])
		return
	}
	t.Logf("server log (%s):\n%s", s.LogPath, data)
}

func or[T comparable](v, dflt T) T {
	var zero T
	if v == zero {
		return dflt
	}
	return v
}
