package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic/internal/keystoneauth"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/goironic/ironic"
)

// Identity is what token validation needs of Keystone's v3 API. The
// middleware declares it; KeystoneIdentity implements it with
// gophercloud, tests with a fake.
type Identity interface {
	// ValidateToken is GET /v3/auth/tokens with X-Subject-Token: token,
	// authenticated as the service user. It returns the response body
	// ({"token": {...}}). ErrInvalidToken means Keystone refused the
	// token; any other error means Keystone could not be asked (it is
	// down, failing, or refuses the service user).
	ValidateToken(ctx context.Context, token string, allowExpired bool) ([]byte, error)
	// RevocationEvents is GET /v3/OS-REVOKE/events?since=since (all
	// events when since is ""). It returns the response body
	// ({"events": [...]}); ErrNotSupported when Keystone does not offer
	// the list to the service user.
	RevocationEvents(ctx context.Context, since string) ([]byte, error)
}

var (
	// ErrInvalidToken is Keystone's "this token is not valid".
	ErrInvalidToken = errors.New("token authorization failed")
	// ErrNotSupported is an API Keystone does not offer.
	ErrNotSupported = errors.New("not supported by the identity service")
)

// KeystoneConfig is the [keystone_authtoken] section as keystonemiddleware
// reads it.
type KeystoneConfig struct {
	// WWWAuthenticateURI goes into the 401 answers' WWW-Authenticate
	// header; empty means AuthURL.
	WWWAuthenticateURI string
	// AuthType is the service user's keystoneauth plugin: "password"
	// (or "v3password"), or "v3applicationcredential".
	AuthType string
	// The application credential plugin's: the credential by ID, or by
	// name with the user (Username or UserID, and the user's domain).
	AppCredentialID, AppCredentialName, AppCredentialSecret string
	// AuthURL is Keystone's endpoint for the service user's token
	// (versioned, e.g. http://keystone:5000/v3, or not).
	AuthURL           string
	Username          string
	UserID            string
	Password          string
	UserDomainName    string
	UserDomainID      string
	ProjectName       string
	ProjectID         string
	ProjectDomainName string
	ProjectDomainID   string
	// SystemScope "all" asks for a system-scoped service token.
	SystemScope string
	// Interface and RegionName pick the identity endpoint, from the
	// service token's catalog, that validates tokens ("internal" by
	// default, as keystonemiddleware).
	Interface  string
	RegionName string
	// TokenCacheTime is how long a validated token is reused
	// (token_cache_time, 300 s); negative disables caching.
	TokenCacheTime time.Duration
	// CacheSize bounds the token cache (keystonemiddleware's in-process
	// cache is unbounded); 0 means 10000.
	CacheSize int
	// RevocationCheckInterval bounds how long a cached token may have
	// been revoked without this service noticing; 0 means 1 s (see
	// revocations in revoke.go).
	RevocationCheckInterval time.Duration
	// ServiceTokenRoles and ServiceTokenRolesRequired are how
	// X-Service-Token is judged.
	ServiceTokenRoles         []string
	ServiceTokenRolesRequired bool
	// ServiceType is this service's type in the catalog, needed to
	// enforce application credential access rules.
	ServiceType string
	// DelayAuthDecision passes unauthenticated requests on, unidentified.
	DelayAuthDecision bool
	// IncludeServiceCatalog keeps the catalog in the validated token
	// (default true).
	IncludeServiceCatalog bool
	// HTTPConnectTimeout bounds each call to Keystone; 0 means 30 s.
	HTTPConnectTimeout time.Duration
	// HTTPRequestMaxRetries is how often a call that could not connect
	// is retried, with a delay doubling from RetryDelay (0.5 s).
	HTTPRequestMaxRetries int
	RetryDelay            time.Duration
	CAFile                string
	CertFile              string
	KeyFile               string
	Insecure              bool
}

// KeystoneIdentity reaches Keystone's v3 API with gophercloud,
// authenticated as the [keystone_authtoken] service user. The service
// user's token is obtained on first use (Keystone may be down when the
// API starts), renewed shortly before it expires, and renewed and the
// call retried once when Keystone answers 401.
type KeystoneIdentity struct {
	cfg   KeystoneConfig
	opts  gophercloud.AuthOptions
	hc    http.Client
	clock ironic.Clock
	log   *slog.Logger

	mu       sync.Mutex
	provider *gophercloud.ProviderClient
	client   *gophercloud.ServiceClient
	// authAt is when the service user's token was last obtained.
	authAt time.Time
}

