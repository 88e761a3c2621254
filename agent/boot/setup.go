package boot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mounter mounts a file system (mount(2)).
type Mounter interface {
	Mount(source, target, fstype string, flags uintptr, data string) error
}

// ErrAlreadyMounted is what a Mounter returns when target already has
// that mount (EBUSY from mount(2)); Setup takes it as success.
var ErrAlreadyMounted = errors.New("already mounted")

// ModuleLoader loads one kernel module file with its parameters
// ("max_bonds=0"; "" for none) (finit_module(2)). A module already
// loaded is success.
type ModuleLoader interface {
	LoadModule(path, params string) error
}

// Files reads and writes the ramdisk's files.
type Files interface {
	ReadFile(name string) ([]byte, error)
	WriteFile(name string, data []byte, perm fs.FileMode) error
}

// Link is a network interface.
type Link struct {
	Name     string
	MAC      string // aa:bb:cc:dd:ee:ff, "" for none
	Loopback bool
	// Virtual is a software device (bond, VLAN, bridge, ...), not a NIC:
	// never DHCP'd nor matched to network_data (glean skips them too).
	Virtual bool
}

// Links lists, brings up and configures network interfaces (netlink).
type Links interface {
	List() ([]Link, error)
	Up(name string) error
	// Configure gives name the lease's address and, if the lease has a
	// router, the default route through it.
	Configure(name string, l Lease) error
}

// Lease is what a DHCPv4 server gave an interface.
type Lease struct {
	Addr   netip.Prefix // the address with the subnet's prefix length
	Router netip.Addr   // invalid when the server named none
	DNS    []netip.Addr
	Server netip.Addr
	Time   time.Duration
}

// DHCP obtains a lease on an interface that is up; it keeps trying
// until ctx ends.
type DHCP interface {
	Lease(ctx context.Context, iface string) (Lease, error)
}

// StaticNet applies a NetPlan (netlink).
type StaticNet interface {
	// AddDevice creates a bond or VLAN device (a phy exists), enslaves
	// a bond's members, sets the MTU and brings the device up.
	AddDevice(d NetDevice) error
	// AddAddr gives dev a static address.
	AddAddr(dev string, p netip.Prefix) error
	// AddRoute adds (replaces) a route through r.Dev via r.Gw.
	AddRoute(r NetRouteEntry) error
}

// Media reads files from a file system found by its label on a block
// device (a config drive, virtual media), mounted read-only for the
// read. It returns ErrNoMedia when no device has that label.
type Media interface {
	ReadLabelled(ctx context.Context, label string, names []string) (map[string][]byte, error)
}

// ErrNoMedia is Media's answer when no device has the label.
var ErrNoMedia = errors.New("no device with that label")

// Mount is one file system Setup mounts.
type Mount struct{ Source, Target, FSType, Data string }

// DefaultMounts are what PID 1 mounts first, in order.
func DefaultMounts() []Mount {
	return []Mount{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"devtmpfs", "/dev", "devtmpfs", "mode=0755"},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
		{"tmpfs", "/run", "tmpfs", "mode=0755"},
	}
}

// Setup is the PID-1 set-up; Linux() fills it with the real system.
type Setup struct {
	Log     *slog.Logger
	Mounter Mounter
	Modules ModuleLoader
	Files   Files
	Links   Links
	DHCP    DHCP
	// Static applies network_data's static configuration; Media finds
	// the config-2 drive that carries it (and virtual media's
	// parameters). Without Media, Setup only does DHCP.
	Static StaticNet
	Media  Media
	// MediaWait bounds the wait for the config-2 drive when the kernel
	// parameters say boot_method=vmedia (DefaultMediaWait); otherwise it
	// is looked for once. Polled every LinkPoll.
	MediaWait time.Duration
	// WaitRandom blocks until the kernel's random pool is ready (nil:
	// don't wait). The DHCP client draws its transaction IDs from it,
	// and a VM without a hardware RNG has none ready at boot.
	WaitRandom func(ctx context.Context) error
	// Mounts are mounted in order (DefaultMounts when nil).
	Mounts []Mount
	// Sleep waits d or until ctx ends (injectable so tests don't wait).
	Sleep func(ctx context.Context, d time.Duration) error

	// LinkWait bounds the wait for the BOOTIF NIC (or any NIC) to
	// appear after the modules are loaded; polled every LinkPoll.
	LinkWait, LinkPoll time.Duration
	// DHCPTimeout bounds the DHCP of all interfaces together.
	DHCPTimeout time.Duration
	// DHCPGrace is how long the other interfaces may still take once one
	// has its lease, when there is no BOOTIF.
	DHCPGrace time.Duration
}

