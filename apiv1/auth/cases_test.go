package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
)

// cases.json holds what Python Ironic 21.4's authentication layers answer
// (testdata/gen_cases.py runs the reference's own middlewares).
type pyCases struct {
	Basic struct {
		File      string   `json:"file"`
		Cases     []pyCase `json:"cases"`
		FileCases []struct {
			pyCase
			File *string `json:"file"`
		} `json:"file_cases"`
	} `json:"basic"`
	BasicStartup []struct {
		Name  string  `json:"name"`
		File  *string `json:"file"`
		Path  string  `json:"path"`
		Error *string `json:"error"`
	} `json:"basic_startup"`
	Public []struct {
		Path   string `json:"path"`
		Public bool   `json:"public"`
	} `json:"public"`
	Environ []struct {
		pyCase
		Strategy string `json:"strategy"`
	} `json:"environ"`
	Webob503 []struct {
		Method  string      `json:"method"`
		Accept  *string     `json:"accept"`
		Status  string      `json:"status"`
		Headers [][2]string `json:"headers"`
		Body    string      `json:"body"`
	} `json:"webob_503"`
	Keystone struct {
		Tokens             map[string]json.RawMessage `json:"tokens"`
		WWWAuthenticateURI string                     `json:"www_authenticate_uri"`
		AuthURL            string                     `json:"auth_url"`
		Cases              []struct {
			pyCase
			Options string `json:"options"`
		} `json:"cases"`
	} `json:"keystone"`
}

type pyCase struct {
	Name    string      `json:"name"`
	Method  string      `json:"method"`
	Path    string      `json:"path"`
	Headers [][2]string `json:"headers"`
	Want    pyAnswer    `json:"want"`
}

type pyAnswer struct {
	Status    string         `json:"status"`
	Headers   [][2]string    `json:"headers"`
	Body      string         `json:"body"`
	Context   map[string]any `json:"context"`
	Exception string         `json:"exception"`
}

func loadCases(t testing.TB) *pyCases {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c pyCases
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// fromLatin1 turns a header value Python recorded (a str of Latin-1
// characters) back into the bytes on the wire.
func fromLatin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}

// passed is the application behind the middleware: it records the
// context and answers 299, as the generator's application does.
type passed struct{ rc *ironic.RequestContext }

func (p *passed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.rc = ironic.FromContext(r.Context())
	w.WriteHeader(299)
}

func run(t *testing.T, m *Middleware, c pyCase) (*httptest.ResponseRecorder, *ironic.RequestContext) {
	t.Helper()
	req := httptest.NewRequest(c.Method, "http://ironic.test/", nil)
	req.URL.Path, req.URL.RawQuery, _ = strings.Cut(c.Path, "?")
	req.Header = http.Header{}
	for _, h := range c.Headers {
		req.Header.Add(h[0], fromLatin1(h[1]))
	}
	rec := httptest.NewRecorder()
	p := &passed{}
	m.Handler(p).ServeHTTP(rec, req)
	return rec, p.rc
}

// checkAnswer compares our answer with Python's.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, rc *ironic.RequestContext, want pyAnswer) {
	t.Helper()
	if want.Exception != "" {
		// Python answers 500 (the exception escapes); never here.
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("status %d, want 401 where Python raises %s", rec.Code, want.Exception)
		}
		return
	}
	code := want.Status[:3]
	if got := rec.Result().Status[:3]; got != code {
		t.Fatalf("status %s, want %s (%s)", got, want.Status, rec.Body.String())
	}
	if want.Context != nil {
		if diff := cmp.Diff(normalizeEmpty(want.Context), contextDict(rc)); diff != "" {
			t.Errorf("context (-python +go):\n%s", diff)
		}
		return
	}
	var got [][2]string
	for k, vs := range rec.Header() {
		for _, v := range vs {
			got = append(got, [2]string{k, v})
		}
	}
	var wantH [][2]string
	for _, h := range want.Headers {
		wantH = append(wantH, [2]string{http.CanonicalHeaderKey(h[0]), fromLatin1(h[1])})
	}
	less := func(a, b [2]string) bool { return a[0]+a[1] < b[0]+b[1] }
	sort.Slice(got, func(i, j int) bool { return less(got[i], got[j]) })
	sort.Slice(wantH, func(i, j int) bool { return less(wantH[i], wantH[j]) })
	if diff := cmp.Diff(wantH, got); diff != "" {
		t.Errorf("headers (-python +go):\n%s", diff)
	}
	if got := rec.Body.String(); got != fromLatin1(want.Body) {
		t.Errorf("body\n got %q\nwant %q", got, want.Body)
	}
}

