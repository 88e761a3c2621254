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
		Options: serviceOptions(c.ServiceAuth, c.ServiceEndpoint),
		Retries: c.Retries, StatusCodeRetries: c.StatusCodeRetries,
	}, log.With("component", "cinder"))
	return storage.Implementations(storage.Config{
		ActionRetries:       c.ActionRetries,
		ActionRetryInterval: c.ActionRetryInterval,
	}, storage.Deps{Cinder: client, Log: log.With("component", "storage")})
}
