// Package jsonrpcauth proves json-rpc's keystone strategy against a real
// Keystone: 21.4's ironic_lib json-rpc client and ours call our server,
// which validates their tokens as keystonemiddleware does and enforces
// [json_rpc]allowed_roles. (http_basic, TLS and the reverse direction,
// which need no Keystone, are proved in rpc/jsonrpc.)
package jsonrpcauth

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

const pyClient = "../../rpc/jsonrpc/testdata/pyclient.py"

// server serves a fake conductor on 127.0.0.1 behind keystone auth with
// ks's [keystone_authtoken] and allowed_roles admin; it returns the
// fake and the port.
func server(t *testing.T, ks *keystone.Keystone) (*oslotest.Fake, int) {
	t.Helper()
	kc := option.Default[auth.KeystoneConfig]()
	kc.AuthType, kc.AuthURL, kc.WWWAuthenticateURI = "password", ks.AuthURL(), ks.AuthURL()
	kc.Username, kc.Password, kc.ProjectName = "ironic", keystone.ServicePassword, "service"
	kc.UserDomainName, kc.ProjectDomainName = keystone.DefaultDomain, keystone.DefaultDomain
	cfg := option.Default[jsonrpc.ServerConfig]()
	cfg.AuthStrategy = jsonrpc.Keystone
	fake := oslotest.New()
	h, err := jsonrpc.NewHandler(cfg, jsonrpc.NewServer("127.0.0.1", fake, nil, nil),
		func(strategy, userFile string) (jsonrpc.Authenticator, error) {
			return auth.New(auth.Config{Strategy: auth.Strategy(strategy), HTTPBasicAuthUserFile: userFile,
				Keystone: kc, PublicRoutes: []string{}}, auth.Deps{Log: slog.New(slog.DiscardHandler)})
		})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return fake, l.Addr().(*net.TCPAddr).Port
}

// clientSection is [json_rpc] for a client authenticating as user
// (project-scoped to project).
func clientSection(ks *keystone.Keystone, user, password, project string) string {
	return "[json_rpc]\nauth_strategy = keystone\nauth_type = password\nauth_url = " + ks.AuthURL() +
		"\nusername = " + user + "\npassword = " + password + "\nuser_domain_name = Default\nproject_name = " + project +
		"\nproject_domain_name = Default\n"
}

func runPyClient(t *testing.T, port int, conf string) ([]byte, error) {
	t.Helper()
	cluster.RequirePython(t, "ironic.conductor.rpcapi, ironic_lib.json_rpc.client", "python3-ironic python3-ironic-lib")
	f := filepath.Join(t.TempDir(), "ironic.conf")
	if err := os.WriteFile(f, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, "/usr/bin/python3", pyClient, strconv.Itoa(port), ".127.0.0.1", f).CombinedOutput()
}

// goClient is our client with the [json_rpc] options bound from
// section's text, calling the server on port.
func goClient(port int, section string) (*jsonrpc.Transport, error) {
	set := map[string]string{"json_rpc.port": strconv.Itoa(port)}
	for _, line := range strings.Split(section, "\n") {
		if k, v, ok := strings.Cut(line, " = "); ok {
			set["json_rpc."+k] = v
		}
	}
	vals, err := option.NewValues(option.Sources{CommandLine: set})
	if err != nil {
		return nil, err
	}
	b := option.NewBinder(vals)
	var cfg jsonrpc.ClientConfig
	cfg.Bind(b)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return jsonrpc.New(cfg, nil, nil, nil)
}

