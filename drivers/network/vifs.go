package network

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// The VIF handling of Ironic's NeutronVIFPortIDMixin
// (ironic/drivers/modules/network/common.py): a VIF is a Neutron port
// whose ID is recorded in the internal_info of the Ironic port or port
// group it is attached to.

// tenantVIFKey is the internal_info key of the attached VIF.
const tenantVIFKey = "tenant_vif_port_id"

// portLike is an Ironic port or port group.
type portLike struct {
	port *drivers.Port
	pg   *drivers.Portgroup
}

func (pl portLike) uuid() string {
	if pl.pg != nil {
		return pl.pg.UUID
	}
	return pl.port.UUID
}

func (pl portLike) address() string {
	if pl.pg != nil {
		return pl.pg.Address
	}
	return pl.port.Address
}

func (pl portLike) internalInfo() *pyjson.Dict {
	if pl.pg != nil {
		return pl.pg.InternalInfo
	}
	return pl.port.InternalInfo
}

// className is the object's Python class name, as VifAlreadyAttached
// names it.
func (pl portLike) className() string {
	if pl.pg != nil {
		return "Portgroup"
	}
	return "Port"
}

// vifOf is the tenant VIF recorded in internal_info, "" for none.
func vifOf(info *pyjson.Dict) string {
	s, _ := info.Get(tenantVIFKey).(string)
	return s
}

// vifList is VIFPortIDMixin.vif_list: ports first, then port groups.
func vifList(task drivers.Task) []drivers.VIF {
	vifs := []drivers.VIF{}
	for _, p := range task.Ports() {
		if v := vifOf(p.InternalInfo); v != "" {
			vifs = append(vifs, drivers.VIF{"id": v})
		}
	}
	for _, pg := range task.Portgroups() {
		if v := vifOf(pg.InternalInfo); v != "" {
			vifs = append(vifs, drivers.VIF{"id": v})
		}
	}
	return vifs
}

// currentVIF is VIFPortIDMixin.get_current_vif.
func currentVIF(task drivers.Task, uuid string) string {
	var info *pyjson.Dict
	for _, p := range task.Ports() {
		if p.UUID == uuid {
			info = p.InternalInfo
		}
	}
	for _, pg := range task.Portgroups() {
		if pg.UUID == uuid {
			info = pg.InternalInfo
		}
	}
	for _, k := range []string{"cleaning_vif_port_id", "provisioning_vif_port_id", "rescuing_vif_port_id",
		"inspection_vif_port_id", tenantVIFKey} {
		if v, _ := info.Get(k).(string); v != "" {
			return v
		}
	}
	return ""
}

// saveVIF records (vif != "") or clears the tenant VIF of a port or port
// group. Clearing also drops the legacy extra.vif_port_id.
func saveVIF(ctx context.Context, task drivers.Task, pl portLike, vif string) error {
	update := func(info, extra *pyjson.Dict) (*pyjson.Dict, *pyjson.Dict) {
		info = cloneDict(info)
		if vif != "" {
			info.Set(tenantVIFKey, vif)
			return info, extra
		}
		info.Delete(tenantVIFKey)
		extra = cloneDict(extra)
		extra.Delete("vif_port_id")
		return info, extra
	}
	if pl.pg != nil {
		pg := *pl.pg
		pg.InternalInfo, pg.Extra = update(pg.InternalInfo, pg.Extra)
		return task.SavePortgroup(ctx, pg)
	}
	p := *pl.port
	p.InternalInfo, p.Extra = update(p.InternalInfo, p.Extra)
	return task.SavePort(ctx, p)
}

// checkVIFAttached is common._vif_attached: VifAlreadyAttached when vif is
// the object's VIF, else whether another VIF is.
func checkVIFAttached(pl portLike, vif string) (bool, error) {
	attached, ok := pl.internalInfo().Lookup(tenantVIFKey)
	if ok && attached == vif {
		return false, ironic.Errorf(ironic.VifAlreadyAttached,
			"Unable to attach VIF because VIF %s is already attached to Ironic %s %s", vif, pl.className(), pl.uuid())
	}
	return ok && attached != nil, nil
}

// physnetAllowed is common._is_port_physnet_allowed.
func physnetAllowed(p drivers.Port, physnets map[string]bool) bool {
	return len(physnets) == 0 || p.PhysicalNetwork == "" || physnets[p.PhysicalNetwork]
}

