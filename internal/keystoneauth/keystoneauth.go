// Package keystoneauth connects to an OpenStack service as Ironic's
// keystoneauth options in a service's section ([neutron], [cinder],
// [swift]) say: auth_type "none" (or "noauth", or unset) talks to
// endpoint_override unauthenticated; "password", "v3password" and
// "v3applicationcredential" get a token from Keystone and find the
// service at endpoint_override or in the catalog, trying
// valid_interfaces in order.
package keystoneauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"

	"github.com/goironic/ironic"
)

// Options are one section's keystoneauth options, under Ironic's names.
type Options struct {
	// Section names the ironic.conf section in error messages ("neutron").
	Section string
	// AuthType is auth_type: "none" (also "noauth", or unset), "password",
	// "v3password" or "v3applicationcredential".
	AuthType string
	// The password plugin's options.
	AuthURL, Username, UserID, Password                  string
	ProjectName, ProjectID, UserDomainName, UserDomainID string
	ProjectDomainName, ProjectDomainID, SystemScope      string
	// DomainID and DomainName scope the token to a domain.
	DomainID, DomainName string
	// The application credential plugin's: the credential by ID, or by
	// name with the user (Username or UserID, and the user's domain).
	AppCredentialID, AppCredentialName, AppCredentialSecret string
	// Session options: TLS and the request timeout (0: none).
	CAFile, CertFile, KeyFile string
	Insecure                  bool
	Timeout                   time.Duration
	// Adapter options.
	ServiceType, ServiceName, RegionName string
	ValidInterfaces                      []string
	EndpointOverride                     string
}

// Connect returns a provider client (retrying as retry says) and the
// service's endpoint; authenticated tells whether it holds a token.
func Connect(ctx context.Context, o Options, retry gophercloud.RetryFunc) (pc *gophercloud.ProviderClient, endpoint string, authenticated bool, err error) {
	hc, err := HTTPClient(o)
	if err != nil {
		return nil, "", false, err
	}
	switch strings.ToLower(o.AuthType) {
	case "", "none", "noauth":
		if o.EndpointOverride == "" {
			return nil, "", false, catalogNotFound(o)
		}
		return &gophercloud.ProviderClient{HTTPClient: *hc, RetryFunc: retry}, o.EndpointOverride, false, nil
	}
	if pc, err = authenticate(ctx, o, hc, retry); err != nil {
		return nil, "", false, err
	}
	if o.EndpointOverride != "" {
		return pc, o.EndpointOverride, true, nil
	}
	interfaces := o.ValidInterfaces
	if len(interfaces) == 0 {
		interfaces = []string{"internal", "public"}
	}
	for _, iface := range interfaces {
		u, err := pc.EndpointLocator(gophercloud.EndpointOpts{Type: o.ServiceType, Name: o.ServiceName,
			Region: o.RegionName, Availability: gophercloud.Availability(strings.TrimSuffix(iface, "URL"))})
		if err == nil {
			return pc, u, true, nil
		}
	}
	return nil, "", false, catalogNotFound(o)
}

// Authenticate gets a token as the auth plugin of o does (auth_type
// "password", "v3password" or "v3applicationcredential"), with the
// session's TLS and timeout: the provider client holds it (Token) and
// renews it (Reauthenticate). For clients that reach their service at an
// address of their own, as json-rpc's does.
func Authenticate(ctx context.Context, o Options, retry gophercloud.RetryFunc) (*gophercloud.ProviderClient, error) {
	hc, err := HTTPClient(o)
	if err != nil {
		return nil, err
	}
	return authenticate(ctx, o, hc, retry)
}

// MinTokenLife is keystoneauth's MIN_TOKEN_LIFE_SECONDS: a token that
// expires sooner than this is replaced before the next request.
const MinTokenLife = 120 * time.Second

