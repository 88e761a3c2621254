package vm

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goironic/ironic/test/internal/cluster"
)

// NetNS is an isolated L2 segment for a VM with no DHCP server: a
// network namespace the test creates, holding a tap device (QEMU's NIC
// backend, QEMU run inside the namespace by Command) whose host side has
// a static address. Nothing in the namespace answers DHCP, and QEMU's
// user network (with its built-in DHCP server) is not used. Servers the
// test runs are put in the namespace with Listen/ListenPacket (sockets
// opened from a thread moved into it), or Forward there to a server on
// the host's loopback. The namespace is deleted when the test ends.
type NetNS struct {
	Name string
	// Tap is the tap device's name.
	Tap string
	// Host is the tap's address, with the segment's prefix.
	Host netip.Prefix
}

var netnsSeq atomic.Int64

// RequireNetNS skips t (fails it with RequireEnv=1) unless the test can
// create network namespaces and tap devices (root, ip(8), /dev/net/tun).
func RequireNetNS(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		cluster.Missing(t, RequireEnv, "network namespaces and tap devices need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		cluster.Missing(t, RequireEnv, "ip(8) not installed (iproute2)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		cluster.Missing(t, RequireEnv, "no /dev/net/tun")
	}
}

// NewNetNS creates the namespace with lo up and a tap with host
// (e.g. "192.0.2.1/24") on it, up.
func NewNetNS(t testing.TB, host string) *NetNS {
	t.Helper()
	RequireNetNS(t)
	p, err := netip.ParsePrefix(host)
	if err != nil {
		t.Fatal(err)
	}
	n := netnsSeq.Add(1)
	ns := &NetNS{Name: fmt.Sprintf("goironic-%d-%d", os.Getpid(), n), Tap: fmt.Sprintf("gotap%d", n), Host: p}
	if out, err := exec.Command("ip", "netns", "add", ns.Name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", ns.Name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", ns.Name, err, out)
		}
	})
	ns.IP(t, "link", "set", "lo", "up")
	ns.IP(t, "tuntap", "add", "dev", ns.Tap, "mode", "tap")
	ns.IP(t, "addr", "add", host, "dev", ns.Tap)
	ns.IP(t, "link", "set", ns.Tap, "up")
	return ns
}

// Command runs name in the namespace (ip netns exec).
func (ns *NetNS) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// AddTap adds another tap, with host (e.g. "198.51.100.1/24") on it:
// a second segment for a second NIC. It returns the tap's name.
func (ns *NetNS) AddTap(t testing.TB, host string) string {
	t.Helper()
	tap := fmt.Sprintf("%s-%d", ns.Tap, netnsSeq.Add(1))
	ns.IP(t, "tuntap", "add", "dev", tap, "mode", "tap")
	ns.IP(t, "addr", "add", host, "dev", tap)
	ns.IP(t, "link", "set", tap, "up")
	return tap
}

// QEMUNetArgs are QEMU's arguments for a NIC model (e1000) with mac on
// the namespace's tap (QEMU must run in the namespace: Command).
func (ns *NetNS) QEMUNetArgs(model, mac string) []string {
	return QEMUTapArgs("n0", ns.Tap, model, mac)
}

// QEMUTapArgs are QEMU's arguments for a NIC model with mac on tap,
// its netdev named id.
func QEMUTapArgs(id, tap, model, mac string) []string {
	return []string{"-netdev", "tap,id=" + id + ",ifname=" + tap + ",script=no,downscript=no",
		"-device", model + ",netdev=" + id + ",mac=" + mac}
}

// in runs f on an OS thread moved into the namespace; sockets f opens
// stay in it. The thread goes back to the host's namespace after, or,
// if it cannot, dies with its goroutine (it stays locked).
func (ns *NetNS) in(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer orig.Close()
		target, err := os.Open("/run/netns/" + ns.Name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setns %s: %w", ns.Name, err)
			return
		}
		ferr := f()
		if unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- ferr
	}()
	return <-errc
}

// Listen listens on addr ("192.0.2.1:6800") in the namespace.
func (ns *NetNS) Listen(network, addr string) (net.Listener, error) {
	var l net.Listener
	err := ns.in(func() error {
		var err error
		l, err = net.Listen(network, addr)
		return err
	})
	return l, err
}

// ListenPacket listens for datagrams on addr in the namespace.
func (ns *NetNS) ListenPacket(network, addr string) (net.PacketConn, error) {
	var c net.PacketConn
	err := ns.in(func() error {
		var err error
		c, err = net.ListenPacket(network, addr)
		return err
	})
	return c, err
}

// Forward listens on addr in the namespace and relays each connection
// to to (a server on the host's loopback, such as the all-in-one's
// API), so that the guest reaches a host service at a namespace address.
// Sources returns the remote addresses of the connections relayed. It
// stops when t ends.
func (ns *NetNS) Forward(t testing.TB, addr, to string) *Forwarder {
	t.Helper()
	l, err := ns.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &Forwarder{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.sources = append(f.sources, c.RemoteAddr().String())
			f.mu.Unlock()
			go relay(c, to)
		}
	}()
	t.Cleanup(func() { _ = l.Close() })
	return f
}

// Forwarder is a running Forward.
type Forwarder struct {
	mu      sync.Mutex
	sources []string
}

// Sources are the remote addresses of the connections relayed so far.
func (f *Forwarder) Sources() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sources...)
}

func relay(c net.Conn, to string) {
	defer c.Close()
	u, err := net.DialTimeout("tcp", to, 10*time.Second)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(u, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, u); done <- struct{}{} }()
	<-done
}

// IP runs ip(8) with args in the namespace ("addr", "add", ...).
func (ns *NetNS) IP(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", append([]string{"-n", ns.Name}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s %s: %v: %s", ns.Name, strings.Join(args, " "), err, out)
	}
}

// Dial connects to addr from the namespace.
func (ns *NetNS) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := ns.in(func() error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Proxy is an HTTP proxy on the host's 127.0.0.1 that opens its
// connections from the namespace: a conductor on the host whose
// HTTP_PROXY is its URL reaches the agent at the guest's address on the
// segment (agent_url) and checks image URLs where the guest fetches
// them. Go's clients never proxy loopback addresses, so the BMC and the
// file server on 127.0.0.1 are reached directly. It stops when t ends.
func (ns *NetNS) Proxy(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: nil, DialContext: ns.Dial, ResponseHeaderTimeout: 60 * time.Second}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Scheme != "http" || r.URL.Host == "" {
			http.Error(w, "this proxy only forwards http:// requests", http.StatusBadGateway)
			return
		}
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.Out.Host = pr.In.Host }, Transport: tr}).ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}