// freePortLikes is common._get_free_portgroups_and_ports: the ports and
// port groups vif may be attached to, in the order Ironic considers them.
func (o *neutronOps) freePortLikes(ctx context.Context, task drivers.Task, vif string, physnets map[string]bool, info drivers.VIF) ([]portLike, error) {
	var free []portLike
	byGroup := map[string][]portLike{}
	unusable := map[string]bool{}
	portUUID, _ := info["port_uuid"].(string)
	pgUUID := ""
	if _, ok := info["port_uuid"]; !ok {
		pgUUID, _ = info["portgroup_uuid"].(string)
	}
	ports := task.Ports()
	for i := range ports {
		p := &ports[i]
		if (portUUID != "" && portUUID != p.UUID) || !o.validatePortInfo(ctx, task, *p) {
			continue
		}
		other, err := checkVIFAttached(portLike{port: p}, vif)
		if err != nil {
			return nil, err
		}
		if other {
			unusable[p.PortgroupUUID] = true
			continue
		}
		if !physnetAllowed(*p, physnets) {
			continue
		}
		if p.PortgroupUUID == "" && pgUUID == "" {
			free = append(free, portLike{port: p})
		} else {
			byGroup[p.PortgroupUUID] = append(byGroup[p.PortgroupUUID], portLike{port: p})
		}
	}
	if portUUID == "" {
		pgs := task.Portgroups()
		for i := range pgs {
			pg := &pgs[i]
			if pgUUID != "" && pgUUID != pg.UUID {
				continue
			}
			other, err := checkVIFAttached(portLike{pg: pg}, vif)
			if err != nil {
				return nil, err
			}
			switch {
			case other:
				// Another VIF is attached to the group.
			case unusable[pg.UUID]:
				// Its ports have VIFs: consider them instead.
				if pgUUID == "" {
					free = append(free, byGroup[pg.UUID]...)
				}
			case len(byGroup[pg.UUID]) > 0:
				free = append(free, portLike{pg: pg})
			}
		}
	}
	return free, nil
}

// physnetsOfPortgroup is network.get_physnets_by_portgroup_id: the
// physical networks of a port group's ports ("" for None), which must
// agree.
func physnetsOfPortgroup(task drivers.Task, pgUUID string) ([]string, error) {
	var nets []string
	for _, p := range task.Ports() {
		if p.PortgroupUUID == pgUUID && !slices.Contains(nets, p.PhysicalNetwork) {
			nets = append(nets, p.PhysicalNetwork)
		}
	}
	if len(nets) > 1 {
		names := make([]string, len(nets))
		for i, n := range nets {
			names[i] = pyNone(n)
		}
		return nil, ironic.Errorf(ironic.PortgroupPhysnetInconsistent,
			"Port group %s has member ports with inconsistent physical networks (%s). All ports in a port group must have the same physical network.",
			pgUUID, strings.Join(names, ", "))
	}
	return nets, nil
}

func pyNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// freePortLike is common.get_free_port_like_object: the best free port or
// port group, preferring a matching physical network, then port groups,
// then PXE-enabled ports.
func (o *neutronOps) freePortLike(ctx context.Context, task drivers.Task, vif string, physnets map[string]bool, info drivers.VIF) (portLike, error) {
	free, err := o.freePortLikes(ctx, task, vif, physnets, info)
	if err != nil {
		return portLike{}, err
	}
	if len(free) == 0 {
		return portLike{}, ironic.Errorf(ironic.NoFreePhysicalPorts, "Unable to attach VIF %s, not enough free physical ports.", vif)
	}
	type key struct{ physnet, pg, pxe bool }
	keys := make([]key, len(free))
	for i, pl := range free {
		if pl.pg != nil {
			nets, err := physnetsOfPortgroup(task, pl.pg.UUID)
			if err != nil {
				return portLike{}, err
			}
			net := ""
			if len(nets) > 0 {
				net = nets[0]
			}
			keys[i] = key{physnet: net != "" && physnets[net], pg: true, pxe: true}
		} else {
			keys[i] = key{physnet: pl.port.PhysicalNetwork != "" && physnets[pl.port.PhysicalNetwork], pxe: pl.port.PXEEnabled}
		}
	}
	less := func(a, b bool) int {
		switch {
		case a == b:
			return 0
		case a:
			return -1
		}
		return 1
	}
	idx := make([]int, len(free))
	for i := range idx {
		idx[i] = i
	}
	// Python's stable sort with reverse=True: greatest key first, equal
	// keys in their original order.
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := keys[idx[i]], keys[idx[j]]
		if c := less(a.physnet, b.physnet); c != 0 {
			return c < 0
		}
		if c := less(a.pg, b.pg); c != 0 {
			return c < 0
		}
		return less(a.pxe, b.pxe) < 0
	})
	return free[idx[0]], nil
}

