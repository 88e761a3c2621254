package jsonrpc_test

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

type rpcClient = rpc.ConductorAPI

func requirePyClient(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/python3/dist-packages/ironic_lib/json_rpc/client.py"); err != nil {
		if os.Getenv("IRONIC_TEST_REQUIRE_PYTHON") == "1" {
			t.Fatal("python3-ironic-lib is not installed (IRONIC_TEST_REQUIRE_PYTHON=1)")
		}
		t.Skip("python3-ironic-lib is not installed")
	}
}

// serve serves h on 127.0.0.1 (through wrap, if not nil) until the test
// ends; it returns the port.
func serve(t *testing.T, h http.Handler, wrap func(net.Listener) (net.Listener, error)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if wrap != nil {
		if l, err = wrap(l); err != nil {
			t.Fatal(err)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return port
}

// runPyClient runs testdata/pyclient.py against port (with conf as its
// ironic.conf, if not ""), bounded.
func runPyClient(t *testing.T, port int, conf string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"testdata/pyclient.py", strconv.Itoa(port), ".127.0.0.1"}
	if conf != "" {
		f := filepath.Join(t.TempDir(), "ironic.conf")
		if err := os.WriteFile(f, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	return exec.CommandContext(ctx, "/usr/bin/python3", args...).CombinedOutput()
}

// TestPythonClientCallsGoServer: Ironic 21.4's rpcapi.ConductorAPI on
// ironic_lib's json-rpc client calls our server; the objects, the context
// and a fault's class and code must survive both ways.
func TestPythonClientCallsGoServer(t *testing.T) {
	requirePyClient(t)
	fake := oslotest.New()
	port := serve(t, jsonrpc.NewServer("127.0.0.1", fake, nil, nil), nil)
	oslotest.SetPyClientResults(fake)
	out, err := runPyClient(t, port, "")
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)
}

// TestPythonClientHTTPBasicTLS: ironic_lib's client with auth_strategy
// http_basic (http_basic_username/password, keystoneauth's http_basic
// plugin) and use_ssl with [json_rpc]cafile calls our server, which
// serves HTTPS with a test-made CA's certificate; with a wrong password
// keystoneauth raises Unauthorized, and with another CA the TLS
// handshake fails.
func TestPythonClientHTTPBasicTLS(t *testing.T) {
	requirePyClient(t)
	p := newPKI(t)
	fake, port := basicTLSServer(t, p)
	conf := func(password, ca string) string {
		return "[json_rpc]\nauth_strategy = http_basic\nhttp_basic_username = admin\nhttp_basic_password = " + password +
			"\nuse_ssl = true\ncafile = " + ca + "\n"
	}
	oslotest.SetPyClientResults(fake)
	out, err := runPyClient(t, port, conf("password", p.ca))
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)

	for name, tc := range map[string]struct{ conf, want string }{
		"wrong password": {conf("wrong", p.ca), "keystoneauth1.exceptions.http.Unauthorized"},
		"wrong CA":       {conf("password", p.otherCA), "SSLError"},
	} {
		out, err := runPyClient(t, port, tc.conf)
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v, want %s in\n%s", name, err, tc.want, out)
		}
	}
	if n := len(fake.Calls()); n != 5 {
		t.Errorf("the server ran %d calls, want the first run's 5", n)
	}
}

// startPyServer runs testdata/pyserver.py with conf as its ironic.conf
// until the test ends (bounded to two minutes) and returns its port.
func startPyServer(t *testing.T, conf string) int {
	t.Helper()
	f := filepath.Join(t.TempDir(), "ironic.conf")
	if err := os.WriteFile(f, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "testdata/pyserver.py", f)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("pyserver.py stderr:\n%s", stderr.String())
		}
	})
	ready := make(chan int, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := io.ReadAtLeast(stdout, b, len("READY 1"))
		var port int
		if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b[:n])), "READY "); ok {
			port, _ = strconv.Atoi(rest)
		}
		ready <- port
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case port := <-ready:
		if port == 0 {
			t.Fatalf("pyserver.py did not start:\n%s", stderr.String())
		}
		return port
	case <-time.After(time.Minute):
		t.Fatalf("pyserver.py not ready after a minute:\n%s", stderr.String())
	}
	return 0
}

