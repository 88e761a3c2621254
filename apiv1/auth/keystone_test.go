package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic"
)

// ksSetup is the keystone middleware, with gophercloud, against a fake
// Keystone, on a clock the test moves.
type ksSetup struct {
	t     *testing.T
	ks    *fakeKeystone
	clock *fixedClock
	m     *Middleware
	cfg   KeystoneConfig
}

func newKSSetup(t *testing.T, opts ...func(*KeystoneConfig)) *ksSetup {
	t.Helper()
	clock := &fixedClock{t: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	ks := newFakeKeystone(t, clock)
	cfg := KeystoneConfig{
		WWWAuthenticateURI: "http://keystone.example/v3", AuthType: "password", AuthURL: ks.URL(),
		Username: "ironic", Password: "ironic", UserDomainName: "Default",
		ProjectName: "service", ProjectDomainName: "Default",
		TokenCacheTime: 300 * time.Second, ServiceTokenRoles: []string{"service"},
		IncludeServiceCatalog: true, HTTPRequestMaxRetries: 3, RetryDelay: time.Millisecond,
		HTTPConnectTimeout: 5 * time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	m, err := New(Config{Strategy: Keystone, Keystone: cfg}, Deps{Clock: clock, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	return &ksSetup{t: t, ks: ks, clock: clock, m: m, cfg: cfg}
}

// get sends GET path with headers (name, value, ...) and returns the
// answer and the context the API would see (nil if not reached).
func (s *ksSetup) get(path string, headers ...string) (*httptest.ResponseRecorder, *ironic.RequestContext) {
	req := httptest.NewRequest("GET", "http://ironic.test"+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	p := &passed{}
	s.m.Handler(p).ServeHTTP(rec, req)
	return rec, p.rc
}

func (s *ksSetup) status(tok string) int {
	rec, _ := s.get("/v1/nodes", "X-Auth-Token", tok)
	return rec.Code
}

func (s *ksSetup) advance(d time.Duration) { s.clock.t = s.clock.t.Add(d) }

func TestKeystoneValidTokenContextAndCache(t *testing.T) {
	s := newKSSetup(t)
	tok := s.ks.Token("demo-member")
	rec, rc := s.get("/v1/nodes", "X-Auth-Token", tok, "X-Roles", "admin")
	if rec.Code != 299 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if rc.UserID != "u-demo" || rc.ProjectID != "p-demo" || rc.ProjectName != "demo" || rc.UserName != "demo-member" ||
		strings.Join(rc.Roles, ",") != "member,reader" || rc.AuthToken != tok || rc.SystemScope != "" ||
		rc.AuthTokenInfo["token"].(map[string]any)["version"] != "v3" {
		t.Errorf("context %+v", rc)
	}
	_, v1, _ := s.ks.counts()
	for range 5 {
		if c := s.status(tok); c != 299 {
			t.Fatalf("status %d", c)
		}
	}
	if _, v2, _ := s.ks.counts(); v2 != v1 {
		t.Errorf("%d validations for cached token", v2-v1)
	}
	// The catalog's internal identity endpoint validates.
	if auths, _, _ := s.ks.counts(); auths != 1 {
		t.Errorf("%d service authentications", auths)
	}
	sys := s.ks.Token("system-admin")
	if _, rc := s.get("/v1/nodes", "X-Auth-Token", sys); rc == nil || rc.SystemScope != "all" || rc.ProjectID != "" {
		t.Errorf("system context %+v", rc)
	}
}

func TestKeystoneRefusals(t *testing.T) {
	s := newKSSetup(t)
	_, v0, _ := s.ks.counts()
	for name, headers := range map[string][]string{
		"missing":      nil,
		"garbage":      {"X-Auth-Token", "garbage"},
		"empty":        {"X-Auth-Token", ""},
		"huge":         {"X-Auth-Token", strings.Repeat("A", 20000)},
		"non-ascii":    {"X-Auth-Token", "t\xc3\xa9st\xff"},
		"control char": {"X-Auth-Token", "abc\x01def"},
		"bad service2": {"X-Auth-Token", s.ks.Token("demo-member"), "X-Service-Token", "a\x7fb"},
		"two tokens":   {"X-Auth-Token", s.ks.Token("demo-member"), "X-Auth-Token", s.ks.Token("demo-member")},
		"bad service":  {"X-Auth-Token", s.ks.Token("demo-member"), "X-Service-Token", "garbage"},
		"service only": {"X-Service-Token", s.ks.Token("ironic")},
	} {
		rec, rc := s.get("/v1/nodes", headers...)
		if rec.Code != 401 || rc != nil {
			t.Errorf("%s: status %d", name, rec.Code)
		}
		if got := rec.Header().Get("WWW-Authenticate"); got != `Keystone uri="http://keystone.example/v3"` {
			t.Errorf("%s: WWW-Authenticate %q", name, got)
		}
		if rec.Body.String() != keystone401Body {
			t.Errorf("%s: body %q", name, rec.Body)
		}
	}
	if _, v1, _ := s.ks.counts(); v1-v0 > 7 {
		t.Errorf("%d validations: the huge and the empty token went to Keystone", v1-v0)
	}
}

func TestKeystoneExpiryIsCheckedLocally(t *testing.T) {
	s := newKSSetup(t)
	s.ks.set(func(k *fakeKeystone) { k.ttl = 10 * time.Second })
	tok := s.ks.Token("demo-member")
	if c := s.status(tok); c != 299 {
		t.Fatalf("status %d", c)
	}
	_, v1, _ := s.ks.counts()
	s.advance(11 * time.Second) // still cached (300 s), but expired
	if c := s.status(tok); c != 401 {
		t.Fatalf("expired cached token: status %d", c)
	}
	// The cache entry is younger than token_cache_time: the token is
	// refused for its expiry without asking Keystone.
	if _, v2, _ := s.ks.counts(); v2 != v1 {
		t.Errorf("%d validations", v2-v1)
	}
}

func TestKeystoneCacheTime(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.TokenCacheTime = 60 * time.Second })
	tok := s.ks.Token("demo-member")
	s.status(tok)
	_, v1, _ := s.ks.counts()
	s.advance(30 * time.Second)
	s.status(tok)
	if _, v2, _ := s.ks.counts(); v2 != v1 {
		t.Errorf("revalidated within token_cache_time")
	}
	s.advance(31 * time.Second)
	s.status(tok)
	if _, v3, _ := s.ks.counts(); v3 != v1+1 {
		t.Errorf("not revalidated after token_cache_time")
	}
}

func TestKeystoneCachingDisabled(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.TokenCacheTime = -time.Second })
	tok := s.ks.Token("demo-member")
	for range 3 {
		s.status(tok)
	}
	if _, v, _ := s.ks.counts(); v != 3 {
		t.Errorf("%d validations with token_cache_time = -1", v)
	}
}

func TestKeystoneRevokedCachedTokenIsRefused(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.RevocationCheckInterval = 2 * time.Second })
	tok, other := s.ks.Token("demo-member"), s.ks.Token("demo-member")
	if s.status(tok) != 299 || s.status(other) != 299 {
		t.Fatal("valid tokens refused")
	}
	s.ks.Revoke(tok)
	// keystonemiddleware would go on answering 200 for token_cache_time.
	s.advance(2 * time.Second)
	if c := s.status(tok); c != 401 {
		t.Errorf("revoked token: status %d", c)
	}
	_, v1, _ := s.ks.counts()
	if c := s.status(other); c != 299 {
		t.Errorf("other token: status %d", c)
	}
	if _, v2, _ := s.ks.counts(); v2 != v1 {
		t.Errorf("the revocation of one token dropped another")
	}
	// Read again a second later, the event is not applied again.
	s.advance(2 * time.Second)
	if c := s.status(other); c != 299 {
		t.Errorf("other token: status %d", c)
	}
	if _, v3, _ := s.ks.counts(); v3 != v1 {
		t.Errorf("an event already applied dropped a token again")
	}
	if _, _, reads := s.ks.counts(); reads < 2 {
		t.Errorf("%d revocation reads", reads)
	}
}

