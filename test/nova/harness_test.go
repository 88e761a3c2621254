package nova

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// restVersion is the microversion of the test's own requests.
	restVersion = "1.82"
	// callTimeout bounds one call of Nova's driver (spawn and destroy
	// poll the node once a second until it settles).
	callTimeout = 2 * time.Minute
	// novaStartTimeout bounds the script's start: imports and Nova's
	// migrations on SQLite take 3-5 s on an idle machine.
	novaStartTimeout = 90 * time.Second
	// novaScript is the Python side of the protocol.
	novaScript = "testdata/novadriver.py"
	// novaHost is nova-compute's [DEFAULT]host.
	novaHost = "nova-compute-test"
	// protoPrefix starts the script's protocol lines (PREFIX there).
	protoPrefix = "@@novadriver "
	// maxBody bounds the request body the recorder keeps and forwards.
	maxBody = 1 << 20
)

func TestMain(m *testing.M) { cluster.Main(m) }

// requireNova skips (or fails, with IRONIC_TEST_REQUIRE_PYTHON=1) a test
// when Debian's Python cannot import Nova's ironic driver.
func requireNova(t *testing.T) {
	t.Helper()
	cluster.RequirePython(t, "nova.virt.ironic.driver, ironicclient, openstack", "python3-nova")
}

// apiRequest is one request Nova's driver sent to the Bare Metal API.
type apiRequest struct {
	Method, Path string
	// Version is X-OpenStack-Ironic-API-Version; Service is
	// OpenStack-API-Version (keystoneauth sends both for a
	// microversion, version discovery neither).
	Version, Service string
	// Body is the request's body as sent (empty for none).
	Body string
}

// String is the request as the goldens hold it: "PUT
// /v1/nodes/x/states/power [1.46] {"target": "power on"}", the version
// elided when none was sent, both shown when they disagree.
func (r apiRequest) String() string {
	s := r.Method + " " + r.Path
	switch {
	case r.Version == "" && r.Service == "":
	case r.Service == "" || r.Service == "baremetal "+r.Version:
		s += " [" + r.Version + "]"
	default:
		s += fmt.Sprintf(" [%s; OpenStack-API-Version: %s]", r.Version, r.Service)
	}
	if r.Body != "" {
		s += " " + r.Body
	}
	return s
}

// recorder is a reverse proxy in front of one Bare Metal API that keeps
// the requests passing through. It forwards the client's Host header, so
// that the links in the API's answers (version discovery follows them)
// point back at the proxy.
type recorder struct {
	// URL is the proxy's endpoint, http://127.0.0.1:PORT.
	URL string

	mu     sync.Mutex
	target *url.URL
	reqs   []apiRequest
}

// newRecorder starts a proxy on a free loopback port for the duration of
// t; it answers 502 until setTarget names the API.
func newRecorder(t testing.TB) *recorder {
	t.Helper()
	r := &recorder{}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		r.mu.Lock()
		target := r.target
		r.mu.Unlock()
		if target != nil {
			pr.SetURL(target)
		}
		pr.Out.Host = pr.In.Host
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			r.mu.Lock()
			ready := r.target != nil
			r.reqs = append(r.reqs, apiRequest{
				Method: req.Method, Path: req.URL.RequestURI(), Body: string(body),
				Version: req.Header.Get(cluster.VersionHeader), Service: req.Header.Get("OpenStack-API-Version"),
			})
			r.mu.Unlock()
			if !ready {
				http.Error(w, "no API behind the proxy yet", http.StatusBadGateway)
				return
			}
			proxy.ServeHTTP(w, req)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	r.URL = "http://" + l.Addr().String()
	return r
}

// setTarget sends the proxy's requests to the API at base (no path).
func (r *recorder) setTarget(t testing.TB, base string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.target = u
}

