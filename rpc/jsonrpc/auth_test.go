package jsonrpc_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

// htpasswd is "admin:password", bcrypt (python3 -c "import bcrypt;
// print(bcrypt.hashpw(b'password', bcrypt.gensalt(5)).decode())").
const htpasswd = "admin:$2b$05$UFTsGmz4Dujyl0fCmGAYJuIg/vGECOo2MpYS9nag7smjhrAii5nEm\n"

// authenticators builds apiv1/auth's middleware as the wiring does for
// json-rpc: the server's strategy and user file, Keystone through id
// (without the token cache, so that a revocation shows at once).
func authenticators(id auth.Identity) jsonrpc.NewAuthenticator {
	return func(strategy, userFile string) (jsonrpc.Authenticator, error) {
		return auth.New(auth.Config{Strategy: auth.Strategy(strategy), HTTPBasicAuthUserFile: userFile, PublicRoutes: []string{},
			Keystone: auth.KeystoneConfig{TokenCacheTime: -1}},
			auth.Deps{Identity: id, Log: slog.New(slog.DiscardHandler)})
	}
}

// authServer serves a fake conductor under cfg; its URL's host is the
// topic's.
func authServer(t *testing.T, cfg jsonrpc.ServerConfig, id auth.Identity) (*oslotest.Fake, *httptest.Server) {
	t.Helper()
	fake := oslotest.New()
	h, err := jsonrpc.NewHandler(cfg, jsonrpc.NewServer("cond-a", fake, nil, nil), authenticators(id))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return fake, srv
}