// contextDict is rc as the generator reports Ironic's context.
func contextDict(rc *ironic.RequestContext) map[string]any {
	s := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	l := func(v []string) any {
		out := []any{}
		for _, x := range v {
			out = append(out, x)
		}
		return out
	}
	var info any
	if rc.AuthTokenInfo != nil {
		b, _ := json.Marshal(rc.AuthTokenInfo)
		_ = json.Unmarshal(b, &info)
	}
	return map[string]any{
		"auth_token": s(rc.AuthToken), "user_id": s(rc.UserID), "user_name": s(rc.UserName),
		"project_id": s(rc.ProjectID), "project_name": s(rc.ProjectName), "domain_id": s(rc.DomainID),
		"user_domain_id": s(rc.UserDomainID), "user_domain_name": s(rc.UserDomainName),
		"project_domain_id": s(rc.ProjectDomainID), "project_domain_name": s(rc.ProjectDomainName),
		"system_scope": s(rc.SystemScope), "roles": l(rc.Roles),
		"is_admin_project": rc.IsAdminProject == nil || *rc.IsAdminProject, "is_admin": rc.IsAdmin,
		"service_token": s(rc.ServiceToken), "service_user_id": s(rc.ServiceUserID),
		"service_user_name": s(rc.ServiceUserName), "service_user_domain_id": s(rc.ServiceUserDomainID),
		"service_user_domain_name": s(rc.ServiceUserDomainName), "service_project_id": s(rc.ServiceProjectID),
		"service_project_name": s(rc.ServiceProjectName), "service_project_domain_id": s(rc.ServiceProjectDomainID),
		"service_project_domain_name": s(rc.ServiceProjectDomainName), "service_roles": l(rc.ServiceRoles),
		"is_public_api": rc.IsPublicAPI, "auth_token_info": info,
	}
}

// normalizeEmpty maps Python's "" to None where Go cannot tell them
// apart (a header sent empty).
func normalizeEmpty(m map[string]any) map[string]any {
	for k, v := range m {
		if v == "" {
			m[k] = nil
		}
	}
	return m
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestBasicMatchesReference(t *testing.T) {
	cases := loadCases(t)
	file := filepath.Join(t.TempDir(), "htpasswd")
	if err := os.WriteFile(file, []byte(cases.Basic.File), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Strategy: HTTPBasic, HTTPBasicAuthUserFile: file}, Deps{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases.Basic.Cases {
		t.Run(c.Name, func(t *testing.T) {
			rec, rc := run(t, m, c)
			checkAnswer(t, rec, rc, c.Want)
		})
	}
	for _, c := range cases.Basic.FileCases {
		t.Run(c.Name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "htpasswd")
			if err := os.WriteFile(file, []byte(cases.Basic.File), 0o600); err != nil {
				t.Fatal(err)
			}
			m, err := New(Config{Strategy: HTTPBasic, HTTPBasicAuthUserFile: file}, Deps{Log: quietLog()})
			if err != nil {
				t.Fatal(err)
			}
			if c.File == nil {
				os.Remove(file)
			} else if err := os.WriteFile(file, []byte(*c.File), 0o600); err != nil {
				t.Fatal(err)
			}
			rec, rc := run(t, m, c.pyCase)
			checkAnswer(t, rec, rc, c.Want)
		})
	}
}

