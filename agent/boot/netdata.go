package boot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// NetworkData is the part of a config drive's
// openstack/latest/network_data.json (Nova's format, the one Ironic 21.4
// validates in a node's network_data and builds from Neutron's ports)
// that the ramdisk applies, read as glean (the tool the Ironic Python
// Agent's DIB ramdisks run at boot) reads it.
type NetworkData struct {
	Links    []NetLink    `json:"links"`
	Networks []NetNetwork `json:"networks"`
	Services []NetService `json:"services"`
}

// NetLink is an L2 link: "phy" (and every type that is neither "bond"
// nor "vlan": vif, ethernet, ovs, tap, bridge, ... are physical NICs to
// glean), "bond" or "vlan".
type NetLink struct {
	ID                 string   `json:"id"`
	Type               string   `json:"type"`
	EthernetMACAddress string   `json:"ethernet_mac_address"`
	MTU                *jsonInt `json:"mtu"`
	// VLAN links.
	VLANLink       string   `json:"vlan_link"`
	VLANID         *jsonInt `json:"vlan_id"`
	VLANMACAddress string   `json:"vlan_mac_address"`
	// Bond links.
	BondLinks          []string `json:"bond_links"`
	BondMode           string   `json:"bond_mode"`
	BondMiimon         *jsonInt `json:"bond_miimon"`
	BondXmitHashPolicy string   `json:"bond_xmit_hash_policy"`
	BondLACPRate       string   `json:"bond_lacp_rate"`
}

// NetNetwork is an L3 network on a link: "ipv4"/"ipv6" (static, with
// ip_address and netmask, or ip_address in CIDR form), "ipv4_dhcp",
// "ipv6_dhcp", "ipv6_slaac" (and glean's other DHCPv6 types).
type NetNetwork struct {
	ID        string       `json:"id"`
	Type      string       `json:"type"`
	Link      string       `json:"link"`
	IPAddress string       `json:"ip_address"`
	Netmask   string       `json:"netmask"`
	Routes    []NetRoute   `json:"routes"`
	Services  []NetService `json:"services"`
}

// NetRoute is a route of a network: network/netmask via gateway
// ("0.0.0.0"/"0.0.0.0" and "::"/"::" are the default routes).
type NetRoute struct {
	Network string `json:"network"`
	Netmask string `json:"netmask"`
	Gateway string `json:"gateway"`
}

// NetService is a service; "dns" ones go to /etc/resolv.conf.
type NetService struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// jsonInt is an integer that Nova's producers write as a number or a
// string ("vlan_id": "1"), or null.
type jsonInt struct {
	N   int
	Set bool
}

func (j *jsonInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*j = jsonInt{}
		return nil
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != float64(int(f)) {
		return fmt.Errorf("not an integer: %s", b)
	}
	*j = jsonInt{N: int(f), Set: true}
	return nil
}

func (j *jsonInt) get() int {
	if j == nil || !j.Set {
		return 0
	}
	return j.N
}

// ParseNetworkData reads network_data.json.
func ParseNetworkData(raw []byte) (NetworkData, error) {
	var nd NetworkData
	if err := json.Unmarshal(raw, &nd); err != nil {
		return NetworkData{}, fmt.Errorf("network_data.json: %w", err)
	}
	return nd, nil
}

// NetDevice is a network device the plan configures, in the order the
// plan lists them (physical NICs, then bonds, then VLANs).
type NetDevice struct {
	Name string
	Kind string // "phy", "bond" or "vlan"
	MAC  string // the address it has (phy) or is given (bond, vlan)
	MTU  int    // 0: leave it
	// VLANs: the parent device and the tag.
	Parent string
	VLANID int
	// Bonds: the mode and the enslaved devices.
	BondMode           string
	BondSlaves         []string
	BondMiimon         int
	BondXmitHashPolicy string
	BondLACPRate       string
}

// NetAddr is a static address on a device.
type NetAddr struct {
	Dev  string
	Addr netip.Prefix
}

// NetRouteEntry is a route through a device; Dst /0 is the default route.
type NetRouteEntry struct {
	Dev string
	Dst netip.Prefix
	Gw  netip.Addr
}

