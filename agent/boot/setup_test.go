package boot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeSystem records what Setup does; links appear after appearAfter
// List calls, DHCP answers from leases (an error for the others).
type fakeSystem struct {
	mu          sync.Mutex
	files       map[string]string
	mounts      []string
	modules     []string
	failModule  string
	links       []Link
	appearAfter int
	lists       int
	up          []string
	configured  map[string]Lease
	leases      map[string]Lease
	dhcpAsked   []string
	sleeps      []time.Duration
}

func (f *fakeSystem) Mount(source, target, fstype string, _ uintptr, data string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mounts = append(f.mounts, fstype+" "+target+" "+data)
	if target == "/dev" {
		return ErrAlreadyMounted
	}
	return nil
}

func (f *fakeSystem) LoadModule(p, params string) error {
	if p == f.failModule {
		return errors.New("finit_module: exec format error")
	}
	if params != "" {
		p += " " + params
	}
	f.modules = append(f.modules, p)
	return nil
}

func (f *fakeSystem) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.files[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

func (f *fakeSystem) WriteFile(name string, data []byte, _ fs.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[name] = string(data)
	return nil
}

func (f *fakeSystem) List() ([]Link, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	if f.lists <= f.appearAfter {
		return []Link{{Name: "lo", Loopback: true}}, nil
	}
	return f.links, nil
}

func (f *fakeSystem) Up(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.up = append(f.up, name)
	return nil
}

func (f *fakeSystem) Configure(name string, l Lease) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.configured[name] = l
	return nil
}

func (f *fakeSystem) Lease(ctx context.Context, iface string) (Lease, error) {
	f.mu.Lock()
	f.dhcpAsked = append(f.dhcpAsked, iface)
	l, ok := f.leases[iface]
	f.mu.Unlock()
	if ok {
		return l, nil
	}
	<-ctx.Done() // no server answers on this one
	return Lease{}, ctx.Err()
}

func newFake() *fakeSystem {
	return &fakeSystem{
		files: map[string]string{
			"/proc/cmdline": "console=ttyS0 ipa-api-url=http://10.0.2.2:6385 BOOTIF=01-52-54-00-00-00-02 extra=1\n",
			ModuleList:      "/lib/modules/v/virtio.ko\n/lib/modules/v/virtio_ring.ko\n\n/lib/modules/v/virtio_net.ko\n/lib/modules/v/bonding.ko max_bonds=0\n",
		},
		links: []Link{
			{Name: "lo", Loopback: true},
			{Name: "eth0", MAC: "52:54:00:00:00:01"},
			{Name: "eth1", MAC: "52:54:00:00:00:02"},
			{Name: "bond0", MAC: "a6:39:90:71:b4:9f", Virtual: true},
		},
		configured: map[string]Lease{},
		leases: map[string]Lease{
			"eth1": {Addr: netip.MustParsePrefix("10.0.2.15/24"), Router: netip.MustParseAddr("10.0.2.2"),
				DNS: []netip.Addr{netip.MustParseAddr("10.0.2.3")}},
		},
	}
}

func setupFor(f *fakeSystem) *Setup {
	return &Setup{
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Mounter: f, Modules: f, Files: f, Links: f, DHCP: f,
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.mu.Lock()
			f.sleeps = append(f.sleeps, d)
			f.mu.Unlock()
			return ctx.Err()
		},
		LinkWait: 2 * time.Second, LinkPoll: 500 * time.Millisecond,
		DHCPTimeout: time.Second, DHCPGrace: time.Millisecond,
	}
}

