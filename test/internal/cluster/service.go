package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Defaults of the Spec fields left zero.
const (
	// DefaultStartTimeout bounds the wait for an API's first answer.
	// Python's need 5-15 s alone, more while other tests start theirs.
	DefaultStartTimeout = 60 * time.Second
	// DefaultStopGrace is how long a service gets to exit after SIGTERM.
	DefaultStopGrace = 20 * time.Second
	// DefaultLogTail is how many bytes of the log's end a failed test
	// prints.
	DefaultLogTail = 6000
)

// PythonBin is Debian's python, the one python3-ironic is installed for.
const PythonBin = "/usr/bin/python3"

// Program is what a service runs: one of our commands, or the same
// command of Debian's Python Ironic.
type Program struct {
	Cmd    Command
	Python bool
}

// Ours is our command cmd.
func Ours(cmd Command) Program { return Program{Cmd: cmd} }

// Python is Python Ironic's command cmd.
func Python(cmd Command) Program { return Program{Cmd: cmd, Python: true} }

// String names the program: "go ironic-api", "python ironic-conductor".
func (p Program) String() string {
	if p.Python {
		return "python " + string(p.Cmd)
	}
	return "go " + string(p.Cmd)
}

// listens reports whether the program serves the REST API.
func (p Program) listens() bool { return p.Cmd == API || p.Cmd == AllInOne }

// command returns the binary and arguments that run p with args, building
// our command if needed. Python's runs the main() of its ironic.cmd
// module with the command's name as argv[0], the way Debian's Ironic runs
// without its console scripts.
func (p Program) command(t testing.TB, args ...string) (string, []string) {
	t.Helper()
	if !p.Python {
		return Bin(t, p.Cmd), args
	}
	module := map[Command]string{AllInOne: "singleprocess", API: "api", Conductor: "conductor", DBSync: "dbsync"}[p.Cmd]
	code := fmt.Sprintf("import sys; from ironic.cmd.%s import main; sys.argv=['%s']+sys.argv[1:]; main()", module, p.Cmd)
	return PythonBin, append([]string{"-c", code}, args...)
}

// Spec says how to start one service.
type Spec struct {
	Program Program
	// Name names the service in messages and its files in Dir:
	// <Name>.conf and <Name>.log. Empty means the program's name.
	Name string
	// Config returns the text of ironic.conf; port is [api]port for a
	// program that serves the API (normally with host_ip 127.0.0.1),
	// zero for the others.
	Config func(port int) string
	// Port is the API's port; zero takes a free one.
	Port int
	// Dir receives the files; empty means a new directory of t's.
	Dir string
	// StartTimeout bounds the wait for an API's first answer
	// (DefaultStartTimeout when zero).
	StartTimeout time.Duration
	// StopGrace is how long the service gets to exit after SIGTERM
	// before its process group is killed (DefaultStopGrace when zero).
	StopGrace time.Duration
	// LogTail is how many bytes of the log's end a failed test prints
	// (DefaultLogTail when zero; negative prints the whole log).
	LogTail int
	// TLS, for an API served over HTTPS ([api]enable_ssl_api), is the
	// client configuration the wait for its first answer uses; the URL is
	// then https://.
	TLS *tls.Config
}

// Service is a running program of a test.
type Service struct {
	*Process
	// Name is the Spec's name.
	Name    string
	Program Program
	// URL is the API's endpoint, http://127.0.0.1:<Port> without a
	// slash; empty for a conductor.
	URL  string
	Port int
	// ConfPath is the ironic.conf written for it.
	ConfPath string
	grace    time.Duration
}