// vifAttach is NeutronVIFPortIDMixin.vif_attach.
func (o *neutronOps) vifAttach(ctx context.Context, task drivers.Task, info drivers.VIF) error {
	vif, _ := info["id"].(string)
	physnets := map[string]bool{}
	if slices.ContainsFunc(task.Ports(), func(p drivers.Port) bool { return p.PhysicalNetwork != "" }) {
		var err error
		if physnets, err = o.physnetsByPortUUID(ctx, vif); err != nil {
			return err
		}
		if len(physnets) > 1 {
			shared := 0
			seen := map[string]bool{}
			for _, p := range task.Ports() {
				if p.PhysicalNetwork != "" && physnets[p.PhysicalNetwork] && !seen[p.PhysicalNetwork] {
					seen[p.PhysicalNetwork] = true
					shared++
				}
			}
			if shared > 1 {
				return ironic.Errorf(ironic.VifInvalidForAttach,
					"Unable to attach VIF %s to node %s. Reason: Node has ports which map to multiple segments of the routed network to which the VIF is attached. Currently neutron only supports hosts which map to one segment of a routed network",
					vif, task.NodeUUID())
			}
		}
	}
	pl, err := o.freePortLike(ctx, task, vif, physnets, info)
	if err != nil {
		return err
	}
	if addr := pl.address(); addr != "" {
		if err := o.updatePortAddress(ctx, vif, addr); err != nil {
			if !ironic.IsClass(err, ironic.FailedToUpdateMacOnPort) {
				return err
			}
			return networkError("Unable to attach VIF %s because Ironic can not update Neutron port %s MAC address to match physical MAC address %s",
				vif, vif, addr)
		}
	}
	if err := saveVIF(ctx, task, pl, vif); err != nil {
		return err
	}
	if task.ProvisionState() == states.Active {
		// The saved object, with the VIF recorded.
		return o.plugPortToTenantNetwork(ctx, task, refreshed(task, pl.uuid()))
	}
	return nil
}

// refreshed finds the port or port group with uuid in the task.
func refreshed(task drivers.Task, uuid string) portLike {
	ports := task.Ports()
	for i := range ports {
		if ports[i].UUID == uuid {
			return portLike{port: &ports[i]}
		}
	}
	pgs := task.Portgroups()
	for i := range pgs {
		if pgs[i].UUID == uuid {
			return portLike{pg: &pgs[i]}
		}
	}
	return portLike{}
}

// plugPortToTenantNetwork is common.plug_port_to_tenant_network: the VIF
// is bound to the node, with the switch ports in its binding profile.
func (o *neutronOps) plugPortToTenantNetwork(ctx context.Context, task drivers.Task, pl portLike) error {
	vif := vifOf(pl.internalInfo())
	if vif == "" {
		return ironic.Errorf(ironic.VifNotAttached, "Tenant VIF is not associated with %s %s", strings.ToLower(pl.className()), pl.uuid())
	}
	node := task.NodeUUID()
	links := []any{}
	var group map[string]any
	var clientID any
	smartNIC := false
	if pl.pg != nil {
		for _, p := range task.Ports() {
			if p.PortgroupUUID == pl.pg.UUID {
				links = append(links, llcMap(p.LocalLinkConnection))
			}
		}
		group = localGroupInformation(*pl.pg)
	} else {
		links = append(links, llcMap(pl.port.LocalLinkConnection))
		if cid := pl.port.Extra.Get("client-id"); pyjson.Truthy(cid) {
			clientID = cid
		}
		smartNIC = pl.port.IsSmartNIC
	}
	attrs := map[string]any{"binding:vnic_type": vnicBaremetal, "binding:host_id": node}
	if addr := pl.address(); addr != "" {
		attrs["mac_address"] = addr
	}
	profile := map[string]any{"local_link_information": links}
	if len(group) > 0 {
		profile["local_group_information"] = group
	}
	attrs["binding:profile"] = profile
	if clientID != nil {
		attrs["extra_dhcp_opts"] = []any{map[string]any{"opt_name": dhcpClientID, "opt_value": clientID}}
	}
	if smartNIC {
		host, _ := links[0].(map[string]any)["hostname"]
		attrs["binding:host_id"] = host
		attrs["binding:vnic_type"] = vnicSmartNIC
		if err := o.waitForHostAgent(ctx, fmt.Sprint(host)); err != nil {
			return err
		}
	}
	_, err := o.updatePort(ctx, vif, attrs)
	if err == nil && smartNIC {
		err = o.waitForPortStatus(ctx, vif, "ACTIVE")
	}
	if err != nil && isNeutronAnswer(err) {
		msg := fmt.Sprintf("Could not add public network VIF %s to node %s, possible network issue. %s", vif, node, err)
		o.log.ErrorContext(ctx, msg)
		return networkError("%s", msg)
	}
	return err
}

