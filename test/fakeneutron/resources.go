package fakeneutron

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"strings"
)

// The resources: what Neutron (ML2 with the binding, provider, port
// security, extra DHCP options and standard attribute extensions) returns
// for them, and the checks of Neutron's API layer that clients run into.

// vnicTypes are the binding:vnic_type values Neutron accepts.
func vnicTypes() []string {
	return []string{"normal", "direct", "macvtap", "baremetal", "direct-physical", "virtio-forwarder",
		"smart-nic", "vdpa", "accelerator-direct", "accelerator-direct-physical", "remote-managed"}
}

func (s *Server) stamp(o map[string]any, created bool) {
	now := s.opts.Now().UTC().Format("2006-01-02T15:04:05Z")
	if created {
		o["created_at"] = now
		o["revision_number"] = int64(0)
	} else {
		rev, _ := o["revision_number"].(int64)
		o["revision_number"] = rev + 1
	}
	o["updated_at"] = now
}

func (s *Server) add(coll string, o map[string]any) {
	c := s.colls[coll]
	id := o["id"].(string)
	c.order = append(c.order, id)
	c.items[id] = o
}

// checkAttributes refuses attributes a resource doesn't have, as
// Neutron's API layer does.
func checkAttributes(body map[string]any, allowed []string) error {
	var extra []string
	for k := range body {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return badRequest("Unrecognized attribute(s) '%s'", strings.Join(extra, ", "))
	}
	return nil
}

// projectOf is the project a new resource belongs to.
func projectOf(body map[string]any, project string) string {
	for _, k := range []string{"project_id", "tenant_id"} {
		if v, ok := body[k].(string); ok && v != "" {
			return v
		}
	}
	return project
}

func (s *Server) newID(body map[string]any) string {
	if id, ok := body["id"].(string); ok && id != "" {
		return id
	}
	return s.opts.NewID()
}

func networkUpdatable() []string {
	return []string{"name", "admin_state_up", "shared", "description", "mtu", "port_security_enabled",
		"router:external", "provider:network_type", "provider:physical_network", "provider:segmentation_id",
		"segments", "dns_domain", "qos_policy_id", "is_default"}
}

func (s *Server) createNetwork(body map[string]any, project string) (map[string]any, error) {
	allowed := append(networkUpdatable(), "id", "tenant_id", "project_id", "availability_zone_hints")
	if err := checkAttributes(body, allowed); err != nil {
		return nil, err
	}
	p := projectOf(body, project)
	n := map[string]any{
		"id": s.newID(body), "name": "", "admin_state_up": true, "status": "ACTIVE", "subnets": []any{},
		"shared": false, "tenant_id": p, "project_id": p, "mtu": int64(1500), "router:external": false,
		"description": "", "port_security_enabled": true, "availability_zone_hints": []any{},
		"availability_zones": []any{"nova"}, "ipv4_address_scope": nil, "ipv6_address_scope": nil,
		"l2_adjacency": true, "qos_policy_id": nil, "tags": []any{},
		"provider:network_type": "flat", "provider:physical_network": nil, "provider:segmentation_id": nil,
	}
	for k, v := range body {
		if k != "tenant_id" && k != "project_id" {
			n[k] = v
		}
	}
	if _, dup := s.colls["networks"].items[n["id"].(string)]; dup {
		return nil, errorf(http.StatusConflict, "HTTPConflict", "Network %s already exists.", n["id"])
	}
	s.stamp(n, true)
	s.add("networks", n)
	return n, nil
}

