package wire

import (
	"log/slog"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/swift"
)

// swiftClient is the [swift] section's client (nothing is contacted before
// its first use).
func swiftClient(cfg *conf.Config, log *slog.Logger) *swift.Client {
	s := cfg.Swift
	return swift.New(swift.Config{
		Options:    serviceOptions(s.ServiceAuth, s.ServiceEndpoint),
		MaxRetries: s.SwiftMaxRetries,
	}, log.With("component", "swift"))
}

// serviceOptions are the keystoneauth options of a service section
// ([cinder], [neutron], [swift]); the client names the section.
func serviceOptions(a conf.ServiceAuth, e conf.ServiceEndpoint) keystoneauth.Options {
	return keystoneauth.Options{AuthType: a.AuthType,
		AuthURL: a.AuthURL, Username: a.Username, UserID: a.UserID, Password: a.Password,
		ProjectName: a.ProjectName, ProjectID: a.ProjectID, UserDomainName: a.UserDomainName, UserDomainID: a.UserDomainID,
		ProjectDomainName: a.ProjectDomainName, ProjectDomainID: a.ProjectDomainID, SystemScope: a.SystemScope,
		CAFile: a.CAFile, CertFile: a.CertFile, KeyFile: a.KeyFile, Insecure: a.Insecure, Timeout: a.Timeout,
		ServiceType: e.ServiceType, ServiceName: e.ServiceName, RegionName: e.RegionName, ValidInterfaces: e.ValidInterfaces,
		EndpointOverride: e.EndpointOverride}
}
