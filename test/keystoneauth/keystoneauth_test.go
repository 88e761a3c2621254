// Package keystoneauth tests the API's authentication (apiv1/auth, as
// internal/wire configures it from ironic.conf) against a real Keystone
// (test/internal/keystone): the context each persona's token gives, the
// tokens that must be refused, and Keystone outages. It skips when
// Keystone is not installed, unless IRONIC_TEST_REQUIRE_KEYSTONE=1.
//
// IRONIC_TEST_KEYSTONE_PORT picks Keystone's port (default: a free one).
package keystoneauth

import (
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/internal/wire"
	"github.com/goironic/ironic/test/internal/keystone"
)

// tokenLifetime is the Keystone's [token]expiration: short, so that the
// expiry test waits little and the service user's own token is renewed
// during the run.
const tokenLifetime = 12 * time.Second

func keystonePort(t *testing.T) int {
	if s := os.Getenv("IRONIC_TEST_KEYSTONE_PORT"); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("IRONIC_TEST_KEYSTONE_PORT: %v", err)
		}
		return p
	}
	return 0
}

// recorder is the API behind the middleware: it keeps the last context.
type recorder struct {
	mu sync.Mutex
	rc *ironic.RequestContext
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.rc = ironic.FromContext(req.Context())
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

type setup struct {
	t   *testing.T
	ks  *keystone.Keystone
	h   http.Handler
	rec *recorder
}

// middleware builds the authentication exactly as the binaries do, from
// an ironic.conf text.
func middleware(t *testing.T, text string) (http.Handler, *recorder) {
	t.Helper()
	cfg, err := conf.Load(nil, conf.WithText("ironic.conf", text))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := wire.Authenticated(cfg, rec, log)
	if err != nil {
		t.Fatal(err)
	}
	return h, rec
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimSpace(string(p)))
	return len(p), nil
}

func keystoneConf(ks *keystone.Keystone) string {
	return "[DEFAULT]\nauth_strategy = keystone\n" + ks.AuthtokenSection() + "region_name = RegionOne\n"
}

func (s *setup) call(method, path string, headers ...string) (*httptest.ResponseRecorder, *ironic.RequestContext) {
	s.t.Helper()
	req := httptest.NewRequest(method, "http://ironic.test"+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	s.rec.mu.Lock()
	s.rec.rc = nil
	s.rec.mu.Unlock()
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, req)
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return w, s.rec.rc
}

