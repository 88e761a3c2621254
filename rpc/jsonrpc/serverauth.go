package jsonrpc

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"

	"github.com/goironic/ironic"
)

// The strategies of [json_rpc]auth_strategy (and [DEFAULT]auth_strategy).
const (
	NoAuth    = "noauth"
	HTTPBasic = "http_basic"
	Keystone  = "keystone"
)

// ServerConfig is the conductor side's [json_rpc] options, as
// ironic_lib.json_rpc.server.WSGIService reads them. host_ip and port
// are the listener's, bound by whoever listens.
type ServerConfig struct {
	// AuthStrategy is [json_rpc]auth_strategy; unset (""), the global
	// DefaultAuthStrategy applies, as ironic_lib's auth_strategy() says.
	AuthStrategy string
	// DefaultAuthStrategy is [DEFAULT]auth_strategy.
	DefaultAuthStrategy string
	// HTTPBasicAuthUserFile is [json_rpc]http_basic_auth_user_file, the
	// htpasswd file (bcrypt entries) of http_basic.
	HTTPBasicAuthUserFile string
	// AllowedRoles is [json_rpc]allowed_roles: under keystone, a caller
	// with none of them gets 403.
	AllowedRoles []string
	// UseSSL is [json_rpc]use_ssl: the server speaks HTTPS with the
	// certificate of oslo.service's [ssl] options (cert_file, key_file,
	// ca_file, version), as wsgi.Server(use_ssl=True) does.
	UseSSL bool
}

// Strategy is the strategy in effect: [json_rpc]auth_strategy, else
// [DEFAULT]auth_strategy; noauth in a Config built by hand without
// either.
func (c ServerConfig) Strategy() string {
	return effectiveStrategy(c.AuthStrategy, c.DefaultAuthStrategy)
}

func effectiveStrategy(own, global string) string {
	switch {
	case own != "":
		return own
	case global != "":
		return global
	}
	// Bind always sets the global one ([DEFAULT]auth_strategy, keystone
	// by default): only a Config built by hand has neither.
	return NoAuth
}

// Authenticator authenticates requests as the API does for the same
// strategy (apiv1/auth's Middleware): the handler it wraps sees only
// authenticated requests, with the caller's ironic.RequestContext.
type Authenticator interface {
	Handler(next http.Handler) http.Handler
}

// NewAuthenticator builds the Authenticator of strategy (http_basic or
// keystone) with userFile as http_basic's htpasswd file. The wiring
// gives apiv1/auth.New with the [keystone_authtoken] options and no
// public routes: ironic_lib wraps its application in the same
// BasicAuthMiddleware, or keystonemiddleware's auth_token with
// [keystone_authtoken].
type NewAuthenticator func(strategy, userFile string) (Authenticator, error)

// NewHandler is the json-rpc endpoint as ironic_lib serves it: s behind
// the strategy's authentication, and under keystone the allowed_roles
// check. newAuth is called for http_basic and keystone only; its errors
// (an unreadable user file) stop start-up.
func NewHandler(cfg ServerConfig, s *Server, newAuth NewAuthenticator) (http.Handler, error) {
	switch st := cfg.Strategy(); st {
	case NoAuth:
		return s, nil
	case HTTPBasic, Keystone:
		if newAuth == nil {
			return nil, fmt.Errorf("jsonrpc: auth_strategy %s needs an authenticator", st)
		}
		authn, err := newAuth(st, cfg.HTTPBasicAuthUserFile)
		if err != nil {
			return nil, err
		}
		if st == HTTPBasic {
			return authn.Handler(s), nil
		}
		return authn.Handler(&roleCheck{allowed: cfg.AllowedRoles, next: s, log: s.log}), nil
	default:
		return nil, fmt.Errorf("[json_rpc]auth_strategy: %q is not one of noauth, keystone, http_basic", st)
	}
}

// roleCheck is WSGIService._application's allowed_roles check under
// keystone: after the method check, a caller none of whose roles (the
// X-Roles auth_token set) is allowed gets 403.
type roleCheck struct {
	allowed []string
	next    http.Handler
	log     *slog.Logger
}

// forbiddenBody is webob's json_body of {'error': {'code': 403,
// 'message': 'Forbidden'}} (separators without spaces).
const forbiddenBody = `{"error":{"code":403,"message":"Forbidden"}}`

func (c *roleCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		roles := ironic.FromContext(r.Context()).Roles
		if !slices.ContainsFunc(roles, func(role string) bool { return slices.Contains(c.allowed, role) }) {
			c.log.DebugContext(r.Context(), "Roles do not contain any of the allowed roles, rejecting request",
				"roles", roles, "allowed_roles", c.allowed)
			h := w.Header()
			h["Content-Type"] = []string{"application/json"}
			h["Content-Length"] = []string{strconv.Itoa(len(forbiddenBody))}
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(forbiddenBody))
			return
		}
	}
	c.next.ServeHTTP(w, r)
}

// Listener is ln as the json-rpc server listens: with UseSSL, TLS with
// sslConfig, the server configuration of oslo.service's [ssl] options
// that the API's enable_ssl_api uses too (nil when they name no
// certificate, which stops start-up as Python's ssl.wrap_socket does).
func (c ServerConfig) Listener(ln net.Listener, sslConfig *tls.Config) (net.Listener, error) {
	if !c.UseSSL {
		return ln, nil
	}
	if sslConfig == nil || (len(sslConfig.Certificates) == 0 && sslConfig.GetCertificate == nil) {
		return nil, errors.New("[json_rpc]use_ssl: When running server in SSL mode, you must specify both a cert_file and key_file option value in your configuration file ([ssl] section)")
	}
	return tls.NewListener(ln, sslConfig), nil
}
