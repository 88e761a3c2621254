package ironic

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"
)

// RequestContext is what Ironic's RequestContext carries: who is calling and
// in which scope. It travels over RPC as oslo.context keys.
type RequestContext struct {
	AuthToken     string
	UserID        string
	UserName      string
	ProjectID     string
	ProjectName   string
	DomainID      string
	UserDomainID  string
	Roles         []string
	SystemScope   string // "all" for system-scoped tokens
	IsPublicAPI   bool
	RequestID     string
	GlobalRequest string
	// ServiceRoles/Service tokens are carried for completeness.
	ServiceRoles []string

	// The rest of what oslo.context's from_environ reads from the
	// headers keystonemiddleware sets (names of the user's and project's
	// domains; the X-Service-Token's identity when one was sent and valid).
	UserDomainName           string
	ProjectDomainName        string
	ServiceToken             string
	ServiceUserID            string
	ServiceUserName          string
	ServiceUserDomainID      string
	ServiceUserDomainName    string
	ServiceProjectID         string
	ServiceProjectName       string
	ServiceProjectDomainID   string
	ServiceProjectDomainName string

	// The rest of oslo.context's to_dict(), carried over RPC as
	// _context_* keys (see rpc/oslo).
	ProjectDomainID string
	IsAdmin         bool
	ReadOnly        bool
	ShowDeleted     bool
	ResourceUUID    string
	// IsAdminProject is nil for oslo.context's default, true.
	IsAdminProject *bool
	// AuthTokenInfo is Ironic's auth_token_info (the token's body).
	AuthTokenInfo map[string]any
}

// HasRole reports whether the caller holds role r.
func (rc *RequestContext) HasRole(r string) bool {
	for _, x := range rc.Roles {
		if x == r {
			return true
		}
	}
	return false
}

type ctxKey struct{}

// WithRequestContext attaches rc to ctx.
func WithRequestContext(ctx context.Context, rc *RequestContext) context.Context {
	return context.WithValue(ctx, ctxKey{}, rc)
}

// FromContext returns the request context in ctx, or an empty one.
func FromContext(ctx context.Context) *RequestContext {
	if rc, ok := ctx.Value(ctxKey{}).(*RequestContext); ok {
		return rc
	}
	return &RequestContext{}
}

// Clock is the source of time. Logic never calls time.Now directly.
type Clock interface{ Now() time.Time }

// SystemClock reads the real clock, in UTC.
type SystemClock struct{}

// Now returns the current UTC time.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// UUIDSource mints identifiers.
type UUIDSource interface{ NewUUID() string }

// RandomUUIDs mints random (version 4) UUIDs.
type RandomUUIDs struct{}

// NewUUID returns a new random UUID in canonical form.
func (RandomUUIDs) NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
