// Package gophercloud runs gophercloud's bare metal client against our
// all-in-one server in each [DEFAULT]auth_strategy: noauth
// (openstack/baremetal/noauth), http_basic (openstack/baremetal/httpbasic)
// and keystone (a provider client authenticated by a real Keystone, the
// endpoint taken from its catalog). Each creates, gets, lists, updates
// and deletes a node.
//
// The keystone mode needs Keystone (test/internal/keystone): it is
// skipped when Keystone is not installed, unless
// IRONIC_TEST_REQUIRE_KEYSTONE=1. IRONIC_TEST_KEYSTONE_PORT picks
// Keystone's port (default: a free one).
package gophercloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/httpbasic"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"golang.org/x/crypto/bcrypt"

	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

// startTimeout bounds the wait for the server's first answer.
const startTimeout = 90 * time.Second

// startServer starts the all-in-one on port (zero: a free one) with
// the given ironic.conf sections added to a fake-hardware configuration.
func startServer(ctx context.Context, t *testing.T, port int, extra string) *cluster.Service {
	t.Helper()
	dir := t.TempDir()
	return cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Port: port, Dir: dir, StartTimeout: startTimeout, LogTail: -1,
		Config: func(port int) string {
			return fmt.Sprintf(`[DEFAULT]
host = gophercloud-test
enabled_hardware_types = fake-hardware
[api]
host_ip = 127.0.0.1
port = %d
[database]
connection = sqlite:///%s
%s`, port, filepath.Join(dir, "ironic.sqlite"), extra)
		},
	})
}

// crud creates, gets, lists, updates and deletes a node through client.
func crud(ctx context.Context, t *testing.T, client *gophercloud.ServiceClient) {
	t.Helper()
	client.Microversion = "1.82"
	name := fmt.Sprintf("gc-%d", time.Now().UnixNano())
	n, err := nodes.Create(ctx, client, nodes.CreateOpts{
		Driver: "fake-hardware", Name: name, Extra: map[string]any{"made-by": "gophercloud"},
	}).Extract()
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if n.Name != name || n.Driver != "fake-hardware" || n.ProvisionState != "enroll" {
		t.Errorf("created %+v", n)
	}
	got, err := nodes.Get(ctx, client, n.UUID).Extract()
	if err != nil || got.UUID != n.UUID || got.Extra["made-by"] != "gophercloud" {
		t.Fatalf("get: %v %+v", err, got)
	}
	pages, err := nodes.ListDetail(client, nodes.ListOpts{}).AllPages(ctx)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	all, err := nodes.ExtractNodes(pages)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, x := range all {
		found = found || x.UUID == n.UUID
	}
	if !found {
		t.Errorf("list: %s missing from %d nodes", n.UUID, len(all))
	}
	up, err := nodes.Update(ctx, client, n.UUID, nodes.UpdateOpts{
		nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/rack", Value: "r1"},
		nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/description", Value: "updated by gophercloud"},
	}).Extract()
	if err != nil || up.Extra["rack"] != "r1" || up.Description != "updated by gophercloud" {
		t.Fatalf("update: %v %+v", err, up)
	}
	if err := nodes.Delete(ctx, client, n.UUID).ExtractErr(); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := nodes.Get(ctx, client, n.UUID).Extract(); !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		t.Errorf("get after delete: %v", err)
	}
}

func TestMain(m *testing.M) { cluster.Main(m) }

// TestClients runs the client in each auth_strategy.
func TestClients(t *testing.T) {
	cluster.Build(t, cluster.AllInOne)
	t.Run("noauth", func(t *testing.T) { testNoAuth(t) })
	t.Run("http_basic", func(t *testing.T) { testHTTPBasic(t) })
	t.Run("keystone", func(t *testing.T) { testKeystone(t) })
}

func testNoAuth(t *testing.T) {
	ctx := t.Context()
	s := startServer(ctx, t, 0, "[DEFAULT]\nauth_strategy = noauth\n")
	client, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: s.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	crud(ctx, t, client)
}

func testHTTPBasic(t *testing.T) {
	ctx := t.Context()
	hash, err := bcrypt.GenerateFromPassword([]byte("gopher-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "htpasswd")
	if err := os.WriteFile(file, []byte("gopher:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(ctx, t, 0, "[DEFAULT]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = "+file+"\n")
	client, err := httpbasic.NewBareMetalHTTPBasic(httpbasic.EndpointOpts{
		IronicEndpoint: s.URL + "/v1", IronicUser: "gopher", IronicUserPassword: "gopher-pass",
	})
	if err != nil {
		t.Fatal(err)
	}
	crud(ctx, t, client)

	bad, err := httpbasic.NewBareMetalHTTPBasic(httpbasic.EndpointOpts{
		IronicEndpoint: s.URL + "/v1", IronicUser: "gopher", IronicUserPassword: "wrong",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes.Get(ctx, bad, "n1").Extract(); !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
		t.Errorf("wrong password: %v", err)
	}
}

func testKeystone(t *testing.T) {
	ctx := t.Context()
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ksPort := 0
	if v := os.Getenv("IRONIC_TEST_KEYSTONE_PORT"); v != "" {
		if ksPort, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	ks := keystone.ForTest(t, keystone.Options{Port: ksPort, BaremetalURL: fmt.Sprintf("http://127.0.0.1:%d", port)})
	s := startServer(ctx, t, port, "[DEFAULT]\nauth_strategy = keystone\n"+ks.AuthtokenSection())

	provider, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint: ks.AuthURL(), Username: "system-admin", Password: keystone.UserPassword,
		DomainName: keystone.DefaultDomain, Scope: &gophercloud.AuthScope{System: true}, AllowReauth: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	client, err := openstack.NewBareMetalV1(provider, gophercloud.EndpointOpts{Region: keystone.Region})
	if err != nil {
		t.Fatal(err)
	}
	if client.Endpoint != s.URL+"/" {
		t.Errorf("catalog endpoint %q, want %q", client.Endpoint, s.URL+"/")
	}
	crud(ctx, t, client)

	// Without a token, and with one Keystone does not know.
	anon, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: s.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes.Get(ctx, anon, "n1").Extract(); !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
		t.Errorf("no token: %v", err)
	}
	anon.MoreHeaders = map[string]string{"X-Auth-Token": "gAAAAABgarbage"}
	var code gophercloud.ErrUnexpectedResponseCode
	_, err = nodes.Get(ctx, anon, "n1").Extract()
	if !errors.As(err, &code) || code.Actual != http.StatusUnauthorized ||
		code.ResponseHeader.Get("WWW-Authenticate") != `Keystone uri="`+ks.AuthURL()+`"` {
		t.Errorf("garbage token: %v", err)
	}
}