// vifDetach is NeutronVIFPortIDMixin.vif_detach.
func (o *neutronOps) vifDetach(ctx context.Context, task drivers.Task, vif string) error {
	pl, ok := portLikeByVIF(task, vif)
	if !ok {
		return ironic.Errorf(ironic.VifNotAttached,
			"Unable to detach VIF %s from node %s because it is not attached to it.", vif, task.NodeUUID())
	}
	if err := saveVIF(ctx, task, pl, ""); err != nil {
		return err
	}
	if st := task.ProvisionState(); st == states.Active || st == states.Deleting {
		return o.unbindPort(ctx, vif)
	}
	return nil
}

// portLikeByVIF is VIFPortIDMixin._get_port_like_obj_by_vif_id: port
// groups first, then ports.
func portLikeByVIF(task drivers.Task, vif string) (portLike, bool) {
	pgs := task.Portgroups()
	for i := range pgs {
		if vifOf(pgs[i].InternalInfo) == vif {
			return portLike{pg: &pgs[i]}, true
		}
	}
	ports := task.Ports()
	for i := range ports {
		if vifOf(ports[i].InternalInfo) == vif {
			return portLike{port: &ports[i]}, true
		}
	}
	return portLike{}, false
}

// portChanged is NeutronVIFPortIDMixin.port_changed. p holds the new
// values; the task still has the stored ones, which tell what changed.
func (o *neutronOps) portChanged(ctx context.Context, task drivers.Task, p drivers.Port) error {
	var old *drivers.Port
	for _, q := range task.Ports() {
		if q.UUID == p.UUID {
			old = &q
			break
		}
	}
	changed := func(field string) bool {
		if old == nil {
			return true
		}
		switch field {
		case "address":
			return old.Address != p.Address
		case "extra":
			return !pyjson.Equal(old.Extra, p.Extra) // nil and {} alike
		case "pxe_enabled":
			return old.PXEEnabled != p.PXEEnabled
		case "portgroup_id":
			return old.PortgroupUUID != p.PortgroupUUID
		}
		return false
	}
	var pg *drivers.Portgroup
	if p.PortgroupUUID != "" {
		for _, g := range task.Portgroups() {
			if g.UUID == p.PortgroupUUID {
				pg = &g
				break
			}
		}
	}
	vif := vifOf(p.InternalInfo)
	if changed("address") && vif != "" {
		if err := o.updatePortAddress(ctx, vif, p.Address); err != nil {
			return err
		}
	}
	if changed("extra") {
		var oldCID any
		if old != nil {
			oldCID = old.Extra.Get("client-id")
		}
		newCID := p.Extra.Get("client-id")
		if !reflect.DeepEqual(oldCID, newCID) {
			switch {
			case vif != "":
				opt := map[string]any{"opt_name": dhcpClientID, "opt_value": newCID}
				if err := o.updatePortDHCPOpts(ctx, vif, []map[string]any{opt}); err != nil {
					return err
				}
			case task.InstanceUUID() != "":
				o.log.WarnContext(ctx, "No VIF found for instance port when attempting to update port client-id",
					"instance", task.InstanceUUID(), "port", p.UUID)
			}
		}
	}
	if pg != nil && (changed("pxe_enabled") || changed("portgroup_id") || vif != "") && !pg.StandalonePortsSupported {
		var reason []string
		if p.PXEEnabled {
			reason = append(reason, "'pxe_enabled' was set to True")
		}
		if vif != "" {
			reason = append(reason, "VIF "+vif+" is attached to the port")
		}
		if len(reason) > 0 {
			return ironic.Errorf(ironic.Conflict,
				"Port group %s doesn't support standalone ports. This port %s cannot be  a member of that port group because of: %s",
				pg.UUID, p.UUID, strings.Join(reason, ", "))
		}
	}
	return nil
}

