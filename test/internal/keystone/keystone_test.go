package keystone

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// Ports from this package's share of the machine's test range.
const (
	testPort       = 5201
	testExpiryPort = 5202
)

// TestKeystone runs one Keystone through tokens, catalog, revocation,
// Stop/Restart and a second Start on the same state.
func TestKeystone(t *testing.T) {
	dir := t.TempDir()
	o := Options{Port: testPort, Dir: dir, BaremetalURL: "http://127.0.0.1:5299/"}
	began := time.Now()
	k := ForTest(t, o)
	t.Logf("started in %s", time.Since(began).Round(time.Millisecond))
	logNotes(t, k)
	ctx := testContext(t, 5*time.Minute)

	if got, want := k.AuthURL(), "http://127.0.0.1:5201/v3"; got != want {
		t.Errorf("AuthURL() = %q, want %q", got, want)
	}
	t.Run("tokens", func(t *testing.T) { testTokens(t, ctx, k) })
	t.Run("catalog", func(t *testing.T) { testCatalog(t, ctx, k) })
	t.Run("env", func(t *testing.T) { testEnv(t, ctx, k) })
	t.Run("revoke", func(t *testing.T) { testRevoke(t, ctx, k) })
	t.Run("restart", func(t *testing.T) { testRestart(t, ctx, k) })
	t.Run("start-again", func(t *testing.T) { testStartAgain(t, ctx, k, o) })
}

// logNotes logs the start's phases from keystone.log.
func logNotes(t *testing.T, k *Keystone) {
	b, err := os.ReadFile(k.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "goironic keystone: ") {
			t.Log(line)
		}
	}
}

// testTokens gets a token for every user and checks its scope and roles.
func testTokens(t *testing.T, ctx context.Context, k *Keystone) {
	for _, who := range Users() {
		a, err := lookup(who)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := k.Token(ctx, who)
		if err != nil {
			t.Errorf("Token(%s): %v", who, err)
			continue
		}
		info, err := k.Validate(ctx, tok)
		if err != nil {
			t.Errorf("Validate(%s's token): %v", who, err)
			continue
		}
		if info.UserName != a.name || info.UserID != k.UserID(who) || info.UserID == "" || info.UserDomain != a.domain {
			t.Errorf("%s: token user %s (%s) in %s, want %s (%s) in %s",
				who, info.UserName, info.UserID, info.UserDomain, a.name, k.UserID(who), a.domain)
		}
		if a.project == "" {
			if !info.System || info.ProjectID != "" {
				t.Errorf("%s: system=%v project=%q, want a system-scoped token", who, info.System, info.ProjectID)
			}
		} else if info.System || info.ProjectName != a.project || info.ProjectID != k.ProjectID(a.project) || info.ProjectID == "" {
			t.Errorf("%s: system=%v project=%s (%s), want project %s (%s)",
				who, info.System, info.ProjectName, info.ProjectID, a.project, k.ProjectID(a.project))
		}
		for _, r := range a.roles {
			if !slices.Contains(info.Roles, r) {
				t.Errorf("%s: roles %v lack %s", who, info.Roles, r)
			}
		}
		// Roles imply downwards only (admin > member > reader).
		top := a.roles[0]
		if top != "admin" && slices.Contains(info.Roles, "admin") ||
			top == "reader" && slices.Contains(info.Roles, "member") {
			t.Errorf("%s: roles %v exceed %s", who, info.Roles, top)
		}
	}
	if k.UserID("nobody") != "" || k.ProjectID("nowhere") != "" {
		t.Error("unknown user or project has an ID")
	}
	if _, err := k.Token(ctx, "nobody"); err == nil {
		t.Error("Token(nobody) succeeded")
	}
}

