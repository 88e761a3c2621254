// Package boot is what the agent ramdisk's PID 1 does before the agent
// runs: it mounts proc, sysfs, devtmpfs and tmpfs on /tmp and /run,
// loads the kernel modules listed in ModuleList in order, reads IPA's
// kernel parameters from /proc/cmdline (ParseCmdline; with
// boot_method=vmedia, also a virtual floppy's parameters.txt), brings up
// lo and then the network: from the config-2 drive's
// openstack/latest/network_data.json when a CD-ROM or removable device
// carries one (Ironic's L3 virtual-media deploy: PlanNetwork maps it on
// the NICs by MAC as glean does — phy/bond/vlan links, static IPv4 and
// IPv6 addresses, routes, MTU, DNS — with DHCP for ipv4_dhcp networks
// and the NICs it does not name), else with DHCPv4 on the NIC whose MAC
// is BOOTIF (every NIC without BOOTIF): address, default route and
// /etc/resolv.conf, logging to the console, and keeps the leases; Init
// does all that as PID 1 and then supervises the agent (this same binary run again as its child,
// restarted when it ends, orphans reaped); and, for the agent, a clean
// power off or reboot.
//
// Every effect goes through a small interface (Mounter, ModuleLoader,
// Links, DHCP, StaticNet, Media, Files, Starter, Reaper), so Setup's and
// Supervisor's logic is tested without being PID 1; Linux and Init use the real ones.
package boot

// ModuleList is the file of the initramfs that lists, one absolute path
// a line (then, after a space, the module's parameters, if any), the
// modules to load in order (agent/ramdisk writes it).
const ModuleList = "/etc/goironic/modules.load"
