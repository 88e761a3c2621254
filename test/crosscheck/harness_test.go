package crosscheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/test/differential"
)

const (
	// pythonBin is Debian's python, the one python3-ironic is installed for.
	pythonBin = "/usr/bin/python3"
	// requirePythonEnv, set to 1, turns a missing Python Ironic into a
	// failure instead of a skip.
	requirePythonEnv = "IRONIC_TEST_REQUIRE_PYTHON"

	// apiVersion is the microversion every request asks for (Ironic 21.4's
	// maximum).
	apiVersion = "1.82"

	// goHost and pyHost are [DEFAULT]host of our server and of Python's.
	// They differ so that a conductor left registered by the server that
	// stopped would show in the other's answers (a node's "conductor").
	goHost = "goironic-crosscheck"
	pyHost = "pyironic-crosscheck"

	// buildTimeout bounds building our two commands (a cold build compiles
	// the pure-Go SQLite driver).
	buildTimeout = 3 * time.Minute
	// goStartTimeout bounds the wait for our server's first answer.
	goStartTimeout = 20 * time.Second
	// pyStartTimeout bounds the wait for Python's (it needs 5-15 s).
	pyStartTimeout = 60 * time.Second
	// stopGrace is how long a server gets to exit after SIGTERM before its
	// process group is killed.
	stopGrace = 20 * time.Second
	// requestTimeout bounds one HTTP request.
	requestTimeout = 30 * time.Second
	// commandTimeout bounds one ironic-dbsync run.
	commandTimeout = 90 * time.Second
	// asyncTimeout bounds the wait for an asynchronous action (power off).
	asyncTimeout = 30 * time.Second
)

// requirePython skips t when Python Ironic cannot be imported, or fails it
// when the environment requires Python.
func requirePython(t *testing.T) {
	t.Helper()
	requireModules(t, "ironic.cmd.singleprocess, ironic.cmd.dbsync", "python3-ironic")
}

// requireModules skips t when pythonBin cannot import modules (a Python
// import list), or fails it when the environment requires Python.
func requireModules(t *testing.T, modules, pkg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, pythonBin, "-c", "import "+modules).CombinedOutput()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("%s cannot import %s (apt-get install %s): %v\n%s",
		pythonBin, modules, pkg, err, tail(out, 1500))
	if os.Getenv(requirePythonEnv) == "1" {
		t.Fatalf("%s=1: %s", requirePythonEnv, msg)
	}
	t.Skip(msg)
}

// tools are our two commands, built once per top-level test.
type tools struct {
	ironic string
	dbsync string
}

// buildTools builds ./cmd/ironic and ./cmd/ironic-dbsync into a temporary
// directory.
func buildTools(ctx context.Context, t *testing.T) tools {
	t.Helper()
	root, err := differential.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	// The test runs the commands in subprocesses: make `go test` notice
	// when their sources change.
	if err := differential.StatSources(root); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	dir := t.TempDir()
	var tl tools
	for _, b := range []struct {
		pkg string
		dst *string
	}{
		{differential.ServerPackage, &tl.ironic},
		{"github.com/goironic/ironic/cmd/ironic-dbsync", &tl.dbsync},
	} {
		bin, err := differential.Build(ctx, b.pkg, dir)
		if err != nil {
			t.Fatal(err)
		}
		*b.dst = bin
	}
	return tl
}

// backend gives a scenario a fresh, empty database: its URL in SQLAlchemy
// form, which both servers read from [database]connection.
type backend struct {
	name  string
	newDB func(t *testing.T) string
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string {
			return "sqlite:///" + filepath.Join(t.TempDir(), "ironic.sqlite")
		}},
		{"mariadb", func(t *testing.T) string {
			// Python reaches MariaDB through PyMySQL.
			requireModules(t, "pymysql", "python3-pymysql")
			srv := dbtest.MariaDBServer(t)
			name := dbName(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = srv.DropDatabase(ctx, name)
			if err := srv.CreateDatabase(ctx, name); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = srv.DropDatabase(ctx, name)
			})
			return srv.PythonURL(name)
		}},
	}
}