// Defaults of Setup's bounds.
const (
	DefaultLinkWait    = 30 * time.Second
	DefaultLinkPoll    = 250 * time.Millisecond
	DefaultDHCPTimeout = 90 * time.Second
	DefaultDHCPGrace   = 5 * time.Second
	DefaultMediaWait   = 20 * time.Second
)

// Interface is a NIC Setup configured.
type Interface struct {
	Link
	Lease Lease
}

// Result is what Setup did.
type Result struct {
	Params Params
	// ParamsErr reports kernel parameters that did not parse (their
	// fields keep IPA's defaults).
	ParamsErr error
	// Modules are the module files loaded, in order; ModuleErrs those
	// that failed, by path.
	Modules    []string
	ModuleErrs map[string]error
	// Interfaces are the NICs that got a lease or a static address
	// (Lease.Time 0: not renewed).
	Interfaces []Interface
	// NetworkData is the config-2 drive's network_data.json when one was
	// found and applied (nil: DHCP as without one); Plan is what was
	// applied.
	NetworkData *NetworkData
	Plan        NetPlan
}

// Addr returns the first configured address (invalid when none).
func (r Result) Addr() netip.Addr {
	if len(r.Interfaces) == 0 {
		return netip.Addr{}
	}
	return r.Interfaces[0].Lease.Addr.Addr()
}

// Run mounts, reads the command line, loads the modules and brings the
// network up. A failed mount or module is logged and the set-up goes on
// (the agent may still be reachable); the error is non-nil only when no
// NIC got an address, the one thing the agent cannot do without.
func (s *Setup) Run(ctx context.Context) (Result, error) {
	var r Result
	mounts := s.Mounts
	if mounts == nil {
		mounts = DefaultMounts()
	}
	for _, m := range mounts {
		if err := s.Mounter.Mount(m.Source, m.Target, m.FSType, 0, m.Data); err != nil && !errors.Is(err, ErrAlreadyMounted) {
			s.Log.ErrorContext(ctx, "mount failed", "target", m.Target, "fstype", m.FSType, "err", err)
		}
	}
	cmdline, err := s.Files.ReadFile("/proc/cmdline")
	if err != nil {
		s.Log.ErrorContext(ctx, "reading the kernel command line", "err", err)
	}
	r.Params, r.ParamsErr = ParseCmdline(string(cmdline))
	if r.ParamsErr != nil {
		s.Log.ErrorContext(ctx, "kernel parameters", "err", r.ParamsErr)
	}
	s.Log.InfoContext(ctx, "kernel parameters", "ipa-api-url", r.Params.APIURL, "BOOTIF", r.Params.BootIF,
		"ipa-global-request-id", r.Params.GlobalRequestID, "unknown", strings.Join(r.Params.Unknown, ","))

	r.Modules, r.ModuleErrs = s.loadModules(ctx)

	if s.WaitRandom != nil {
		if err := s.WaitRandom(ctx); err != nil {
			s.Log.ErrorContext(ctx, "waiting for the kernel's random pool", "err", err)
		}
	}

	vmedia := r.Params.All["boot_method"] == "vmedia"
	if vmedia {
		s.vmediaParams(ctx, &r, string(cmdline))
	}
	var ifaces []Interface
	if nd := s.networkData(ctx, vmedia); nd != nil {
		r.NetworkData = nd
		ifaces, r.Plan, err = s.staticNetwork(ctx, *nd, r.Params.BootIF)
	} else {
		ifaces, err = s.network(ctx, r.Params.BootIF)
	}
	r.Interfaces = ifaces
	if err != nil {
		return r, err
	}
	return r, nil
}