// Start writes the service's ironic.conf and starts it; a program that
// serves the API is waited for until it answers GET /. The service is
// stopped when t ends; if t failed, the end of its log is logged then.
// Any failure to get there ends t.
func Start(ctx context.Context, t testing.TB, spec Spec) *Service {
	t.Helper()
	if spec.Name == "" {
		spec.Name = string(spec.Program.Cmd)
	}
	if spec.Dir == "" {
		spec.Dir = t.TempDir()
	}
	s := &Service{
		Name: spec.Name, Program: spec.Program,
		ConfPath: filepath.Join(spec.Dir, spec.Name+".conf"),
		grace:    or(spec.StopGrace, DefaultStopGrace),
	}
	if spec.Program.listens() {
		s.Port = spec.Port
		if s.Port == 0 {
			p, err := FreePort()
			if err != nil {
				t.Fatal(err)
			}
			s.Port = p
		}
		s.URL = fmt.Sprintf("http://127.0.0.1:%d", s.Port)
		if spec.TLS != nil {
			s.URL = fmt.Sprintf("https://127.0.0.1:%d", s.Port)
		}
	}
	if err := os.WriteFile(s.ConfPath, []byte(spec.Config(s.Port)), 0o600); err != nil {
		t.Fatal(err)
	}
	bin, args := spec.Program.command(t, "--config-file", s.ConfPath)
	p, err := StartProcess(bin, args, filepath.Join(spec.Dir, spec.Name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	s.Process = p
	tail := or(spec.LogTail, DefaultLogTail)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Logf("%s: %v", s, err)
		}
		if t.Failed() {
			t.Logf("%s log (%s), the end:\n%s", s, s.Log, s.LogTail(tail))
		}
	})
	if s.URL != "" {
		start := time.Now()
		client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: spec.TLS}}
		if err := waitHTTP(ctx, client, s.URL+"/", or(spec.StartTimeout, DefaultStartTimeout), p, ironicRoot); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		t.Logf("%s up at %s after %s", s, s.URL, time.Since(start).Round(time.Millisecond))
	}
	return s
}

// String names the service in messages: "go ironic-api (cond-a)".
func (s *Service) String() string { return fmt.Sprintf("%s (%s)", s.Program, s.Name) }

// Stop stops the service now (the test's end then finds it stopped).
func (s *Service) Stop() error { return s.Process.Stop(s.grace) }

// RequireRunning fails t if the service has exited.
func (s *Service) RequireRunning(t testing.TB) {
	t.Helper()
	if done, err := s.Exited(); done {
		t.Fatalf("%s exited: %v\nlog:\n%s", s, err, s.LogTail(4000))
	}
}

// WaitHTTP polls GET url until it answers with any HTTP status, the
// process p (if not nil) exits, or timeout passes.
func WaitHTTP(ctx context.Context, url string, timeout time.Duration, p *Process) error {
	return waitHTTP(ctx, &http.Client{Timeout: 2 * time.Second}, url, timeout, p, "")
}

// ironicRoot is in the body of Ironic's GET / (ours and Python's): a
// 200 without it comes from another server on the port.
const ironicRoot = `"OpenStack Ironic API"`

// waitHTTP polls GET url until it answers with any HTTP status, the
// process p (if not nil) exits, or timeout passes; an answer 200 whose
// body lacks mark (when not empty) is an error.
func waitHTTP(ctx context.Context, client *http.Client, url string, timeout time.Duration, p *Process, mark string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var done <-chan struct{}
	if p != nil {
		done = p.Done()
	}
	var lastErr error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			if mark != "" && resp.StatusCode == http.StatusOK && !strings.Contains(string(body), mark) {
				return fmt.Errorf("%s answers, but not as the program started (no %s in %q): another server has the port", url, mark, body)
			}
			return nil
		}
		lastErr = err
		select {
		case <-done:
			_, err := p.Exited()
			return fmt.Errorf("exited before answering (%w); log:\n%s", err, p.LogTail(4000))
		case <-ctx.Done():
			return fmt.Errorf("no answer from %s within %s: %w", url, timeout, errors.Join(ctx.Err(), lastErr))
		case <-tick.C:
		}
	}
}

// Eventually calls cond every 250 ms until it holds, failing t with what
// and cond's last report after timeout or when ctx ends.
func Eventually(ctx context.Context, t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("not within %s: %s; last: %s", timeout, what, last)
		case <-tick.C:
		}
	}
}

// TestContext bounds a test by budget and by the go test deadline (less
// margin, to leave time for the clean-up and its report).
func TestContext(t testing.TB, budget, margin time.Duration) context.Context {
	t.Helper()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			if left := time.Until(dl) - margin; left < budget {
				budget = left
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	return ctx
}

func or[T comparable](v, dflt T) T {
	var zero T
	if v == zero {
		return dflt
	}
	return v
}