// NewKeystoneIdentity checks the service user's configuration; it does
// not contact Keystone.
func NewKeystoneIdentity(cfg KeystoneConfig, clock ironic.Clock, log *slog.Logger) (*KeystoneIdentity, error) {
	appCred := false
	switch cfg.AuthType {
	case "password", "v3password":
	case "v3applicationcredential":
		// keystoneauth's loader's checks, as for the service clients.
		if err := keystoneauth.CheckPlugin(keystoneauth.Options{Section: "keystone_authtoken", AuthType: cfg.AuthType,
			AppCredentialID: cfg.AppCredentialID, AppCredentialName: cfg.AppCredentialName, AppCredentialSecret: cfg.AppCredentialSecret}); err != nil {
			return nil, err
		}
		appCred = true
	case "":
		return nil, errors.New("[keystone_authtoken] auth_type must be set (password or v3applicationcredential) for auth_strategy keystone")
	default:
		return nil, fmt.Errorf("[keystone_authtoken] auth_type %q is not supported (only password and v3applicationcredential)", cfg.AuthType)
	}
	if cfg.AuthURL == "" {
		return nil, errors.New("[keystone_authtoken] auth_url must be set for auth_strategy keystone")
	}
	if _, err := url.Parse(cfg.AuthURL); err != nil {
		return nil, fmt.Errorf("[keystone_authtoken] auth_url: %w", err)
	}
	opts := gophercloud.AuthOptions{
		IdentityEndpoint: cfg.AuthURL,
		Password:         cfg.Password,
		AllowReauth:      true,
	}
	if cfg.UserID != "" {
		opts.UserID = cfg.UserID
	} else {
		opts.Username = cfg.Username
		if cfg.UserDomainID != "" {
			opts.DomainID = cfg.UserDomainID
		} else {
			opts.DomainName = cfg.UserDomainName
		}
	}
	switch {
	case appCred:
		// The credential carries its project and roles: no scope.
		opts.Password = ""
		opts.ApplicationCredentialID, opts.ApplicationCredentialName = cfg.AppCredentialID, cfg.AppCredentialName
		opts.ApplicationCredentialSecret = cfg.AppCredentialSecret
	case cfg.ProjectID != "":
		opts.Scope = &gophercloud.AuthScope{ProjectID: cfg.ProjectID}
	case cfg.ProjectName != "":
		opts.Scope = &gophercloud.AuthScope{ProjectName: cfg.ProjectName, DomainID: cfg.ProjectDomainID}
		if cfg.ProjectDomainID == "" {
			opts.Scope.DomainName = cfg.ProjectDomainName
		}
	case cfg.SystemScope == "all":
		opts.Scope = &gophercloud.AuthScope{System: true}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	if cfg.CAFile != "" || cfg.CertFile != "" || cfg.Insecure {
		tc := &tls.Config{InsecureSkipVerify: cfg.Insecure} //nolint:gosec // [keystone_authtoken] insecure
		if cfg.CAFile != "" {
			pem, err := os.ReadFile(cfg.CAFile)
			if err != nil {
				return nil, fmt.Errorf("[keystone_authtoken] cafile: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("[keystone_authtoken] cafile %s holds no certificate", cfg.CAFile)
			}
			tc.RootCAs = pool
		}
		if cfg.CertFile != "" {
			cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("[keystone_authtoken] certfile/keyfile: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		tr.TLSClientConfig = tc
	}
	timeout := cfg.HTTPConnectTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = 500 * time.Millisecond
	}
	if clock == nil {
		clock = ironic.SystemClock{}
	}
	return &KeystoneIdentity{
		cfg:   cfg,
		opts:  opts,
		hc:    http.Client{Transport: tr, Timeout: timeout},
		clock: clock,
		log:   log,
	}, nil
}

// minTokenLife is keystoneauth's MIN_TOKEN_LIFE_SECONDS: a service token
// closer than this to its expiry is renewed before use (or, for short
// tokens, once half its lifetime has passed).
const minTokenLife = 120 * time.Second

// service returns the identity client, authenticating the service user
// first when there is no token yet or it is about to expire.
func (k *KeystoneIdentity) service(ctx context.Context) (*gophercloud.ServiceClient, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.client != nil {
		exp := k.provider.TokenExpiry()
		now := k.clock.Now()
		if exp.IsZero() || now.Add(k.renewMargin(exp)).Before(exp) {
			return k.client, nil
		}
		k.log.InfoContext(ctx, "renewing the service user's token before it expires", "expires_at", exp)
		if err := k.provider.Reauthenticate(ctx, k.provider.Token()); err == nil {
			k.authAt = now
			return k.client, nil
		}
		// Start over below.
	}
	p, err := openstack.NewClient(k.cfg.AuthURL)
	if err != nil {
		return nil, err
	}
	p.HTTPClient = k.hc
	p.UserAgent.Prepend("goironic-auth_token")
	p.RetryFunc = k.retryConnect
	authAt := k.clock.Now()
	if err := openstack.Authenticate(ctx, p, k.opts); err != nil {
		return nil, fmt.Errorf("authenticating the service user: %w", err)
	}
	avail := gophercloud.Availability(strings.TrimSuffix(strings.ToLower(k.cfg.Interface), "url"))
	if avail == "" {
		avail = gophercloud.AvailabilityInternal
	}
	c, err := openstack.NewIdentityV3(p, gophercloud.EndpointOpts{Region: k.cfg.RegionName, Availability: avail})
	if err != nil {
		// keystonemiddleware fails every request here; validating at the
		// endpoint the service user authenticated with is more useful.
		k.log.WarnContext(ctx, "no identity endpoint in the service catalog; validating tokens at auth_url",
			"interface", avail, "region", k.cfg.RegionName, "error", err)
		c, err = openstack.NewIdentityV3(p, gophercloud.EndpointOpts{})
		if err != nil {
			return nil, err
		}
		if strings.Contains(gophercloud.NormalizeURL(k.cfg.AuthURL), "/v3/") {
			c.Endpoint = gophercloud.NormalizeURL(k.cfg.AuthURL)
		}
	}
	k.provider, k.client, k.authAt = p, c, authAt
	return c, nil
}

func (k *KeystoneIdentity) renewMargin(exp time.Time) time.Duration {
	m := minTokenLife
	if life := exp.Sub(k.authAt); life > 0 && life/2 < m {
		m = life / 2
	}
	return m
}

// retryConnect is keystoneauth's connect_retries: a call that could not
// reach Keystone is retried http_request_max_retries times, waiting
// 0.5 s, 1 s, 2 s, ... in between. HTTP answers are not retried.
func (k *KeystoneIdentity) retryConnect(ctx context.Context, method, u string, _ *gophercloud.RequestOpts, err error, failCount uint) error {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) || int(failCount) > k.cfg.HTTPRequestMaxRetries || ctx.Err() != nil || ctx.Value(noRetry{}) != nil {
		return err
	}
	var ne net.Error
	if !errors.As(err, &ne) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err // not a connection failure (e.g. a body that is not JSON)
	}
	delay := k.cfg.RetryDelay << (failCount - 1)
	k.log.WarnContext(ctx, "failure connecting to Keystone, retrying", "method", method, "url", u, "error", err, "attempt", failCount, "delay", delay)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return err
	case <-t.C:
		return nil
	}
}