func (s *setup) token(who string) string {
	s.t.Helper()
	tok, err := s.ks.Token(s.t.Context(), who)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

func TestKeystone(t *testing.T) {
	ks := keystone.ForTest(t, keystone.Options{Port: keystonePort(t), TokenExpiration: tokenLifetime})
	h, rec := middleware(t, keystoneConf(ks))
	s := &setup{t: t, ks: ks, h: h, rec: rec}
	uri := `Keystone uri="` + ks.AuthURL() + `"`

	t.Run("personas", func(t *testing.T) {
		for _, who := range keystone.Users() {
			s.t = t
			tok := s.token(who)
			w, rc := s.call("GET", "/v1/nodes", "X-Auth-Token", tok, "X-Roles", "admin", "X-User-Id", "spoofed")
			if w.Code != http.StatusOK || rc == nil {
				t.Errorf("%s: status %d %s", who, w.Code, w.Body)
				continue
			}
			info, err := ks.Validate(t.Context(), tok)
			if err != nil {
				t.Fatal(err)
			}
			if rc.UserID != ks.UserID(strings.TrimSuffix(who, "-system")) || rc.UserID != info.UserID || rc.UserName != info.UserName {
				t.Errorf("%s: user %q/%q, Keystone says %q/%q", who, rc.UserID, rc.UserName, info.UserID, info.UserName)
			}
			if rc.UserDomainName != info.UserDomain || rc.UserDomainID == "" {
				t.Errorf("%s: user domain %q (%q), want %q", who, rc.UserDomainName, rc.UserDomainID, info.UserDomain)
			}
			if rc.ProjectID != info.ProjectID || rc.ProjectName != info.ProjectName {
				t.Errorf("%s: project %q/%q, want %q/%q", who, rc.ProjectID, rc.ProjectName, info.ProjectID, info.ProjectName)
			}
			if info.ProjectID != "" && (rc.ProjectDomainID == "" || rc.ProjectDomainName != info.UserDomain) {
				t.Errorf("%s: project domain %q/%q", who, rc.ProjectDomainID, rc.ProjectDomainName)
			}
			if want := map[bool]string{true: "all"}[info.System]; rc.SystemScope != want {
				t.Errorf("%s: system scope %q, want %q", who, rc.SystemScope, want)
			}
			if strings.Join(rc.Roles, ",") != strings.Join(info.Roles, ",") {
				t.Errorf("%s: roles %v, Keystone says %v", who, rc.Roles, info.Roles)
			}
			if rc.AuthToken != tok || rc.IsPublicAPI || rc.AuthTokenInfo["token"] == nil {
				t.Errorf("%s: token %t, public %t, token info %t", who, rc.AuthToken == tok, rc.IsPublicAPI, rc.AuthTokenInfo != nil)
			}
			if rc.IsAdminProject != nil {
				t.Errorf("%s: is_admin_project false (Keystone has no admin project configured)", who)
			}
			if who == "other-domain-member" && rc.UserDomainName != keystone.OtherDomain {
				t.Errorf("other-domain-member: domain %q", rc.UserDomainName)
			}
		}
		s.t = t
	})

	t.Run("service token", func(t *testing.T) {
		s.t = t
		user, svc := s.token("demo-member"), s.token("ironic")
		w, rc := s.call("GET", "/v1/nodes", "X-Auth-Token", user, "X-Service-Token", svc)
		if w.Code != 200 || rc.ServiceUserID != ks.UserID("ironic") || rc.ServiceProjectID != ks.ProjectID("service") ||
			!contains(rc.ServiceRoles, "service") || rc.UserID != ks.UserID("demo-member") || rc.ServiceToken != svc {
			t.Errorf("status %d, context %+v", w.Code, rc)
		}
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", user, "X-Service-Token", "garbage"); w.Code != 401 {
			t.Errorf("bad service token: %d", w.Code)
		}
	})

	t.Run("refused", func(t *testing.T) {
		s.t = t
		for name, headers := range map[string][]string{
			"no token":          nil,
			"garbage":           {"X-Auth-Token", "garbage"},
			"fernet-like":       {"X-Auth-Token", "gAAAAABnot-a-real-token-at-all"},
			"empty":             {"X-Auth-Token", ""},
			"two tokens":        {"X-Auth-Token", s.token("demo-member"), "X-Auth-Token", s.token("demo-reader")},
			"inner space":       {"X-Auth-Token", "gAAAA ABC"},
			"non-ascii":         {"X-Auth-Token", "t\xc3\xa9st\xfe"},
			"control character": {"X-Auth-Token", "abc\x01def"},
			"huge":              {"X-Auth-Token", strings.Repeat("gAAAA", 10000)},
			"basic header only": {"Authorization", "Basic YWRtaW46YWRtaW4="},
			"truncated token":   {"X-Auth-Token", s.token("demo-member")[:60]},
		} {
			w, rc := s.call("GET", "/v1/nodes", headers...)
			if w.Code != 401 || rc != nil {
				t.Errorf("%s: status %d", name, w.Code)
				continue
			}
			if w.Header().Get("WWW-Authenticate") != uri || !strings.Contains(w.Body.String(), `"code": 401`) {
				t.Errorf("%s: %q %q", name, w.Header(), w.Body)
			}
		}
	})

	t.Run("public routes", func(t *testing.T) {
		s.t = t
		w, rc := s.call("POST", "/v1/heartbeat/abc", "X-Auth-Token", "garbage", "X-Roles", "admin")
		if w.Code != 200 || !rc.IsPublicAPI || rc.AuthToken != "garbage" || !contains(rc.Roles, "admin") {
			t.Errorf("heartbeat: %d %+v", w.Code, rc)
		}
	})

	t.Run("revoked", func(t *testing.T) {
		s.t = t
		unused, used := s.token("demo-member"), s.token("demo-member")
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", used); w.Code != 200 {
			t.Fatalf("status %d", w.Code)
		}
		for _, tok := range []string{unused, used} {
			if err := ks.Revoke(t.Context(), tok); err != nil {
				t.Fatal(err)
			}
		}
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", unused); w.Code != 401 {
			t.Errorf("revoked token never used: %d", w.Code)
		}
		// The cached one goes once the revocation list is read again
		// (within a second).
		deadline := time.Now().Add(5 * time.Second)
		for {
			w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", used)
			if w.Code == 401 {
				break
			}
			if w.Code != 200 || time.Now().After(deadline) {
				t.Fatalf("revoked cached token: status %d", w.Code)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("expired", func(t *testing.T) {
		s.t = t
		tok := s.token("demo-reader")
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", tok); w.Code != 200 {
			t.Fatalf("status %d", w.Code)
		}
		info, err := ks.Validate(t.Context(), tok)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(info.ExpiresAt) + 500*time.Millisecond)
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", tok); w.Code != 401 {
			t.Errorf("expired token: %d", w.Code)
		}
		// The service user's own token expired meanwhile too: it was
		// renewed.
		if w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", s.token("demo-reader")); w.Code != 200 {
			t.Errorf("fresh token after the service token's lifetime: %d", w.Code)
		}
	})

	t.Run("service user on an application credential", func(t *testing.T) {
		// [keystone_authtoken] with auth_type v3applicationcredential: an
		// application credential of the ironic service user (its admin
		// and service roles on project service) validates the tokens.
		const secret = "authtoken-app-cred-secret"
		id, err := ks.ApplicationCredential(t.Context(), "ironic", "ironic-authtoken", secret)
		if err != nil {
			t.Fatal(err)
		}
		text := "[DEFAULT]\nauth_strategy = keystone\n[keystone_authtoken]\nauth_type = v3applicationcredential\nauth_url = " +
			ks.AuthURL() + "\nwww_authenticate_uri = " + ks.AuthURL() + "\napplication_credential_id = " + id +
			"\napplication_credential_secret = " + secret + "\nregion_name = RegionOne\n"
		h, rec := middleware(t, text)
		as := &setup{t: t, ks: ks, h: h, rec: rec}
		w, rc := as.call("GET", "/v1/nodes", "X-Auth-Token", as.token("demo-member"))
		if w.Code != http.StatusOK || rc == nil || rc.UserID != ks.UserID("demo-member") {
			t.Errorf("a member's token: %d %s %+v", w.Code, w.Body, rc)
		}
		h, rec = middleware(t, strings.Replace(text, secret, "wrong-secret", 1))
		bad := &setup{t: t, ks: ks, h: h, rec: rec}
		if w, _ := bad.call("GET", "/v1/nodes", "X-Auth-Token", bad.token("demo-member")); w.Code == http.StatusOK {
			t.Errorf("with a wrong secret the service user validated a token: %d", w.Code)
		}
	})

	t.Run("keystone down", func(t *testing.T) {
		s.t = t
		fresh := s.token("alt-member")
		if err := ks.Stop(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		w, _ := s.call("GET", "/v1/nodes", "X-Auth-Token", fresh, "Accept", "application/json")
		if w.Code != 503 || !strings.Contains(w.Body.String(), "The Keystone service is temporarily unavailable.") {
			t.Errorf("Keystone down: %d %s", w.Code, w.Body)
		}
		t.Logf("503 after %s (keystonemiddleware retries the connection 3 times)", time.Since(start).Round(time.Millisecond))
		if err := ks.Restart(t.Context()); err != nil {
			t.Fatal(err)
		}
		if w, rc := s.call("GET", "/v1/nodes", "X-Auth-Token", fresh); w.Code != 200 || rc.UserID != ks.UserID("alt-member") {
			t.Errorf("after the restart: %d", w.Code)
		}
	})
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestHTTPBasic(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(file, []byte("admin:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, rec := middleware(t, "[DEFAULT]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = "+file+"\n")
	s := &setup{t: t, h: h, rec: rec}
	basic := func(up string) string { return "Basic " + b64(up) }
	for _, c := range []struct {
		name   string
		header string
		code   int
		body   string
	}{
		{"good", basic("admin:s3cret"), 200, ""},
		{"bad password", basic("admin:nope"), 401, `{"error":{"message":"Incorrect username or password","code":401}}`},
		{"unknown user", basic("root:s3cret"), 401, `{"error":{"message":"Incorrect username or password","code":401}}`},
		{"not base64", "Basic %%%", 400, `{"error":{"message":"Could not decode authorization token","code":400}}`},
		{"bearer", "Bearer abc", 400, `{"error":{"message":"Unsupported authorization type \"Bearer\"","code":400}}`},
		{"scheme only", "Basic", 400, `{"error":{"message":"Could not parse Authorization header","code":400}}`},
	} {
		w, rc := s.call("GET", "/v1/nodes", "Authorization", c.header)
		if w.Code != c.code || (c.body != "" && w.Body.String() != c.body) {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body)
		}
		if c.code == 401 && w.Header().Get("WWW-Authenticate") != `Basic realm="Baremetal API"` {
			t.Errorf("%s: WWW-Authenticate %q", c.name, w.Header().Get("WWW-Authenticate"))
		}
		if c.code == 200 && (rc.UserID != "admin" || rc.UserName != "admin" || rc.AuthToken != "") {
			t.Errorf("%s: context %+v", c.name, rc)
		}
	}
	if w, _ := s.call("GET", "/v1/nodes"); w.Code != 401 || w.Body.String() != `{"error":{"message":"Authorization required","code":401}}` {
		t.Errorf("no header: %d %s", w.Code, w.Body)
	}
	// Start-up errors.
	for name, text := range map[string]string{
		"missing file":   "[DEFAULT]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = " + filepath.Join(dir, "nope") + "\n",
		"not bcrypt":     "[DEFAULT]\nauth_strategy = http_basic\nhttp_basic_auth_user_file = " + writeFile(t, dir, "md5", "bob:$apr1$x$y\n") + "\n",
		"no auth_type":   "[DEFAULT]\nauth_strategy = keystone\n",
		"unknown plugin": "[DEFAULT]\nauth_strategy = keystone\n[keystone_authtoken]\nauth_type = v3token\nauth_url = http://127.0.0.1:1/v3\n",
	} {
		cfg, err := conf.Load(nil, conf.WithText("ironic.conf", text))
		if err != nil {
			t.Fatal(err)
		}
		_, err = wire.Authenticated(cfg, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
		if err == nil {
			t.Errorf("%s: started", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
