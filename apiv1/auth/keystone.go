package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/goironic/ironic"
)

// keystoneAuth is keystonemiddleware's auth_token (10.1, Zed) as Ironic
// configures it: the headers a client could forge are ignored, the user
// token (X-Auth-Token, else X-Storage-Token) must be valid, an
// X-Service-Token, if sent, must be valid too; 401 with keystonemiddleware's
// JSON body otherwise, 503 with webob's body when Keystone cannot answer.
//
// Validated tokens are cached for token_cache_time, keyed by their
// SHA-256, and checked for expiry on every use; see revocations for how
// revoked tokens leave the cache, which keystonemiddleware does not do.
type keystoneAuth struct {
	cfg      KeystoneConfig
	identity Identity
	clock    ironic.Clock
	log      *slog.Logger
	cache    *tokenCache // nil: caching disabled
	revoked  *revocations
	flight   singleflight.Group
	wwwAuth  string
	// maxTokenLen bounds what is sent to Keystone: no Keystone token is
	// anywhere near it, and a huge header would only make Keystone fail.
	maxTokenLen int
}

func newKeystoneAuth(cfg KeystoneConfig, id Identity, clock ironic.Clock, log *slog.Logger) *keystoneAuth {
	k := &keystoneAuth{cfg: cfg, identity: id, clock: clock, log: log, maxTokenLen: 16 << 10}
	uri := cfg.WWWAuthenticateURI
	if uri == "" {
		log.Warn("Configuring www_authenticate_uri to point to the public identity endpoint is required; clients may not be able to authenticate against an admin endpoint")
		uri = cfg.AuthURL
	}
	k.wwwAuth = `Keystone uri="` + uri + `"`
	if !cfg.ServiceTokenRolesRequired {
		log.Warn("AuthToken middleware is set with keystone_authtoken.service_token_roles_required set to False. This is backwards compatible but deprecated behaviour. Please set this to True.")
	}
	if cfg.TokenCacheTime >= 0 {
		size := cfg.CacheSize
		if size <= 0 {
			size = 10000
		}
		k.cache = newTokenCache(size)
	}
	interval := cfg.RevocationCheckInterval
	if interval <= 0 {
		interval = time.Second
	}
	if k.cache != nil {
		k.revoked = newRevocations(id, k.cache, clock, log, interval)
	}
	return k
}

// errUnavailable marks Keystone failures (503).
type errUnavailable struct{ err error }

func (e errUnavailable) Error() string { return "Keystone unavailable: " + e.err.Error() }
func (e errUnavailable) Unwrap() error { return e.err }

// serve authenticates r and calls next with the caller's context, or
// answers 401/503 itself.
func (k *keystoneAuth) serve(w http.ResponseWriter, r *http.Request, e environ, next http.Handler) {
	ctx := r.Context()
	now := k.clock.Now()
	var user, service *tokenInfo
	userValid, serviceValid := false, true
	allowExpired := false

	serviceToken, _ := e.get(hServiceToken)
	if serviceToken != "" {
		st, err := k.fetch(ctx, serviceToken, false, now)
		switch {
		case errors.As(err, new(errUnavailable)) && !k.cfg.DelayAuthDecision:
			k.unavailable(w, r, err)
			return
		case err == nil && !st.expired(now) && !st.kerberosBind:
			roleOK := st.hasAnyRole(k.cfg.ServiceTokenRoles)
			if k.cfg.ServiceTokenRolesRequired {
				serviceValid = roleOK
			}
			if serviceValid {
				service = st
			}
			allowExpired = roleOK
		default:
			k.log.InfoContext(ctx, "Invalid service token")
			serviceValid = false
		}
	}

	userToken, present := e.get(hAuthToken)
	if !present {
		userToken, _ = e.get(hStorageToken)
	}
	if userToken != "" {
		ut, err := k.fetch(ctx, userToken, allowExpired, now)
		switch {
		case errors.As(err, new(errUnavailable)):
			if !k.cfg.DelayAuthDecision {
				k.unavailable(w, r, err)
				return
			}
		case err != nil:
		case !allowExpired && ut.expired(now):
		case !ut.allowsRequest(k.cfg.ServiceType, r.Method, jsonExtPath(r.URL.Path), serviceToken != ""):
		case serviceToken == "" && ut.kerberosBind:
		default:
			user, userValid = ut, true
		}
		if !userValid {
			k.log.InfoContext(ctx, "Invalid user token")
		}
	}
	if (!userValid || !serviceValid) && !k.cfg.DelayAuthDecision {
		k.log.InfoContext(ctx, "Rejecting request")
		writeKeystone401(w, r, k.wwwAuth)
		return
	}
	rc := keystoneContext(e, user, service)
	next.ServeHTTP(w, r.WithContext(ironic.WithRequestContext(ctx, rc)))
}

