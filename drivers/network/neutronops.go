package network

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// The operations of Ironic's ironic/common/neutron.py, with its Neutron
// calls in the same order and its messages.

// VNIC types of the ports Ironic binds.
const (
	vnicBaremetal = "baremetal"
	vnicSmartNIC  = "smart-nic"
)

// dhcpClientID is DHCP option 61 (RFC 2132), the client identifier of
// InfiniBand ports.
const dhcpClientID = "61"

// neutronOps holds what the operations need: the client, the [neutron]
// and [agent] options, a logger and a sleep for the agent waits.
type neutronOps struct {
	api   Neutron
	cfg   Config
	log   *slog.Logger
	sleep func(context.Context, time.Duration) error
}

func networkError(format string, args ...any) error {
	return ironic.Errorf(ironic.NetworkError, format, args...)
}

// updatePort is neutron.update_neutron_port: the port is read first (with
// the user's credentials in Ironic; it must be visible), then updated.
func (o *neutronOps) updatePort(ctx context.Context, id string, attrs map[string]any) (*NeutronPort, error) {
	if _, err := o.api.GetPort(ctx, id); err != nil {
		return nil, err
	}
	return o.api.UpdatePort(ctx, id, attrs)
}

// unbindPort is neutron.unbind_neutron_port with reset_mac: the binding
// goes first, the MAC address in a second request (Neutron refuses to
// change the MAC of a bound port). A port already gone is fine.
func (o *neutronOps) unbindPort(ctx context.Context, id string) error {
	return o.unbindPortMAC(ctx, id, true)
}

