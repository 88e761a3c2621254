package auth

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeKeystone serves the part of Keystone's v3 API token validation
// uses, with Keystone's contract: POST /v3/auth/tokens (password
// method) answers 201 with X-Subject-Token and the token body; GET with
// X-Subject-Token answers 200, 404 for unknown, expired or revoked
// tokens, 401 when the caller's own token is not valid;
// GET /v3/OS-REVOKE/events lists revocations since a time. It keeps the
// same address across Stop and Start, as a restarted Keystone does.
type fakeKeystone struct {
	t     *testing.T
	clock *fixedClock
	addr  string

	mu        sync.Mutex
	srv       *http.Server
	ln        net.Listener
	users     map[string]fakeUser // by name
	tokens    map[string]*fakeToken
	events    []map[string]any
	serial    int
	ttl       time.Duration
	status    int  // answer every request with this status, if set
	noEvents  bool // OS-REVOKE answers 404
	noRoleFor map[string]bool
	// counters
	auths, validations, eventReads int
	lastQuery                      string
	// catalogPrefix is the path of the "internal" identity endpoint in
	// the catalog (the public one is /v3).
	catalogPrefix string
}

type fakeUser struct {
	id, password, project string
	roles                 []string
	system                bool
}

type fakeToken struct {
	user     string
	issued   time.Time
	expires  time.Time
	auditID  string
	revoked  bool
	disabled bool // the service user's tokens made invalid
}

func newFakeKeystone(t *testing.T, clock *fixedClock) *fakeKeystone {
	t.Helper()
	k := &fakeKeystone{
		t: t, clock: clock, tokens: map[string]*fakeToken{}, ttl: time.Hour, catalogPrefix: "/internal",
		noRoleFor: map[string]bool{},
		users: map[string]fakeUser{
			"ironic":        {id: "u-ironic", password: "ironic", project: "service", roles: []string{"admin", "service"}},
			"demo-member":   {id: "u-demo", password: "secret", project: "demo", roles: []string{"member", "reader"}},
			"system-admin":  {id: "u-sys", password: "secret", roles: []string{"admin"}, system: true},
			"nova":          {id: "u-nova", password: "secret", project: "service", roles: []string{"service"}},
			"no-roles-user": {id: "u-none", password: "secret", project: "demo", roles: []string{"member"}},
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k.addr = ln.Addr().String()
	k.serve(ln)
	t.Cleanup(k.Stop)
	return k
}

func (k *fakeKeystone) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(k.handle)}
	k.ln, k.srv = ln, srv
	go func() { _ = srv.Serve(ln) }()
}

// URL is the versioned endpoint, http://127.0.0.1:PORT/v3.
func (k *fakeKeystone) URL() string { return "http://" + k.addr + "/v3" }