// NetPlan is what the ramdisk applies for a network_data.json on this
// machine's NICs.
type NetPlan struct {
	// Devices are created (bond, vlan), given their MTU and brought up,
	// in order.
	Devices []NetDevice
	Addrs   []NetAddr
	Routes  []NetRouteEntry
	// DHCP are the devices that get DHCPv4: those of ipv4_dhcp
	// networks, and (glean's fallback) the NICs network_data does not
	// name.
	DHCP []string
	// Manual are the devices of ipv6_dhcp/ipv6_slaac networks and
	// links without a network: they are brought up, and nothing more
	// (the kernel's SLAAC for ipv6_slaac; DHCPv6 is not supported).
	Manual []string
	// DNS are the nameservers of the "dns" services, top level and per
	// network, each once.
	DNS []netip.Addr
	// Problems are the parts of network_data that were skipped: links
	// whose MAC no NIC has, networks on unknown links, bad addresses.
	Problems []string
}

// PlanNetwork maps network_data onto the NICs of this machine as glean
// does: links are matched by MAC (ethernet_mac_address, lowercased);
// a VLAN is "<parent>.<vlan_id>" with vlan_mac_address; a bond is named
// after its link id and enslaves the NICs of its bond_links; a link
// without a network is only brought up; the NICs no link names get
// DHCP (glean's fallback). nics are the machine's NICs (no loopback).
func PlanNetwork(nd NetworkData, nics []Link) NetPlan {
	var p NetPlan
	byMAC := map[string]Link{}
	for _, l := range nics {
		byMAC[strings.ToLower(l.MAC)] = l
	}
	linkByID := map[string]NetLink{}
	devName := map[string]string{} // link id → device name
	named := map[string]bool{}     // NIC names network_data covers
	problem := func(format string, args ...any) { p.Problems = append(p.Problems, fmt.Sprintf(format, args...)) }
	for _, l := range nd.Links {
		linkByID[l.ID] = l
	}
	// Physical links first, then bonds, then VLANs (whose parent may be
	// a bond).
	for _, l := range nd.Links {
		if l.Type == "bond" || l.Type == "vlan" {
			continue
		}
		mac := strings.ToLower(l.EthernetMACAddress)
		nic, ok := byMAC[mac]
		if !ok {
			problem("link %q: no NIC has the MAC %q", l.ID, l.EthernetMACAddress)
			continue
		}
		devName[l.ID] = nic.Name
		named[nic.Name] = true
		p.Devices = append(p.Devices, NetDevice{Name: nic.Name, Kind: "phy", MAC: mac, MTU: l.MTU.get()})
	}
	for _, l := range nd.Links {
		if l.Type != "bond" {
			continue
		}
		d := NetDevice{Name: l.ID, Kind: "bond", MAC: strings.ToLower(l.EthernetMACAddress), MTU: l.MTU.get(),
			BondMode: l.BondMode, BondMiimon: l.BondMiimon.get(), BondXmitHashPolicy: l.BondXmitHashPolicy, BondLACPRate: l.BondLACPRate}
		for _, s := range l.BondLinks {
			if n, ok := devName[s]; ok {
				d.BondSlaves = append(d.BondSlaves, n)
			} else {
				problem("bond %q: member link %q is not a NIC of this machine", l.ID, s)
			}
		}
		if len(d.BondSlaves) == 0 {
			problem("bond %q: no member NIC; skipped", l.ID)
			continue
		}
		devName[l.ID] = d.Name
		p.Devices = append(p.Devices, d)
	}
	for _, l := range nd.Links {
		if l.Type != "vlan" {
			continue
		}
		parent, ok := devName[l.VLANLink]
		if !ok {
			problem("vlan %q: its link %q is not configured; skipped", l.ID, l.VLANLink)
			continue
		}
		id := l.VLANID.get()
		if id < 1 || id > 4094 {
			problem("vlan %q: vlan_id %d is not 1-4094; skipped", l.ID, id)
			continue
		}
		mac := strings.ToLower(l.VLANMACAddress)
		if mac == "" {
			mac = strings.ToLower(linkByID[l.VLANLink].EthernetMACAddress)
		}
		d := NetDevice{Name: fmt.Sprintf("%s.%d", parent, id), Kind: "vlan", MAC: mac, MTU: l.MTU.get(), Parent: parent, VLANID: id}
		devName[l.ID] = d.Name
		p.Devices = append(p.Devices, d)
	}

	withNetwork := map[string]bool{}
	addDNS := func(ss []NetService) {
		for _, s := range ss {
			if s.Type != "dns" {
				continue
			}
			a, err := netip.ParseAddr(s.Address)
			if err != nil {
				problem("dns service %q: not an address", s.Address)
				continue
			}
			if !slices.Contains(p.DNS, a) {
				p.DNS = append(p.DNS, a)
			}
		}
	}
	for _, n := range nd.Networks {
		dev, ok := devName[n.Link]
		if !ok {
			problem("network %q: its link %q is not configured; skipped", n.ID, n.Link)
			continue
		}
		withNetwork[dev] = true
		switch n.Type {
		case "ipv4", "ipv6":
			addr, err := staticAddr(n)
			if err != nil {
				problem("network %q: %v; skipped", n.ID, err)
				continue
			}
			p.Addrs = append(p.Addrs, NetAddr{Dev: dev, Addr: addr})
			for _, r := range n.Routes {
				re, err := route(r, n.Type == "ipv6")
				if err != nil {
					problem("network %q: route %s/%s via %s: %v; skipped", n.ID, r.Network, r.Netmask, r.Gateway, err)
					continue
				}
				re.Dev = dev
				p.Routes = append(p.Routes, re)
			}
			addDNS(n.Services)
		case "ipv4_dhcp":
			if !slices.Contains(p.DHCP, dev) {
				p.DHCP = append(p.DHCP, dev)
			}
		default: // ipv6_dhcp, ipv6_slaac, ipv6_dhcpv6-stateless, ...
			if !slices.Contains(p.Manual, dev) {
				p.Manual = append(p.Manual, dev)
			}
			if !strings.HasPrefix(n.Type, "ipv6") {
				problem("network %q: type %q is not supported; the link is only brought up", n.ID, n.Type)
			}
		}
	}
	addDNS(nd.Services)
	for _, d := range p.Devices {
		enslaved := false
		for _, b := range p.Devices {
			if b.Kind == "bond" && slices.Contains(b.BondSlaves, d.Name) {
				enslaved = true
			}
		}
		if !withNetwork[d.Name] && !enslaved && !slices.Contains(p.Manual, d.Name) && !slices.Contains(p.DHCP, d.Name) {
			p.Manual = append(p.Manual, d.Name)
		}
	}
	for _, l := range nics {
		if !named[l.Name] {
			p.DHCP = append(p.DHCP, l.Name)
		}
	}
	p.Manual = slices.DeleteFunc(p.Manual, func(d string) bool { return slices.Contains(p.DHCP, d) })
	return p
}