// testCatalog checks the baremetal endpoint from Options, then SetCatalog.
func testCatalog(t *testing.T, ctx context.Context, k *Keystone) {
	want := map[string]string{"baremetal": "http://127.0.0.1:5299"}
	if got := catalog(t, ctx, k); !equalCatalog(got, want) {
		t.Errorf("catalog %v, want %v", got, want)
	}
	if err := k.SetCatalog(ctx, "http://127.0.0.1:5298", "http://127.0.0.1:5297"); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"baremetal": "http://127.0.0.1:5298", "network": "http://127.0.0.1:5297"}
	if got := catalog(t, ctx, k); !equalCatalog(got, want) {
		t.Errorf("after SetCatalog: catalog %v, want %v", got, want)
	}
	if err := k.SetCatalog(ctx, "http://127.0.0.1:5299", ""); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"baremetal": "http://127.0.0.1:5299"}
	if got := catalog(t, ctx, k); !equalCatalog(got, want) {
		t.Errorf("after removing network: catalog %v, want %v", got, want)
	}
}

// catalog maps service type to "URL" when its public, internal and admin
// endpoints (in RegionOne) agree, or to the list of what they are.
func catalog(t *testing.T, ctx context.Context, k *Keystone) map[string]string {
	t.Helper()
	tok, err := k.Token(ctx, "demo-member")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Catalog []struct {
			Type      string `json:"type"`
			Endpoints []struct {
				Interface string `json:"interface"`
				Region    string `json:"region_id"`
				URL       string `json:"url"`
			} `json:"endpoints"`
		} `json:"catalog"`
	}
	resp := get(t, ctx, k.AuthURL()+"/auth/catalog", tok, "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v3/auth/catalog: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range body.Catalog {
		if s.Type == "identity" {
			continue
		}
		var eps []string
		for _, ep := range s.Endpoints {
			eps = append(eps, ep.Interface+"="+ep.URL+"@"+ep.Region)
		}
		slices.Sort(eps)
		got[s.Type] = strings.Join(eps, " ")
	}
	return got
}

// equalCatalog compares catalog's view with type → URL.
func equalCatalog(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for typ, url := range want {
		if got[typ] != "admin="+url+"@RegionOne internal="+url+"@RegionOne public="+url+"@RegionOne" {
			return false
		}
	}
	return true
}

// testEnv authenticates with the openstack CLI through Env.
func testEnv(t *testing.T, ctx context.Context, k *Keystone) {
	if _, err := os.Stat("/usr/bin/openstack"); err != nil {
		t.Skip("the openstack CLI is not installed")
	}
	for _, who := range []string{"system-member", "other-domain-member"} {
		cmd := exec.CommandContext(ctx, "/usr/bin/openstack", "token", "issue", "-f", "json")
		cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, k.Env(who)...)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: openstack token issue: %v\n%s", who, err, stderr(err))
			continue
		}
		var tok struct {
			ID        string `json:"id"`
			ProjectID string `json:"project_id"`
			UserID    string `json:"user_id"`
		}
		if err := json.Unmarshal(out, &tok); err != nil {
			t.Errorf("%s: %v in %s", who, err, out)
			continue
		}
		a, _ := lookup(who)
		if tok.UserID != k.UserID(who) || tok.ProjectID != k.ProjectID(a.project) {
			t.Errorf("%s: CLI token for user %s project %q, want %s %q", who, tok.UserID, tok.ProjectID, k.UserID(who), k.ProjectID(a.project))
		}
	}
	if !slices.Contains(k.Env("admin-system"), "OS_SYSTEM_SCOPE=all") || !slices.Contains(k.Env("admin"), "OS_PROJECT_NAME=admin") {
		t.Errorf("Env: admin-system %v, admin %v", k.Env("admin-system"), k.Env("admin"))
	}
}