func (s *Server) createSubnet(body map[string]any, project string) (map[string]any, error) {
	allowed := []string{"id", "name", "network_id", "cidr", "ip_version", "gateway_ip", "allocation_pools",
		"dns_nameservers", "host_routes", "enable_dhcp", "ipv6_address_mode", "ipv6_ra_mode", "tenant_id",
		"project_id", "description", "subnetpool_id", "segment_id", "service_types"}
	if err := checkAttributes(body, allowed); err != nil {
		return nil, err
	}
	for _, req := range []string{"network_id", "cidr"} {
		if _, ok := body[req]; !ok {
			return nil, badRequest("Failed to parse request. Required attribute '%s' not specified", req)
		}
	}
	netID, _ := body["network_id"].(string)
	network, ok := s.colls["networks"].items[netID]
	if !ok {
		return nil, notFound(s.colls["networks"].kind, netID)
	}
	prefix, err := netip.ParsePrefix(fmt.Sprint(body["cidr"]))
	if err != nil {
		return nil, badRequest("Invalid input for cidr. Reason: '%v' is not a valid IP subnet.", body["cidr"])
	}
	prefix = prefix.Masked()
	version := int64(4)
	if prefix.Addr().Is6() {
		version = 6
	}
	first := prefix.Addr().Next()
	last := lastAddr(prefix)
	p := projectOf(body, project)
	sn := map[string]any{
		"id": s.newID(body), "name": "", "network_id": netID, "cidr": prefix.String(), "ip_version": version,
		"gateway_ip": first.String(), "allocation_pools": []any{map[string]any{"start": first.Next().String(), "end": last.String()}},
		"dns_nameservers": []any{}, "host_routes": []any{}, "enable_dhcp": true, "ipv6_address_mode": nil,
		"ipv6_ra_mode": nil, "tenant_id": p, "project_id": p, "description": "", "subnetpool_id": nil,
		"segment_id": nil, "service_types": []any{}, "tags": []any{},
	}
	for k, v := range body {
		if k != "tenant_id" && k != "project_id" && k != "cidr" && k != "ip_version" {
			sn[k] = v
		}
	}
	s.stamp(sn, true)
	s.add("subnets", sn)
	network["subnets"] = append(network["subnets"].([]any), sn["id"])
	return sn, nil
}

// lastAddr is the last usable address of an IPv4 prefix (before the
// broadcast address), or the last of an IPv6 one.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().AsSlice()
	bits := p.Bits()
	for i := range a {
		for b := 7; b >= 0; b-- {
			if i*8+(7-b) >= bits {
				a[i] |= 1 << b
			}
		}
	}
	last, _ := netip.AddrFromSlice(a)
	if last.Is4() {
		last = last.Prev()
	}
	return last
}

func portAttributes() []string {
	return []string{"name", "admin_state_up", "mac_address", "fixed_ips", "device_id", "device_owner",
		"security_groups", "binding:host_id", "binding:vnic_type", "binding:profile", "extra_dhcp_opts",
		"allowed_address_pairs", "description", "port_security_enabled", "dns_name", "qos_policy_id",
		"propagate_uplink_status"}
}

func (s *Server) createPort(body map[string]any, project string) (map[string]any, error) {
	if err := checkAttributes(body, append(portAttributes(), "id", "network_id", "tenant_id", "project_id")); err != nil {
		return nil, err
	}
	netID, ok := body["network_id"].(string)
	if !ok {
		return nil, badRequest("Failed to parse request. Required attribute 'network_id' not specified")
	}
	if _, ok := s.colls["networks"].items[netID]; !ok {
		return nil, notFound(s.colls["networks"].kind, netID)
	}
	p := projectOf(body, project)
	port := map[string]any{
		"id": s.newID(body), "name": "", "network_id": netID, "tenant_id": p, "project_id": p,
		"admin_state_up": true, "status": "DOWN", "device_id": "", "device_owner": "", "fixed_ips": []any{},
		"allowed_address_pairs": []any{}, "extra_dhcp_opts": []any{}, "description": "",
		"security_groups": []any{}, "port_security_enabled": true, "binding:host_id": "",
		"binding:vnic_type": "normal", "binding:profile": map[string]any{}, "binding:vif_type": "unbound",
		"binding:vif_details": map[string]any{}, "dns_name": "", "qos_policy_id": nil, "tags": []any{},
		"propagate_uplink_status": false, "ip_allocation": "immediate",
	}
	if _, ok := body["security_groups"]; !ok {
		port["security_groups"] = []any{s.ensureDefaultSecurityGroup(p)["id"]}
	}
	if _, ok := body["mac_address"]; !ok {
		port["mac_address"] = s.newMAC()
	}
	if _, ok := body["fixed_ips"]; !ok {
		ips, err := s.allocateIPs(netID, nil)
		if err != nil {
			return nil, err
		}
		port["fixed_ips"] = ips
	}
	if err := s.applyPortChanges(port, body, true); err != nil {
		return nil, err
	}
	if _, dup := s.colls["ports"].items[port["id"].(string)]; dup {
		return nil, errorf(http.StatusConflict, "HTTPConflict", "Port %s already exists.", port["id"])
	}
	s.stamp(port, true)
	s.add("ports", port)
	return port, nil
}