func TestKeystoneWithoutRevocationListRevalidates(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.RevocationCheckInterval = 2 * time.Second })
	s.ks.set(func(k *fakeKeystone) { k.noEvents = true })
	tok := s.ks.Token("demo-member")
	s.status(tok)
	s.status(tok)
	_, v1, _ := s.ks.counts()
	s.ks.Revoke(tok)
	s.advance(3 * time.Second)
	if c := s.status(tok); c != 401 {
		t.Errorf("revoked token: status %d", c)
	}
	if _, v2, _ := s.ks.counts(); v2 != v1+1 {
		t.Errorf("%d validations", v2-v1)
	}
}

func TestKeystoneDownIs503AndRecovers(t *testing.T) {
	s := newKSSetup(t)
	cached := s.ks.Token("demo-member")
	fresh := s.ks.Token("demo-member")
	if s.status(cached) != 299 {
		t.Fatal("refused")
	}
	s.ks.Stop()
	rec, _ := s.get("/v1/nodes", "X-Auth-Token", fresh, "Accept", "application/json")
	if rec.Code != 503 || rec.Body.String() != webob503JSON || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("Keystone down: %d %q", rec.Code, rec.Body)
	}
	// A cached token is used until the revocation list is due again.
	if c := s.status(cached); c != 299 {
		t.Errorf("cached token right after Keystone stopped: %d", c)
	}
	s.advance(2 * time.Second)
	if c := s.status(cached); c != 503 {
		t.Errorf("cached token with Keystone down: %d", c)
	}
	s.ks.Start()
	if c := s.status(fresh); c != 299 {
		t.Errorf("after Keystone came back: %d", c)
	}
	if c := s.status(cached); c != 299 {
		t.Errorf("after Keystone came back, cached: %d", c)
	}
}

