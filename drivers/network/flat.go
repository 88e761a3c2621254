// Package network implements Ironic's network interfaces that talk to
// Neutron: "flat" (ironic/drivers/modules/network/flat.py) and "neutron"
// (network/neutron.py), with the VIF
// handling of common.py and the Neutron calls of ironic/common/neutron.py).
// The Neutron client is declared here (Neutron) and implemented by
// drivers/network/neutronclient.
package network

import (
	"context"
	"log/slog"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// Config holds the options the interfaces read.
type Config struct {
	// CleaningNetwork and InspectionNetwork are [neutron]cleaning_network
	// and inspection_network (UUID or name); a node's driver_info of the
	// same name takes precedence.
	CleaningNetwork   string
	InspectionNetwork string
	// ProvisioningNetwork and RescuingNetwork are [neutron]
	// provisioning_network and rescuing_network (the neutron interface's;
	// flat provisions and rescues on the tenant network).
	ProvisioningNetwork string
	RescuingNetwork     string
	// The *SecurityGroups are [neutron]<network>_security_groups: the
	// security groups (UUIDs) of the ports the neutron interface creates
	// on that network. As in Ironic, no driver_info key overrides them.
	ProvisioningSecurityGroups []string
	CleaningSecurityGroups     []string
	RescuingSecurityGroups     []string
	InspectionSecurityGroups   []string
	// AddAllPorts is [neutron]add_all_ports.
	AddAllPorts bool
	// DHCPv6StatefulAddressCount is [neutron]dhcpv6_stateful_address_count
	// (Ironic's default 4).
	DHCPv6StatefulAddressCount int
	// DHCPProvider is [dhcp]dhcp_provider; with "neutron", a port's
	// changed client-id is sent to its VIF as a DHCP option.
	DHCPProvider string
	// AgentMaxAttempts and AgentStatusRetryInterval are [agent]
	// neutron_agent_max_attempts and neutron_agent_status_retry_interval
	// (Smart NIC ports wait for their host's agent).
	AgentMaxAttempts         int
	AgentStatusRetryInterval time.Duration
}

// Deps are what the interfaces use.
type Deps struct {
	// Neutron is the Networking API client.
	Neutron Neutron
	// Log receives the interfaces' messages; nil discards.
	Log *slog.Logger
	// Sleep waits between agent status checks; nil sleeps for real.
	Sleep func(context.Context, time.Duration) error
}

// Implementations returns the network interfaces of this package under
// their Ironic names, for drivers.NewRegistry.
func Implementations(cfg Config, deps Deps) []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.Network, Name: "flat", Impl: NewFlat(cfg, deps)},
		{Kind: drivers.Network, Name: "neutron", Impl: NewNeutron(cfg, deps)},
	}
}

// Flat is the "flat" network interface: every node sits on one shared
// (flat) network. VIFs are recorded on the node's ports and bound to the
// node in Neutron while the node is deployed; cleaning and inspection
// create ports on their own networks.
type Flat struct {
	vifPortIDMixin
}

var _ drivers.NetworkInterface = (*Flat)(nil)