// TestKeystone: under auth_strategy keystone, 21.4's client with the
// ironic service user's [json_rpc] password options makes its five calls
// through our server; a member without admin gets 403 (keystoneauth's
// Forbidden). Our client does the same with the same options, and a
// wrong password is KeystoneUnauthorized before any call.
func TestKeystone(t *testing.T) {
	ks := keystone.ForTest(t, keystone.Options{})
	fake, port := server(t, ks)
	oslotest.SetPyClientResults(fake)

	out, err := runPyClient(t, port, clientSection(ks, "ironic", keystone.ServicePassword, "service"))
	if err != nil {
		t.Fatalf("python client as ironic: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)
	// (A wrong password is Keystone's business: our client's run below
	// covers it without another Python start.)
	out, err = runPyClient(t, port, clientSection(ks, "demo-member", keystone.UserPassword, "demo"))
	if want := "keystoneauth1.exceptions.http.Forbidden"; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("python client as a member: %v, want %s in\n%s", err, want, out)
	}
	if n := len(fake.Calls()); n != 5 {
		t.Errorf("the server ran %d calls, want 5", n)
	}

	// Our client, with the [json_rpc] options bound from the same text.
	client := func(user, password, project string) (*jsonrpc.Transport, error) {
		return goClient(port, clientSection(ks, user, password, project))
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ctx = ironic.WithRequestContext(ctx, &ironic.RequestContext{UserID: "u1", RequestID: "req-go"})
	fake.SetResult("GetSupportedBootDevices", []string{"pxe"})
	tr, err := client("ironic", keystone.ServicePassword, "service")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(ctx, ".127.0.0.1", "n1"); err != nil || len(got) != 1 {
		t.Errorf("go client as ironic: %v %v", got, err)
	}
	tr, err = client("demo-member", keystone.UserPassword, "demo")
	if err != nil {
		t.Fatal(err)
	}
	_, err = jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(ctx, ".127.0.0.1", "n1")
	if f := ironic.AsFault(err); f.Message != "Unexpected error raised by RPC" {
		t.Errorf("go client as member: %+v", f)
	}
	tr, err = client("ironic", "wrong", "service")
	if err != nil {
		t.Fatal(err)
	}
	_, err = jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(ctx, ".127.0.0.1", "n1")
	if f := ironic.AsFault(err); f.Class != ironic.KeystoneUnauthorized {
		t.Errorf("go client, wrong password: %+v", f)
	}
}

// TestApplicationCredential: [json_rpc]auth_type v3applicationcredential
// (an application credential of the ironic service user, holding its
// roles on project service): 21.4's client and ours authenticate with
// it, by ID, and ours by name with the user too; a wrong secret is
// KeystoneUnauthorized, a missing one a configuration error.
func TestApplicationCredential(t *testing.T) {
	ks := keystone.ForTest(t, keystone.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const secret = "s3cret-app-cred"
	id, err := ks.ApplicationCredential(ctx, "ironic", "ironic-json-rpc", secret)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(secret string) string {
		return "[json_rpc]\nauth_strategy = keystone\nauth_type = v3applicationcredential\nauth_url = " + ks.AuthURL() +
			"\napplication_credential_id = " + id + "\napplication_credential_secret = " + secret + "\n"
	}
	fake, port := server(t, ks)
	oslotest.SetPyClientResults(fake)
	out, err := runPyClient(t, port, byID(secret))
	if err != nil {
		t.Fatalf("python client with the application credential: %v\n%s", err, out)
	}
	oslotest.CheckPyClientRun(t, fake, out)

	ctx = ironic.WithRequestContext(ctx, &ironic.RequestContext{UserID: "u1", RequestID: "req-go"})
	fake.SetResult("GetSupportedBootDevices", []string{"pxe"})
	byName := "[json_rpc]\nauth_strategy = keystone\nauth_type = v3applicationcredential\nauth_url = " + ks.AuthURL() +
		"\napplication_credential_name = ironic-json-rpc\napplication_credential_secret = " + secret +
		"\nusername = ironic\nuser_domain_name = Default\n"
	for what, section := range map[string]string{"by id": byID(secret), "by name": byName} {
		tr, err := goClient(port, section)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got, err := jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(ctx, ".127.0.0.1", "n1"); err != nil || len(got) != 1 {
			t.Errorf("go client, application credential %s: %v %v", what, got, err)
		}
	}
	tr, err := goClient(port, byID("wrong"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(ctx, ".127.0.0.1", "n1")
	if f := ironic.AsFault(err); f.Class != ironic.KeystoneUnauthorized {
		t.Errorf("go client, wrong secret: %+v", f)
	}
	if _, err := goClient(port, strings.Replace(byID(secret), "application_credential_secret = "+secret+"\n", "", 1)); err == nil ||
		!strings.Contains(err.Error(), "You must provide an auth secret.") {
		t.Errorf("go client without a secret: %v, want keystoneauth's OptionError message", err)
	}
}