// CmdlineFile holds the agent's parameters when PID 1 added virtual
// media's to the kernel's (ReadCmdline reads it first).
const CmdlineFile = "/run/goironic/cmdline"

// ReadCmdline returns the agent's parameters: CmdlineFile when PID 1
// wrote one, else /proc/cmdline.
func ReadCmdline(read func(string) ([]byte, error)) (string, error) {
	if b, err := read(CmdlineFile); err == nil {
		return string(b), nil
	}
	b, err := read("/proc/cmdline")
	return string(b), err
}

// vmediaParams is IPA's _get_vmedia_params for boot_method=vmedia: the
// parameters.txt of the device labelled ir-vfd-dev (the legacy virtual
// floppy of the iLO and iRMC drivers) are added to the kernel's, later
// words winning; no such device is no parameters, as in IPA 9.4.
func (s *Setup) vmediaParams(ctx context.Context, r *Result, cmdline string) {
	if s.Media == nil {
		return
	}
	files, err := s.Media.ReadLabelled(ctx, "ir-vfd-dev", []string{"parameters.txt"})
	if err != nil {
		if !errors.Is(err, ErrNoMedia) {
			s.Log.ErrorContext(ctx, "reading the virtual media parameters", "err", err)
		}
		return
	}
	extra, ok := files["parameters.txt"]
	if !ok {
		return
	}
	merged := strings.TrimSpace(cmdline) + " " + strings.TrimSpace(string(extra)) + "\n"
	r.Params, r.ParamsErr = ParseCmdline(merged)
	if err := s.Files.WriteFile(CmdlineFile, []byte(merged), 0o644); err != nil {
		s.Log.ErrorContext(ctx, "writing the agent's parameters", "file", CmdlineFile, "err", err)
	}
	s.Log.InfoContext(ctx, "virtual media parameters read", "ipa-api-url", r.Params.APIURL)
}

// Config drive files the ramdisk reads.
const (
	ConfigDriveLabel = "config-2"
	NetworkDataFile  = "openstack/latest/network_data.json"
	MetaDataFile     = "openstack/latest/meta_data.json"
)