// take returns the requests since the last take, a request repeated
// back to back (a poll, a retry) once, and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	reqs := r.reqs
	r.reqs = nil
	r.mu.Unlock()
	out := []string{}
	for _, q := range reqs {
		s := q.String()
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// novaConfig is the nova.conf of a compute service whose driver talks to
// Ironic with the [ironic] options given (auth and endpoint).
// extra's sections are merged in.
func novaConfig(dir string, ironic map[string]string, extra ...cluster.INI) cluster.INI {
	// api_retry_interval is whole seconds; 0 would poll a deploy or a
	// power change without a pause, and end destroy's wait after
	// api_max_retries polls however long Ironic needs.
	ir := map[string]string{"api_retry_interval": "1", "api_max_retries": "60"}
	maps.Copy(ir, ironic)
	return cluster.INI{
		"DEFAULT": {
			"host":       novaHost,
			"debug":      "true",
			"log_file":   filepath.Join(dir, "nova.log"),
			"state_path": dir,
		},
		"oslo_concurrency": {"lock_path": filepath.Join(dir, "locks")},
		"database":         {"connection": "sqlite:///" + filepath.Join(dir, "nova.sqlite")},
		"ironic":           ir,
	}.Merged(extra...)
}

// novaError is a call of the driver that raised.
type novaError struct {
	Class, Message string
}

func (e *novaError) Error() string { return e.Class + ": " + e.Message }

// novaDriver is testdata/novadriver.py running Nova's IronicDriver.
type novaDriver struct {
	t       testing.TB
	stdin   io.WriteCloser
	answers chan []byte   // the script's protocol lines
	stop    chan struct{} // closed when the test no longer reads answers
	exited  chan struct{} // closed when the script has exited
	log     string        // nova.log
	mu      sync.Mutex    // one call at a time
}

// startNova writes nova.conf into a new directory and starts the driver
// script, waiting until it is ready. It is stopped when t ends (the end
// of its stderr and of nova.log logged if t failed).
func startNova(ctx context.Context, t testing.TB, ironic map[string]string, extra ...cluster.INI) *novaDriver {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "nova.conf")
	if err := os.WriteFile(conf, []byte(novaConfig(dir, ironic, extra...).String()), 0o600); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(novaScript)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cluster.PythonBin, script, conf)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderrPath := filepath.Join(dir, "stderr.log")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close() // the child holds its own descriptor
	cmd.Stderr = stderr
	stderrTail := func(n int) string {
		b, _ := os.ReadFile(stderrPath)
		return cluster.Tail(b, n)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &novaDriver{t: t, stdin: stdin, answers: make(chan []byte), stop: make(chan struct{}), exited: make(chan struct{}), log: filepath.Join(dir, "nova.log")}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), protoPrefix); ok {
				select {
				case d.answers <- []byte(line):
				case <-d.stop:
				}
			}
		}
	}()
	started := make(chan error, 1)
	go func() {
		// Pdeathsig (the script dies with the test process) fires when
		// the thread that started the child ends: this goroutine keeps
		// its thread until the child has exited, as cluster.StartProcess
		// does.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		<-read // Wait closes stdout: read it to the end first
		_ = cmd.Wait()
		close(d.exited)
	}()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(d.stop)
		_ = stdin.Close() // end of input ends the script
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-d.exited
		}
		if t.Failed() {
			logText, _ := os.ReadFile(d.log)
			t.Logf("nova driver stderr, the end:\n%s\nnova.log (%s), the end:\n%s", stderrTail(6000), d.log, cluster.Tail(logText, 8000))
		}
	})
	var ready struct {
		Ready bool `json:"ready"`
	}
	if err := d.receive(ctx, novaStartTimeout, &ready); err != nil || !ready.Ready {
		t.Fatalf("nova driver did not start: %v\nstderr:\n%s", err, stderrTail(4000))
	}
	return d
}

// receive waits (at most timeout) for the script's next line and decodes
// it into out.
func (d *novaDriver) receive(ctx context.Context, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case line := <-d.answers:
		return json.Unmarshal(line, out)
	case <-d.exited:
		return errors.New("the script exited")
	case <-ctx.Done():
		return fmt.Errorf("no answer within %s: %w", timeout, ctx.Err())
	}
}