// CheckPlugin fails, as the configuration error keystoneauth's loader
// raises, when auth_type names a plugin other than the token plugins
// this service implements or lacks that plugin's required options.
func CheckPlugin(o Options) error {
	switch strings.ToLower(o.AuthType) {
	case "password", "v3password":
		return nil
	case "v3applicationcredential":
		if o.AppCredentialID == "" && o.AppCredentialName == "" {
			return ironic.Errorf(ironic.ConfigInvalid, "Invalid configuration file. [%s] You must provide either an application credential ID or an application credential name and user.", o.Section)
		}
		if o.AppCredentialSecret == "" {
			return ironic.Errorf(ironic.ConfigInvalid, "Invalid configuration file. [%s] You must provide an auth secret.", o.Section)
		}
		return nil
	}
	return ironic.Errorf(ironic.ConfigInvalid,
		"Invalid configuration file. [%s] auth_type %s is not supported by this service (use none, password or v3applicationcredential)", o.Section, o.AuthType)
}

func authenticate(ctx context.Context, o Options, hc *http.Client, retry gophercloud.RetryFunc) (*gophercloud.ProviderClient, error) {
	if err := CheckPlugin(o); err != nil {
		return nil, err
	}
	pc, err := openstack.NewClient(o.AuthURL)
	if err != nil {
		return nil, ironic.Errorf(ironic.KeystoneFailure, "%s", err.Error())
	}
	pc.HTTPClient = *hc
	pc.RetryFunc = retry
	pc.ReauthBeforeTokenExpiration = MinTokenLife
	opts := gophercloud.AuthOptions{
		IdentityEndpoint: o.AuthURL, Username: o.Username, UserID: o.UserID, Password: o.Password,
		DomainID: o.UserDomainID, DomainName: o.UserDomainName, AllowReauth: true,
	}
	switch {
	case strings.EqualFold(o.AuthType, "v3applicationcredential"):
		// The credential carries its project and roles: no scope, and
		// no password.
		opts.Password = ""
		opts.ApplicationCredentialID, opts.ApplicationCredentialName = o.AppCredentialID, o.AppCredentialName
		opts.ApplicationCredentialSecret = o.AppCredentialSecret
	case o.SystemScope != "":
		opts.Scope = &gophercloud.AuthScope{System: true}
	case o.ProjectID != "":
		opts.Scope = &gophercloud.AuthScope{ProjectID: o.ProjectID}
	case o.ProjectName != "":
		opts.Scope = &gophercloud.AuthScope{ProjectName: o.ProjectName,
			DomainID: o.ProjectDomainID, DomainName: o.ProjectDomainName}
	case o.DomainID != "" || o.DomainName != "":
		opts.Scope = &gophercloud.AuthScope{DomainID: o.DomainID, DomainName: o.DomainName}
	}
	if err := openstack.Authenticate(ctx, pc, opts); err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return nil, ironic.Errorf(ironic.KeystoneUnauthorized, "Not authorized in Keystone.")
		}
		return nil, ironic.Errorf(ironic.KeystoneFailure, "%s", err.Error())
	}
	return pc, nil
}

func catalogNotFound(o Options) error {
	return ironic.Errorf(ironic.CatalogNotFound, "Service type %s with endpoint type internal not found in keystone service catalog.", o.ServiceType)
}

// HTTPClient is the session's HTTP client: TLS from cafile, certfile,
// keyfile and insecure, and the timeout.
func HTTPClient(o Options) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tlsCfg := &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // the section's insecure asks for it.
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, ironic.Errorf(ironic.ConfigInvalid, "Invalid configuration file. [%s] cafile: %s", o.Section, err.Error())
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tlsCfg.RootCAs = pool
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, ironic.Errorf(ironic.ConfigInvalid, "Invalid configuration file. [%s] certfile/keyfile: %s", o.Section, err.Error())
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	tr.TLSClientConfig = tlsCfg
	return &http.Client{Transport: tr, Timeout: o.Timeout}, nil
}

// Service holds a service client built on first use: building
// authenticates, so it waits for the first call and, once it worked, is
// never repeated. The zero value is ready; it is safe for concurrent use.
type Service struct {
	mu sync.Mutex
	sc *gophercloud.ServiceClient
}

// Get returns the service client, calling build the first time (and
// again after a failed build).
func (s *Service) Get(ctx context.Context, build func(context.Context) (*gophercloud.ServiceClient, error)) (*gophercloud.ServiceClient, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sc != nil {
		return s.sc, nil
	}
	sc, err := build(ctx)
	if err != nil {
		return nil, err
	}
	s.sc = sc
	return sc, nil
}