// NewFlat returns the flat interface. As Ironic does, it warns when no
// cleaning network is configured.
func NewFlat(cfg Config, deps Deps) *Flat {
	f := &Flat{newMixin(cfg, deps)}
	if cfg.CleaningNetwork == "" {
		f.ops.log.Warn("Please specify a valid UUID or name for [neutron]/cleaning_network configuration option so that " +
			"this interface is able to perform cleaning. Otherwise, cleaning operations will fail to start.")
	}
	return f
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// networkOf is NeutronNetworkInterfaceMixin.get_<kind>_network_uuid: the
// node's driver_info[key], else the option, validated against Neutron.
func (o *neutronOps) networkOf(ctx context.Context, task drivers.Task, key, option, netType string) (string, error) {
	name := option
	if v, ok := task.DriverInfo().Lookup(key); ok && pyjson.Truthy(v) {
		name, _ = v.(string)
	}
	return o.validateNetwork(ctx, name, netType)
}

func (o *neutronOps) cleaningNetwork(ctx context.Context, task drivers.Task) (string, error) {
	return o.networkOf(ctx, task, "cleaning_network", o.cfg.CleaningNetwork, "cleaning network")
}

func (o *neutronOps) inspectionNetwork(ctx context.Context, task drivers.Task) (string, error) {
	return o.networkOf(ctx, task, "inspection_network", o.cfg.InspectionNetwork, "inspection network")
}

func (o *neutronOps) provisioningNetwork(ctx context.Context, task drivers.Task) (string, error) {
	return o.networkOf(ctx, task, "provisioning_network", o.cfg.ProvisioningNetwork, "provisioning network")
}

func (o *neutronOps) rescuingNetwork(ctx context.Context, task drivers.Task) (string, error) {
	return o.networkOf(ctx, task, "rescuing_network", o.cfg.RescuingNetwork, "rescuing network")
}

// Validate checks that the cleaning network exists (Ironic validates it on
// every VIF and port operation).
func (f *Flat) Validate(ctx context.Context, task drivers.Task) error {
	_, err := f.ops.cleaningNetwork(ctx, task)
	return done(err)
}

// bindFlatPorts is FlatNetwork._bind_flat_ports: every port and port group
// with a tenant VIF gets it bound to the node.
func (f *Flat) bindFlatPorts(ctx context.Context, task drivers.Task) error {
	var objs []portLike
	ports, pgs := task.Ports(), task.Portgroups()
	for i := range ports {
		objs = append(objs, portLike{port: &ports[i]})
	}
	for i := range pgs {
		objs = append(objs, portLike{pg: &pgs[i]})
	}
	for _, pl := range objs {
		vif := vifOf(pl.internalInfo())
		if vif == "" {
			continue
		}
		attrs := map[string]any{"binding:host_id": task.NodeUUID(), "binding:vnic_type": vnicBaremetal,
			"mac_address": noneIfEmpty(pl.address())}
		if _, err := f.ops.updatePort(ctx, vif, attrs); err != nil {
			if !isNeutronAnswer(err) {
				return err
			}
			f.ops.log.ErrorContext(ctx, "Unable to set binding:host_id for neutron port", "port", vif, "error", err)
			return networkError("Unable to set binding:host_id for neutron port %s. Error: %s", vif, err)
		}
	}
	return nil
}

// unbindFlatPorts is FlatNetwork._unbind_flat_ports: the VIFs of the ports
// outside port groups and of the port groups are unbound.
func (f *Flat) unbindFlatPorts(ctx context.Context, task drivers.Task) error {
	f.ops.log.InfoContext(ctx, "Unbinding instance ports from node", "node", task.NodeUUID())
	var vifs []string
	for _, p := range task.Ports() {
		if p.PortgroupUUID == "" {
			vifs = append(vifs, vifOf(p.InternalInfo))
		}
	}
	for _, pg := range task.Portgroups() {
		vifs = append(vifs, vifOf(pg.InternalInfo))
	}
	for _, vif := range vifs {
		if vif == "" {
			continue
		}
		if err := f.ops.unbindPort(ctx, vif); err != nil {
			return err
		}
	}
	return nil
}

// AddProvisioningNetwork binds the tenant ports: flat provisions on the
// tenant network.
func (f *Flat) AddProvisioningNetwork(ctx context.Context, task drivers.Task) error {
	return done(f.bindFlatPorts(ctx, task))
}

// RemoveProvisioningNetwork unbinds them.
func (f *Flat) RemoveProvisioningNetwork(ctx context.Context, task drivers.Task) error {
	return done(f.unbindFlatPorts(ctx, task))
}

// ConfigureTenantNetworks binds the tenant ports.
func (f *Flat) ConfigureTenantNetworks(ctx context.Context, task drivers.Task) error {
	return done(f.bindFlatPorts(ctx, task))
}

// UnconfigureTenantNetworks unbinds them, so that no port is bound to the
// tenant and the cleaning network at once.
func (f *Flat) UnconfigureTenantNetworks(ctx context.Context, task drivers.Task) error {
	return done(f.unbindFlatPorts(ctx, task))
}

// addServiceNetwork is FlatNetwork._add_service_network (and
// NeutronNetwork._add_network, with security groups): leftovers of an
// earlier run are removed, a Neutron port is created on the network for
// each (PXE-enabled) port and recorded as its <process>_vif_port_id.
func (o *neutronOps) addServiceNetwork(ctx context.Context, task drivers.Task, networkID string, securityGroups []string, process string) (map[string]string, error) {
	o.rollbackPorts(ctx, task, networkID)
	o.log.InfoContext(ctx, "Adding network to node", "process", process, "node", task.NodeUUID())
	vifs, err := o.addPortsToNetwork(ctx, task, networkID, securityGroups)
	if err != nil {
		return nil, err
	}
	field := process + "_vif_port_id"
	for _, p := range task.Ports() {
		id, ok := vifs[p.UUID]
		if !ok {
			continue
		}
		p.InternalInfo = cloneDict(p.InternalInfo)
		p.InternalInfo.Set(field, id)
		if err := task.SavePort(ctx, p); err != nil {
			return nil, err
		}
	}
	return vifs, nil
}

// removeServiceNetwork is FlatNetwork._remove_service_network.
func (o *neutronOps) removeServiceNetwork(ctx context.Context, task drivers.Task, networkID, process string) error {
	o.log.InfoContext(ctx, "Removing ports from network for node", "process", process, "node", task.NodeUUID())
	if err := o.removePortsFromNetwork(ctx, task, networkID); err != nil {
		return err
	}
	field := process + "_vif_port_id"
	for _, p := range task.Ports() {
		if _, ok := p.InternalInfo.Lookup(field); !ok {
			continue
		}
		p.InternalInfo = cloneDict(p.InternalInfo)
		p.InternalInfo.Delete(field)
		if err := task.SavePort(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// AddCleaningNetwork creates the node's ports on the cleaning network.
func (f *Flat) AddCleaningNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	id, err := f.ops.cleaningNetwork(ctx, task)
	if err != nil {
		return nil, done(err)
	}
	vifs, err := f.ops.addServiceNetwork(ctx, task, id, nil, "cleaning")
	return vifs, done(err)
}

// AddRescuingNetwork binds the tenant ports again (flat rescues on the
// tenant network, which UnconfigureTenantNetworks unbound). Like Ironic's
// it returns no ports.
func (f *Flat) AddRescuingNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	f.ops.log.InfoContext(ctx, "Bind ports for rescuing node", "node", task.NodeUUID())
	return nil, done(f.bindFlatPorts(ctx, task))
}

// RemoveRescuingNetwork unbinds them.
func (f *Flat) RemoveRescuingNetwork(ctx context.Context, task drivers.Task) error {
	f.ops.log.InfoContext(ctx, "Unbind ports for rescuing node", "node", task.NodeUUID())
	return done(f.unbindFlatPorts(ctx, task))
}

// AddInspectionNetwork creates the node's ports on the inspection network.
func (f *Flat) AddInspectionNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	id, err := f.ops.inspectionNetwork(ctx, task)
	if err != nil {
		return nil, done(err)
	}
	vifs, err := f.ops.addServiceNetwork(ctx, task, id, nil, "inspection")
	return vifs, done(err)
}