func TestBasicStartupMatchesReference(t *testing.T) {
	for _, c := range loadCases(t).BasicStartup {
		t.Run(c.Name, func(t *testing.T) {
			path := c.Path
			if c.File != nil {
				path = filepath.Join(t.TempDir(), "htpasswd")
				if err := os.WriteFile(path, []byte(*c.File), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := New(Config{Strategy: HTTPBasic, HTTPBasicAuthUserFile: path}, Deps{Log: quietLog()})
			switch {
			case c.Error == nil && err != nil:
				t.Errorf("error %q, Python starts", err)
			case c.Error != nil && (err == nil || err.Error() != *c.Error):
				t.Errorf("error %v, want %q", err, *c.Error)
			}
		})
	}
}

func TestPublicRoutesMatchReference(t *testing.T) {
	p, err := compilePublicRoutes(DefaultPublicRoutes())
	if err != nil {
		t.Fatal(err)
	}
	// Our one addition to Ironic 21.4's routes (ipxe_config, which the
	// reference does not have): public here, not there.
	ours := regexp.MustCompile(`^/v1/drivers/[^/]+/vendor_passthru/ipxe_config/*(\.json)?$`)
	for _, c := range loadCases(t).Public {
		want := c.Public || ours.MatchString(c.Path)
		if got := p.match(c.Path); got != want {
			t.Errorf("%q: public %v, want %v", c.Path, got, want)
		}
	}
}

func TestContextFromHeadersMatchesReference(t *testing.T) {
	for _, c := range loadCases(t).Environ {
		t.Run(c.Strategy+"/"+c.Name, func(t *testing.T) {
			h := http.Header{}
			for _, kv := range c.Headers {
				h.Add(kv[0], kv[1])
			}
			rc := contextFromEnviron(newEnviron(h))
			if c.Strategy != "keystone" {
				rc.AuthToken = ""
			}
			if diff := cmp.Diff(normalizeEmpty(c.Want.Context), contextDict(rc)); diff != "" {
				t.Errorf("context (-python +go):\n%s", diff)
			}
		})
	}
}

func TestNoAuthContext(t *testing.T) {
	m, err := New(Config{Strategy: NoAuth}, Deps{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	rec, rc := run(t, m, pyCase{Method: "GET", Path: "/v1/nodes", Headers: [][2]string{
		{"X-Roles", "admin,member"}, {"X-Auth-Token", "tok"}, {"X-Project-Id", "p"}, {"X_User_Id", "u"},
	}})
	if rec.Code != 299 {
		t.Fatalf("status %d", rec.Code)
	}
	want := &ironic.RequestContext{Roles: []string{"admin", "member"}, ProjectID: "p", UserID: "u", ServiceRoles: []string{}}
	if diff := cmp.Diff(want, rc); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
}

func TestWebob503MatchesReference(t *testing.T) {
	for _, c := range loadCases(t).Webob503 {
		accept := "<none>"
		if c.Accept != nil {
			accept = *c.Accept
		}
		t.Run(c.Method+" "+accept, func(t *testing.T) {
			req := httptest.NewRequest(c.Method, "http://ironic.test/v1/nodes", nil)
			if c.Accept != nil {
				req.Header.Set("Accept", *c.Accept)
			}
			rec := httptest.NewRecorder()
			writeKeystone503(rec, req)
			checkAnswer(t, rec, nil, pyAnswer{Status: c.Status, Headers: c.Headers, Body: c.Body})
		})
	}
}

// tableIdentity answers as the generator's fake identity server does.
type tableIdentity struct {
	tokens map[string]json.RawMessage
	calls  int
}

func (f *tableIdentity) ValidateToken(_ context.Context, token string, allowExpired bool) ([]byte, error) {
	f.calls++
	raw, ok := f.tokens[token]
	if !ok {
		return nil, ErrInvalidToken
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	switch v {
	case "notfound":
		return nil, ErrInvalidToken
	case "down", "error", "unauthorized":
		return nil, errors.New("keystone is " + v.(string))
	}
	m := v.(map[string]any)
	if m["_only_allow_expired"] == true {
		if !allowExpired {
			return nil, ErrInvalidToken
		}
		delete(m, "_only_allow_expired")
	}
	return json.Marshal(m)
}

func (f *tableIdentity) RevocationEvents(context.Context, string) ([]byte, error) {
	return []byte(`{"events": []}`), nil
}

// fixedClock is a clock that stands still unless moved.
type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func keystoneTestConfig(uri, authURL string) KeystoneConfig {
	return KeystoneConfig{
		WWWAuthenticateURI: uri, AuthURL: authURL, AuthType: "password",
		TokenCacheTime: 300 * time.Second, ServiceTokenRoles: []string{"service"},
		IncludeServiceCatalog: true,
	}
}

func TestKeystoneMatchesReference(t *testing.T) {
	cases := loadCases(t)
	ks := cases.Keystone
	for _, c := range ks.Cases {
		t.Run(c.Name, func(t *testing.T) {
			cfg := keystoneTestConfig(ks.WWWAuthenticateURI, ks.AuthURL)
			switch c.Options {
			case "roles_required":
				cfg.ServiceTokenRolesRequired = true
			case "service_type":
				cfg.ServiceType = "baremetal"
			case "delay":
				cfg.DelayAuthDecision = true
			case "no_uri":
				cfg.WWWAuthenticateURI = ""
			}
			clock := &fixedClock{t: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
			m, err := New(Config{Strategy: Keystone, Keystone: cfg},
				Deps{Clock: clock, Log: quietLog(), Identity: &tableIdentity{tokens: ks.Tokens}})
			if err != nil {
				t.Fatal(err)
			}
			rec, rc := run(t, m, c.pyCase)
			checkAnswer(t, rec, rc, c.Want)
			// Once more, from the cache.
			rec, rc = run(t, m, c.pyCase)
			checkAnswer(t, rec, rc, c.Want)
		})
	}
}

func TestKeystoneCaseNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range loadCases(t).Keystone.Cases {
		if seen[c.Name] || strings.TrimSpace(c.Name) == "" {
			t.Errorf("case name %q repeated or blank", c.Name)
		}
		seen[c.Name] = true
	}
}