// Stop makes Keystone unreachable.
func (k *fakeKeystone) Stop() {
	k.mu.Lock()
	srv := k.srv
	k.srv = nil
	k.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Start brings it back on the same address.
func (k *fakeKeystone) Start() {
	ln, err := net.Listen("tcp", k.addr)
	if err != nil {
		k.t.Fatal(err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.serve(ln)
}

// Token issues a token for user as POST /v3/auth/tokens would.
func (k *fakeKeystone) Token(user string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.issue(user)
}

func (k *fakeKeystone) issue(user string) string {
	k.serial++
	id := fmt.Sprintf("gAAAAAB-fake-%s-%d", user, k.serial)
	now := k.clock.Now()
	k.tokens[id] = &fakeToken{user: user, issued: now.Truncate(time.Second), expires: now.Add(k.ttl), auditID: fmt.Sprintf("audit-%d", k.serial)}
	return id
}

// Revoke is DELETE /v3/auth/tokens: a revocation event by audit id.
func (k *fakeKeystone) Revoke(token string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	tk := k.tokens[token]
	tk.revoked = true
	at := k.clock.Now().Truncate(time.Second).Format("2006-01-02T15:04:05.000000Z")
	k.events = append(k.events, map[string]any{"audit_id": tk.auditID, "issued_before": at, "revoked_at": at})
}

// DisableServiceTokens makes the service user's tokens invalid, as
// their expiry or a Keystone key rotation would.
func (k *fakeKeystone) DisableServiceTokens() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, tk := range k.tokens {
		if tk.user == "ironic" {
			tk.disabled = true
		}
	}
}

func (k *fakeKeystone) query() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastQuery
}

func (k *fakeKeystone) counts() (auths, validations, eventReads int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.auths, k.validations, k.eventReads
}

func (k *fakeKeystone) set(f func(k *fakeKeystone)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f(k)
}

func (k *fakeKeystone) body(id string, catalog bool) map[string]any {
	tk := k.tokens[id]
	u := k.users[tk.user]
	roles := []any{}
	if !k.noRoleFor[tk.user] {
		for _, r := range u.roles {
			roles = append(roles, map[string]any{"id": "r-" + r, "name": r})
		}
	}
	t := map[string]any{
		"methods":    []any{"password"},
		"user":       map[string]any{"id": u.id, "name": tk.user, "domain": map[string]any{"id": "default", "name": "Default"}, "password_expires_at": nil},
		"audit_ids":  []any{tk.auditID},
		"expires_at": tk.expires.Format("2006-01-02T15:04:05.000000Z"),
		"issued_at":  tk.issued.Format("2006-01-02T15:04:05.000000Z"),
		"roles":      roles,
	}
	if u.system {
		t["system"] = map[string]any{"all": true}
	} else {
		t["project"] = map[string]any{"id": "p-" + u.project, "name": u.project, "domain": map[string]any{"id": "default", "name": "Default"}}
		t["is_domain"] = false
	}
	if catalog {
		base := "http://" + k.addr
		t["catalog"] = []any{
			map[string]any{"id": "s-id", "type": "identity", "name": "keystone", "endpoints": []any{
				map[string]any{"id": "e1", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": base + "/v3"},
				map[string]any{"id": "e2", "interface": "internal", "region": "RegionOne", "region_id": "RegionOne", "url": base + k.catalogPrefix + "/v3"},
			}},
			map[string]any{"id": "s-bm", "type": "baremetal", "name": "ironic", "endpoints": []any{
				map[string]any{"id": "e3", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": "http://127.0.0.1:6385"},
			}},
		}
	}
	return map[string]any{"token": t}
}

func (k *fakeKeystone) handle(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.status != 0 {
		http.Error(w, `{"error": {"code": 500, "message": "boom"}}`, k.status)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, k.catalogPrefix)
	writeJSON := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	notFound := func() {
		writeJSON(404, map[string]any{"error": map[string]any{"code": 404, "title": "Not Found", "message": "Failed to validate token"}})
	}
	unauthorized := func() {
		writeJSON(401, map[string]any{"error": map[string]any{"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}})
	}
	callerOK := func() bool {
		tk := k.tokens[r.Header.Get("X-Auth-Token")]
		return tk != nil && !tk.disabled && !tk.revoked && k.clock.Now().Before(tk.expires)
	}
	switch {
	case r.Method == http.MethodPost && path == "/v3/auth/tokens":
		k.auths++
		var req struct {
			Auth struct {
				Identity struct {
					Password struct {
						User struct {
							Name     string `json:"name"`
							Password string `json:"password"`
						} `json:"user"`
					} `json:"password"`
				} `json:"identity"`
			} `json:"auth"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		u, ok := k.users[req.Auth.Identity.Password.User.Name]
		if !ok || u.password != req.Auth.Identity.Password.User.Password {
			unauthorized()
			return
		}
		id := k.issue(req.Auth.Identity.Password.User.Name)
		w.Header().Set("X-Subject-Token", id)
		writeJSON(201, k.body(id, true))
	case r.Method == http.MethodGet && path == "/v3/auth/tokens":
		k.validations++
		k.lastQuery = r.URL.RawQuery
		if !callerOK() {
			unauthorized()
			return
		}
		id := r.Header.Get("X-Subject-Token")
		tk := k.tokens[id]
		allowExpired := r.URL.Query().Get("allow_expired") == "1"
		if tk == nil || tk.revoked || (!allowExpired && !k.clock.Now().Before(tk.expires)) {
			notFound()
			return
		}
		if k.noRoleFor[tk.user] {
			// Keystone's _validate_project_scope: a user without roles.
			unauthorized()
			return
		}
		writeJSON(200, k.body(id, !strings.Contains(r.URL.RawQuery, "nocatalog")))
	case r.Method == http.MethodGet && path == "/v3/OS-REVOKE/events":
		k.eventReads++
		if !callerOK() {
			unauthorized()
			return
		}
		if k.noEvents {
			writeJSON(404, map[string]any{"error": map[string]any{"code": 404}})
			return
		}
		since := r.URL.Query().Get("since")
		out := []any{}
		for _, e := range k.events {
			if since == "" || e["revoked_at"].(string) > since {
				out = append(out, e)
			}
		}
		writeJSON(200, map[string]any{"events": out, "links": map[string]any{"next": nil, "previous": nil}})
	default:
		http.NotFound(w, r)
	}
}
