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
		AuthType: n.AuthType, AuthURL: n.AuthURL, Username: n.Username, UserID: n.UserID, Password: n.Password,
		ProjectName: n.ProjectName, ProjectID: n.ProjectID, UserDomainName: n.UserDomainName, UserDomainID: n.UserDomainID,
		ProjectDomainName: n.ProjectDomainName, ProjectDomainID: n.ProjectDomainID, SystemScope: n.SystemScope,
		CAFile: n.CAFile, CertFile: n.CertFile, KeyFile: n.KeyFile, Insecure: n.Insecure, Timeout: n.Timeout,
		ServiceType: n.ServiceType, ServiceName: n.ServiceName, RegionName: n.RegionName, ValidInterfaces: n.ValidInterfaces,
		EndpointOverride: n.EndpointOverride, ConnectRetries: n.ConnectRetries, ConnectRetryDelay: n.ConnectRetryDelay,
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