// TestGoClientCallsPythonServer: our client calls 21.4's ironic_lib
// json-rpc server (WSGIService) under http_basic with use_ssl, its
// certificate from oslo.service's [ssl] options: a result carrying the
// context, a fault's class and code, a wrong password refused. Its 401
// is byte for byte the body and WWW-Authenticate ours sends.
func TestGoClientCallsPythonServer(t *testing.T) {
	requirePyClient(t)
	p := newPKI(t)
	port := startPyServer(t, "[json_rpc]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = "+userFile(t)+
		"\nhost_ip = 127.0.0.1\nport = 0\nuse_ssl = true\n[ssl]\ncert_file = "+p.cert+"\nkey_file = "+p.key+"\n")
	topic := ".127.0.0.1:" + strconv.Itoa(port)
	client := func(password, ca string) rpcClient {
		return jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{AuthStrategy: jsonrpc.HTTPBasic, UseSSL: true,
			Username: "admin", Password: password, Session: keystoneauth.Options{CAFile: ca}}, nil), nil)
	}
	ctx := testCtx(t)
	got, err := client("password", p.ca).GetSupportedBootDevices(ctx, topic, "n1")
	if err != nil || strings.Join(got, " ") != "pxe n1 req-1 admin" {
		t.Errorf("get_supported_boot_devices: %q %v", got, err)
	}
	err = client("password", p.ca).DoProvisioningAction(ctx, topic, "n1", "deploy")
	if f := ironic.AsFault(err); f.Class != ironic.NodeLocked || f.HTTPStatus() != http.StatusConflict ||
		!strings.HasPrefix(f.Message, "Node n1 is locked by host py-conductor") {
		t.Errorf("NodeLocked: %+v", f)
	}
	_, err = client("wrong", p.ca).GetSupportedBootDevices(ctx, topic, "n1")
	if f := ironic.AsFault(err); f.Message != "Unexpected error raised by RPC" {
		t.Errorf("wrong password: %+v", f)
	}
	_, err = client("password", p.otherCA).GetSupportedBootDevices(ctx, topic, "n1")
	if f := ironic.AsFault(err); f.Class != ironic.TemporaryFailure {
		t.Errorf("wrong CA: %+v", f)
	}

	// The same unauthenticated POST to 21.4 and to ours.
	hc, err := keystoneauth.HTTPClient(keystoneauth.Options{CAFile: p.ca, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, ours := authServer(t, jsonrpc.ServerConfig{AuthStrategy: jsonrpc.HTTPBasic, HTTPBasicAuthUserFile: userFile(t)}, nil)
	for _, hdr := range []map[string]string{nil, {"Authorization": "Basic YWRtaW46d3Jvbmc="}} {
		py := postWith(t, hc, "https://127.0.0.1:"+strconv.Itoa(port), hdr)
		go1 := post(t, ours.URL, hdr)
		if py.status != go1.status || py.body != go1.body ||
			py.header.Get("WWW-Authenticate") != go1.header.Get("WWW-Authenticate") ||
			py.header.Get("Content-Type") != go1.header.Get("Content-Type") {
			t.Errorf("%v: 21.4 answers %d %s %v\nours %d %s %v", hdr, py.status, py.body, py.header, go1.status, go1.body, go1.header)
		}
	}
}

// TestServerAnswersAsPython: 21.4's json-rpc server (noauth) and ours
// answer the same requests, malformed ones included, with the same
// status, Content-Type and body, byte for byte.
func TestServerAnswersAsPython(t *testing.T) {
	requirePyClient(t)
	port := startPyServer(t, "[json_rpc]\nauth_strategy = noauth\nhost_ip = 127.0.0.1\nport = 0\n")
	fake := oslotest.New()
	fake.SetResult("GetSupportedBootDevices", []string{"pxe", "n1", "r1", "admin"})
	ours := httptest.NewServer(jsonrpc.NewServer("127.0.0.1", fake, nil, nil))
	defer ours.Close()
	cases := append([]struct{ method, body, want string }{
		{"POST", `{"jsonrpc": "2.0", "method": "get_supported_boot_devices", "params": {"node_id": "n1", ` +
			`"context": {"request_id": "r1", "roles": ["admin"]}, "rpc.version": "1.0"}, "id": "r1"}`, ""},
		{"POST", `{"jsonrpc": "2.0", "method": "destroy_node", "params": {"node_id": "n1", "context": {}}}`, ""},
	}, badRequests...)
	for _, tc := range cases {
		var answers [2]answer
		for i, url := range []string{"http://127.0.0.1:" + strconv.Itoa(port), ours.URL} {
			req, err := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = answer{resp.StatusCode, string(b), resp.Header}
		}
		py, go1 := answers[0], answers[1]
		if py.status != go1.status || py.body != go1.body || py.header.Get("Content-Type") != go1.header.Get("Content-Type") {
			t.Errorf("%s %s:\n21.4: %d %q %s\nours: %d %q %s", tc.method, tc.body,
				py.status, py.header.Get("Content-Type"), py.body, go1.status, go1.header.Get("Content-Type"), go1.body)
		}
	}
}