// call runs one method of the driver (or create_instance) with args and
// returns its JSON result, or the driver's exception. A script that
// does not answer within callTimeout ends the test.
func (d *novaDriver) call(ctx context.Context, name string, args map[string]any) (json.RawMessage, *novaError) {
	d.t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	req := map[string]any{"call": name}
	for k, v := range args {
		req[k] = v
	}
	line, err := json.Marshal(req)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.stdin.Write(append(line, '\n')); err != nil {
		d.t.Fatalf("nova driver: %s: %v", name, err)
	}
	var ans struct {
		OK      bool            `json:"ok"`
		Result  json.RawMessage `json:"result"`
		Error   string          `json:"error"`
		Message string          `json:"message"`
	}
	if err := d.receive(ctx, callTimeout, &ans); err != nil {
		d.t.Fatalf("nova driver: %s: %v", name, err)
	}
	if !ans.OK {
		return nil, &novaError{Class: ans.Error, Message: ans.Message}
	}
	return ans.Result, nil
}

// step is what Nova sent to the API for one call of its driver.
type step struct {
	Name     string   `json:"name"`
	Requests []string `json:"requests"`
}

// session is Nova's driver talking through a recorder to one Ironic,
// and the test's own client of that Ironic.
type session struct {
	t     *testing.T
	ctx   context.Context
	nova  *novaDriver
	rec   *recorder
	rest  *cluster.Client
	steps []step
}

// startNoauth starts an all-in-one (ours, or Python's with python) with
// conf and auth_strategy noauth, a recorder in front of it, and Nova's
// driver talking through the recorder.
func startNoauth(ctx context.Context, t *testing.T, python bool, conf cluster.INI) *session {
	t.Helper()
	srv := startAllInOne(ctx, t, python, conf)
	rec := newRecorder(t)
	rec.setTarget(t, srv.URL)
	return newSession(ctx, t, rec, srv.URL, map[string]string{"auth_type": "none", "endpoint_override": rec.URL}, nil)
}

// newSession starts Nova's driver with the [ironic] options given
// (which point it at rec) and a client of the API at apiURL.
func newSession(ctx context.Context, t *testing.T, rec *recorder, apiURL string, ironic map[string]string, header http.Header, extra ...cluster.INI) *session {
	t.Helper()
	rest := cluster.NewClient(apiURL, restVersion)
	rest.HTTP.Timeout = 30 * time.Second
	rest.Header = header
	return &session{t: t, ctx: ctx, nova: startNova(ctx, t, ironic, extra...), rec: rec, rest: rest}
}

// do calls the driver; label names the step (the method's name when
// empty). A call that raises ends the test.
func (s *session) do(label, name string, args map[string]any) json.RawMessage {
	s.t.Helper()
	res, nerr := s.record(label, name, args)
	if nerr != nil {
		s.t.Fatalf("%s: %v", s.steps[len(s.steps)-1].Name, nerr)
	}
	return res
}

// fails calls the driver, requires it to raise class and returns the
// exception's message.
func (s *session) fails(label, name string, args map[string]any, class string) string {
	s.t.Helper()
	res, nerr := s.record(label, name, args)
	if nerr == nil {
		s.t.Fatalf("%s: returned %s, want %s raised", s.steps[len(s.steps)-1].Name, res, class)
	}
	if nerr.Class != class {
		s.t.Fatalf("%s: raised %v, want %s", s.steps[len(s.steps)-1].Name, nerr, class)
	}
	return nerr.Message
}

func (s *session) record(label, name string, args map[string]any) (json.RawMessage, *novaError) {
	s.t.Helper()
	if label == "" {
		label = name
	}
	s.rec.take() // what came before is nobody's
	res, nerr := s.nova.call(s.ctx, name, args)
	s.steps = append(s.steps, step{Name: label, Requests: s.rec.take()})
	s.t.Logf("nova %s -> %s%v", label, res, errOrNil(nerr))
	return res, nerr
}

func errOrNil(e *novaError) any {
	if e == nil {
		return ""
	}
	return e
}

