package auth

import (
	"net/http"
	"sort"
	"strings"

	"github.com/goironic/ironic"
)

// environ is the request's headers as a WSGI server (eventlet) hands them
// to Ironic: "HTTP_X_USER_ID" stands for X-User-Id and for X_User_Id alike,
// and a repeated header is its values joined with ",".
type environ struct {
	h http.Header
	// under holds the values of header names spelled with "_", under the
	// "-" spelling's canonical key; nil when the request has none.
	under map[string][]string
}

func newEnviron(h http.Header) environ {
	e := environ{h: h}
	for k := range h {
		if strings.IndexByte(k, '_') >= 0 {
			if e.under == nil {
				e.under = map[string][]string{}
			}
			ck := http.CanonicalHeaderKey(strings.ReplaceAll(k, "_", "-"))
			e.under[ck] = append(e.under[ck], k)
		}
	}
	for _, names := range e.under {
		sort.Strings(names)
	}
	return e
}

// get returns the header's value (canonical key) and whether it was sent.
func (e environ) get(key string) (string, bool) {
	v, ok := e.h[key]
	if e.under != nil {
		for _, k := range e.under[key] {
			v = append(v[:len(v):len(v)], e.h[k]...)
			ok = true
		}
	}
	switch {
	case !ok:
		return "", false
	case len(v) == 1:
		return v[0], true
	}
	return strings.Join(v, ","), true
}

// first returns the value of the first of keys that was sent, as
// oslo.context's from_environ reads its _ENVIRON_HEADERS.
func (e environ) first(keys ...string) string {
	for _, k := range keys {
		if v, ok := e.get(k); ok {
			return v
		}
	}
	return ""
}

// The headers oslo.context reads, in its order of preference.
const (
	hAuthToken                = "X-Auth-Token"
	hStorageToken             = "X-Storage-Token"
	hUserID                   = "X-User-Id"
	hUser                     = "X-User"
	hProjectID                = "X-Project-Id"
	hTenantID                 = "X-Tenant-Id"
	hTenant                   = "X-Tenant"
	hDomainID                 = "X-Domain-Id"
	hSystemScope              = "Openstack-System-Scope"
	hUserDomainID             = "X-User-Domain-Id"
	hProjectDomainID          = "X-Project-Domain-Id"
	hUserName                 = "X-User-Name"
	hProjectName              = "X-Project-Name"
	hTenantName               = "X-Tenant-Name"
	hUserDomainName           = "X-User-Domain-Name"
	hProjectDomainName        = "X-Project-Domain-Name"
	hRoles                    = "X-Roles"
	hRole                     = "X-Role"
	hServiceRoles             = "X-Service-Roles"
	hIsAdminProject           = "X-Is-Admin-Project"
	hServiceToken             = "X-Service-Token"
	hServiceUserID            = "X-Service-User-Id"
	hServiceUserName          = "X-Service-User-Name"
	hServiceUserDomainID      = "X-Service-User-Domain-Id"
	hServiceUserDomainName    = "X-Service-User-Domain-Name"
	hServiceProjectID         = "X-Service-Project-Id"
	hServiceProjectName       = "X-Service-Project-Name"
	hServiceProjectDomainID   = "X-Service-Project-Domain-Id"
	hServiceProjectDomainName = "X-Service-Project-Domain-Name"
)

// contextFromEnviron is oslo.context's RequestContext.from_environ over
// the request's headers, as Ironic's ContextHook calls it: whatever
// identity headers reach the application are believed. With noauth and
// on public routes that is what the client sent; with http_basic the
// user headers it set; with keystone, keystonemiddleware's (see
// keystoneContext, which builds the same result without rewriting
// headers).
func contextFromEnviron(e environ) *ironic.RequestContext {
	rc := &ironic.RequestContext{
		AuthToken:                e.first(hAuthToken, hStorageToken),
		UserID:                   e.first(hUserID, hUser),
		ProjectID:                e.first(hProjectID, hTenantID, hTenant),
		DomainID:                 e.first(hDomainID),
		SystemScope:              e.first(hSystemScope),
		UserDomainID:             e.first(hUserDomainID),
		ProjectDomainID:          e.first(hProjectDomainID),
		UserName:                 e.first(hUserName),
		ProjectName:              e.first(hProjectName, hTenantName),
		UserDomainName:           e.first(hUserDomainName),
		ProjectDomainName:        e.first(hProjectDomainName),
		ServiceToken:             e.first(hServiceToken),
		ServiceUserID:            e.first(hServiceUserID),
		ServiceUserName:          e.first(hServiceUserName),
		ServiceUserDomainID:      e.first(hServiceUserDomainID),
		ServiceUserDomainName:    e.first(hServiceUserDomainName),
		ServiceProjectID:         e.first(hServiceProjectID),
		ServiceProjectName:       e.first(hServiceProjectName),
		ServiceProjectDomainID:   e.first(hServiceProjectDomainID),
		ServiceProjectDomainName: e.first(hServiceProjectDomainName),
	}
	roles, ok := e.get(hRoles)
	if !ok {
		roles, _ = e.get(hRole)
	}
	rc.Roles = splitRoles(roles)
	sroles, _ := e.get(hServiceRoles)
	rc.ServiceRoles = splitRoles(sroles)
	if v, ok := e.get(hIsAdminProject); ok && !asciiEqualFold(v, "true") {
		f := false
		rc.IsAdminProject = &f
	}
	return rc
}

// splitRoles is from_environ's "[r.strip() for r in roles.split(',')]
// if roles else []".
func splitRoles(s string) []string {
	if s == "" {
		return []string{}
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = pyStrip(p)
	}
	return parts
}

// isPyWhitespace reports whether a character of a header value (a byte,
// read as Latin-1 the way WSGI decodes headers) is whitespace to Python's
// str.strip() and str.split().
func isPyWhitespace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x1f', '\x85', '\xa0':
		return true
	}
	return false
}

// pyStrip is Python's str.strip() on a Latin-1 header value.
func pyStrip(s string) string {
	i, j := 0, len(s)
	for i < j && isPyWhitespace(s[i]) {
		i++
	}
	for j > i && isPyWhitespace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// asciiEqualFold compares s with the lower-case ASCII word w the way
// Python's s.lower() == w does for a Latin-1 header value (no character
// outside ASCII lower-cases into ASCII).
func asciiEqualFold(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
