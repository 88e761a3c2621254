// Package auth authenticates API requests as Ironic 21.4 does, by
// [DEFAULT]auth_strategy:
//
//   - noauth: nobody is authenticated; the request context is built from
//     whatever identity headers the client sent (X-Roles, X-Project-Id,
//     ...), minus the token, as Ironic's ContextHook does.
//   - http_basic: ironic_lib's BasicAuthMiddleware over an Apache htpasswd
//     file with bcrypt entries ([DEFAULT]http_basic_auth_user_file).
//   - keystone: keystonemiddleware's auth_token with the
//     [keystone_authtoken] options, validating tokens against Keystone v3.
//
// With http_basic and keystone, the public routes (Ironic's
// acl_public_routes: /, /v1, the ramdisk's lookup and heartbeat) skip
// authentication entirely: their context is built from the client's
// headers, marked is_public_api, exactly as in Ironic.
//
// The middleware attaches the caller's identity to the request's context
// with ironic.WithRequestContext; the API adds the request ids.
package auth

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/goironic/ironic"
)

// Strategy is [DEFAULT]auth_strategy.
type Strategy string

// The strategies Ironic knows.
const (
	NoAuth    Strategy = "noauth"
	HTTPBasic Strategy = "http_basic"
	Keystone  Strategy = "keystone"
)

// Config selects and configures the authentication.
type Config struct {
	// Strategy is [DEFAULT]auth_strategy; empty means keystone, Ironic's
	// default.
	Strategy Strategy
	// HTTPBasicAuthUserFile is [DEFAULT]http_basic_auth_user_file.
	HTTPBasicAuthUserFile string
	// Keystone is [keystone_authtoken].
	Keystone KeystoneConfig
	// PublicRoutes are Python regular expressions of the routes served
	// without authentication; nil means DefaultPublicRoutes().
	PublicRoutes []string
}

// Deps are the middleware's collaborators.
type Deps struct {
	Clock ironic.Clock
	Log   *slog.Logger
	// Identity validates Keystone tokens; nil means a KeystoneIdentity
	// built from Config.Keystone.
	Identity Identity
}

// Middleware authenticates requests before they reach the API.
type Middleware struct {
	strategy Strategy
	public   publicRoutes
	basic    *basicAuth
	keystone *keystoneAuth
}

// New builds the middleware. Its errors are the start-up errors Ironic
// gives for the same configuration (an unreadable or non-bcrypt user
// file, an unknown strategy).
func New(cfg Config, d Deps) (*Middleware, error) {
	if d.Clock == nil {
		d.Clock = ironic.SystemClock{}
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if cfg.Strategy == "" {
		cfg.Strategy = Keystone
	}
	routes := cfg.PublicRoutes
	if routes == nil {
		routes = DefaultPublicRoutes()
	}
	public, err := compilePublicRoutes(routes)
	if err != nil {
		return nil, err
	}
	m := &Middleware{strategy: cfg.Strategy, public: public}
	switch cfg.Strategy {
	case NoAuth:
	case HTTPBasic:
		if m.basic, err = newBasicAuth(cfg.HTTPBasicAuthUserFile, d.Log); err != nil {
			return nil, err
		}
	case Keystone:
		id := d.Identity
		if id == nil {
			if id, err = NewKeystoneIdentity(cfg.Keystone, d.Clock, d.Log); err != nil {
				return nil, err
			}
		}
		d.Log.Info("Starting Keystone auth_token middleware")
		m.keystone = newKeystoneAuth(cfg.Keystone, id, d.Clock, d.Log)
	default:
		// oslo.config refuses a value outside the option's choices.
		return nil, fmt.Errorf("[DEFAULT]auth_strategy: %q is not one of keystone, noauth, http_basic", cfg.Strategy)
	}
	return m, nil
}

// Strategy is the strategy in use.
func (m *Middleware) Strategy() Strategy { return m.strategy }

// Handler wraps next: next sees only authenticated requests (or public
// ones), with the caller's ironic.RequestContext in their context.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(w, r, next)
	})
}

func (m *Middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	e := newEnviron(r.Header)
	public := m.strategy != NoAuth && m.public.match(r.URL.Path)
	if m.strategy == NoAuth || public {
		rc := contextFromEnviron(e)
		rc.IsPublicAPI = public
		if m.strategy != Keystone {
			// "Do not pass any token with context for noauth mode"
			rc.AuthToken = ""
		}
		next.ServeHTTP(w, r.WithContext(ironic.WithRequestContext(r.Context(), rc)))
		return
	}
	if m.basic != nil {
		user, berr := m.basic.authenticate(r.Context(), r.Header)
		if berr != nil {
			writeBasicError(w, r, berr)
			return
		}
		// BasicAuthMiddleware sets X-User and X-User-Name; the rest of
		// the identity headers pass through as the client sent them.
		rc := contextFromEnviron(e)
		rc.UserName = user
		if _, ok := e.get(hUserID); !ok {
			rc.UserID = user
		}
		rc.AuthToken = ""
		next.ServeHTTP(w, r.WithContext(ironic.WithRequestContext(r.Context(), rc)))
		return
	}
	m.keystone.serve(w, r, e, next)
}
