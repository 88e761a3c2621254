package wire

import (
	"log/slog"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/drivers/storage/cinderclient"
)

// storageImplementations are the storage interfaces "cinder" and
// "external", configured by [cinder], with one Cinder client.
func storageImplementations(cfg *conf.Config, log *slog.Logger) []drivers.Implementation {
	c := cfg.Cinder
	client := cinderclient.New(cinderclient.Config{
		AuthType: c.AuthType, AuthURL: c.AuthURL, Username: c.Username, UserID: c.UserID, Password: c.Password,
		ProjectName: c.ProjectName, ProjectID: c.ProjectID, UserDomainName: c.UserDomainName, UserDomainID: c.UserDomainID,
		ProjectDomainName: c.ProjectDomainName, ProjectDomainID: c.ProjectDomainID, SystemScope: c.SystemScope,
		CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile, Insecure: c.Insecure, Timeout: c.Timeout,
		ServiceType: c.ServiceType, ServiceName: c.ServiceName, RegionName: c.RegionName, ValidInterfaces: c.ValidInterfaces,
		EndpointOverride: c.EndpointOverride, Retries: c.Retries, StatusCodeRetries: c.StatusCodeRetries,
	}, log.With("component", "cinder"))
	return storage.Implementations(storage.Config{
		ActionRetries:       c.ActionRetries,
		ActionRetryInterval: c.ActionRetryInterval,
	}, storage.Deps{Cinder: client, Log: log.With("component", "storage")})
}
