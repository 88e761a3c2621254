package network

import "github.com/goironic/ironic/option"

// Bind reads the [neutron], [dhcp] and [agent] options the interfaces
// use.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.CleaningNetwork, "neutron", "cleaning_network")
	b.String(&c.InspectionNetwork, "neutron", "inspection_network")
	b.String(&c.ProvisioningNetwork, "neutron", "provisioning_network")
	b.String(&c.RescuingNetwork, "neutron", "rescuing_network")
	b.List(&c.ProvisioningSecurityGroups, "neutron", "provisioning_network_security_groups")
	b.List(&c.CleaningSecurityGroups, "neutron", "cleaning_network_security_groups")
	b.List(&c.RescuingSecurityGroups, "neutron", "rescuing_network_security_groups")
	b.List(&c.InspectionSecurityGroups, "neutron", "inspection_network_security_groups")
	b.Bool(&c.AddAllPorts, "neutron", "add_all_ports")
	b.Int(&c.DHCPv6StatefulAddressCount, "neutron", "dhcpv6_stateful_address_count")
	b.String(&c.DHCPProvider, "dhcp", "dhcp_provider")
	b.Int(&c.AgentMaxAttempts, "agent", "neutron_agent_max_attempts")
	b.Seconds(&c.AgentStatusRetryInterval, "agent", "neutron_agent_status_retry_interval")
}

// DefaultConfig is Ironic's defaults.
func DefaultConfig() Config { return option.Default[Config]() }
