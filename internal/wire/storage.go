package wire

import (
	"log/slog"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/drivers/storage/cinderclient"
	"github.com/goironic/ironic/option"
)

// storageImplementations are the storage interfaces "cinder" and
// "external", configured by [cinder], with one Cinder client.
func storageImplementations(b *option.Binder, log *slog.Logger) []drivers.Implementation {
	client := cinderclient.New(bound[cinderclient.Config](b, compCinderClient), log.With("component", "cinder"))
	return storage.Implementations(bound[storage.Config](b, compStorage),
		storage.Deps{Cinder: client, Log: log.With("component", "storage")})
}