// unbindPortMAC is neutron.unbind_neutron_port; resetMAC is its
// reset_mac.
func (o *neutronOps) unbindPortMAC(ctx context.Context, id string, resetMAC bool) error {
	_, err := o.updatePort(ctx, id, map[string]any{"binding:host_id": "", "binding:profile": map[string]any{}})
	if err == nil && resetMAC {
		_, err = o.updatePort(ctx, id, map[string]any{"mac_address": nil})
	}
	switch {
	case err == nil:
		return nil
	case isNotFound(err):
		o.log.InfoContext(ctx, "Port was not found while unbinding", "port", id)
		return nil
	case isNeutronAnswer(err):
		msg := fmt.Sprintf("Unable to clear binding profile for neutron port %s. Error: %s", id, err)
		o.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	return err
}

// updatePortAddress is neutron.update_port_address: a bound port is
// unbound, gets the MAC address, then its binding back. Any failure is
// FailedToUpdateMacOnPort.
func (o *neutronOps) updatePortAddress(ctx context.Context, id, address string) error {
	failed := func(step string, err error) error {
		if !isNeutronAnswer(err) && !ironic.IsClass(err, ironic.NetworkError) {
			return err
		}
		o.log.ErrorContext(ctx, step, "port", id, "error", err)
		return ironic.Errorf(ironic.FailedToUpdateMacOnPort, "Update MAC address on port: %s failed.", id)
	}
	port, err := o.api.GetPort(ctx, id)
	if err != nil {
		return failed("Failed to get the current binding on Neutron port", err)
	}
	if port.HostID != "" {
		if err := o.unbindPort(ctx, id); err != nil {
			return failed("Failed to remove the current binding from Neutron port, while updating its MAC address", err)
		}
	}
	if _, err := o.updatePort(ctx, id, map[string]any{"mac_address": address}); err != nil {
		return failed("Failed to update MAC address on Neutron port", err)
	}
	if port.HostID != "" {
		// A nil profile is sent as null, as Ironic sends None.
		if _, err := o.updatePort(ctx, id, map[string]any{"binding:host_id": port.HostID, "binding:profile": port.Profile}); err != nil {
			return failed("Failed to update binding:host_id and profile on Neutron port", err)
		}
	}
	return nil
}

// findNetwork is openstacksdk's find_network as
// neutron._get_network_by_uuid_or_name uses it: the name or ID is tried as
// an ID first, then as a name. netType names the network in messages.
func (o *neutronOps) findNetwork(ctx context.Context, uuidOrName, netType string) (*NeutronNetwork, error) {
	n, err := o.api.GetNetwork(ctx, uuidOrName)
	if err == nil {
		return n, nil
	}
	if st := neutronStatus(err); st != 400 && st != 403 && st != 404 {
		return nil, o.retrieveNetworkError(err)
	}
	nets, err := o.api.ListNetworks(ctx, url.Values{"name": {uuidOrName}})
	if err != nil {
		return nil, o.retrieveNetworkError(err)
	}
	switch len(nets) {
	case 0:
		return nil, drivers.InvalidParameter("%s with name or UUID %s was not found", netType, uuidOrName)
	case 1:
		return &nets[0], nil
	}
	// openstacksdk's DuplicateResource; Ironic lists the networks again
	// for the message.
	again, err := o.api.ListNetworks(ctx, url.Values{"name": {uuidOrName}})
	if err != nil {
		return nil, o.retrieveNetworkError(err)
	}
	ids := make([]string, len(again))
	for i, n := range again {
		ids[i] = n.ID
	}
	return nil, drivers.InvalidParameter("More than one %s was found for name %s: %s", netType, uuidOrName, strings.Join(ids, ", "))
}

func (o *neutronOps) retrieveNetworkError(err error) error {
	if !isNeutronAnswer(err) {
		return err
	}
	return networkError("Could not retrieve network: %s", err)
}

// validateNetwork is neutron.validate_network: the ID of the network named
// by uuidOrName.
func (o *neutronOps) validateNetwork(ctx context.Context, uuidOrName, netType string) (string, error) {
	if uuidOrName == "" {
		return "", drivers.MissingParameter("UUID or name of %s is not set in configuration", netType)
	}
	n, err := o.findNetwork(ctx, uuidOrName, netType)
	if err != nil {
		return "", err
	}
	return n.ID, nil
}

// getPortByUUID is neutron._get_port_by_uuid.
func (o *neutronOps) getPortByUUID(ctx context.Context, id string) (*NeutronPort, error) {
	p, err := o.api.GetPort(ctx, id)
	switch {
	case err == nil:
		return p, nil
	case isNotFound(err):
		return nil, drivers.InvalidParameter("Neutron port %s was not found", id)
	case isNeutronAnswer(err):
		return nil, networkError("Could not retrieve neutron port: %s", err)
	}
	return nil, err
}

// physnetsByPortUUID is neutron.get_physnets_by_port_uuid: the physical
// networks of the segments of the port's network.
func (o *neutronOps) physnetsByPortUUID(ctx context.Context, id string) (map[string]bool, error) {
	p, err := o.getPortByUUID(ctx, id)
	if err != nil {
		return nil, err
	}
	n, err := o.findNetwork(ctx, p.NetworkID, "network")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	if n.Segments != nil {
		for _, s := range n.Segments {
			if s.PhysicalNetwork != "" {
				out[s.PhysicalNetwork] = true
			}
		}
		return out, nil
	}
	if n.PhysicalNetwork != "" {
		out[n.PhysicalNetwork] = true
	}
	return out, nil
}

// validatePortInfo is neutron.validate_port_info: whether a port has what
// deploying through it needs.
func (o *neutronOps) validatePortInfo(ctx context.Context, task drivers.Task, p drivers.Port) bool {
	if v, _ := p.Extra.Lookup("client-id"); pyjson.Truthy(v) {
		return true
	}
	if task.InterfaceName(drivers.Network) == "neutron" && p.LocalLinkConnection.Len() == 0 {
		o.log.WarnContext(ctx, "The local_link_connection is required for 'neutron' network interface and is not present in the node's port",
			"node", task.NodeUUID(), "port", p.UUID)
		return false
	}
	smartNIC := validSmartNICLink(p.LocalLinkConnection)
	if p.IsSmartNIC && !smartNIC {
		o.log.ErrorContext(ctx, "Smart NIC port must have port_id and hostname in local_link_connection", "port", p.UUID)
		return false
	}
	if !p.IsSmartNIC && smartNIC {
		o.log.ErrorContext(ctx, "Only Smart NIC ports can have port_id and hostname in local_link_connection", "port", p.UUID)
		return false
	}
	return true
}

// validSmartNICLink checks a local_link_connection against Ironic's
// LOCAL_LINK_SMART_NIC_SCHEMA: only the known keys, all strings,
// network_type managed or unmanaged, port_id and hostname present.
func validSmartNICLink(llc *pyjson.Dict) bool {
	if llc == nil {
		return false
	}
	for k, v := range llc.All() {
		s, ok := v.(string)
		if !ok {
			return false
		}
		switch k {
		case "port_id", "switch_id", "hostname", "switch_info":
		case "network_type":
			if s != "managed" && s != "unmanaged" {
				return false
			}
		default:
			return false
		}
	}
	return llc.Has("port_id") && llc.Has("hostname")
}

// waitForHostAgent is neutron.wait_for_host_agent (target state "up"):
// the host's agent must be alive, checked [agent]neutron_agent_max_attempts
// times.
func (o *neutronOps) waitForHostAgent(ctx context.Context, host string) error {
	return o.retry(ctx, func() error {
		agents, err := o.api.ListAgents(ctx, url.Values{"host": {host}})
		if err != nil {
			if isNeutronAnswer(err) {
				return networkError("Failed to contact Neutron server")
			}
			return err
		}
		// Ironic looks at the first agent only.
		if len(agents) > 0 && agents[0].IsAlive {
			return nil
		}
		return networkError("Agent on host %s failed to reach state up", host)
	})
}

// waitForPortStatus is neutron.wait_for_port_status.
func (o *neutronOps) waitForPortStatus(ctx context.Context, id, status string) error {
	return o.retry(ctx, func() error {
		p, err := o.getPortByUUID(ctx, id)
		if err != nil {
			return err
		}
		if p.Status == status {
			return nil
		}
		return networkError("Port %s failed to reach status %s", id, status)
	})
}

// retry runs f until it succeeds or fails with anything but a
// NetworkError, at most [agent]neutron_agent_max_attempts times.
func (o *neutronOps) retry(ctx context.Context, f func() error) error {
	attempts := max(o.cfg.AgentMaxAttempts, 1)
	var err error
	for i := range attempts {
		if err = f(); err == nil || !ironic.IsClass(err, ironic.NetworkError) {
			return err
		}
		if i+1 < attempts {
			if serr := o.sleep(ctx, o.cfg.AgentStatusRetryInterval); serr != nil {
				return serr
			}
		}
	}
	return err
}

// portMap is neutron.get_node_portmap: port UUID → local_link_connection.
func portMap(task drivers.Task) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, p := range task.Ports() {
		out[p.UUID] = llcMap(p.LocalLinkConnection)
	}
	return out
}