func (s *Server) newMAC() string {
	for {
		s.macs++
		mac := fmt.Sprintf("fa:16:3e:%02x:%02x:%02x", (s.macs>>16)&0xff, (s.macs>>8)&0xff, s.macs&0xff)
		if !s.macInUse("", mac, "") {
			return mac
		}
	}
}

func (s *Server) macInUse(netID, mac, exceptPort string) bool {
	for id, p := range s.colls["ports"].items {
		if id != exceptPort && (netID == "" || p["network_id"] == netID) && strings.EqualFold(fmt.Sprint(p["mac_address"]), mac) {
			return true
		}
	}
	return false
}

// allocateIPs gives a new port an address on each of the network's
// subnets (want nil) or on the requested ones.
func (s *Server) allocateIPs(netID string, want []any) ([]any, error) {
	network := s.colls["networks"].items[netID]
	used := map[string]bool{}
	for _, p := range s.colls["ports"].items {
		for _, ip := range p["fixed_ips"].([]any) {
			used[fmt.Sprint(ip.(map[string]any)["ip_address"])] = true
		}
	}
	if want == nil {
		for _, sid := range network["subnets"].([]any) {
			if sn := s.colls["subnets"].items[fmt.Sprint(sid)]; sn["ip_version"] == int64(4) {
				want = append(want, map[string]any{"subnet_id": sid})
				break
			}
		}
	}
	out := []any{}
	for _, w := range want {
		req, ok := w.(map[string]any)
		if !ok {
			return nil, badRequest("Invalid input for fixed_ips. Reason: Invalid data format for fixed IP: '%v'.", w)
		}
		subnetID, _ := req["subnet_id"].(string)
		addr, _ := req["ip_address"].(string)
		if subnetID == "" && addr != "" {
			ip, err := netip.ParseAddr(addr)
			if err != nil {
				return nil, badRequest("Invalid input for fixed_ips. Reason: '%s' is not a valid IP address.", addr)
			}
			for _, sid := range network["subnets"].([]any) {
				if pf, err := netip.ParsePrefix(fmt.Sprint(s.colls["subnets"].items[fmt.Sprint(sid)]["cidr"])); err == nil && pf.Contains(ip) {
					subnetID = fmt.Sprint(sid)
				}
			}
		}
		sn, ok := s.colls["subnets"].items[subnetID]
		if !ok || sn["network_id"] != netID {
			return nil, badRequest("Invalid input for operation: Failed to create port on network %s, because fixed_ips included invalid subnet %s.", netID, subnetID)
		}
		if addr == "" {
			pool := sn["allocation_pools"].([]any)[0].(map[string]any)
			a, _ := netip.ParseAddr(fmt.Sprint(pool["start"]))
			end, _ := netip.ParseAddr(fmt.Sprint(pool["end"]))
			for ; a.IsValid() && a.Compare(end) <= 0 && used[a.String()]; a = a.Next() {
			}
			if !a.IsValid() || a.Compare(end) > 0 {
				return nil, errorf(http.StatusConflict, "IpAddressGenerationFailure", "No more IP addresses available on network %s.", netID)
			}
			addr = a.String()
		} else if used[addr] {
			return nil, errorf(http.StatusConflict, "IpAddressAlreadyAllocated", "IP address %s already allocated in subnet %s", addr, subnetID)
		}
		used[addr] = true
		out = append(out, map[string]any{"subnet_id": subnetID, "ip_address": addr})
	}
	return out, nil
}