// noRetry marks calls that are not retried when Keystone cannot be
// reached: a failed revocation read is followed by a validation, which
// retries.
type noRetry struct{}

// ValidateToken implements Identity.
func (k *KeystoneIdentity) ValidateToken(ctx context.Context, token string, allowExpired bool) ([]byte, error) {
	c, err := k.service(ctx)
	if err != nil {
		return nil, err
	}
	u := c.ServiceURL("auth", "tokens")
	var flags []string
	if !k.cfg.IncludeServiceCatalog {
		flags = append(flags, "nocatalog")
	}
	if allowExpired {
		flags = append(flags, "allow_expired=1")
	}
	if len(flags) > 0 {
		u += "?" + strings.Join(flags, "&")
	}
	var body json.RawMessage
	_, err = c.Get(ctx, u, &body, &gophercloud.RequestOpts{
		MoreHeaders: map[string]string{
			"X-Subject-Token": token,
			// keystonemiddleware enforces access rules itself.
			"OpenStack-Identity-Access-Rules": "1",
		},
		OkCodes: []int{200, 203},
	})
	if err == nil {
		return body, nil
	}
	var code gophercloud.ErrUnexpectedResponseCode
	var reauth *gophercloud.ErrUnableToReauthenticate
	switch {
	case errors.As(err, &reauth):
		// The service user's credentials no longer work.
		return nil, fmt.Errorf("identity server rejected authorization necessary to fetch token data: %w", err)
	case errors.As(err, &code) && code.Actual >= 500:
		return nil, fmt.Errorf("bad response code while validating token: %w", err)
	case errors.As(err, &code) && code.Actual == http.StatusUnauthorized:
		// Keystone refused the call again with a service token it had
		// just issued: the subject token is the problem (a user without
		// roles on its scope, for one). keystonemiddleware answers 503.
		k.log.InfoContext(ctx, "Keystone answers 401 validating a token with a fresh service token", "response", string(code.Body))
		return nil, ErrInvalidToken
	case errors.As(err, &code):
		if code.Actual == http.StatusForbidden {
			k.log.WarnContext(ctx, "Keystone forbids validating a token", "response", string(code.Body))
		}
		return nil, ErrInvalidToken
	}
	return nil, err
}

// RevocationEvents implements Identity.
func (k *KeystoneIdentity) RevocationEvents(ctx context.Context, since string) ([]byte, error) {
	c, err := k.service(ctx)
	if err != nil {
		return nil, err
	}
	u := c.ServiceURL("OS-REVOKE", "events")
	if since != "" {
		u += "?since=" + url.QueryEscape(since)
	}
	var body json.RawMessage
	_, err = c.Get(context.WithValue(ctx, noRetry{}, true), u, &body, &gophercloud.RequestOpts{OkCodes: []int{200}})
	var code gophercloud.ErrUnexpectedResponseCode
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &code) && code.Actual < 500:
		return nil, fmt.Errorf("%w: %w", ErrNotSupported, err)
	}
	return nil, err
}
