package auth

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// tokenInfo is a validated token, parsed once (keystoneauth's
// AccessInfoV3 as keystonemiddleware reads it) and then shared, read-only,
// by every request that presents the token while it is cached.
type tokenInfo struct {
	expires time.Time
	issued  time.Time // zero when absent
	// ctx holds the identity keystonemiddleware's headers give a user
	// token (X-User-Id, X-Roles, ...), AuthTokenInfo included, and no
	// request-specific field.
	ctx ironic.RequestContext
	// service holds what the headers of an X-Service-Token carrying this
	// token give (X-Service-*, X-Service-Roles).
	service serviceIdentity
	// systemScope is OpenStack-System-Scope for this token.
	systemScope string
	// roleNames are the role names as Keystone lists them.
	roleNames []string
	// For matching revocation events.
	userID, userDomainID, projectID, projectDomainID, domainID string
	roleIDs, auditIDs                                          []string
	trust                                                      bool
	// kerberosBind: the token is bound to a Kerberos principal, which
	// this service never authenticates (keystonemiddleware's permissive
	// bind mode then refuses the token).
	kerberosBind bool
	// accessRules are an application credential's access rules; nil
	// when the token is not restricted.
	accessRules []accessRule
	// catalogTypes are the service types in the token's catalog;
	// hasCatalog false when the token carries none.
	catalogTypes []string
	hasCatalog   bool
}

type serviceIdentity struct {
	roles                                                  []string
	userID, userName, userDomainID, userDomainName         string
	projectID, projectName, projectDomainID, projectDomain string
}

type accessRule struct{ method, path, service string }

var errBadToken = errors.New("invalid token contents")

// parseToken reads Keystone's validation answer. Whatever keystoneauth
// could not read (no expiry, a date it cannot parse) is a token this
// service refuses; Python answers 500 for some of those.
func parseToken(body []byte) (*tokenInfo, error) {
	var doc any
	if err := pyjson.Unmarshal(body, &doc); err != nil {
		return nil, errBadToken
	}
	top, _ := doc.(map[string]any)
	tok, _ := top["token"].(map[string]any)
	if tok == nil {
		return nil, errBadToken
	}
	// keystoneclient's AccessInfoV3 adds "version" to what becomes
	// keystone.token_info (Ironic's auth_token_info).
	tok["version"] = "v3"
	t := &tokenInfo{}
	exp, ok := tok["expires_at"].(string)
	if !ok {
		return nil, errBadToken
	}
	var err error
	if t.expires, err = parseISOTime(exp); err != nil {
		return nil, errBadToken
	}
	if s, ok := tok["issued_at"].(string); ok {
		t.issued, _ = parseISOTime(s)
	}
	user := dict(tok["user"])
	project := dict(tok["project"])
	domain := dict(tok["domain"])
	t.userID = str(user["id"])
	t.userDomainID = str(dict(user["domain"])["id"])
	t.projectID = str(project["id"])
	t.projectDomainID = str(dict(project["domain"])["id"])
	t.domainID = str(domain["id"])
	for _, r := range list(tok["roles"]) {
		rd := dict(r)
		t.roleNames = append(t.roleNames, str(rd["name"]))
		t.roleIDs = append(t.roleIDs, str(rd["id"]))
	}
	for _, a := range list(tok["audit_ids"]) {
		t.auditIDs = append(t.auditIDs, str(a))
	}
	_, t.trust = tok["OS-TRUST:trust"]
	if sys, ok := tok["system"].(map[string]any); ok && pyjson.Truthy(sys["all"]) {
		t.systemScope = "all"
	}
	if bind := dict(tok["bind"]); len(bind) > 0 {
		_, t.kerberosBind = bind["kerberos"]
	}
	if ac := dict(tok["application_credential"]); ac != nil {
		if rules, ok := ac["access_rules"]; ok && rules != nil {
			t.accessRules = []accessRule{}
			for _, r := range list(rules) {
				rd := dict(r)
				t.accessRules = append(t.accessRules, accessRule{
					method: str(rd["method"]), path: str(rd["path"]), service: str(rd["service"]),
				})
			}
		}
	}
	if cat, ok := tok["catalog"]; ok {
		t.hasCatalog = true
		for _, s := range list(cat) {
			t.catalogTypes = append(t.catalogTypes, str(dict(s)["type"]))
		}
	}

	// keystonemiddleware's headers, then from_environ: the roles go
	// through ",".join and split(",") with strip().
	roles := splitRoles(strings.Join(t.roleNames, ","))
	isAdminProject := true
	if v, ok := tok["is_admin_project"]; ok {
		isAdminProject = pyjson.Truthy(v)
	}
	t.ctx = ironic.RequestContext{
		UserID:            t.userID,
		UserName:          str(user["name"]),
		UserDomainID:      t.userDomainID,
		UserDomainName:    str(dict(user["domain"])["name"]),
		ProjectID:         t.projectID,
		ProjectName:       str(project["name"]),
		ProjectDomainID:   t.projectDomainID,
		ProjectDomainName: str(dict(project["domain"])["name"]),
		DomainID:          t.domainID,
		Roles:             roles[:len(roles):len(roles)],
		ServiceRoles:      []string{},
		AuthTokenInfo:     top,
	}
	if !isAdminProject {
		f := false
		t.ctx.IsAdminProject = &f
	}
	t.service = serviceIdentity{
		roles:           roles[:len(roles):len(roles)],
		userID:          t.ctx.UserID,
		userName:        t.ctx.UserName,
		userDomainID:    t.ctx.UserDomainID,
		userDomainName:  t.ctx.UserDomainName,
		projectID:       t.ctx.ProjectID,
		projectName:     t.ctx.ProjectName,
		projectDomainID: t.ctx.ProjectDomainID,
		projectDomain:   t.ctx.ProjectDomainName,
	}
	return t, nil
}

