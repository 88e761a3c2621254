package wire

import (
	"log/slog"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/internal/swift"
)

// swiftClient is the [swift] section's client (nothing is contacted before
// its first use).
func swiftClient(cfg *conf.Config, log *slog.Logger) *swift.Client {
	s := cfg.Swift
	return swift.New(swift.Config{
		AuthType: s.AuthType, AuthURL: s.AuthURL, Username: s.Username, UserID: s.UserID, Password: s.Password,
		ProjectName: s.ProjectName, ProjectID: s.ProjectID, UserDomainName: s.UserDomainName, UserDomainID: s.UserDomainID,
		ProjectDomainName: s.ProjectDomainName, ProjectDomainID: s.ProjectDomainID, SystemScope: s.SystemScope,
		CAFile: s.CAFile, CertFile: s.CertFile, KeyFile: s.KeyFile, Insecure: s.Insecure, Timeout: s.Timeout,
		ServiceType: s.ServiceType, ServiceName: s.ServiceName, RegionName: s.RegionName, ValidInterfaces: s.ValidInterfaces,
		EndpointOverride: s.EndpointOverride, MaxRetries: s.SwiftMaxRetries,
	}, log.With("component", "swift"))
}
