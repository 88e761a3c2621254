package crosscheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// apiVersion is the microversion every request asks for (Ironic 21.4's
	// maximum).
	apiVersion = "1.82"

	// goHost and pyHost are [DEFAULT]host of our server and of Python's.
	// They differ so that a conductor left registered by the server that
	// stopped would show in the other's answers (a node's "conductor").
	goHost = "goironic-crosscheck"
	pyHost = "pyironic-crosscheck"

	// goStartTimeout bounds the wait for our server's first answer.
	goStartTimeout = 20 * time.Second
	// pyStartTimeout bounds the wait for Python's (it needs 5-15 s).
	pyStartTimeout = 60 * time.Second
	// requestTimeout bounds one HTTP request.
	requestTimeout = 30 * time.Second
	// asyncTimeout bounds the wait for an asynchronous action (power off).
	asyncTimeout = 30 * time.Second
)

func TestMain(m *testing.M) { cluster.Main(m) }

// requirePython skips t when Python Ironic cannot be imported, or fails it
// when the environment requires Python, and builds our two commands.
func requirePython(t *testing.T) {
	t.Helper()
	cluster.RequirePython(t, "ironic.cmd.singleprocess, ironic.cmd.dbsync", "python3-ironic")
	cluster.Build(t, cluster.AllInOne, cluster.DBSync)
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
			cluster.RequirePython(t, "pymysql", "python3-pymysql")
			return cluster.NewDatabase(t, nil, "xcheck").URL()
		}},
	}
}

// config is an ironic.conf equivalent to the one the harness's
// reference-ironic.sh writes (noauth, rpc_transport none, the fake and
// real interfaces it enables, the noop network interface, no DHCP), with
// its state in stateDir, whose directories it creates. Both servers read
// the same file format; the keystone section is left out because noauth
// never reads it.
func config(t *testing.T, host, stateDir, dbURL string) cluster.INI {
	t.Helper()
	return cluster.INI{
		"DEFAULT": {
			"host":                          host,
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "none",
			"use_stderr":                    "true",
			"debug":                         "false",
			"enabled_hardware_types":        "fake-hardware,ipmi,redfish",
			"enabled_bios_interfaces":       "fake,no-bios,redfish",
			"enabled_boot_interfaces":       "fake,ipxe,pxe,redfish-virtual-media",
			"enabled_console_interfaces":    "fake,no-console,ipmitool-socat",
			"enabled_deploy_interfaces":     "fake,direct,ramdisk",
			"enabled_inspect_interfaces":    "fake,no-inspect,redfish",
			"enabled_management_interfaces": "fake,ipmitool,redfish,noop",
			"enabled_network_interfaces":    "noop,flat",
			"default_network_interface":     "noop",
			"enabled_power_interfaces":      "fake,ipmitool,redfish",
			"enabled_raid_interfaces":       "fake,no-raid,agent,redfish",
			"enabled_rescue_interfaces":     "fake,no-rescue",
			"enabled_storage_interfaces":    "fake,noop",
			"enabled_vendor_interfaces":     "fake,no-vendor,ipmitool,redfish",
		},
		"api":         {"host_ip": "127.0.0.1", "api_workers": "1"},
		"database":    {"connection": dbURL},
		"dhcp":        {"dhcp_provider": "none"},
		"conductor":   {"automated_clean": "false"},
		"oslo_policy": {"enforce_scope": "false", "enforce_new_defaults": "false"},
		"neutron": {
			"auth_type":         "none",
			"endpoint_override": "http://127.0.0.1:9696",
			"cleaning_network":  "ironic-cleaning",
		},
	}.Merged(cluster.StateConfig(t, stateDir))
}

// writeConf writes config for host and dbURL into a new directory of t's
// and returns its path.
func writeConf(t *testing.T, host, dbURL string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "ironic.conf")
	if err := os.WriteFile(path, []byte(config(t, host, dir, dbURL).String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dbsync runs our ironic-dbsync (python false) or Python's with the
// configuration file conf.
func dbsync(ctx context.Context, t *testing.T, python bool, conf, command string) cluster.Result {
	t.Helper()
	return cluster.Run(ctx, t, cluster.Program{Cmd: cluster.DBSync, Python: python}, "--config-file", conf, command)
}

// server is one running all-in-one, ours or Python's.
type server struct {
	*cluster.Service
	impl string // "go" or "python"
	host string
	url  string
}

// startServer starts our all-in-one (python false) or Python's on dbURL
// with a fresh configuration and free port, and waits for its first
// answer. It is stopped when t ends if the test has not stopped it.
func startServer(ctx context.Context, t *testing.T, python bool, dbURL string) *server {
	t.Helper()
	s := &server{impl: "go", host: goHost}
	prog, timeout := cluster.Ours(cluster.AllInOne), goStartTimeout
	if python {
		s.impl, s.host, prog, timeout = "python", pyHost, cluster.Python(cluster.AllInOne), pyStartTimeout
	}
	dir := t.TempDir()
	s.Service = cluster.Start(ctx, t, cluster.Spec{
		Program: prog, Name: s.impl, Dir: dir, StartTimeout: timeout, LogTail: 4000,
		Config: func(port int) string {
			return config(t, s.host, dir, dbURL).Merged(cluster.INI{"api": {"port": strconv.Itoa(port)}}).String()
		},
	})
	s.url = s.URL
	return s
}

// stop stops the server and waits for it to exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	start := time.Now()
	err := s.Stop()
	t.Logf("%s server stopped after %s (%v)", s.impl, time.Since(start).Round(time.Millisecond), err)
}

// client talks to one server at API version apiVersion.
type client struct{ *cluster.Client }

func newClient(s *server) *client {
	c := cluster.NewClient(s.url, apiVersion)
	c.HTTP.Timeout = requestTimeout
	c.Header = map[string][]string{"Accept": {"application/json"}}
	return &client{c}
}

// do sends one request; body, when not nil, is sent as JSON.
func (c *client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	r, err := c.Do(ctx, method, path, body)
	return r.Status, r.Body, err
}

// must sends a request that has to answer with status want and returns
// the decoded JSON body (nil when empty).
func (c *client) must(ctx context.Context, t *testing.T, method, path string, body any, want int) map[string]any {
	t.Helper()
	raw := c.Must(ctx, t, want, method, path, body).Body
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

func tail(b []byte, n int) string { return cluster.Tail(b, n) }