// networkData looks for the config-2 drive (waiting MediaWait for it on
// a virtual media boot) and returns its network_data.json, or nil when
// there is none or it does not parse (then the ramdisk does DHCP, as
// glean falls back to).
func (s *Setup) networkData(ctx context.Context, vmedia bool) *NetworkData {
	if s.Media == nil {
		return nil
	}
	wait := time.Duration(0)
	if vmedia {
		wait = s.MediaWait
	}
	var files map[string][]byte
	for waited := time.Duration(0); ; waited += s.LinkPoll {
		var err error
		files, err = s.Media.ReadLabelled(ctx, ConfigDriveLabel, []string{NetworkDataFile, MetaDataFile})
		if err == nil {
			break
		}
		if !errors.Is(err, ErrNoMedia) {
			s.Log.ErrorContext(ctx, "reading the config drive", "err", err)
			return nil
		}
		if waited >= wait || s.Sleep(ctx, s.LinkPoll) != nil {
			if vmedia {
				s.Log.InfoContext(ctx, "no config-2 drive: DHCP", "waited", waited)
			}
			return nil
		}
	}
	if md, ok := files[MetaDataFile]; ok {
		var meta struct {
			UUID string `json:"uuid"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(md, &meta); err != nil {
			s.Log.WarnContext(ctx, "config drive meta_data.json", "err", err)
		} else {
			s.Log.InfoContext(ctx, "config drive meta_data.json", "uuid", meta.UUID, "name", meta.Name)
		}
	}
	raw, ok := files[NetworkDataFile]
	if !ok {
		s.Log.InfoContext(ctx, "config drive without network_data.json: DHCP")
		return nil
	}
	nd, err := ParseNetworkData(raw)
	if err != nil {
		s.Log.ErrorContext(ctx, "config drive: DHCP instead", "err", err)
		return nil
	}
	if len(nd.Links) == 0 {
		s.Log.InfoContext(ctx, "network_data.json names no link: DHCP")
		return nil
	}
	s.Log.InfoContext(ctx, "config drive network_data.json found", "links", len(nd.Links), "networks", len(nd.Networks))
	return &nd
}

// staticNetwork waits for the NICs network_data names, applies its plan
// and runs DHCP where the plan says. When no link matches a NIC it is
// the DHCP of network() instead.
func (s *Setup) staticNetwork(ctx context.Context, nd NetworkData, bootif string) ([]Interface, NetPlan, error) {
	if err := s.Links.Up("lo"); err != nil {
		s.Log.ErrorContext(ctx, "bringing up lo", "err", err)
	}
	want := map[string]bool{}
	for _, l := range nd.Links {
		if l.Type != "bond" && l.Type != "vlan" {
			want[strings.ToLower(l.EthernetMACAddress)] = true
		}
	}
	var nics []Link
	for waited := time.Duration(0); ; waited += s.LinkPoll {
		links, err := s.Links.List()
		if err != nil {
			return nil, NetPlan{}, fmt.Errorf("listing network interfaces: %w", err)
		}
		nics = pickNICs(links, "")
		found := 0
		for _, l := range nics {
			if want[strings.ToLower(l.MAC)] {
				found++
			}
		}
		if found == len(want) || waited >= s.LinkWait {
			break
		}
		if err := s.Sleep(ctx, s.LinkPoll); err != nil {
			return nil, NetPlan{}, err
		}
	}
	plan := PlanNetwork(nd, nics)
	for _, p := range plan.Problems {
		s.Log.WarnContext(ctx, "network_data", "problem", p)
	}
	if len(plan.Devices) == 0 {
		s.Log.ErrorContext(ctx, "network_data.json names no NIC of this machine: DHCP", "interfaces", linkNames(nics))
		ifaces, err := s.network(ctx, bootif)
		return ifaces, plan, err
	}
	var errs []error
	for _, d := range plan.Devices {
		if err := s.Static.AddDevice(d); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", d.Kind, d.Name, err))
		}
	}
	var got []Interface
	byDev := map[string]int{}
	for _, a := range plan.Addrs {
		if err := s.Static.AddAddr(a.Dev, a.Addr); err != nil {
			errs = append(errs, fmt.Errorf("%s: address %s: %w", a.Dev, a.Addr, err))
			continue
		}
		s.Log.InfoContext(ctx, "static address configured", "interface", a.Dev, "addr", a.Addr)
		if _, ok := byDev[a.Dev]; !ok {
			byDev[a.Dev] = len(got)
			mac := ""
			for _, d := range plan.Devices {
				if d.Name == a.Dev {
					mac = d.MAC
				}
			}
			got = append(got, Interface{Link: Link{Name: a.Dev, MAC: mac}, Lease: Lease{Addr: a.Addr, DNS: plan.DNS}})
		}
	}
	for _, r := range plan.Routes {
		if err := s.Static.AddRoute(r); err != nil {
			errs = append(errs, fmt.Errorf("%s: route %s via %s: %w", r.Dev, r.Dst, r.Gw, err))
			continue
		}
		if i, ok := byDev[r.Dev]; ok && r.Dst.Bits() == 0 && r.Gw.Is4() && !got[i].Lease.Router.IsValid() {
			got[i].Lease.Router = r.Gw
		}
	}
	for _, e := range errs {
		s.Log.ErrorContext(ctx, "network_data", "err", e)
	}
	if len(plan.DHCP) > 0 {
		var dl []Link
		for _, n := range plan.DHCP {
			dl = append(dl, Link{Name: n})
		}
		leased, derrs := s.dhcpAll(ctx, dl, len(got) > 0)
		for _, e := range derrs {
			s.Log.WarnContext(ctx, "DHCP", "err", e)
		}
		got = append(got, leased...)
	}
	if err := s.writeResolvConf(got); err != nil {
		s.Log.ErrorContext(ctx, "writing /etc/resolv.conf", "err", err)
	}
	if len(got) == 0 {
		return nil, plan, fmt.Errorf("network_data: no interface got an address: %w", errors.Join(errs...))
	}
	return got, plan, nil
}

func (s *Setup) loadModules(ctx context.Context) ([]string, map[string]error) {
	list, err := s.Files.ReadFile(ModuleList)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Log.ErrorContext(ctx, "reading the module list", "file", ModuleList, "err", err)
		}
		return nil, nil
	}
	var loaded []string
	var failed map[string]error
	for _, p := range strings.Split(string(list), "\n") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		p, params, _ := strings.Cut(p, " ")
		if err := s.Modules.LoadModule(p, strings.TrimSpace(params)); err != nil {
			if errors.Is(err, syscall.ENODEV) {
				// The module's init found nothing to drive on this
				// machine (efivarfs after a BIOS boot).
				s.Log.InfoContext(ctx, "module not for this machine", "module", p, "err", err)
			} else {
				s.Log.ErrorContext(ctx, "loading module", "module", p, "err", err)
			}
			if failed == nil {
				failed = map[string]error{}
			}
			failed[p] = err
			continue
		}
		loaded = append(loaded, p)
	}
	s.Log.InfoContext(ctx, "modules loaded", "count", len(loaded), "failed", len(failed))
	return loaded, failed
}

// network brings lo up, waits for the NICs to appear, and runs DHCP on
// the BOOTIF NIC, or on every NIC when BOOTIF is absent (IPA's ramdisks
// bring up every interface and wait for any).
func (s *Setup) network(ctx context.Context, bootif string) ([]Interface, error) {
	if err := s.Links.Up("lo"); err != nil {
		s.Log.ErrorContext(ctx, "bringing up lo", "err", err)
	}
	var nics []Link
	for waited := time.Duration(0); ; waited += s.LinkPoll {
		links, err := s.Links.List()
		if err != nil {
			return nil, fmt.Errorf("listing network interfaces: %w", err)
		}
		nics = pickNICs(links, bootif)
		if len(nics) > 0 {
			break
		}
		if waited >= s.LinkWait {
			if bootif != "" {
				return nil, fmt.Errorf("no network interface with BOOTIF's MAC %s after %s (interfaces: %s)", bootif, s.LinkWait, linkNames(links))
			}
			return nil, fmt.Errorf("no network interface after %s", s.LinkWait)
		}
		if err := s.Sleep(ctx, s.LinkPoll); err != nil {
			return nil, err
		}
	}
	got, errs := s.dhcpAll(ctx, nics, false)
	if len(got) == 0 {
		return nil, fmt.Errorf("DHCP: no interface got an address within %s: %w", s.DHCPTimeout, errors.Join(errs...))
	}
	for _, e := range errs {
		s.Log.WarnContext(ctx, "DHCP", "err", e)
	}
	if err := s.writeResolvConf(got); err != nil {
		s.Log.ErrorContext(ctx, "writing /etc/resolv.conf", "err", err)
	}
	return got, nil
}

// dhcpAll brings each NIC up and runs DHCP on all of them at once, for
// DHCPTimeout; once one has its lease (or at once when haveOne: another
// NIC already has an address) the others get DHCPGrace more.
func (s *Setup) dhcpAll(ctx context.Context, nics []Link, haveOne bool) ([]Interface, []error) {
	dctx, cancel := context.WithTimeout(ctx, s.DHCPTimeout)
	defer cancel()
	var (
		mu      sync.Mutex
		got     []Interface
		errs    []error
		wg      sync.WaitGroup
		graceWG sync.WaitGroup
		graced  sync.Once
	)
	gctx, gcancel := context.WithCancel(dctx)
	defer gcancel()
	startGrace := func() {
		graced.Do(func() {
			// One is enough; the others get a short grace.
			graceWG.Add(1)
			go func() {
				defer graceWG.Done()
				if s.Sleep(gctx, s.DHCPGrace) == nil {
					cancel()
				}
			}()
		})
	}
	if haveOne {
		startGrace()
	}
	for _, l := range nics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Links.Up(l.Name); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: up: %w", l.Name, err))
				mu.Unlock()
				return
			}
			s.Log.InfoContext(ctx, "DHCP", "interface", l.Name, "mac", l.MAC)
			lease, err := s.DHCP.Lease(dctx, l.Name)
			if err == nil {
				err = s.Links.Configure(l.Name, lease)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", l.Name, err))
				return
			}
			s.Log.InfoContext(ctx, "address configured", "interface", l.Name, "mac", l.MAC, "addr", lease.Addr, "router", lease.Router, "dns", lease.DNS)
			got = append(got, Interface{Link: l, Lease: lease})
			startGrace()
		}()
	}
	wg.Wait()
	gcancel()
	graceWG.Wait()
	return got, errs
}

func pickNICs(links []Link, bootif string) []Link {
	var out []Link
	for _, l := range links {
		if l.Loopback || l.Virtual || l.MAC == "" {
			continue
		}
		if bootif == "" || strings.EqualFold(l.MAC, bootif) {
			out = append(out, l)
		}
	}
	return out
}

func linkNames(links []Link) string {
	var s []string
	for _, l := range links {
		s = append(s, l.Name+"="+l.MAC)
	}
	return strings.Join(s, " ")
}

func (s *Setup) writeResolvConf(ifaces []Interface) error {
	var b strings.Builder
	seen := map[netip.Addr]bool{}
	for _, i := range ifaces {
		for _, d := range i.Lease.DNS {
			if !seen[d] {
				seen[d] = true
				fmt.Fprintf(&b, "nameserver %s\n", d)
			}
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return s.Files.WriteFile("/etc/resolv.conf", []byte(b.String()), 0o644)
}

// MACString formats a hardware address as Links report it.
func MACString(hw net.HardwareAddr) string { return strings.ToLower(hw.String()) }

// KeepLeases renews each interface's lease until ctx ends, as a DHCP
// client daemon would for the agent's hours of cleaning or deploying: at
// half of a lease's time (T1) it asks for a lease again (a full
// exchange, which servers answer with the same address) and configures
// what it gets; a failed renewal is retried at half of what is left,
// and a lost address is logged, not removed. Leases without a time are
// not renewed. It returns when ctx ends.
func (s *Setup) KeepLeases(ctx context.Context, ifaces []Interface) {
	var wg sync.WaitGroup
	for _, i := range ifaces {
		if i.Lease.Time <= 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.keepLease(ctx, i)
		}()
	}
	wg.Wait()
}

// minRenewWait keeps a failing renewal from spinning.
const minRenewWait = 10 * time.Second

func (s *Setup) keepLease(ctx context.Context, i Interface) {
	left := i.Lease.Time
	wait := left / 2
	for {
		if err := s.Sleep(ctx, max(wait, minRenewWait)); err != nil {
			return
		}
		left -= max(wait, minRenewWait)
		rctx, cancel := context.WithTimeout(ctx, min(s.DHCPTimeout, max(left, minRenewWait)))
		l, err := s.DHCP.Lease(rctx, i.Name)
		cancel()
		if err == nil {
			err = s.Links.Configure(i.Name, l)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if left <= 0 {
				s.Log.ErrorContext(ctx, "DHCP lease expired without renewal; keeping the address", "interface", i.Name, "addr", i.Lease.Addr, "err", err)
				left = i.Lease.Time
			} else {
				s.Log.WarnContext(ctx, "DHCP renewal failed", "interface", i.Name, "left", left, "err", err)
			}
			wait = left / 2
			continue
		}
		if l.Addr != i.Lease.Addr {
			s.Log.WarnContext(ctx, "DHCP gave another address", "interface", i.Name, "old", i.Lease.Addr, "new", l.Addr)
		}
		s.Log.InfoContext(ctx, "DHCP lease renewed", "interface", i.Name, "addr", l.Addr, "time", l.Time)
		i.Lease = l
		if l.Time <= 0 {
			return
		}
		left, wait = l.Time, l.Time/2
	}
}