// applyPortChanges checks and applies the writable attributes of a port
// create or update.
func (s *Server) applyPortChanges(port, changes map[string]any, creating bool) error {
	id, _ := port["id"].(string)
	netID := port["network_id"].(string)
	if v, ok := changes["binding:vnic_type"]; ok {
		vt, _ := v.(string)
		if !slices.Contains(vnicTypes(), vt) {
			return badRequest("Invalid input for binding:vnic_type. Reason: '%v' is not in %s.", v, pyList(vnicTypes()))
		}
	}
	if v, ok := changes["binding:profile"]; ok && v != nil {
		if _, isMap := v.(map[string]any); !isMap {
			return badRequest("Invalid input for binding:profile. Reason: '%v' is not a dictionary.", v)
		}
	}
	if v, ok := changes["mac_address"]; ok {
		switch mac := v.(type) {
		case nil:
			if creating {
				return badRequest("Invalid input for mac_address. Reason: 'None' is not a valid MAC address.")
			}
			changes["mac_address"] = s.newMAC()
		case string:
			hw, err := net.ParseMAC(mac)
			if err != nil || len(hw) != 6 {
				return badRequest("Invalid input for mac_address. Reason: '%s' is not a valid MAC address.", mac)
			}
			changes["mac_address"] = hw.String()
		default:
			return badRequest("Invalid input for mac_address. Reason: '%v' is not a valid MAC address.", v)
		}
		newMAC := changes["mac_address"].(string)
		old, _ := port["mac_address"].(string)
		// ML2 checks the binding the port has, before this request's
		// binding changes: unbinding and changing the MAC in one request
		// fails too.
		if !creating && newMAC != old && port["binding:vif_type"] != "unbound" && port["binding:vif_type"] != "binding_failed" {
			return errorf(http.StatusConflict, "PortBound",
				"Unable to complete operation on port %s, port is already bound, port type: %s, old_mac %s, new_mac %s.",
				id, port["binding:vif_type"], old, newMAC)
		}
		if s.macInUse(netID, newMAC, id) {
			return errorf(http.StatusConflict, "MacAddressInUse",
				"Unable to complete operation for network %s. The mac address %s is in use.", netID, newMAC)
		}
	}
	if v, ok := changes["fixed_ips"]; ok && !creating {
		l, _ := v.([]any)
		ips, err := s.allocateIPs(netID, l)
		if err != nil {
			return err
		}
		changes["fixed_ips"] = ips
	} else if ok {
		l, _ := v.([]any)
		if len(l) > 0 {
			ips, err := s.allocateIPs(netID, l)
			if err != nil {
				return err
			}
			changes["fixed_ips"] = ips
		} else {
			changes["fixed_ips"] = []any{}
		}
	}
	for k, v := range changes {
		switch k {
		case "id", "network_id", "tenant_id", "project_id":
			continue
		case "binding:profile":
			if v == nil {
				v = map[string]any{}
			}
		case "binding:host_id", "device_id", "device_owner", "name", "description", "dns_name":
			if v == nil {
				v = ""
			}
		}
		port[k] = v
	}
	// ML2 binds a port once it has a host; for a baremetal port the
	// mechanism driver's VIF type is "other", and the port goes up.
	if host, _ := port["binding:host_id"].(string); host != "" {
		port["binding:vif_type"] = "other"
		port["status"] = "ACTIVE"
	} else {
		port["binding:vif_type"] = "unbound"
		port["binding:vif_details"] = map[string]any{}
		port["status"] = "DOWN"
	}
	return nil
}

