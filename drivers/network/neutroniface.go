package network

import (
	"context"
	"fmt"

	"github.com/goironic/ironic/drivers"
)

// NeutronInterface is the "neutron" network interface (Ironic's
// ironic/drivers/modules/network/neutron.py): the node is moved between
// networks Neutron manages. Provisioning, cleaning, rescuing and
// inspection each create Neutron ports on their own network (the [neutron]
// option, or the node's driver_info key of the same name), bound to the
// node with the switch ports of its local_link_connection; at the end of a
// deploy the tenant VIFs are bound instead, and unbound at tear down.
type NeutronInterface struct {
	vifPortIDMixin
}

var _ drivers.NetworkInterface = (*NeutronInterface)(nil)

// NewNeutron returns the neutron interface.
func NewNeutron(cfg Config, deps Deps) *NeutronInterface {
	return &NeutronInterface{newMixin(cfg, deps)}
}

// Validate checks that the cleaning and provisioning networks exist, in
// Ironic's order.
func (n *NeutronInterface) Validate(ctx context.Context, task drivers.Task) error {
	if _, err := n.ops.cleaningNetwork(ctx, task); err != nil {
		return done(err)
	}
	_, err := n.ops.provisioningNetwork(ctx, task)
	return done(err)
}

// AddProvisioningNetwork creates the node's ports on the provisioning
// network.
func (n *NeutronInterface) AddProvisioningNetwork(ctx context.Context, task drivers.Task) error {
	id, err := n.ops.provisioningNetwork(ctx, task)
	if err != nil {
		return done(err)
	}
	_, err = n.ops.addServiceNetwork(ctx, task, id, n.ops.cfg.ProvisioningSecurityGroups, "provisioning")
	return done(err)
}

// RemoveProvisioningNetwork deletes them.
func (n *NeutronInterface) RemoveProvisioningNetwork(ctx context.Context, task drivers.Task) error {
	id, err := n.ops.provisioningNetwork(ctx, task)
	if err != nil {
		return done(err)
	}
	return done(n.ops.removeServiceNetwork(ctx, task, id, "provisioning"))
}

// AddCleaningNetwork creates the node's ports on the cleaning network.
func (n *NeutronInterface) AddCleaningNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	id, err := n.ops.cleaningNetwork(ctx, task)
	if err != nil {
		return nil, done(err)
	}
	vifs, err := n.ops.addServiceNetwork(ctx, task, id, n.ops.cfg.CleaningSecurityGroups, "cleaning")
	return vifs, done(err)
}

// ValidateRescue checks the rescuing network.
func (n *NeutronInterface) ValidateRescue(ctx context.Context, task drivers.Task) error {
	_, err := n.ops.rescuingNetwork(ctx, task)
	return done(err)
}

// AddRescuingNetwork creates the node's ports on the rescuing network.
func (n *NeutronInterface) AddRescuingNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	id, err := n.ops.rescuingNetwork(ctx, task)
	if err != nil {
		return nil, done(err)
	}
	vifs, err := n.ops.addServiceNetwork(ctx, task, id, n.ops.cfg.RescuingSecurityGroups, "rescuing")
	return vifs, done(err)
}

// RemoveRescuingNetwork deletes them.
func (n *NeutronInterface) RemoveRescuingNetwork(ctx context.Context, task drivers.Task) error {
	id, err := n.ops.rescuingNetwork(ctx, task)
	if err != nil {
		return done(err)
	}
	return done(n.ops.removeServiceNetwork(ctx, task, id, "rescuing"))
}

// AddInspectionNetwork creates the node's ports on the inspection network.
func (n *NeutronInterface) AddInspectionNetwork(ctx context.Context, task drivers.Task) (map[string]string, error) {
	id, err := n.ops.inspectionNetwork(ctx, task)
	if err != nil {
		return nil, done(err)
	}
	vifs, err := n.ops.addServiceNetwork(ctx, task, id, n.ops.cfg.InspectionSecurityGroups, "inspection")
	return vifs, done(err)
}

// ConfigureTenantNetworks binds the tenant VIFs of the ports outside port
// groups and of the port groups to the node, with their switch ports (and
// bond) in the binding profile. A node without ports, or whose ports
// carry no VIF, is a NetworkError.
func (n *NeutronInterface) ConfigureTenantNetworks(ctx context.Context, task drivers.Task) error {
	node := task.NodeUUID()
	n.ops.log.InfoContext(ctx, "Mapping instance ports to node", "node", node)
	if len(task.Ports()) == 0 {
		msg := fmt.Sprintf("No ports are associated with node %s", node)
		n.ops.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	objs := standaloneAndGroups(task)
	without := 0
	for _, pl := range objs {
		err := n.ops.plugPortToTenantNetwork(ctx, task, pl)
		switch {
		case err == nil:
		case isVIFNotAttached(err):
			without++
		default:
			return done(err)
		}
	}
	if without == len(objs) {
		msg := fmt.Sprintf("No neutron ports or portgroups are associated with node %s", node)
		n.ops.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	return nil
}

// UnconfigureTenantNetworks unbinds the tenant VIFs (Nova deletes them),
// so that no port is bound to the tenant and the cleaning network at
// once. A port group without an address keeps its VIF's MAC address.
func (n *NeutronInterface) UnconfigureTenantNetworks(ctx context.Context, task drivers.Task) error {
	n.ops.log.InfoContext(ctx, "Unbinding instance ports from node", "node", task.NodeUUID())
	for _, pl := range standaloneAndGroups(task) {
		vif, _ := pl.internalInfo().Get(tenantVIFKey).(string)
		if vif == "" {
			continue
		}
		if pl.port != nil && pl.port.IsSmartNIC {
			host, _ := pl.port.LocalLinkConnection.Get("hostname").(string)
			if err := n.ops.waitForHostAgent(ctx, host); err != nil {
				return done(err)
			}
		}
		if err := n.ops.unbindPortMAC(ctx, vif, pl.address() != ""); err != nil {
			return done(err)
		}
	}
	return nil
}

// NeedPowerOn reports whether the node has a Smart NIC port.
func (n *NeutronInterface) NeedPowerOn(_ context.Context, task drivers.Task) bool {
	for _, p := range task.Ports() {
		if p.IsSmartNIC {
			return true
		}
	}
	return false
}

// standaloneAndGroups are the ports outside port groups, then the port
// groups, as Ironic walks them.
func standaloneAndGroups(task drivers.Task) []portLike {
	var objs []portLike
	ports, pgs := task.Ports(), task.Portgroups()
	for i := range ports {
		if ports[i].PortgroupUUID == "" {
			objs = append(objs, portLike{port: &ports[i]})
		}
	}
	for i := range pgs {
		objs = append(objs, portLike{pg: &pgs[i]})
	}
	return objs
}
