package wire

import (
	"log/slog"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/drivers/network/neutronclient"
	"github.com/goironic/ironic/option"
)

// networkImplementations are the Neutron-backed network interfaces (flat),
// configured by [neutron], [dhcp] and [agent], with one Neutron client.
func networkImplementations(b *option.Binder, log *slog.Logger) []drivers.Implementation {
	client := neutronclient.New(bound[neutronclient.Config](b, compNeutronClient), log.With("component", "neutron"))
	return network.Implementations(bound[network.Config](b, compNetwork),
		network.Deps{Neutron: client, Log: log.With("component", "network")})
}
