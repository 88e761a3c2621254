package boot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Linux returns a Setup that acts on the running system; it must run as
// root (as PID 1 in the ramdisk).
func Linux(log *slog.Logger) *Setup {
	return &Setup{
		Log:         log,
		Mounter:     sysMounter{},
		Modules:     sysModules{},
		Files:       osFiles{},
		Links:       netlinkLinks{},
		DHCP:        nclientDHCP{log: log},
		Static:      netlinkStatic{},
		Media:       newSysMedia(log),
		MediaWait:   DefaultMediaWait,
		Sleep:       sleepCtx,
		WaitRandom:  waitRandom,
		LinkWait:    DefaultLinkWait,
		LinkPoll:    DefaultLinkPoll,
		DHCPTimeout: DefaultDHCPTimeout,
		DHCPGrace:   DefaultDHCPGrace,
	}
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

// waitRandom reads from getrandom(2) without GRND_NONBLOCK: on a
// kernel whose pool is not ready this blocks while the kernel gathers
// jitter entropy (about a second), where a non-blocking poll of
// /dev/random (what the DHCP library does) may wait forever.
func waitRandom(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		var b [16]byte
		_, err := unix.Getrandom(b[:], 0)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type sysMounter struct{}

func (sysMounter) Mount(source, target, fstype string, flags uintptr, data string) error {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	err := unix.Mount(source, target, fstype, flags, data)
	if errors.Is(err, unix.EBUSY) {
		return ErrAlreadyMounted
	}
	if err != nil {
		return fmt.Errorf("mount -t %s %s %s: %w", fstype, source, target, err)
	}
	return nil
}

type sysModules struct{}

func (sysModules) LoadModule(path, params string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = unix.FinitModule(int(f.Fd()), params, 0)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finit_module %s: %w", path, err)
	}
	return nil
}

type osFiles struct{}

func (osFiles) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (osFiles) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, perm)
}

type netlinkLinks struct{}

func (netlinkLinks) List() ([]Link, error) {
	ls, err := netlink.LinkList()
	if err != nil {
		return nil, err
	}
	out := make([]Link, 0, len(ls))
	for _, l := range ls {
		a := l.Attrs()
		out = append(out, Link{Name: a.Name, MAC: MACString(a.HardwareAddr), Loopback: a.Flags&net.FlagLoopback != 0,
			Virtual: l.Type() != "device"})
	}
	return out, nil
}

func (netlinkLinks) Up(name string) error {
	l, err := netlink.LinkByName(name)
	if err != nil {
		return err
	}
	return netlink.LinkSetUp(l)
}

func (netlinkLinks) Configure(name string, lease Lease) error {
	l, err := netlink.LinkByName(name)
	if err != nil {
		return err
	}
	p := lease.Addr
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), 32)}}
	if err := netlink.AddrReplace(l, addr); err != nil {
		return fmt.Errorf("address %s: %w", p, err)
	}
	if lease.Router.IsValid() {
		r := &netlink.Route{LinkIndex: l.Attrs().Index, Gw: lease.Router.AsSlice(),
			Dst: &net.IPNet{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)}}
		if err := netlink.RouteReplace(r); err != nil {
			return fmt.Errorf("default route via %s: %w", lease.Router, err)
		}
	}
	return nil
}

// netlinkStatic applies network_data's plan through netlink.
type netlinkStatic struct{}

func (netlinkStatic) AddDevice(d NetDevice) error {
	var hw net.HardwareAddr
	if d.MAC != "" {
		var err error
		if hw, err = net.ParseMAC(d.MAC); err != nil {
			return err
		}
	}
	switch d.Kind {
	case "bond":
		b := netlink.NewLinkBond(netlink.LinkAttrs{Name: d.Name, HardwareAddr: hw})
		b.Mode = netlink.StringToBondMode(d.BondMode)
		if b.Mode == netlink.BOND_MODE_UNKNOWN {
			return fmt.Errorf("bond mode %q", d.BondMode)
		}
		if d.BondMiimon != 0 {
			b.Miimon = d.BondMiimon
		}
		if d.BondXmitHashPolicy != "" {
			b.XmitHashPolicy = netlink.StringToBondXmitHashPolicy(d.BondXmitHashPolicy)
		}
		if d.BondLACPRate != "" {
			b.LacpRate = netlink.StringToBondLacpRate(d.BondLACPRate)
		}
		if err := netlink.LinkAdd(b); err != nil {
			return fmt.Errorf("adding the bond: %w", err)
		}
		for _, s := range d.BondSlaves {
			sl, err := netlink.LinkByName(s)
			if err != nil {
				return err
			}
			// A bond takes only members that are down.
			if err := netlink.LinkSetDown(sl); err != nil {
				return err
			}
			if err := netlink.LinkSetMaster(sl, b); err != nil {
				return fmt.Errorf("enslaving %s: %w", s, err)
			}
			if err := netlink.LinkSetUp(sl); err != nil {
				return err
			}
		}
	case "vlan":
		parent, err := netlink.LinkByName(d.Parent)
		if err != nil {
			return err
		}
		v := &netlink.Vlan{LinkAttrs: netlink.LinkAttrs{Name: d.Name, ParentIndex: parent.Attrs().Index, HardwareAddr: hw}, VlanId: d.VLANID}
		if err := netlink.LinkAdd(v); err != nil {
			return fmt.Errorf("adding the VLAN: %w", err)
		}
	}
	l, err := netlink.LinkByName(d.Name)
	if err != nil {
		return err
	}
	if d.MTU != 0 {
		if err := netlink.LinkSetMTU(l, d.MTU); err != nil {
			return fmt.Errorf("mtu %d: %w", d.MTU, err)
		}
	}
	return netlink.LinkSetUp(l)
}