func stderr(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// testRevoke revokes a token and sees Keystone refuse it.
func testRevoke(t *testing.T, ctx context.Context, k *Keystone) {
	tok, err := k.Token(ctx, "demo-member")
	if err != nil {
		t.Fatal(err)
	}
	other, err := k.Token(ctx, "demo-member")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Revoke(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Validate(ctx, tok); !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		t.Errorf("Validate(revoked) = %v, want 404", err)
	}
	admin, err := k.Token(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	resp := get(t, ctx, k.AuthURL()+"/auth/tokens", admin, tok)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v3/auth/tokens with the revoked token: %s, want 404", resp.Status)
	}
	if _, err := k.Validate(ctx, other); err != nil {
		t.Errorf("another token of the same user: %v", err)
	}
	if err := k.Revoke(ctx, tok); err == nil {
		t.Error("revoking twice succeeded")
	}
}

// testRestart stops Keystone, sees it gone, restarts it and sees earlier
// tokens still valid.
func testRestart(t *testing.T, ctx context.Context, k *Keystone) {
	before, err := k.Token(ctx, "system-reader")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	if k.Running() {
		t.Error("Running after Stop")
	}
	if err := k.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := k.Token(short, "demo-member"); err == nil {
		t.Error("Token succeeded while stopped")
	}
	if resp, err := http.Get(k.AuthURL()); err == nil {
		resp.Body.Close()
		t.Errorf("GET /v3 while stopped: %s", resp.Status)
	}
	began := time.Now()
	if err := k.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted in %s", time.Since(began).Round(time.Millisecond))
	if info, err := k.Validate(ctx, before); err != nil {
		t.Errorf("token from before the restart: %v", err)
	} else if !info.System || info.UserName != "system-reader" {
		t.Errorf("token from before the restart: %+v", info)
	}
	if _, err := k.Token(ctx, "alt-reader"); err != nil {
		t.Errorf("after restart: %v", err)
	}
}

// testStartAgain stops k and starts another Keystone on its state: the
// same identities, earlier tokens valid, provisioning idempotent.
func testStartAgain(t *testing.T, ctx context.Context, k *Keystone, o Options) {
	before, err := k.Token(ctx, "other-domain-member")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatal(err)
	}
	k2, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = k2.Stop() }()
	for _, who := range Users() {
		if k2.UserID(who) != k.UserID(who) {
			t.Errorf("%s: ID %s, was %s", who, k2.UserID(who), k.UserID(who))
		}
	}
	for _, p := range []string{"admin", "service", "demo", "alt-demo", "other-demo"} {
		if k2.ProjectID(p) == "" || k2.ProjectID(p) != k.ProjectID(p) {
			t.Errorf("project %s: ID %q, was %q", p, k2.ProjectID(p), k.ProjectID(p))
		}
	}
	if _, err := k2.Validate(ctx, before); err != nil {
		t.Errorf("token from the first start: %v", err)
	}
	if got := catalog(t, ctx, k2); !equalCatalog(got, map[string]string{"baremetal": "http://127.0.0.1:5299"}) {
		t.Errorf("catalog %v", got)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "keystone.log")); err != nil {
		t.Error(err)
	}
}

// TestTokenExpiration checks that Options.TokenExpiration bounds a
// token's life.
func TestTokenExpiration(t *testing.T) {
	const expiry = 3 * time.Second
	began := time.Now()
	k := ForTest(t, Options{Port: testExpiryPort, TokenExpiration: expiry})
	t.Logf("started in %s", time.Since(began).Round(time.Millisecond))
	logNotes(t, k)
	ctx := testContext(t, 2*time.Minute)
	tok, err := k.Token(ctx, "demo-admin")
	if err != nil {
		t.Fatal(err)
	}
	info, err := k.Validate(ctx, tok)
	if err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	if life := info.ExpiresAt.Sub(info.IssuedAt); life < expiry-time.Second || life > expiry {
		t.Errorf("token lives %s (issued %s, expires %s), want %s", life, info.IssuedAt, info.ExpiresAt, expiry)
	}
	deadline := time.Now().Add(expiry + 15*time.Second)
	for {
		_, err := k.Validate(ctx, tok)
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			break
		}
		if err != nil {
			t.Fatalf("validate: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("token still valid at %s, expires_at %s", time.Now().UTC(), info.ExpiresAt)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("refused %s after its expiry", time.Since(info.ExpiresAt).Round(time.Millisecond))
	if time.Now().Before(info.ExpiresAt.Add(-time.Second)) {
		t.Errorf("token refused at %s, before its expiry %s", time.Now().UTC(), info.ExpiresAt)
	}
	// The admin client re-authenticates once its own token has expired.
	if _, err := k.Token(ctx, "demo-reader"); err != nil {
		t.Fatal(err)
	}
}

// TestConf checks the generated keystone.conf and keys without Keystone.
func TestConf(t *testing.T) {
	dir := t.TempDir()
	k := &Keystone{dir: dir, port: 5203, expiry: 1500 * time.Millisecond}
	if err := k.writeState(); err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(filepath.Join(dir, confName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"connection = sqlite:///" + dir + "/keystone.sqlite\n",
		"expiration = 2\n",
		"key_repository = " + dir + "/fernet-keys\n",
		"key_repository = " + dir + "/credential-keys\n",
	} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("keystone.conf lacks %q:\n%s", want, conf)
		}
	}
	key0, _ := os.ReadFile(filepath.Join(dir, fernetDir, "0"))
	key1, _ := os.ReadFile(filepath.Join(dir, fernetDir, "1"))
	if len(key0) != 44 || len(key1) != 44 || string(key0) == string(key1) {
		t.Errorf("fernet keys %q %q", key0, key1)
	}
	if err := k.writeState(); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, fernetDir, "0"))
	if string(again) != string(key0) {
		t.Error("a second writeState replaced the keys")
	}
	k.expiry = 0
	if err := k.writeState(); err != nil {
		t.Fatal(err)
	}
	if conf, _ := os.ReadFile(filepath.Join(dir, confName)); strings.Contains(string(conf), "expiration") {
		t.Errorf("expiration set without TokenExpiration:\n%s", conf)
	}
}