// expired is keystoneauth's will_expire_soon(stale_duration=0).
func (t *tokenInfo) expired(now time.Time) bool { return t.expires.Before(now) }

// hasAnyRole reports whether the token holds one of roles.
func (t *tokenInfo) hasAnyRole(roles []string) bool {
	for _, r := range t.roleNames {
		for _, want := range roles {
			if r == want {
				return true
			}
		}
	}
	return false
}

// allowsRequest is keystonemiddleware's validate_allowed_request: an
// application credential restricted by access rules may only make the
// requests they list, to this service (which must know its service
// type, and find it in the token's catalog).
func (t *tokenInfo) allowsRequest(serviceType, method, path string, withServiceToken bool) bool {
	if t.accessRules == nil {
		return true
	}
	if serviceType == "" || !t.hasCatalog {
		return false
	}
	found := false
	for _, c := range t.catalogTypes {
		if c == serviceType {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	if withServiceToken {
		return true
	}
	p := quotePath(path)
	for _, r := range t.accessRules {
		if r.method == method && r.service == serviceType && accessPathMatches(p, r.path) {
			return true
		}
	}
	return false
}

// accessPathMatches is keystonemiddleware's _path_matches: "{tag}" and
// "*" stand for one path segment, "**" for anything, every other
// character is put into the regular expression as it is (so "." matches
// any character, as in Python).
func accessPathMatches(path, pattern string) bool {
	var b strings.Builder
	b.WriteString(`^(?:`)
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '{':
			if j := strings.IndexByte(pattern[i:], '}'); j >= 0 {
				b.WriteString(`[^/]+`)
				i += j + 1
				continue
			}
			i++ // an unclosed "{" matches no token: dropped
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			b.WriteString(`.*`)
			i += 2
		case c == '*':
			b.WriteString(`[^/]+`)
			i++
		case c == '}':
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	b.WriteString(`\n?$)`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return false
	}
	return re.MatchString(path)
}

// quotePath is webob's Request.path for the path: percent-encoded as
// urllib's quote with the safe characters "/:@&+$,".
func quotePath(p string) string {
	const safe = "/:@&+$,-_.~"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString(url.PathEscape(string([]byte{c})))
	}
	return b.String()
}

// parseISOTime reads Keystone's timestamps ("2026-12-03T05:18:57.000000Z",
// or with an offset), as iso8601.parse_date does for them.
func parseISOTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errBadToken
}

func dict(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any          { l, _ := v.([]any); return l }
func str(v any) string          { s, _ := v.(string); return s }
