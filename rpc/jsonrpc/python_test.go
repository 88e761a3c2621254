package jsonrpc_test

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

func requirePyClient(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/lib/python3/dist-packages/ironic_lib/json_rpc/client.py"); err != nil {
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
	cert, err := tls.LoadX509KeyPair(p.cert, p.key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := jsonrpc.ServerConfig{AuthStrategy: jsonrpc.HTTPBasic, HTTPBasicAuthUserFile: userFile(t), UseSSL: true}
	fake := oslotest.New()
	h, err := jsonrpc.NewHandler(cfg, jsonrpc.NewServer("127.0.0.1", fake, nil, nil), authenticators(nil))
	if err != nil {
		t.Fatal(err)
	}
	port := serve(t, h, func(l net.Listener) (net.Listener, error) {
		return cfg.Listener(l, &tls.Config{Certificates: []tls.Certificate{cert}})
	})
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