// staticAddr is an ipv4/ipv6 network's address with its prefix length:
// ip_address with netmask (dotted, an IPv6 mask, or a length), or
// ip_address in CIDR form (as in the L3 spec's IPv6 example).
func staticAddr(n NetNetwork) (netip.Prefix, error) {
	v6 := n.Type == "ipv6"
	if strings.Contains(n.IPAddress, "/") {
		p, err := netip.ParsePrefix(n.IPAddress)
		if err != nil || p.Addr().Is6() != v6 {
			return netip.Prefix{}, fmt.Errorf("ip_address %q is not an %s address", n.IPAddress, n.Type)
		}
		return p, nil
	}
	a, err := netip.ParseAddr(n.IPAddress)
	if err != nil || a.Is6() != v6 || a.Is4In6() {
		return netip.Prefix{}, fmt.Errorf("ip_address %q is not an %s address", n.IPAddress, n.Type)
	}
	if n.Netmask == "" {
		// glean requires a netmask; a host address is what is meant.
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	bits, err := maskBits(n.Netmask, v6)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, bits), nil
}

func route(r NetRoute, v6 bool) (NetRouteEntry, error) {
	gw, err := netip.ParseAddr(r.Gateway)
	if err != nil || gw.Is6() != v6 {
		return NetRouteEntry{}, errors.New("gateway is not an address of the network's family")
	}
	dst, err := netip.ParseAddr(r.Network)
	if err != nil || dst.Is6() != v6 {
		return NetRouteEntry{}, errors.New("network is not an address of the network's family")
	}
	bits, err := maskBits(r.Netmask, v6)
	if err != nil {
		return NetRouteEntry{}, err
	}
	return NetRouteEntry{Dst: netip.PrefixFrom(dst, bits).Masked(), Gw: gw}, nil
}