func TestKeystoneDownAtStartRecovers(t *testing.T) {
	s := newKSSetup(t)
	s.ks.Stop()
	if c := s.status("whatever"); c != 503 {
		t.Errorf("status %d", c)
	}
	s.ks.Start()
	if c := s.status(s.ks.Token("demo-member")); c != 299 {
		t.Errorf("status %d", c)
	}
}

func TestKeystoneServerErrorIs503(t *testing.T) {
	s := newKSSetup(t)
	tok := s.ks.Token("demo-member")
	s.ks.set(func(k *fakeKeystone) { k.status = 500 })
	rec, _ := s.get("/v1/nodes", "X-Auth-Token", tok)
	if rec.Code != 503 || rec.Header().Get("Content-Type") != "text/plain; charset=UTF-8" {
		t.Errorf("Keystone 500: %d %q", rec.Code, rec.Header())
	}
	s.ks.set(func(k *fakeKeystone) { k.status = 0 })
	if c := s.status(tok); c != 299 {
		t.Errorf("after Keystone recovered: %d", c)
	}
}

func TestKeystoneServiceTokenReacquiredOn401(t *testing.T) {
	s := newKSSetup(t)
	if c := s.status(s.ks.Token("demo-member")); c != 299 {
		t.Fatal(c)
	}
	s.ks.DisableServiceTokens()
	if c := s.status(s.ks.Token("demo-member")); c != 299 {
		t.Errorf("status %d after the service token went bad", c)
	}
	if auths, _, _ := s.ks.counts(); auths != 2 {
		t.Errorf("%d service authentications, want 2", auths)
	}
}

func TestKeystoneServiceTokenRenewedBeforeExpiry(t *testing.T) {
	s := newKSSetup(t)
	s.status(s.ks.Token("demo-member"))
	s.advance(time.Hour - time.Minute) // the service token has a minute left
	if c := s.status(s.ks.Token("demo-member")); c != 299 {
		t.Fatal(c)
	}
	if auths, _, _ := s.ks.counts(); auths != 2 {
		t.Errorf("%d service authentications, want 2", auths)
	}
}

func TestKeystoneBadServiceCredentialsIs503(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.Password = "wrong" })
	if c := s.status(s.ks.Token("demo-member")); c != 503 {
		t.Errorf("status %d", c)
	}
}

func TestKeystoneSubjectToken401Is401(t *testing.T) {
	s := newKSSetup(t)
	tok := s.ks.Token("no-roles-user")
	s.ks.set(func(k *fakeKeystone) { k.noRoleFor["no-roles-user"] = true })
	if c := s.status(tok); c != 401 {
		t.Errorf("status %d (keystonemiddleware answers 503 here)", c)
	}
}

func TestKeystoneServiceTokenAllowsExpired(t *testing.T) {
	s := newKSSetup(t)
	s.ks.set(func(k *fakeKeystone) { k.ttl = 10 * time.Second })
	user := s.ks.Token("demo-member")
	s.ks.set(func(k *fakeKeystone) { k.ttl = time.Hour })
	svc := s.ks.Token("nova")
	s.advance(time.Minute)
	rec, rc := s.get("/v1/nodes", "X-Auth-Token", user, "X-Service-Token", svc)
	if rec.Code != 299 {
		t.Fatalf("status %d", rec.Code)
	}
	if !strings.Contains(s.ks.query(), "allow_expired=1") {
		t.Errorf("query %q", s.ks.query())
	}
	if rc.ServiceUserName != "nova" || strings.Join(rc.ServiceRoles, ",") != "service" || rc.ServiceToken != svc {
		t.Errorf("context %+v", rc)
	}
	if c := s.status(user); c != 401 {
		t.Errorf("expired token alone: %d", c)
	}
}