// llcMap is a local_link_connection as a Neutron request carries it (a
// map: Neutron's order is not the client's concern).
func llcMap(d *pyjson.Dict) map[string]any {
	if d == nil {
		return map[string]any{}
	}
	return d.Map()
}

// localGroupInformation is neutron.get_local_group_information.
func localGroupInformation(pg drivers.Portgroup) map[string]any {
	props := map[string]any{}
	for k, v := range pg.Properties.All() {
		if !strings.HasPrefix(k, "bond") {
			k = "bond_" + k
		}
		props[k] = v
	}
	return map[string]any{"id": pg.UUID, "name": noneIfEmpty(pg.Name), "bond_mode": noneIfEmpty(pg.Mode), "bond_properties": props}
}

// noneIfEmpty renders an unset string field as JSON null.
func noneIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// verifySecurityGroups is neutron._verify_security_groups: every group
// must exist.
func (o *neutronOps) verifySecurityGroups(ctx context.Context, groups []string) error {
	if len(groups) == 0 {
		return nil
	}
	ids, err := o.api.ListSecurityGroupIDs(ctx, url.Values{"id": groups})
	if err != nil {
		if !isNeutronAnswer(err) {
			return err
		}
		msg := fmt.Sprintf("Could not retrieve security groups from neutron: %s", err)
		o.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	var missing []string
	for _, g := range groups {
		if !slices.Contains(ids, g) && !slices.Contains(missing, g) {
			missing = append(missing, g)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// Ironic renders a list made from a set: its order is Python's hash
	// order; ours is the option's.
	msg := fmt.Sprintf("Could not find these security groups (specified via ironic config) in neutron: %s", pyList(missing))
	o.log.ErrorContext(ctx, msg)
	return networkError("%s", msg)
}

// addPortsToNetwork is neutron.add_ports_to_network: a Neutron port on
// the network (with the security groups, which must exist) for every
// PXE-enabled port (every port with [neutron]add_all_ports), bound to the
// node. It returns port UUID → Neutron port ID.
func (o *neutronOps) addPortsToNetwork(ctx context.Context, task drivers.Task, networkID string, securityGroups []string) (map[string]string, error) {
	if err := o.verifySecurityGroups(ctx, securityGroups); err != nil {
		return nil, err
	}
	node := task.NodeUUID()
	var toCreate []drivers.Port
	for _, p := range task.Ports() {
		if o.cfg.AddAllPorts || p.PXEEnabled {
			toCreate = append(toCreate, p)
		}
	}
	if len(toCreate) == 0 {
		enabled := "PXE-enabled "
		if o.cfg.AddAllPorts {
			enabled = ""
		}
		return nil, networkError("No available %sports on node %s.", enabled, node)
	}
	deviceID := task.InstanceUUID()
	if deviceID == "" {
		deviceID = node
	}
	portmap := portMap(task)
	ports := map[string]string{}
	var failures []string
	for _, ip := range toCreate {
		if !o.validatePortInfo(ctx, task, ip) {
			failures = append(failures, ip.UUID)
			continue
		}
		attrs := map[string]any{"network_id": networkID, "admin_state_up": true,
			"binding:vnic_type": vnicBaremetal, "device_id": deviceID}
		if len(securityGroups) > 0 {
			attrs["security_groups"] = slices.Clone(securityGroups)
		}
		profile := map[string]any{"local_link_information": []any{portmap[ip.UUID]}}
		update := map[string]any{"binding:host_id": node, "device_owner": "baremetal:none",
			"mac_address": ip.Address, "binding:profile": profile}
		if !ip.PXEEnabled {
			attrs["fixed_ips"] = []any{}
		}
		if ip.IsSmartNIC {
			update["binding:host_id"] = portmap[ip.UUID]["hostname"]
			attrs["binding:vnic_type"] = vnicSmartNIC
		}
		if cid := ip.Extra.Get("client-id"); pyjson.Truthy(cid) {
			attrs["extra_dhcp_opts"] = []any{map[string]any{"opt_name": dhcpClientID, "opt_value": cid}}
		}
		id, err := o.createBoundPort(ctx, ip, attrs, update)
		if err != nil {
			if !isNeutronAnswer(err) {
				return nil, err
			}
			failures = append(failures, ip.UUID)
			o.log.WarnContext(ctx, "Could not create neutron port for node's port on the neutron network",
				"node", node, "port", ip.UUID, "network", networkID, "error", err)
			continue
		}
		ports[ip.UUID] = id
	}
	if len(failures) > 0 {
		if len(failures) == len(toCreate) {
			o.rollbackPorts(ctx, task, networkID)
			uuids := make([]string, len(toCreate))
			for i, p := range toCreate {
				uuids[i] = p.UUID
			}
			return nil, networkError("Failed to create neutron ports for node's %s ports %s.", node, pyList(uuids))
		}
		o.log.WarnContext(ctx, "Some errors were encountered when updating vif_port_id for node", "node", node, "ports", failures)
	} else {
		o.log.InfoContext(ctx, "Successfully created ports for node in network", "node", node, "network", networkID, "ports", ports)
	}
	return ports, nil
}

// createBoundPort creates one Neutron port and binds it (the body of the
// loop of add_ports_to_network).
func (o *neutronOps) createBoundPort(ctx context.Context, ip drivers.Port, attrs, update map[string]any) (string, error) {
	if ip.IsSmartNIC {
		if err := o.waitForHostAgent(ctx, fmt.Sprint(update["binding:host_id"])); err != nil {
			return "", err
		}
	}
	created, err := o.api.CreatePort(ctx, attrs)
	if err != nil {
		return "", err
	}
	port, err := o.updatePort(ctx, created.ID, update)
	if err != nil {
		return "", err
	}
	if o.cfg.DHCPv6StatefulAddressCount > 1 {
		if err := o.addIPv6StatefulAddresses(ctx, port); err != nil {
			return "", err
		}
	}
	if ip.IsSmartNIC {
		if err := o.waitForPortStatus(ctx, port.ID, "ACTIVE"); err != nil {
			return "", err
		}
	}
	return port.ID, nil
}

// addIPv6StatefulAddresses is neutron._add_ip_addresses_for_ipv6_stateful:
// a port on a DHCPv6-stateful subnet gets [neutron]
// dhcpv6_stateful_address_count addresses.
func (o *neutronOps) addIPv6StatefulAddresses(ctx context.Context, port *NeutronPort) error {
	if len(port.FixedIPs) == 0 {
		return nil
	}
	addr, err := netip.ParseAddr(port.FixedIPs[0].IPAddress)
	if err != nil || !addr.Is6() {
		return nil
	}
	subnet, err := o.api.GetSubnet(ctx, port.FixedIPs[0].SubnetID)
	if err != nil {
		return err
	}
	if subnet.IPv6AddressMode != "dhcpv6-stateful" {
		return nil
	}
	var ips []any
	for _, f := range port.FixedIPs {
		ips = append(ips, map[string]any{"subnet_id": f.SubnetID, "ip_address": f.IPAddress})
	}
	for i := 1; i < o.cfg.DHCPv6StatefulAddressCount; i++ {
		ips = append(ips, map[string]any{"subnet_id": subnet.ID})
	}
	// With a client given, update_neutron_port doesn't read the port first.
	_, err = o.api.UpdatePort(ctx, port.ID, map[string]any{"fixed_ips": ips})
	return err
}

// removePortsFromNetwork is neutron.remove_ports_from_network: the
// Neutron ports on the network with the MAC addresses of the node's
// PXE-enabled ports (every port with add_all_ports) are deleted.
func (o *neutronOps) removePortsFromNetwork(ctx context.Context, task drivers.Task, networkID string) error {
	var macs []string
	for _, p := range task.Ports() {
		if o.cfg.AddAllPorts || p.PXEEnabled {
			macs = append(macs, p.Address)
		}
	}
	if len(macs) == 0 {
		return nil
	}
	return o.removeNeutronPorts(ctx, task, url.Values{"network_id": {networkID}, "mac_address": macs})
}

// removeNeutronPorts is neutron.remove_neutron_ports.
func (o *neutronOps) removeNeutronPorts(ctx context.Context, task drivers.Task, filters url.Values) error {
	node := task.NodeUUID()
	ports, err := o.api.ListPorts(ctx, filters)
	if err != nil {
		if !isNeutronAnswer(err) {
			return err
		}
		msg := fmt.Sprintf("Could not get given network VIF for %s from neutron, possible network issue. %s", node, err)
		o.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	for _, p := range ports {
		if p.IsSmartNIC {
			if err := o.waitForHostAgent(ctx, p.HostID); err != nil {
				return err
			}
		}
		err := o.api.DeletePort(ctx, p.ID)
		switch {
		case err == nil:
		case isNotFound(err):
			o.log.InfoContext(ctx, "Port was not found while deleting", "port", p.ID)
		case isNeutronAnswer(err):
			msg := fmt.Sprintf("Could not remove VIF %s of node %s, possibly a network issue: %s", p.ID, node, err)
			o.log.ErrorContext(ctx, msg)
			return networkError("%s", msg)
		default:
			return err
		}
	}
	if len(ports) > 0 {
		o.log.InfoContext(ctx, "Successfully removed node neutron ports", "node", node)
	}
	return nil
}

// rollbackPorts is neutron.rollback_ports: removePortsFromNetwork whose
// NetworkError is only logged.
func (o *neutronOps) rollbackPorts(ctx context.Context, task drivers.Task, networkID string) {
	if err := o.removePortsFromNetwork(ctx, task, networkID); err != nil {
		o.log.ErrorContext(ctx, "Failed to rollback port changes for node on network",
			"node", task.NodeUUID(), "network", networkID, "error", err)
	}
}

// portData is neutron.get_neutron_port_data: the network_data.json links
// and networks of one VIF.
func (o *neutronOps) portData(ctx context.Context, portID, vifID string) (map[string][]any, error) {
	port, err := o.api.GetPort(ctx, vifID)
	if err != nil {
		return nil, o.portDataError(ctx, fmt.Sprintf("Unable to get port info for %s. Error: %s", vifID, err), err)
	}
	if port.Name != "" {
		portID = port.Name
	}
	network, err := o.api.GetNetwork(ctx, port.NetworkID)
	if err != nil {
		return nil, o.portDataError(ctx, fmt.Sprintf("Unable to get network info for %s. Error: %s", port.NetworkID, err), err)
	}
	data := map[string][]any{
		"links": {pyjson.DictOf("id", portID, "type", "vif", "ethernet_mac_address", port.MACAddress,
			"vif_id", port.ID, "mtu", network.MTU)},
		"networks": {},
	}
	subnets := map[string]*NeutronSubnet{}
	for _, fip := range port.FixedIPs {
		sn, ok := subnets[fip.SubnetID]
		if !ok {
			sn, err = o.api.GetSubnet(ctx, fip.SubnetID)
			if err != nil {
				return nil, o.portDataError(ctx, fmt.Sprintf("Unable to get subnet info for %s. Error: %s", fip.SubnetID, err), err)
			}
			subnets[fip.SubnetID] = sn
		}
		_, netmask := uncidr(sn.CIDR)
		routes := []any{}
		if sn.GatewayIP != "" {
			zero := "0.0.0.0"
			if sn.IPVersion == 6 {
				zero = "::0"
			}
			routes = append(routes, pyjson.DictOf("network", zero, "netmask", zero, "gateway", sn.GatewayIP))
		}
		for _, hr := range sn.HostRoutes {
			n, m := uncidr(hr.Destination)
			routes = append(routes, pyjson.DictOf("network", n, "netmask", m, "gateway", hr.NextHop))
		}
		data["networks"] = append(data["networks"], pyjson.DictOf(
			"id", fip.SubnetID, "network_id", port.NetworkID, "type", fmt.Sprintf("ipv%d", sn.IPVersion),
			"link", portID, "ip_address", fip.IPAddress, "netmask", netmask, "routes", routes,
		))
	}
	return data, nil
}

func (o *neutronOps) portDataError(ctx context.Context, msg string, err error) error {
	if !isNeutronAnswer(err) {
		return err
	}
	o.log.ErrorContext(ctx, msg)
	return networkError("%s", msg)
}

// uncidr is neutron._uncidr: a CIDR's network address and netmask in
// dotted (or IPv6) notation.
func uncidr(cidr string) (string, string) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return cidr, ""
	}
	p = p.Masked()
	n := p.Addr().BitLen()
	mask := make([]byte, n/8)
	for i := range p.Bits() {
		mask[i/8] |= 0x80 >> (i % 8)
	}
	m, _ := netip.AddrFromSlice(mask)
	return p.Addr().String(), m.String()
}

// pyList renders strings as a Python list repr.
func pyList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + s + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// cloneDict copies a dict one level deep (nil gives an empty dict).
func cloneDict(d *pyjson.Dict) *pyjson.Dict {
	if d == nil {
		return pyjson.NewDict(1)
	}
	return d.Clone()
}