// dbName derives a MariaDB database name, unique in the test binary, from
// the test's name.
func dbName(t *testing.T) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '_'
	}, "xcheck_"+t.Name())
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// conf is what differs between two ironic.conf files of the test.
type conf struct {
	Host     string
	Port     int
	StateDir string
	DBURL    string
}

// writeConf writes an ironic.conf equivalent to the one the harness's
// reference-ironic.sh writes (noauth, rpc_transport none, the fake and
// real interfaces it enables, the noop network interface, no DHCP) into
// c.StateDir, creates the directories it names, and returns its path. Both
// servers read the same file format; the keystone section is left out
// because noauth never reads it.
func writeConf(t *testing.T, c conf) string {
	t.Helper()
	for _, d := range []string{"http", "tftp", "locks", "images", "master_images"} {
		if err := os.MkdirAll(filepath.Join(c.StateDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(`[DEFAULT]
host = %[1]s
auth_strategy = noauth
rpc_transport = none
use_stderr = true
debug = false
enabled_hardware_types = fake-hardware,ipmi,redfish
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,ipxe,pxe,redfish-virtual-media
enabled_console_interfaces = fake,no-console,ipmitool-socat
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect,redfish
enabled_management_interfaces = fake,ipmitool,redfish,noop
enabled_network_interfaces = noop,flat
default_network_interface = noop
enabled_power_interfaces = fake,ipmitool,redfish
enabled_raid_interfaces = fake,no-raid,agent,redfish
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor,ipmitool,redfish

[api]
host_ip = 127.0.0.1
port = %[2]d
api_workers = 1

[database]
connection = %[4]s

[dhcp]
dhcp_provider = none

[deploy]
http_root = %[3]s/http
http_url = http://127.0.0.1:8080

[pxe]
tftp_root = %[3]s/tftp
tftp_master_path = %[3]s/master_images
images_path = %[3]s/images
instance_master_path = %[3]s/master_images

[conductor]
automated_clean = false

[oslo_concurrency]
lock_path = %[3]s/locks

[oslo_policy]
enforce_scope = false
enforce_new_defaults = false

[neutron]
auth_type = none
endpoint_override = http://127.0.0.1:9696
cleaning_network = ironic-cleaning
`, c.Host, c.Port, c.StateDir, c.DBURL)
	path := filepath.Join(c.StateDir, "ironic.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pythonArgs runs the main() of ironic.cmd.<module> with argv[0] name, the
// way the harness runs Debian's Ironic without its console scripts.
func pythonArgs(module, name string, args ...string) []string {
	code := fmt.Sprintf("import sys; from ironic.cmd.%s import main; sys.argv=['%s']+sys.argv[1:]; main()", module, name)
	return append([]string{"-c", code}, args...)
}

// result is the outcome of a command run to completion.
type result struct {
	stdout, stderr string
	code           int
}

// runCommand runs bin with args to completion (at most commandTimeout).
func runCommand(ctx context.Context, t *testing.T, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.code = exit.ExitCode()
	default:
		t.Fatalf("%s %s: %v\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), err, tail(stderr.Bytes(), 3000))
	}
	return r
}

// dbsync runs our ironic-dbsync (python false) or Python's with the
// configuration file conf.
func dbsync(ctx context.Context, t *testing.T, tl tools, python bool, conf, command string) result {
	t.Helper()
	if python {
		return runCommand(ctx, t, pythonBin, pythonArgs("dbsync", "ironic-dbsync", "--config-file", conf, command)...)
	}
	return runCommand(ctx, t, tl.dbsync, "--config-file", conf, command)
}

// proc is a server process in its own process group. It gets SIGKILL if
// the test binary dies, so that no server outlives the test.
type proc struct {
	pid  int
	done chan struct{}
	err  error
}

// startProc starts bin with its output appended to logPath.
func startProc(bin string, args []string, logPath string) (*proc, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p := &proc{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the creating thread ends: keep this
		// goroutine on its thread, blocked in Wait, for the child's life.
		runtime.LockOSThread()
		defer logFile.Close()
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, SIGKILL after grace, and
// returns the process's exit error. Whatever is left of the group is
// killed too.
func (p *proc) stop(grace time.Duration) error {
	if !p.exited() {
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
			<-p.done
		}
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	return p.err
}

// server is one running all-in-one, ours or Python's.
type server struct {
	impl string // "go" or "python"
	host string
	url  string
	log  string
	proc *proc
}

// startServer starts our all-in-one (python false) or Python's on dbURL
// with a fresh configuration and free port, and waits for its first
// answer. It is stopped when t ends if the test has not stopped it.
func startServer(ctx context.Context, t *testing.T, tl tools, python bool, dbURL string) *server {
	t.Helper()
	port, err := differential.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{impl: "go", host: goHost, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	timeout := goStartTimeout
	if python {
		s.impl, s.host, timeout = "python", pyHost, pyStartTimeout
	}
	dir := t.TempDir()
	confPath := writeConf(t, conf{Host: s.host, Port: port, StateDir: dir, DBURL: dbURL})
	s.log = filepath.Join(dir, s.impl+".log")
	bin, args := tl.ironic, []string{"--config-file", confPath}
	if python {
		bin, args = pythonBin, pythonArgs("singleprocess", "ironic", "--config-file", confPath)
	}
	start := time.Now()
	s.proc, err = startProc(bin, args, s.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.proc.stop(stopGrace)
		if t.Failed() {
			t.Logf("%s server log (%s), last lines:\n%s", s.impl, s.log, s.logTail(4000))
		}
	})
	if err := waitReady(ctx, s, timeout); err != nil {
		t.Fatalf("%s server: %v\nlog:\n%s", s.impl, err, s.logTail(4000))
	}
	t.Logf("%s server up at %s after %s", s.impl, s.url, time.Since(start).Round(time.Millisecond))
	return s
}

// stop stops the server and waits for it to exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	start := time.Now()
	err := s.proc.stop(stopGrace)
	t.Logf("%s server stopped after %s (%v)", s.impl, time.Since(start).Round(time.Millisecond), err)
}

func (s *server) logTail(n int) string {
	b, _ := os.ReadFile(s.log)
	return tail(b, n)
}

// waitReady polls GET / until the server answers, its process exits or
// timeout passes.
func waitReady(ctx context.Context, s *server, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		lastErr = err
		select {
		case <-s.proc.done:
			return fmt.Errorf("exited before answering: %v", s.proc.err)
		case <-ctx.Done():
			return fmt.Errorf("no answer from %s within %s: %v", s.url, timeout, lastErr)
		case <-tick.C:
		}
	}
}

// client talks to one server at API version apiVersion.
type client struct {
	base string
	hc   *http.Client
}

func newClient(s *server) *client {
	return &client{base: s.url, hc: &http.Client{Timeout: requestTimeout}}
}

// do sends one request; body, when not nil, is sent as JSON.
func (c *client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", apiVersion)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// must sends a request that has to answer with status want and returns
// the decoded JSON body (nil when empty).
func (c *client) must(ctx context.Context, t *testing.T, method, path string, body any, want int) map[string]any {
	t.Helper()
	status, raw, err := c.do(ctx, method, path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if status != want {
		t.Fatalf("%s %s: status %d, want %d\nbody: %s", method, path, status, want, tail(raw, 2000))
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	v, err := decode(raw)
	if err != nil {
		t.Fatalf("%s %s: %v\nbody: %s", method, path, err, tail(raw, 2000))
	}
	obj, _ := v.(map[string]any)
	return obj
}

// decode parses a JSON document keeping numbers as written.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON document")
	}
	return v, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
