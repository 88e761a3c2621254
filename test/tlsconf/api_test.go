// Package tlsconf proves TLS where ironic.conf asks for it, on Python
// Ironic 21.4 and on ours with the same options and test-made
// certificates: the API over HTTPS ([api]enable_ssl_api with
// oslo.service's [ssl] options) with the real openstack CLI (the right
// CA, another CA, plain HTTP, a client certificate required), and the
// database URL's ssl_* parameters against a MariaDB that requires TLS.
package tlsconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// files are the test's CA, the API's certificate and key, a client's
// certificate and key, and a CA that signed none of them.
type files struct{ ca, otherCA, cert, key, clientCert, clientKey string }

func newFiles(t *testing.T) files {
	t.Helper()
	d := t.TempDir()
	f := files{ca: filepath.Join(d, "ca.pem"), otherCA: filepath.Join(d, "other.pem"), cert: filepath.Join(d, "api.pem"),
		key: filepath.Join(d, "api.key"), clientCert: filepath.Join(d, "client.pem"), clientKey: filepath.Join(d, "client.key")}
	ca, caKey, err := rabbittest.NewCert(nil, nil, "apitls CA", f.ca, filepath.Join(d, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(nil, nil, "other CA", f.otherCA, filepath.Join(d, "other.key")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "127.0.0.1", f.cert, f.key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "client", f.clientCert, f.clientKey); err != nil {
		t.Fatal(err)
	}
	return f
}

// start runs one implementation's all-in-one with TLS ([ssl]ca_file
// too when clientCerts) and returns it.
func start(ctx context.Context, t *testing.T, python bool, f files, clientCerts bool) *cluster.Service {
	t.Helper()
	dir := t.TempDir()
	db := "sqlite:///" + filepath.Join(dir, "ironic.sqlite")
	ssl := fmt.Sprintf("[ssl]\ncert_file = %s\nkey_file = %s\n", f.cert, f.key)
	if clientCerts {
		ssl += "ca_file = " + f.ca + "\n"
	}
	config := func(port int) string {
		return fmt.Sprintf(`[DEFAULT]
host = apitls
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = no-console
enabled_deploy_interfaces = fake
enabled_inspect_interfaces = no-inspect
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = no-raid
enabled_rescue_interfaces = no-rescue
enabled_storage_interfaces = noop
enabled_vendor_interfaces = no-vendor
[api]
host_ip = 127.0.0.1
port = %d
enable_ssl_api = true
[database]
connection = %s
[dhcp]
dhcp_provider = none
[oslo_concurrency]
lock_path = %s
%s`, port, db, dir, ssl)
	}
	prog := cluster.Ours(cluster.AllInOne)
	if python {
		prog = cluster.Python(cluster.AllInOne)
		conf := filepath.Join(dir, "dbsync.conf")
		if err := os.WriteFile(conf, []byte(config(0)), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := cluster.Run(ctx, t, cluster.Python(cluster.DBSync), "--config-file", conf, "create_schema"); r.Code != 0 {
			t.Fatalf("dbsync: exit %d\n%s", r.Code, r.Stderr)
		}
	}
	pem, err := os.ReadFile(f.ca)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	probe := &tls.Config{RootCAs: roots}
	if clientCerts {
		c, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
		if err != nil {
			t.Fatal(err)
		}
		probe.Certificates = []tls.Certificate{c}
	}
	return cluster.Start(ctx, t, cluster.Spec{Program: prog, Dir: dir, StartTimeout: 90 * time.Second, TLS: probe, Config: config})
}

// outcome is what one CLI call gave, reduced to what both
// implementations must share: success, or the kind of TLS failure.
func outcome(r osc.Result) string {
	if r.Code == 0 {
		return "ok"
	}
	e := r.Stderr
	for _, k := range []string{"CERTIFICATE_VERIFY_FAILED", "certificate required", "alert", "Connection aborted", "RemoteDisconnected", "Failed to connect", "Unable to establish connection", "SSL"} {
		if strings.Contains(e, k) {
			return "failed: " + k
		}
	}
	return fmt.Sprintf("failed (exit %d)", r.Code)
}

// TestCLIOverTLS runs the CLI against each implementation over HTTPS:
// with the right CA (node create and list work), with another CA (the
// certificate is refused), over plain HTTP (no answer), and with
// [ssl]ca_file set, without and with a client certificate.
func TestCLIOverTLS(t *testing.T) {
	bin := cluster.RequireCLI(t)
	cluster.Build(t, cluster.AllInOne)
	f := newFiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	results := map[bool][]string{}
	impls := []bool{false}
	if pythonAvailable() {
		impls = append(impls, true)
	} else {
		cluster.RequirePython(t, "ironic.cmd.singleprocess", "python3-ironic")
	}
	for _, python := range impls {
		name := map[bool]string{false: "go", true: "python"}[python]
		t.Run(name, func(t *testing.T) {
			srv := start(ctx, t, python, f, false)
			cli := func(set map[string]string) *osc.CLI {
				return osc.New(ctx, bin, t.TempDir(), srv.URL, "1.78").With(set, "baremetal")
			}
			var got []string
			r := cli(map[string]string{"OS_CACERT": f.ca}).Run(t, "node", "create", "--driver", "fake-hardware", "--name", "tls-1")
			got = append(got, "right CA: node create: "+outcome(r))
			r = cli(map[string]string{"OS_CACERT": f.ca}).Run(t, "node", "list", "-f", "value", "-c", "Name")
			got = append(got, "right CA: node list: "+outcome(r)+" "+strings.TrimSpace(r.Stdout))
			r = cli(map[string]string{"OS_CACERT": f.otherCA}).Run(t, "node", "list")
			got = append(got, "other CA: "+outcome(r))
			r = osc.New(ctx, bin, t.TempDir(), strings.Replace(srv.URL, "https://", "http://", 1), "1.78").Run(t, "node", "list")
			got = append(got, "plain HTTP: "+map[bool]string{true: "ok", false: "failed"}[r.Code == 0])

			mtls := start(ctx, t, python, f, true)
			r = osc.New(ctx, bin, t.TempDir(), mtls.URL, "1.78").With(map[string]string{"OS_CACERT": f.ca}, "baremetal").Run(t, "node", "list")
			got = append(got, "ca_file, no client certificate: "+map[bool]string{true: "ok", false: "failed"}[r.Code == 0])
			r = osc.New(ctx, bin, t.TempDir(), mtls.URL, "1.78").With(map[string]string{"OS_CACERT": f.ca, "OS_CERT": f.clientCert, "OS_KEY": f.clientKey}, "baremetal").Run(t, "node", "list")
			got = append(got, "ca_file, client certificate: "+outcome(r))
			t.Logf("%s:\n%s", name, strings.Join(got, "\n"))
			results[python] = got
		})
	}
	want := []string{"right CA: node create: ok", "right CA: node list: ok tls-1", "other CA: failed: CERTIFICATE_VERIFY_FAILED",
		"plain HTTP: failed", "ca_file, no client certificate: failed", "ca_file, client certificate: ok"}
	for python, got := range results {
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("python=%v:\n%s\nwant:\n%s", python, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// pythonAvailable reports whether Python Ironic 21.4 can run here.
func pythonAvailable() bool {
	return exec.Command("/usr/bin/python3", "-c", "import ironic.cmd.singleprocess").Run() == nil
}