func (s *Server) updatePort(port, changes map[string]any) error {
	for _, ro := range []string{"id", "network_id", "tenant_id", "project_id", "status", "binding:vif_type",
		"binding:vif_details", "created_at", "updated_at", "revision_number"} {
		if _, ok := changes[ro]; ok {
			return badRequest("Cannot update read-only attribute %s", ro)
		}
	}
	if err := checkAttributes(changes, portAttributes()); err != nil {
		return err
	}
	// Work on a copy: a refused change leaves the port as it was.
	work := clone(port)
	if err := s.applyPortChanges(work, changes, false); err != nil {
		return err
	}
	s.stamp(work, false)
	for k := range port {
		delete(port, k)
	}
	for k, v := range work {
		port[k] = v
	}
	return nil
}

func (s *Server) updateSimple(o, changes map[string]any, allowed []string) error {
	for k := range changes {
		if !slices.Contains(allowed, k) {
			if _, known := o[k]; known {
				return badRequest("Cannot update read-only attribute %s", k)
			}
		}
	}
	if err := checkAttributes(changes, allowed); err != nil {
		return err
	}
	for k, v := range changes {
		o[k] = v
	}
	s.stamp(o, false)
	return nil
}

func (s *Server) ensureDefaultSecurityGroup(project string) map[string]any {
	for _, id := range s.colls["security-groups"].order {
		sg := s.colls["security-groups"].items[id]
		if sg["name"] == "default" && sg["project_id"] == project {
			return sg
		}
	}
	sg, _ := s.createSecurityGroup(map[string]any{"name": "default", "description": "Default security group"}, project)
	return sg
}

func (s *Server) createSecurityGroup(body map[string]any, project string) (map[string]any, error) {
	if err := checkAttributes(body, []string{"id", "name", "description", "tenant_id", "project_id", "stateful"}); err != nil {
		return nil, err
	}
	p := projectOf(body, project)
	sg := map[string]any{
		"id": s.newID(body), "name": "", "description": "", "tenant_id": p, "project_id": p,
		"security_group_rules": []any{}, "stateful": true, "tags": []any{},
	}
	for k, v := range body {
		if k != "tenant_id" && k != "project_id" {
			sg[k] = v
		}
	}
	s.stamp(sg, true)
	s.add("security-groups", sg)
	return sg, nil
}

// delete removes an object. A network goes with its subnets and its
// network-owned ports; ports of other owners keep it in use.
func (s *Server) delete(c *collection, o map[string]any) error {
	id := o["id"].(string)
	switch c.kind.path {
	case "networks":
		var owned []string
		for pid, p := range s.colls["ports"].items {
			if p["network_id"] != id {
				continue
			}
			if !strings.HasPrefix(fmt.Sprint(p["device_owner"]), "network:") {
				return errorf(http.StatusConflict, "NetworkInUse",
					"Unable to complete operation on network %s. There are one or more ports still in use on the network.", id)
			}
			owned = append(owned, pid)
		}
		for _, pid := range owned {
			s.remove(s.colls["ports"], pid)
		}
		for _, sid := range o["subnets"].([]any) {
			s.remove(s.colls["subnets"], fmt.Sprint(sid))
		}
	case "subnets":
		for _, p := range s.colls["ports"].items {
			for _, ip := range p["fixed_ips"].([]any) {
				if ip.(map[string]any)["subnet_id"] == id {
					return errorf(http.StatusConflict, "SubnetInUse",
						"Unable to complete operation on subnet %s: One or more ports have an IP allocation from this subnet.", id)
				}
			}
		}
		if n, ok := s.colls["networks"].items[fmt.Sprint(o["network_id"])]; ok {
			n["subnets"] = slices.DeleteFunc(n["subnets"].([]any), func(x any) bool { return x == id })
		}
	case "security-groups":
		for _, p := range s.colls["ports"].items {
			if slices.Contains(p["security_groups"].([]any), any(id)) {
				return errorf(http.StatusConflict, "SecurityGroupInUse", "Security Group %s in use.", id)
			}
		}
	}
	s.remove(c, id)
	return nil
}

func (s *Server) remove(c *collection, id string) {
	delete(c.items, id)
	c.order = slices.DeleteFunc(c.order, func(x string) bool { return x == id })
}

// pyList renders names as a Python list repr.
func pyList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