// updatePortDHCPOpts is the DHCP provider's update_port_dhcp_opts: with
// the "neutron" provider the options matching the port's IP versions are
// set on the Neutron port; other providers do nothing.
func (o *neutronOps) updatePortDHCPOpts(ctx context.Context, vif string, opts []map[string]any) error {
	if o.cfg.DHCPProvider != "neutron" {
		return nil
	}
	fail := func(err error) error {
		if !isNeutronAnswer(err) {
			return err
		}
		o.log.ErrorContext(ctx, "Failed to update Neutron port", "port", vif, "error", err)
		return ironic.Errorf(ironic.FailedToUpdateDHCPOptOnPort, "Update DHCP options on port: %s failed.", vif)
	}
	port, err := o.api.GetPort(ctx, vif)
	if err != nil {
		return fail(err)
	}
	versions := map[int]bool{}
	for _, f := range port.FixedIPs {
		if a, err := netip.ParseAddr(f.IPAddress); err == nil {
			if a.Is4() {
				versions[4] = true
			} else {
				versions[6] = true
			}
		}
	}
	update := []any{}
	if len(port.FixedIPs) == 0 {
		o.log.ErrorContext(ctx, "Requested to update port, however port lacks an IP address", "port", vif)
	}
	for _, v := range []int{4, 6} {
		if !versions[v] {
			continue
		}
		for _, opt := range opts {
			want := 4
			if iv, ok := opt["ip_version"].(int); ok {
				want = iv
			}
			if want == v {
				update = append(update, opt)
			}
		}
	}
	if _, err := o.updatePort(ctx, vif, map[string]any{"extra_dhcp_opts": update}); err != nil {
		return fail(err)
	}
	return nil
}

// portgroupChanged is NeutronVIFPortIDMixin.portgroup_changed.
func (o *neutronOps) portgroupChanged(ctx context.Context, task drivers.Task, pg drivers.Portgroup) error {
	var old *drivers.Portgroup
	for _, g := range task.Portgroups() {
		if g.UUID == pg.UUID {
			old = &g
			break
		}
	}
	if (old == nil || old.Address != pg.Address) && pg.Address != "" {
		if vif := vifOf(pg.InternalInfo); vif != "" {
			if err := o.updatePortAddress(ctx, vif, pg.Address); err != nil {
				return err
			}
		}
	}
	if (old == nil || old.StandalonePortsSupported != pg.StandalonePortsSupported) && !pg.StandalonePortsSupported {
		for _, p := range task.Ports() {
			if p.PortgroupUUID != pg.UUID {
				continue
			}
			var reason []string
			if p.PXEEnabled {
				reason = append(reason, "'pxe_enabled' is set to True")
			}
			if vif := vifOf(p.InternalInfo); vif != "" {
				reason = append(reason, "VIF "+vif+" is attached to this port")
			}
			if len(reason) > 0 {
				return ironic.Errorf(ironic.Conflict,
					"standalone_ports_supported can not be set to False, because the port group %s contains port with %s",
					pg.UUID, strings.Join(reason, ", "))
			}
		}
	}
	return nil
}

// nodeNetworkData is NeutronVIFPortIDMixin.get_node_network_data: the
// node's static network_data if any, else what Neutron knows of the VIFs
// of its ports.
func (o *neutronOps) nodeNetworkData(ctx context.Context, task drivers.Task) (*pyjson.Dict, error) {
	if nd := task.NetworkData(); nd.Len() > 0 {
		return nd, nil
	}
	data := map[string][]any{}
	var order []string
	for _, p := range task.Ports() {
		vif := currentVIF(task, p.UUID)
		if vif == "" {
			continue
		}
		pd, err := o.portData(ctx, p.UUID, vif)
		if err != nil {
			return nil, err
		}
		for _, field := range []string{"links", "networks"} {
			if len(pd[field]) == 0 {
				continue
			}
			if _, ok := data[field]; !ok {
				order = append(order, field)
			}
			data[field] = append(data[field], pd[field]...)
		}
	}
	out := pyjson.NewDict(len(order))
	for _, k := range order {
		out.Set(k, data[k])
	}
	return out, nil
}
