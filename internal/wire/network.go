package wire

import (
	"log/slog"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/drivers/network/neutronclient"
)

// networkImplementations are the Neutron-backed network interfaces (flat),
// configured by [neutron], [dhcp] and [agent], with one Neutron client.
func networkImplementations(cfg *conf.Config, log *slog.Logger) []drivers.Implementation {
	n := cfg.Neutron
	client := neutronclient.New(neutronclient.Config{
		Options:        serviceOptions(n.ServiceAuth, n.ServiceEndpoint),
		ConnectRetries: n.ConnectRetries, ConnectRetryDelay: n.ConnectRetryDelay,
		StatusCodeRetries: n.StatusCodeRetries, StatusCodeRetryDelay: n.StatusCodeRetryDelay,
	}, log.With("component", "neutron"))
	return network.Implementations(network.Config{
		CleaningNetwork:            n.CleaningNetwork,
		InspectionNetwork:          n.InspectionNetwork,
		AddAllPorts:                n.AddAllPorts,
		DHCPv6StatefulAddressCount: n.DHCPv6StatefulAddressCount,
		DHCPProvider:               cfg.DHCP.DHCPProvider,
		AgentMaxAttempts:           cfg.Agent.NeutronAgentMaxAttempts,
		AgentStatusRetryInterval:   cfg.Agent.NeutronAgentStatusRetryInterval,
	}, network.Deps{Neutron: client, Log: log.With("component", "network")})
}