func TestSetupBootIF(t *testing.T) {
	f := newFake()
	f.appearAfter = 2 // the NICs show up after two polls
	r, err := setupFor(f).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"proc /proc ", "sysfs /sys ", "devtmpfs /dev mode=0755", "tmpfs /tmp mode=1777", "tmpfs /run mode=0755"}, f.mounts); d != "" {
		t.Errorf("mounts (-want +got):\n%s", d)
	}
	want := []string{"/lib/modules/v/virtio.ko", "/lib/modules/v/virtio_ring.ko", "/lib/modules/v/virtio_net.ko", "/lib/modules/v/bonding.ko max_bonds=0"}
	if d := cmp.Diff(want, f.modules); d != "" || cmp.Diff([]string{"/lib/modules/v/virtio.ko", "/lib/modules/v/virtio_ring.ko", "/lib/modules/v/virtio_net.ko", "/lib/modules/v/bonding.ko"}, r.Modules) != "" {
		t.Errorf("modules loaded in another order (-want +got):\n%s", d)
	}
	if r.Params.APIURL != "http://10.0.2.2:6385" || r.Params.BootIF != "52:54:00:00:00:02" || r.Params.All["extra"] != "1" {
		t.Errorf("params %+v", r.Params)
	}
	// Only the BOOTIF NIC is brought up and asked for a lease.
	if d := cmp.Diff([]string{"lo", "eth1"}, f.up); d != "" {
		t.Errorf("up (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"eth1"}, f.dhcpAsked); d != "" {
		t.Errorf("DHCP (-want +got):\n%s", d)
	}
	if got := f.configured["eth1"].Addr.String(); got != "10.0.2.15/24" || len(f.configured) != 1 {
		t.Errorf("configured %v", f.configured)
	}
	if r.Addr().String() != "10.0.2.15" {
		t.Errorf("Addr() = %v", r.Addr())
	}
	if f.files["/etc/resolv.conf"] != "nameserver 10.0.2.3\n" {
		t.Errorf("resolv.conf %q", f.files["/etc/resolv.conf"])
	}
	// Two polls for the NICs, then the grace once eth1 had its lease.
	if d := cmp.Diff([]time.Duration{500 * time.Millisecond, 500 * time.Millisecond, time.Millisecond}, f.sleeps); d != "" {
		t.Errorf("sleeps (-want +got):\n%s", d)
	}
}

func TestSetupWithoutBootIFTriesEveryNIC(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "ipa-api-url=http://x"
	r, err := setupFor(f).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked := append([]string(nil), f.dhcpAsked...)
	if d := cmp.Diff([]string{"eth0", "eth1"}, sorted(asked)); d != "" {
		t.Errorf("DHCP on (-want +got):\n%s", d)
	}
	if len(r.Interfaces) != 1 || r.Interfaces[0].Name != "eth1" {
		t.Errorf("interfaces %+v", r.Interfaces)
	}
}

func TestSetupBootIFNeverAppears(t *testing.T) {
	f := newFake()
	f.files["/proc/cmdline"] = "BOOTIF=52:54:00:00:00:09"
	_, err := setupFor(f).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no network interface with BOOTIF's MAC 52:54:00:00:00:09 after 2s") {
		t.Fatalf("err = %v", err)
	}
	if len(f.sleeps) != 4 {
		t.Errorf("polled %v, want LinkWait/LinkPoll times", f.sleeps)
	}
}

func TestSetupNoLeaseIsAnError(t *testing.T) {
	f := newFake()
	f.leases = nil
	s := setupFor(f)
	s.DHCPTimeout = 20 * time.Millisecond
	_, err := s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "DHCP: no interface got an address within 20ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestSetupGoesOnAfterBadModulesAndParams(t *testing.T) {
	f := newFake()
	f.failModule = "/lib/modules/v/virtio_ring.ko"
	f.files["/proc/cmdline"] += " ipa-debug=perhaps"
	r, err := setupFor(f).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.ParamsErr == nil || len(r.ModuleErrs) != 1 || r.ModuleErrs[f.failModule] == nil {
		t.Errorf("errors not reported: params %v modules %v", r.ParamsErr, r.ModuleErrs)
	}
	if len(r.Modules) != 3 {
		t.Errorf("modules %v", r.Modules)
	}
}

func TestSetupWithoutModuleList(t *testing.T) {
	f := newFake()
	delete(f.files, ModuleList)
	r, err := setupFor(f).Run(context.Background())
	if err != nil || len(r.Modules) != 0 || len(f.modules) != 0 {
		t.Fatalf("%v %v", err, r.Modules)
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }
