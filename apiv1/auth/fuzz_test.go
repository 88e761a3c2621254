package auth

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzMiddleware sends arbitrary paths, tokens, Authorization and Accept
// headers through every strategy: the answer is the application's (299),
// 400 or 401, never a server error, never a panic.
func FuzzMiddleware(f *testing.F) {
	for _, s := range [][4]string{
		{"/v1/nodes", "demo", "Basic bXlOYW1lOm15UGFzc3dvcmQ=", "application/json"},
		{"/v1/heartbeat/abc\n", "", "basic \xa0", "text/html;q=0.5"},
		{"/v1/lookup.json/", "  garbage  ", "Basic ====", ";;"},
		{"", "\xff\xfe", "Bearer", "*/*;q=1.5"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	cases := loadCases(f)
	file := filepath.Join(f.TempDir(), "htpasswd")
	if err := os.WriteFile(file, []byte(cases.Basic.File), 0o600); err != nil {
		f.Fatal(err)
	}
	clock := &fixedClock{t: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	var mws []*Middleware
	for _, cfg := range []Config{
		{Strategy: NoAuth},
		{Strategy: HTTPBasic, HTTPBasicAuthUserFile: file},
		{Strategy: Keystone, Keystone: keystoneTestConfig("http://k/v3", "http://k/v3")},
	} {
		m, err := New(cfg, Deps{Clock: clock, Log: quietLog(), Identity: &tableIdentity{tokens: cases.Keystone.Tokens}})
		if err != nil {
			f.Fatal(err)
		}
		mws = append(mws, m)
	}
	f.Fuzz(func(t *testing.T, path, token, authorization, accept string) {
		for _, m := range mws {
			req := httptest.NewRequest("GET", "http://ironic.test/", nil)
			req.URL.Path = path
			req.Header.Set("X-Auth-Token", token)
			req.Header.Set("X-Service-Token", token)
			req.Header.Set("Authorization", authorization)
			req.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			m.Handler(&passed{}).ServeHTTP(rec, req)
			switch rec.Code {
			case 299, 400, 401:
			default:
				t.Fatalf("%s: status %d for path %q token %q authorization %q", m.Strategy(), rec.Code, path, token, authorization)
			}
		}
	})
}