// maskBits reads a netmask: dotted IPv4 ("255.255.240.0"), an IPv6 mask
// ("ffff:ffff:ffff:ffff::"), or a prefix length ("64").
func maskBits(m string, v6 bool) (int, error) {
	if n, err := strconv.Atoi(m); err == nil {
		if n < 0 || (v6 && n > 128) || (!v6 && n > 32) {
			return 0, fmt.Errorf("netmask %q is out of range", m)
		}
		return n, nil
	}
	a, err := netip.ParseAddr(m)
	if err != nil || a.Is6() != v6 {
		return 0, fmt.Errorf("netmask %q is not a mask", m)
	}
	b := a.AsSlice()
	bits, seenZero := 0, false
	for _, x := range b {
		for i := 7; i >= 0; i-- {
			if x&(1<<i) != 0 {
				if seenZero {
					return 0, fmt.Errorf("netmask %q is not contiguous", m)
				}
				bits++
			} else {
				seenZero = true
			}
		}
	}
	return bits, nil
}

// ResolvConf is the /etc/resolv.conf for dns ("" when none), as glean
// writes it: one nameserver line each.
func ResolvConf(dns []netip.Addr) string {
	var b strings.Builder
	for _, d := range dns {
		fmt.Fprintf(&b, "nameserver %s\n", d)
	}
	return b.String()
}

// String renders the plan as the ip(8) commands it amounts to (the
// goldens' form), then resolv.conf and the problems.
func (p NetPlan) String() string {
	var b strings.Builder
	for _, d := range p.Devices {
		switch d.Kind {
		case "bond":
			fmt.Fprintf(&b, "ip link add %s address %s type bond mode %s", d.Name, d.MAC, d.BondMode)
			if d.BondMiimon != 0 {
				fmt.Fprintf(&b, " miimon %d", d.BondMiimon)
			}
			if d.BondXmitHashPolicy != "" {
				fmt.Fprintf(&b, " xmit_hash_policy %s", d.BondXmitHashPolicy)
			}
			if d.BondLACPRate != "" {
				fmt.Fprintf(&b, " lacp_rate %s", d.BondLACPRate)
			}
			b.WriteString("\n")
			for _, s := range d.BondSlaves {
				fmt.Fprintf(&b, "ip link set %s master %s\n", s, d.Name)
			}
		case "vlan":
			fmt.Fprintf(&b, "ip link add link %s name %s address %s type vlan id %d\n", d.Parent, d.Name, d.MAC, d.VLANID)
		default:
			fmt.Fprintf(&b, "# %s is %s\n", d.Name, d.MAC)
		}
		if d.MTU != 0 {
			fmt.Fprintf(&b, "ip link set %s mtu %d\n", d.Name, d.MTU)
		}
		fmt.Fprintf(&b, "ip link set %s up\n", d.Name)
	}
	for _, a := range p.Addrs {
		fmt.Fprintf(&b, "ip addr add %s dev %s\n", a.Addr, a.Dev)
	}
	for _, r := range p.Routes {
		dst := r.Dst.String()
		if r.Dst.Bits() == 0 {
			dst = "default"
		}
		fam := "-4"
		if r.Dst.Addr().Is6() {
			fam = "-6"
		}
		fmt.Fprintf(&b, "ip %s route replace %s via %s dev %s\n", fam, dst, r.Gw, r.Dev)
	}
	for _, d := range p.DHCP {
		fmt.Fprintf(&b, "dhcp %s\n", d)
	}
	for _, d := range p.Manual {
		fmt.Fprintf(&b, "manual %s\n", d)
	}
	if rc := ResolvConf(p.DNS); rc != "" {
		b.WriteString("--- /etc/resolv.conf\n" + rc)
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "problem: %s\n", pr)
	}
	return b.String()
}