func TestKeystoneNoCatalog(t *testing.T) {
	s := newKSSetup(t, func(c *KeystoneConfig) { c.IncludeServiceCatalog = false })
	_, rc := s.get("/v1/nodes", "X-Auth-Token", s.ks.Token("demo-member"))
	if rc == nil || !strings.Contains(s.ks.query(), "nocatalog") {
		t.Fatalf("query %q", s.ks.query())
	}
	if _, ok := rc.AuthTokenInfo["token"].(map[string]any)["catalog"]; ok {
		t.Error("catalog kept")
	}
}

func TestKeystonePublicRoutesSkipKeystone(t *testing.T) {
	s := newKSSetup(t)
	s.ks.Stop()
	for _, p := range []string{"/", "/v1", "/v1/lookup", "/v1/heartbeat/abc", "/v1/lookup.json", "/v1/"} {
		rec, rc := s.get(p, "X-Auth-Token", "garbage", "X-Roles", "admin")
		if rec.Code != 299 || !rc.IsPublicAPI || rc.AuthToken != "garbage" || rc.Roles[0] != "admin" {
			t.Errorf("%s: %d %+v", p, rec.Code, rc)
		}
	}
	if auths, v, _ := s.ks.counts(); auths+v != 0 {
		t.Error("Keystone was asked")
	}
}

func TestKeystoneConcurrentMissesValidateOnce(t *testing.T) {
	s := newKSSetup(t)
	tok := s.ks.Token("demo-member")
	var wg sync.WaitGroup
	codes := make([]int, 32)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = s.status(tok)
		}()
	}
	wg.Wait()
	for _, c := range codes {
		if c != 299 {
			t.Fatalf("status %d", c)
		}
	}
	if _, v, _ := s.ks.counts(); v > 2 {
		t.Errorf("%d validations for one token", v)
	}
}

func TestTokenCacheIsBounded(t *testing.T) {
	c := newTokenCache(3)
	for i := range 10 {
		c.put(keyOf(string(rune('a'+i))), &cacheEntry{})
	}
	if n := c.len(); n != 3 {
		t.Errorf("%d entries", n)
	}
	if c.get(keyOf("j")) == nil || c.get(keyOf("a")) != nil {
		t.Error("not the newest entries kept")
	}
}

func TestNewKeystoneIdentityChecksConfig(t *testing.T) {
	for name, cfg := range map[string]KeystoneConfig{
		"no auth_type":       {AuthURL: "http://k/v3"},
		"token auth_type":    {AuthType: "token", AuthURL: "http://k/v3"},
		"no auth_url":        {AuthType: "password"},
		"appcred, no secret": {AuthType: "v3applicationcredential", AuthURL: "http://k/v3", AppCredentialID: "c"},
		"appcred, no id":     {AuthType: "v3applicationcredential", AuthURL: "http://k/v3", AppCredentialSecret: "s"},
		"missing cafile":     {AuthType: "password", AuthURL: "http://k/v3", CAFile: "/nonexistent"},
		"missing client key": {AuthType: "password", AuthURL: "http://k/v3", CertFile: "/nonexistent"},
	} {
		if _, err := NewKeystoneIdentity(cfg, nil, quietLog()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestUnknownStrategy(t *testing.T) {
	if _, err := New(Config{Strategy: "kerberos"}, Deps{Log: quietLog()}); err == nil {
		t.Error("accepted")
	}
	m, err := New(Config{Strategy: NoAuth}, Deps{Log: quietLog()})
	if err != nil || m.Strategy() != NoAuth {
		t.Fatal(err)
	}
}

var _ http.Handler = (*passed)(nil)

// BenchmarkMiddleware is the authentication alone, in front of a handler
// that does nothing: noauth against keystone with a warm token cache.
func BenchmarkMiddleware(b *testing.B) {
	clock := &fixedClock{t: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	cases := loadCases(b)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"noauth", Config{Strategy: NoAuth}},
		{"keystone", Config{Strategy: Keystone, Keystone: keystoneTestConfig("http://k/v3", "http://k/v3")}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := New(c.cfg, Deps{Clock: clock, Log: quietLog(), Identity: &tableIdentity{tokens: cases.Keystone.Tokens}})
			if err != nil {
				b.Fatal(err)
			}
			h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if ironic.FromContext(r.Context()).UserID == "" && c.cfg.Strategy == Keystone {
					w.WriteHeader(500)
				}
			}))
			req := httptest.NewRequest("GET", "/v1/nodes/1be26c0b-03f2-4d2e-ae87-c02d7f33c123", nil)
			req.Header.Set("X-Auth-Token", "demo")
			req.Header.Set("X-OpenStack-Ironic-API-Version", "1.82")
			req.Header.Set("User-Agent", "python-ironicclient")
			req.Header.Set("Accept", "application/json")
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