// want decodes res into a value of got's type and compares.
func want[T any](t *testing.T, what string, res json.RawMessage, wantV T, eq func(a, b T) bool) {
	t.Helper()
	var got T
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatalf("%s: %v (%s)", what, err, res)
	}
	if !eq(got, wantV) {
		t.Fatalf("%s = %s, want %v", what, res, wantV)
	}
}

// equal is == for comparable results.
func equal[T comparable](a, b T) bool { return a == b }

// node reads a node through the API.
func (s *session) node(uuid string) map[string]any {
	s.t.Helper()
	return s.rest.Object(s.ctx, s.t, http.MethodGet, "/v1/nodes/"+uuid, nil)
}

// waitNode polls the node until cond holds (bounded).
func (s *session) waitNode(uuid, what string, cond func(n map[string]any) bool) map[string]any {
	s.t.Helper()
	var last map[string]any
	cluster.Eventually(s.ctx, s.t, 60*time.Second, "node "+uuid+" "+what, func() (bool, string) {
		last = s.node(uuid)
		return cond(last), fmt.Sprintf("provision_state %v power_state %v target_power_state %v last_error %v",
			last["provision_state"], last["power_state"], last["target_power_state"], last["last_error"])
	})
	return last
}

// nodeSpec is a node the test enrolls and makes available.
type nodeSpec struct {
	UUID, Name, Driver string
	DriverInfo         map[string]any
	Interfaces         map[string]any // e.g. "deploy_interface": "fake"
	Properties         map[string]any
	ResourceClass      string
	Traits             []string
	// Manageable leaves the node in manageable (not available).
	Manageable bool
}

// enroll creates the node, adds its traits, takes it through manage
// (and provide unless Manageable) and powers it off, as an operator
// would before handing it to Nova. A hardware type that answers that
// it is not implemented yet (drivers.NotImplemented) skips the test.
func (s *session) enroll(n nodeSpec) {
	s.t.Helper()
	body := map[string]any{"uuid": n.UUID, "name": n.Name, "driver": n.Driver, "properties": n.Properties, "resource_class": n.ResourceClass}
	if n.DriverInfo != nil {
		body["driver_info"] = n.DriverInfo
	}
	for k, v := range n.Interfaces {
		body[k] = v
	}
	s.rest.Must(s.ctx, s.t, http.StatusCreated, http.MethodPost, "/v1/nodes", body)
	if len(n.Traits) > 0 {
		s.rest.Must(s.ctx, s.t, http.StatusNoContent, http.MethodPut, "/v1/nodes/"+n.UUID+"/traits", map[string]any{"traits": n.Traits})
	}
	s.rest.Must(s.ctx, s.t, http.StatusAccepted, http.MethodPut, "/v1/nodes/"+n.UUID+"/states/provision", map[string]any{"target": "manage"})
	m := s.waitNode(n.UUID, "verified", func(m map[string]any) bool { return m["target_provision_state"] == nil })
	if m["provision_state"] != "manageable" {
		if e, _ := m["last_error"].(string); strings.Contains(e, "not implemented yet") {
			s.t.Skipf("the %s hardware type is not implemented on this branch (manage: %s): this case waits for its power and management interfaces (issue 12)", n.Driver, e)
		}
		s.t.Fatalf("manage: provision_state %v, last_error %v", m["provision_state"], m["last_error"])
	}
	if !n.Manageable {
		s.provision(n.UUID, "provide", "available")
	}
	s.rest.Must(s.ctx, s.t, http.StatusAccepted, http.MethodPut, "/v1/nodes/"+n.UUID+"/states/power", map[string]any{"target": "power off"})
	s.waitNode(n.UUID, "powered off", func(m map[string]any) bool {
		return m["power_state"] == "power off" && m["target_power_state"] == nil
	})
}

// provision asks for target and waits until the node is in state.
func (s *session) provision(uuid, target, state string) {
	s.t.Helper()
	s.rest.Must(s.ctx, s.t, http.StatusAccepted, http.MethodPut, "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target})
	s.waitNode(uuid, "in "+state, func(m map[string]any) bool {
		return m["provision_state"] == state && m["target_provision_state"] == nil
	})
}