func userFile(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "htpasswd-json-rpc")
	if err := os.WriteFile(f, []byte(htpasswd), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

type answer struct {
	status int
	body   string
	header http.Header
}

func post(t *testing.T, url string, hdr map[string]string) answer {
	t.Helper()
	return postWith(t, http.DefaultClient, url, hdr)
}

func postWith(t *testing.T, hc *http.Client, url string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url,
		strings.NewReader(`{"jsonrpc": "2.0", "method": "get_supported_boot_devices", "params": {"node_id": "n1", "context": {}}, "id": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b), resp.Header}
}

func topicOf(srv *httptest.Server) string {
	return rpc.Topic + "." + strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
}

// TestHTTPBasic: ironic_lib's BasicAuthMiddleware over
// [json_rpc]http_basic_auth_user_file: 401 with its body and
// WWW-Authenticate without or with wrong credentials; the client's
// http_basic_username/password (or username/password) get through.
func TestHTTPBasic(t *testing.T) {
	file := userFile(t)
	fake, srv := authServer(t, jsonrpc.ServerConfig{AuthStrategy: jsonrpc.HTTPBasic, HTTPBasicAuthUserFile: file}, nil)
	fake.SetResult("GetSupportedBootDevices", []string{"pxe"})

	for name, tc := range map[string]struct {
		hdr  map[string]string
		want answer
	}{
		"no credentials": {nil, answer{401, `{"error":{"message":"Authorization required","code":401}}`, nil}},
		"wrong password": {map[string]string{"Authorization": "Basic YWRtaW46d3Jvbmc="},
			answer{401, `{"error":{"message":"Incorrect username or password","code":401}}`, nil}},
		"unknown user": {map[string]string{"Authorization": "Basic bm9ib2R5OnBhc3N3b3Jk"},
			answer{401, `{"error":{"message":"Incorrect username or password","code":401}}`, nil}},
		"not basic": {map[string]string{"Authorization": "Bearer x"},
			answer{400, `{"error":{"message":"Unsupported authorization type \"Bearer\"","code":400}}`, nil}},
	} {
		got := post(t, srv.URL, tc.hdr)
		if got.status != tc.want.status || got.body != tc.want.body {
			t.Errorf("%s: %d %s, want %d %s", name, got.status, got.body, tc.want.status, tc.want.body)
		}
		if got.status == 401 && got.header.Get("WWW-Authenticate") != `Basic realm="Baremetal API"` {
			t.Errorf("%s: WWW-Authenticate %q", name, got.header.Get("WWW-Authenticate"))
		}
	}
	if got := post(t, srv.URL, map[string]string{"Authorization": "Basic YWRtaW46cGFzc3dvcmQ="}); got.status != 200 ||
		!strings.Contains(got.body, `"result":["pxe"]`) {
		t.Errorf("admin:password: %d %s", got.status, got.body)
	}

	ctx := testCtx(t)
	for name, cfg := range map[string]jsonrpc.ClientConfig{
		"http_basic_username": {Username: "admin", Password: "password"},
		"username":            {Session: keystoneauth.Options{Username: "admin", Password: "password"}},
		"both":                {Username: "admin", Password: "password", Session: keystoneauth.Options{Username: "x", Password: "y"}},
		// [DEFAULT]auth_strategy applies when [json_rpc]'s is unset.
		"global strategy": {DefaultAuthStrategy: jsonrpc.HTTPBasic, Username: "admin", Password: "password"},
	} {
		if cfg.DefaultAuthStrategy == "" {
			cfg.AuthStrategy = jsonrpc.HTTPBasic
		}
		got, err := jsonrpc.NewClient(newTransport(t, cfg, nil), nil).GetSupportedBootDevices(ctx, topicOf(srv), "n1")
		if err != nil || len(got) != 1 || got[0] != "pxe" {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
	// A refused call is Ironic's "Unexpected error raised by RPC", as
	// keystoneauth's raised HTTP error reaches the API as a 500.
	_, err := jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{AuthStrategy: jsonrpc.HTTPBasic, Username: "admin", Password: "bad"}, nil), nil).
		GetSupportedBootDevices(ctx, topicOf(srv), "n1")
	if f := ironic.AsFault(err); f.Class != ironic.IronicException || f.Message != "Unexpected error raised by RPC" {
		t.Errorf("wrong password: %+v", f)
	}

	// An unreadable or non-bcrypt user file stops start-up.
	for _, content := range []string{"", "admin:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n"} {
		f := filepath.Join(t.TempDir(), "f")
		if content != "" {
			if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, err := jsonrpc.NewHandler(jsonrpc.ServerConfig{AuthStrategy: jsonrpc.HTTPBasic, HTTPBasicAuthUserFile: f},
			jsonrpc.NewServer("c", oslotest.New(), nil, nil), authenticators(nil))
		if err == nil {
			t.Errorf("user file %q accepted", content)
		}
	}
}

// TestNoAuth: the server takes anyone; the client sends no credentials.
func TestNoAuth(t *testing.T) {
	var sawAuth sync.Map
	fake := oslotest.New()
	fake.SetResult("GetSupportedBootDevices", []string{"disk"})
	h, err := jsonrpc.NewHandler(jsonrpc.ServerConfig{AuthStrategy: jsonrpc.NoAuth, DefaultAuthStrategy: jsonrpc.Keystone},
		jsonrpc.NewServer("c", fake, nil, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, k := range []string{"Authorization", "X-Auth-Token"} {
			if r.Header.Get(k) != "" {
				sawAuth.Store(k, true)
			}
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	got, err := jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{AuthStrategy: jsonrpc.NoAuth,
		Username: "admin", Password: "password"}, nil), nil).GetSupportedBootDevices(testCtx(t), topicOf(srv), "n1")
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	sawAuth.Range(func(k, _ any) bool { t.Errorf("noauth client sent %s", k); return true })

	if _, err := jsonrpc.NewHandler(jsonrpc.ServerConfig{AuthStrategy: "ldap"}, jsonrpc.NewServer("c", fake, nil, nil), nil); err == nil {
		t.Error("unknown strategy accepted")
	}
	if _, err := jsonrpc.New(jsonrpc.ClientConfig{AuthStrategy: "ldap"}, nil, nil, nil); err == nil {
		t.Error("client: unknown strategy accepted")
	}
	// NewTransport: a Config built by hand with no strategy is noauth; one
	// New refuses fails every call with New's error.
	got, err = jsonrpc.NewClient(jsonrpc.NewTransport(jsonrpc.ClientConfig{}, nil, nil, nil), nil).
		GetSupportedBootDevices(testCtx(t), topicOf(srv), "n1")
	if err != nil || len(got) != 1 {
		t.Errorf("NewTransport, zero config: %v %v", got, err)
	}
	_, err = jsonrpc.NewClient(jsonrpc.NewTransport(jsonrpc.ClientConfig{AuthStrategy: "ldap"}, nil, nil, nil), nil).
		GetSupportedBootDevices(testCtx(t), topicOf(srv), "n1")
	if err == nil || !strings.Contains(err.Error(), "ldap") {
		t.Errorf("NewTransport, bad config: %v", err)
	}
}

// fakeKeystone issues tokens (POST /v3/auth/tokens, the password method)
// and validates them for the server's middleware (auth.Identity).
type fakeKeystone struct {
	srv *httptest.Server

	mu     sync.Mutex
	tokens map[string][]string // token -> role names
	serial int
	issued int
	roles  map[string][]string // user -> roles
}

func newFakeKeystone(t *testing.T) *fakeKeystone {
	k := &fakeKeystone{tokens: map[string][]string{}, roles: map[string][]string{
		"ironic": {"admin", "service"}, "demo": {"member"},
	}}
	k.srv = httptest.NewServer(http.HandlerFunc(k.serve))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *fakeKeystone) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v3/auth/tokens" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Auth struct {
			Identity struct {
				Password struct {
					User struct{ Name, Password string } `json:"user"`
				} `json:"password"`
			} `json:"identity"`
		} `json:"auth"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u := req.Auth.Identity.Password.User
	k.mu.Lock()
	roles, ok := k.roles[u.Name]
	if !ok || u.Password != "secret" {
		k.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	k.serial++
	k.issued++
	tok := fmt.Sprintf("tok-%s-%d", u.Name, k.serial)
	k.tokens[tok] = roles
	k.mu.Unlock()
	w.Header().Set("X-Subject-Token", tok)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"token": {"expires_at": "2999-01-01T00:00:00.000000Z", "methods": ["password"], "catalog": []}}`)
}

// revoke makes every token issued so far invalid.
func (k *fakeKeystone) revoke() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tokens = map[string][]string{}
}

func (k *fakeKeystone) ValidateToken(_ context.Context, token string, _ bool) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	roles, ok := k.tokens[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	var rs []map[string]string
	for _, r := range roles {
		rs = append(rs, map[string]string{"id": "r-" + r, "name": r})
	}
	return json.Marshal(map[string]any{"token": map[string]any{
		"expires_at": "2999-01-01T00:00:00.000000Z", "issued_at": "2026-01-01T00:00:00.000000Z",
		"user":    map[string]any{"id": "u-1", "name": "someone", "domain": map[string]string{"id": "default", "name": "Default"}},
		"project": map[string]any{"id": "p-1", "name": "service", "domain": map[string]string{"id": "default", "name": "Default"}},
		"roles":   rs, "audit_ids": []string{token},
	}})
}

func (k *fakeKeystone) RevocationEvents(context.Context, string) ([]byte, error) {
	return nil, auth.ErrNotSupported
}

func keystoneClient(k *fakeKeystone, user string) jsonrpc.ClientConfig {
	return jsonrpc.ClientConfig{AuthStrategy: jsonrpc.Keystone, Session: keystoneauth.Options{
		AuthType: "password", AuthURL: k.srv.URL + "/v3", Username: user, Password: "secret",
		ProjectName: "service", Timeout: 10 * time.Second}, DefaultDomainID: "default"}
}

// TestKeystone: keystonemiddleware's validation, then ironic_lib's
// allowed_roles (403 with its body); the client gets a token with the
// [json_rpc] password plugin options, sends it as X-Auth-Token and, when
// the conductor refuses it, gets a new one once.
func TestKeystone(t *testing.T) {
	k := newFakeKeystone(t)
	// [json_rpc]auth_strategy unset: [DEFAULT]auth_strategy applies.
	fake, srv := authServer(t, jsonrpc.ServerConfig{DefaultAuthStrategy: jsonrpc.Keystone, AllowedRoles: []string{"admin", "operator"}}, k)
	fake.SetResult("GetSupportedBootDevices", []string{"pxe"})

	got := post(t, srv.URL, nil)
	if got.status != 401 || got.body != `{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}` {
		t.Errorf("no token: %d %s", got.status, got.body)
	}
	if got = post(t, srv.URL, map[string]string{"X-Auth-Token": "forged"}); got.status != 401 {
		t.Errorf("bad token: %d %s", got.status, got.body)
	}

	ctx := testCtx(t)
	api := jsonrpc.NewClient(newTransport(t, keystoneClient(k, "ironic"), nil), nil)
	devs, err := api.GetSupportedBootDevices(ctx, topicOf(srv), "n1")
	if err != nil || len(devs) != 1 {
		t.Fatalf("admin: %v %v", devs, err)
	}
	// The token is reused; a refused one is renewed once.
	if _, err := api.GetSupportedBootDevices(ctx, topicOf(srv), "n1"); err != nil {
		t.Fatal(err)
	}
	k.revoke()
	if _, err := api.GetSupportedBootDevices(ctx, topicOf(srv), "n1"); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if k.issued != 2 {
		t.Errorf("%d tokens issued, want 2", k.issued)
	}

	// A valid token without an allowed role: 403, ironic_lib's body.
	demoTok := func() string {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.tokens["tok-demo"] = []string{"member", "reader"}
		return "tok-demo"
	}()
	got = post(t, srv.URL, map[string]string{"X-Auth-Token": demoTok, "X-Roles": "admin"})
	if got.status != 403 || got.body != `{"error":{"code":403,"message":"Forbidden"}}` || got.header.Get("Content-Type") != "application/json" {
		t.Errorf("member: %d %s %v", got.status, got.body, got.header)
	}
	// ironic_lib checks the method first.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("X-Auth-Token", demoTok)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 405 {
		t.Errorf("GET as member: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	_, err = jsonrpc.NewClient(newTransport(t, keystoneClient(k, "demo"), nil), nil).GetSupportedBootDevices(ctx, topicOf(srv), "n1")
	if f := ironic.AsFault(err); f.Message != "Unexpected error raised by RPC" {
		t.Errorf("demo client: %+v", f)
	}

	// Keystone refusing the client's password.
	cfg := keystoneClient(k, "ironic")
	cfg.Session.Password = "wrong"
	_, err = jsonrpc.NewClient(newTransport(t, cfg, nil), nil).GetSupportedBootDevices(ctx, topicOf(srv), "n1")
	if f := ironic.AsFault(err); f.Class != ironic.KeystoneUnauthorized {
		t.Errorf("wrong password: %+v", f)
	}

	// Options the client cannot honour stop start-up.
	for name, mod := range map[string]func(*jsonrpc.ClientConfig){
		"trust_id":  func(c *jsonrpc.ClientConfig) { c.TrustID = "t1" },
		"auth_type": func(c *jsonrpc.ClientConfig) { c.Session.AuthType = "token" },
	} {
		c := keystoneClient(k, "ironic")
		mod(&c)
		if _, err := jsonrpc.New(c, nil, nil, nil); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// testPKI writes a CA and a certificate for 127.0.0.1 it signed, and a
// second, unrelated CA.
type testPKI struct{ dir, ca, otherCA, cert, key string }

func newPKI(t *testing.T) testPKI {
	t.Helper()
	d := t.TempDir()
	p := testPKI{dir: d, ca: filepath.Join(d, "ca.pem"), otherCA: filepath.Join(d, "other.pem"),
		cert: filepath.Join(d, "server.pem"), key: filepath.Join(d, "server.key")}
	ca, caKey, err := rabbittest.NewCert(nil, nil, "json-rpc test CA", p.ca, filepath.Join(d, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(ca, caKey, "127.0.0.1", p.cert, p.key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rabbittest.NewCert(nil, nil, "another CA", p.otherCA, filepath.Join(d, "other.key")); err != nil {
		t.Fatal(err)
	}
	return p
}

// basicTLSServer serves a fake conductor under http_basic with use_ssl,
// its certificate signed by p's CA; it returns the fake and the port.
func basicTLSServer(t *testing.T, p testPKI) (*oslotest.Fake, int) {
	t.Helper()
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
	return fake, serve(t, h, func(l net.Listener) (net.Listener, error) {
		return cfg.Listener(l, &tls.Config{Certificates: []tls.Certificate{cert}})
	})
}

// TestTLS: use_ssl serves HTTPS with the [ssl] certificate; the client
// verifies it with [json_rpc]cafile, refuses a server its CA did not
// sign, and takes it with insecure.
func TestTLS(t *testing.T) {
	p := newPKI(t)
	fake, port := basicTLSServer(t, p)
	fake.SetResult("GetSupportedBootDevices", []string{"pxe"})
	topic := rpc.Topic + ".127.0.0.1:" + strconv.Itoa(port)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := (jsonrpc.ServerConfig{UseSSL: true}).Listener(l, nil); err == nil || !strings.Contains(err.Error(), "cert_file and key_file") {
		t.Errorf("no certificate: %v", err)
	}

	call := func(c jsonrpc.ClientConfig) error {
		c.AuthStrategy, c.UseSSL, c.Username, c.Password = jsonrpc.HTTPBasic, true, "admin", "password"
		tr, err := jsonrpc.New(c, nil, nil, nil)
		if err != nil {
			return err
		}
		_, err = jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(testCtx(t), topic, "n1")
		return err
	}
	if err := call(jsonrpc.ClientConfig{Session: keystoneauth.Options{CAFile: p.ca}}); err != nil {
		t.Errorf("test CA: %v", err)
	}
	err = call(jsonrpc.ClientConfig{Session: keystoneauth.Options{CAFile: p.otherCA}})
	if f := ironic.AsFault(err); f.Class != ironic.TemporaryFailure || !strings.Contains(f.Message, "Could not reach") {
		t.Errorf("wrong CA: %+v", f)
	}
	if err := call(jsonrpc.ClientConfig{Session: keystoneauth.Options{CAFile: p.otherCA, Insecure: true}}); err != nil {
		t.Errorf("insecure: %v", err)
	}
	// Plain HTTP to the TLS port does not get through either.
	tr := newTransport(t, jsonrpc.ClientConfig{AuthStrategy: jsonrpc.HTTPBasic, Username: "admin", Password: "password"}, nil)
	if _, err := jsonrpc.NewClient(tr, nil).GetSupportedBootDevices(testCtx(t), topic, "n1"); err == nil {
		t.Error("plain http to the TLS server worked")
	}
	if err := call(jsonrpc.ClientConfig{Session: keystoneauth.Options{CAFile: filepath.Join(p.dir, "missing.pem")}}); err == nil ||
		!errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), "cafile") {
		t.Errorf("missing cafile: %v", err)
	}
}