// keystoneContext is what Ironic's ContextHook builds once
// keystonemiddleware has rewritten the identity headers: user and
// service identity from the tokens (nil when absent or invalid, with
// delay_auth_decision), the tokens and OpenStack-System-Scope (which
// keystonemiddleware does not scrub) from the request.
func keystoneContext(e environ, user, service *tokenInfo) *ironic.RequestContext {
	var rc ironic.RequestContext
	systemScope, _ := e.get(hSystemScope)
	if user != nil {
		rc = user.ctx
		systemScope = user.systemScope
	} else {
		rc.Roles = []string{}
		rc.ServiceRoles = []string{}
	}
	if service != nil {
		s := &service.service
		rc.ServiceRoles = s.roles
		rc.ServiceUserID, rc.ServiceUserName = s.userID, s.userName
		rc.ServiceUserDomainID, rc.ServiceUserDomainName = s.userDomainID, s.userDomainName
		rc.ServiceProjectID, rc.ServiceProjectName = s.projectID, s.projectName
		rc.ServiceProjectDomainID, rc.ServiceProjectDomainName = s.projectDomainID, s.projectDomain
		systemScope = service.systemScope
	}
	rc.SystemScope = systemScope
	rc.AuthToken = e.first(hAuthToken, hStorageToken)
	rc.ServiceToken = e.first(hServiceToken)
	return &rc
}

// fetch is keystonemiddleware's fetch_token: the cached token, or
// Keystone's answer (then cached). The token is stripped of surrounding
// whitespace first. Errors: ErrInvalidToken (and errBadToken) for tokens
// Keystone refuses, errUnavailable when it cannot be asked.
func (k *keystoneAuth) fetch(ctx context.Context, token string, allowExpired bool, now time.Time) (*tokenInfo, error) {
	token = pyStrip(token)
	if token == "" || len(token) > k.maxTokenLen || !validHeaderValue(token) {
		return nil, ErrInvalidToken
	}
	key := keyOf(token)
	if k.cache != nil {
		if e := k.cache.get(key); e != nil {
			switch {
			case !now.Before(e.until):
				k.cache.remove(key, e)
			case now.Sub(e.validated) < k.revoked.interval || k.revoked.fresh(ctx, now):
				if k.cache.get(key) == e { // not dropped by the revocation read
					return e.info, nil
				}
			}
		}
	}
	flightKey := string(key[:])
	if allowExpired {
		flightKey += "+expired"
	}
	v, err, _ := k.flight.Do(flightKey, func() (any, error) {
		// The first caller's cancellation must not fail the others.
		vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		var gen uint64
		if k.revoked != nil {
			gen = k.revoked.gen.Load()
		}
		body, err := k.identity.ValidateToken(vctx, token, allowExpired)
		if errors.Is(err, ErrInvalidToken) {
			return nil, err
		}
		if err != nil {
			k.log.ErrorContext(ctx, "Unable to validate token", "error", err)
			return nil, errUnavailable{err}
		}
		info, err := parseToken(body)
		if err != nil {
			k.log.WarnContext(ctx, "Invalid token contents.", "error", err)
			return nil, err
		}
		if k.cache != nil && k.revoked.gen.Load() == gen {
			at := k.clock.Now()
			until := at.Add(k.cfg.TokenCacheTime)
			if k.cfg.TokenCacheTime == 0 {
				// token_cache_time = 0 is memcache's "no expiry".
				until = at.AddDate(100, 0, 0)
			}
			k.cache.put(key, &cacheEntry{info: info, until: until, validated: at})
		}
		return info, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*tokenInfo), nil
}

func (k *keystoneAuth) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	k.log.ErrorContext(r.Context(), "The Keystone service is temporarily unavailable.", "error", err)
	writeKeystone503(w, r)
}

// validHeaderValue reports whether s can be sent as a header value (no
// control characters but tab): anything else is not a Keystone token, and
// could not be sent to Keystone to ask.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