func (netlinkStatic) AddAddr(dev string, p netip.Prefix) error {
	l, err := netlink.LinkByName(dev)
	if err != nil {
		return err
	}
	return netlink.AddrReplace(l, &netlink.Addr{IPNet: prefixNet(p)})
}

func (netlinkStatic) AddRoute(r NetRouteEntry) error {
	l, err := netlink.LinkByName(r.Dev)
	if err != nil {
		return err
	}
	return netlink.RouteReplace(&netlink.Route{LinkIndex: l.Attrs().Index, Dst: prefixNet(r.Dst.Masked()), Gw: r.Gw.AsSlice()})
}

func prefixNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

// nclientDHCP is a DHCPv4 client over a raw socket
// (github.com/insomniacslk/dhcp's nclient4): DISCOVER, OFFER, REQUEST,
// ACK, retried until ctx ends.
type nclientDHCP struct{ log *slog.Logger }

func (d nclientDHCP) Lease(ctx context.Context, iface string) (Lease, error) {
	var last error
	for ctx.Err() == nil {
		l, err := d.once(ctx, iface)
		if err == nil {
			return l, nil
		}
		last = err
		d.log.DebugContext(ctx, "DHCP attempt failed", "interface", iface, "err", err)
		if sleepCtx(ctx, time.Second) != nil {
			break
		}
	}
	if last == nil {
		last = ctx.Err()
	}
	return Lease{}, last
}

func (d nclientDHCP) once(ctx context.Context, iface string) (Lease, error) {
	c, err := nclient4.New(iface, nclient4.WithTimeout(3*time.Second), nclient4.WithRetry(2))
	if err != nil {
		return Lease{}, err
	}
	defer c.Close()
	l, err := c.Request(ctx)
	if err != nil {
		return Lease{}, err
	}
	return leaseFromACK(l.ACK)
}

func leaseFromACK(ack *dhcpv4.DHCPv4) (Lease, error) {
	ip, ok := netip.AddrFromSlice(ack.YourIPAddr.To4())
	if !ok || !ip.IsValid() || ip.IsUnspecified() {
		return Lease{}, fmt.Errorf("DHCP ACK without an address (yiaddr %v)", ack.YourIPAddr)
	}
	bits := 24
	if m := ack.SubnetMask(); m != nil {
		if ones, size := m.Size(); size == 32 {
			bits = ones
		}
	}
	l := Lease{Addr: netip.PrefixFrom(ip, bits), Time: ack.IPAddressLeaseTime(0)}
	for _, r := range ack.Router() {
		if a, ok := netip.AddrFromSlice(r.To4()); ok {
			l.Router = a
			break
		}
	}
	for _, n := range ack.DNS() {
		if a, ok := netip.AddrFromSlice(n.To4()); ok {
			l.DNS = append(l.DNS, a)
		}
	}
	if a, ok := netip.AddrFromSlice(ack.ServerIPAddr.To4()); ok {
		l.Server = a
	}
	return l, nil
}

// Power turns the machine off or restarts it.
type Power interface {
	PowerOff() error
	Reboot() error
}

// LinuxPower is Power through reboot(2), after sync(2), as the Ironic
// Python Agent's standby.power_off ends. It needs CAP_SYS_BOOT (root).
type LinuxPower struct{}

// PowerOff flushes the file systems and powers the machine off.
func (LinuxPower) PowerOff() error {
	unix.Sync()
	return unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}

// Reboot flushes the file systems and restarts the machine.
func (LinuxPower) Reboot() error {
	unix.Sync()
	return unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART)
}

// Console opens the kernel console for writing (the log's destination
// in the ramdisk); it falls back to standard error.
func Console() io.Writer {
	f, err := os.OpenFile("/dev/console", os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return os.Stderr
	}
	return f
}

// IsInit reports whether this process is PID 1.
func IsInit() bool { return os.Getpid() == 1 }
