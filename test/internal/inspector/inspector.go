// Package inspector runs the real ironic-inspector 11.1 (Debian's
// python3-ironic-inspector) for black-box tests, standalone as the
// issue's tests need it: no message bus (transport_url = fake://), SQLite,
// no PXE filter, ports added for the PXE NIC, data stored in its
// database, and Ironic reached unauthenticated at a given URL (or with a
// Keystone service user). It also has a recording HTTP proxy, to see the
// requests in each direction, and the IPA-shaped data a ramdisk posts.
package inspector

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

// Bin is the inspector's command.
const Bin = "/usr/bin/ironic-inspector"

// Keystone makes inspector validate tokens and call Ironic as a service
// user.
type Keystone struct {
	// AuthURL is Keystone's public endpoint (…/v3).
	AuthURL string
	// Username and Password are inspector's service user (project
	// "service", domain Default).
	Username, Password string
	// Project is the service user's project.
	Project string
}

// Options say how to start one inspector.
type Options struct {
	// IronicURL is Ironic's API, as inspector's [ironic]endpoint_override.
	IronicURL string
	// Port is where inspector listens (127.0.0.1); zero takes a free one.
	Port int
	// Keystone, when set, puts inspector behind Keystone.
	Keystone *Keystone
	// Extra is appended to inspector.conf.
	Extra string
}

// Inspector is a running ironic-inspector.
type Inspector struct {
	// URL is http://127.0.0.1:<port>, no trailing slash.
	URL  string
	Port int
	// Conf is inspector.conf's path.
	Conf    string
	Process *cluster.Process
}

// Require skips or fails t (IRONIC_TEST_REQUIRE_PYTHON=1) unless
// ironic-inspector is installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Bin); err != nil {
		cluster.Missing(t, cluster.RequirePythonEnv, "ironic-inspector is not installed (apt-get install python3-ironic-inspector): "+err.Error())
	}
}

// Config is the inspector.conf of o, listening on port, its database in
// dir.
func Config(o Options, port int, dir string) string {
	auth := "noauth"
	ironic := fmt.Sprintf("auth_type = none\nendpoint_override = %s\n", o.IronicURL)
	ks := ""
	if k := o.Keystone; k != nil {
		auth = "keystone"
		creds := fmt.Sprintf("auth_url = %s\nusername = %s\npassword = %s\nproject_name = %s\nuser_domain_name = Default\nproject_domain_name = Default\n",
			k.AuthURL, k.Username, k.Password, k.Project)
		ironic = "auth_type = password\n" + creds + "endpoint_override = " + o.IronicURL + "\n"
		ks = "[keystone_authtoken]\nauth_type = password\n" + creds + "www_authenticate_uri = " + k.AuthURL + "\n"
	}
	return fmt.Sprintf(`[DEFAULT]
auth_strategy = %s
transport_url = fake://
listen_address = 127.0.0.1
listen_port = %d
debug = true
standalone = true
use_stderr = true

[database]
connection = sqlite:///%s

[pxe_filter]
driver = noop

[processing]
add_ports = pxe
store_data = database

[ironic]
%s
[coordination]
backend_url = memory://

%s
%s
`, auth, port, filepath.Join(dir, "inspector.sqlite"), ironic, ks, o.Extra)
}

// Start writes inspector.conf, creates its database and starts it,
// waiting until it answers GET /; it is stopped when t ends (its log's
// end printed if t failed).
func Start(ctx context.Context, t testing.TB, o Options) *Inspector {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	port := o.Port
	if port == 0 {
		p, err := cluster.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		port = p
	}
	in := &Inspector{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Port: port, Conf: filepath.Join(dir, "inspector.conf")}
	if err := os.WriteFile(in.Conf, []byte(Config(o, port, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(sctx, "/usr/bin/ironic-inspector-dbsync", "--config-file", in.Conf, "upgrade").CombinedOutput(); err != nil {
		t.Fatalf("ironic-inspector-dbsync: %v\n%s", err, cluster.Tail(out, 3000))
	}
	p, err := cluster.StartProcess(Bin, []string{"--config-file", in.Conf}, filepath.Join(dir, "inspector.log"))
	if err != nil {
		t.Fatal(err)
	}
	in.Process = p
	t.Cleanup(func() {
		_ = p.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("ironic-inspector log (%s), the end:\n%s", p.Log, p.LogTail(6000))
		}
	})
	if err := cluster.WaitHTTP(ctx, in.URL+"/", time.Minute, p); err != nil {
		t.Fatalf("ironic-inspector: %v\n%s", err, p.LogTail(4000))
	}
	return in
}

// Stop stops the inspector now (inspector down).
func (in *Inspector) Stop() error { return in.Process.Stop(10 * time.Second) }