// TestEnv checks Env's scoping variables without Keystone.
func TestEnv(t *testing.T) {
	k := &Keystone{port: 5204}
	env := func(who string) map[string]string {
		m := map[string]string{}
		for _, kv := range k.Env(who) {
			key, val, _ := strings.Cut(kv, "=")
			m[key] = val
		}
		return m
	}
	for who, want := range map[string]map[string]string{
		"admin":               {"OS_USERNAME": "admin", "OS_PASSWORD": "admin", "OS_PROJECT_NAME": "admin", "OS_PROJECT_DOMAIN_NAME": "Default"},
		"admin-system":        {"OS_USERNAME": "admin", "OS_PASSWORD": "admin", "OS_SYSTEM_SCOPE": "all", "OS_PROJECT_NAME": ""},
		"ironic":              {"OS_USERNAME": "ironic", "OS_PASSWORD": "ironic", "OS_PROJECT_NAME": "service"},
		"system-reader":       {"OS_PASSWORD": "secret", "OS_SYSTEM_SCOPE": "all", "OS_PROJECT_DOMAIN_NAME": ""},
		"alt-member":          {"OS_PROJECT_NAME": "alt-demo", "OS_USER_DOMAIN_NAME": "Default"},
		"other-domain-member": {"OS_PROJECT_NAME": "other-demo", "OS_USER_DOMAIN_NAME": "other-domain", "OS_PROJECT_DOMAIN_NAME": "other-domain"},
	} {
		got := env(who)
		if got["OS_AUTH_URL"] != "http://127.0.0.1:5204/v3" || got["OS_IDENTITY_API_VERSION"] != "3" || got["OS_REGION_NAME"] != "RegionOne" {
			t.Errorf("%s: %v", who, got)
		}
		for key, val := range want {
			if got[key] != val {
				t.Errorf("%s: %s=%q, want %q", who, key, got[key], val)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Env(nobody) did not panic")
		}
	}()
	k.Env("nobody")
}

// get does GET url with X-Auth-Token auth and, when set, X-Subject-Token.
func get(t *testing.T, ctx context.Context, url, auth, subject string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Auth-Token", auth)
	if subject != "" {
		req.Header.Set("X-Subject-Token", subject)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// testContext ends with the test or after d.
func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestPortInUse checks that Start refuses a busy port and leaves nothing
// behind.
func TestPortInUse(t *testing.T) {
	if err := Installed(); err != nil {
		t.Skip(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:5203")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	k, err := Start(testContext(t, time.Minute), Options{Port: 5203})
	if err == nil {
		k.Close()
		t.Fatal("Start on a busy port succeeded")
	}
	if !strings.Contains(err.Error(), "in use") {
		t.Errorf("error %v does not say the port is in use", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Start left %v in TMPDIR", left)
	}
}
