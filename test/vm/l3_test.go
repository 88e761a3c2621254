package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/agent/ramdisk"
	"github.com/goironic/ironic/drivers/configdrive"
	"github.com/goironic/ironic/test/internal/vm"
)

// l3Run bounds the L3 VM run: from QEMU's start to the agent's first
// heartbeat (TCG on 2 shared cores: the kernel, the modules, the drive).
const l3Run = 4 * time.Minute

// agentCall is one request the agent made to the lookup stub.
type agentCall struct {
	Method, Path, Remote string
	Body                 map[string]any
}

// lookupStub is what the agent talks to in the namespace: Ironic's
// root (API version), lookup (answering with node) and heartbeat; it
// records every request with its source address.
type lookupStub struct {
	node  string
	mu    sync.Mutex
	calls []agentCall
	got   chan struct{} // closed at the first heartbeat
	once  sync.Once
}

func (s *lookupStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := agentCall{Method: r.Method, Path: r.URL.Path, Remote: r.RemoteAddr}
	if b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(b) > 0 {
		_ = json.Unmarshal(b, &c.Body)
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/":
		_, _ = io.WriteString(w, `{"default_version": {"id": "v1", "version": "1.81", "min_version": "1.1", "status": "CURRENT"}}`)
	case r.URL.Path == "/v1/lookup":
		_ = json.NewEncoder(w).Encode(map[string]any{
			"node":   map[string]any{"uuid": s.node, "properties": map[string]any{}, "instance_info": map[string]any{}, "driver_internal_info": map[string]any{}},
			"config": map[string]any{"heartbeat_timeout": 300, "agent_token": "l3-token", "agent_token_required": true},
		})
	case strings.HasPrefix(r.URL.Path, "/v1/heartbeat/"):
		w.WriteHeader(http.StatusAccepted)
		s.once.Do(func() { close(s.got) })
	default:
		http.Error(w, `{"error_message": "not here"}`, http.StatusNotFound)
	}
}

func (s *lookupStub) snapshot() []agentCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agentCall(nil), s.calls...)
}

// l3Segment is the namespace of the L3 tests with what listens in it:
// the lookup stub on 192.0.2.1:6800 and a UDP socket on port 67, where a
// DHCP client's requests arrive (the segment's "capture").
type l3Segment struct {
	ns   *vm.NetNS
	stub *lookupStub
	mu   sync.Mutex
	dhcp []string // sources of the datagrams port 67 received
	got  chan struct{}
	once sync.Once
}

func newL3Segment(t *testing.T, node string) *l3Segment {
	t.Helper()
	seg := &l3Segment{ns: vm.NewNetNS(t, "192.0.2.1/24"), stub: &lookupStub{node: node, got: make(chan struct{})}, got: make(chan struct{})}
	l, err := seg.ns.Listen("tcp", "192.0.2.1:6800")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: seg.stub, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	pc, err := seg.ns.ListenPacket("udp4", "0.0.0.0:67")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			seg.mu.Lock()
			seg.dhcp = append(seg.dhcp, from.String())
			seg.mu.Unlock()
			seg.once.Do(func() { close(seg.got) })
		}
	}()
	return seg
}

func (seg *l3Segment) dhcpSeen() []string {
	seg.mu.Lock()
	defer seg.mu.Unlock()
	return append([]string(nil), seg.dhcp...)
}

// bootL3 runs QEMU in the segment's namespace on its tap (no user
// network), booting the deploy kernel and initramfs directly with
// boot_method=vmedia and ipa-api-url on the stub, cd (if any) as an IDE
// CD-ROM. The machine is killed when ctx ends or the test does; it
// returns the console's path and a channel that yields QEMU's end.
func bootL3(ctx context.Context, t *testing.T, seg *l3Segment, qemu string, rd ramdisk.Output, mac, cd string) (string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	console := filepath.Join(dir, "console.log")
	args := []string{"-machine", "pc,accel=tcg", "-m", "512", "-nodefaults", "-display", "none", "-no-reboot",
		"-serial", "file:" + console, "-kernel", rd.Kernel, "-initrd", rd.Initramfs,
		"-append", "console=ttyS0 boot_method=vmedia ipa-api-url=http://192.0.2.1:6800 ipa-debug=1 ipa-lookup-timeout=300"}
	if cd != "" {
		args = append(args, "-drive", "if=ide,index=1,media=cdrom,format=raw,readonly=on,file="+cd)
	}
	args = append(args, seg.ns.QEMUNetArgs("e1000", mac)...)
	runCtx, stop := context.WithCancel(ctx)
	cmd := seg.ns.Command(runCtx, qemu, args...)
	cmd.WaitDelay = 5 * time.Second
	out, err := os.Create(filepath.Join(dir, "qemu.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); _ = out.Close() }()
	t.Cleanup(func() {
		stop()
		err := <-done
		done <- err
	})
	return console, done
}

// TestAgentL3NoDHCP is the ramdisk's side of the L3 virtual-media
// deploy, on a segment with no DHCP server anywhere: a network namespace
// with a tap whose host side is 192.0.2.1/24, QEMU (TCG, its user
// network not used) on that tap booting our deploy kernel and initramfs
// with boot_method=vmedia and ipa-api-url on the command line, and a
// config-2 ISO (drivers/configdrive's writer) as its CD carrying
// network_data.json with the static address 192.0.2.10/24 for the NIC's
// MAC, a default route and DNS. The agent must find the CD, configure
// the address, and look up against the stub in the namespace: the
// lookup and the heartbeat arriving from 192.0.2.10, with the heartbeat's
// callback_url on it, are the proof; the UDP socket on port 67 in the
// namespace sees no DHCP request.
//
// The subtest dhcp-fallback boots the same machine without the CD: the
// agent must fall back to DHCP, and port 67 must see its requests (which
// also shows that the first run's empty capture can fail).
func TestAgentL3NoDHCP(t *testing.T) {
	qemu := vm.Require(t)
	vm.RequireNetNS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	t0 := time.Now()
	rd := vm.DeployRamdisk(ctx, t, t.TempDir())
	t.Logf("deploy ramdisk built in %s (initramfs %d bytes)", time.Since(t0).Round(time.Millisecond), rd.InitramfsSize)

	const (
		nodeUUID = "5d1c9a56-3e0a-4c56-9d7b-000000006800"
		mac      = "52:54:00:68:00:01"
		guest    = "192.0.2.10"
	)

	t.Run("static", func(t *testing.T) {
		seg := newL3Segment(t, nodeUUID)
		// The config-2 drive, as the virtual-media boot ISO carries it.
		networkData := fmt.Sprintf(`{"links": [{"id": "port-0", "type": "phy", "ethernet_mac_address": %q, "mtu": 1500}],
		 "networks": [{"id": "provisioning", "type": "ipv4", "link": "port-0", "ip_address": %q, "netmask": "255.255.255.0",
		   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}],
		   "network_id": "00000000-0000-0000-0000-000000006800"}],
		 "services": [{"type": "dns", "address": "192.0.2.53"}]}`, strings.ToUpper(mac), guest)
		iso, err := configdrive.Builder{}.ISO(ctx, []configdrive.File{
			{Path: "openstack/latest/meta_data.json", Data: []byte(`{"uuid": "` + nodeUUID + `"}`)},
			{Path: "openstack/latest/network_data.json", Data: []byte(networkData)},
		})
		if err != nil {
			t.Fatal(err)
		}
		isoPath := filepath.Join(t.TempDir(), "config-2.iso")
		if err := os.WriteFile(isoPath, iso, 0o644); err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithTimeout(ctx, l3Run)
		defer stop()
		t1 := time.Now()
		console, done := bootL3(runCtx, t, seg, qemu, rd, mac, isoPath)
		select {
		case <-seg.stub.got:
			t.Logf("first heartbeat %s after QEMU started", time.Since(t1).Round(time.Millisecond))
		case err := <-done:
			t.Fatalf("QEMU ended before the heartbeat: %v\n%s", err, consoleTail(console, 4000))
		case <-runCtx.Done():
			t.Fatalf("no heartbeat within %s; requests %+v\n%s", l3Run, seg.stub.snapshot(), consoleTail(console, 6000))
		}
		var lookups, heartbeats int
		for _, c := range seg.stub.snapshot() {
			host, _, _ := net.SplitHostPort(c.Remote)
			if host != guest {
				t.Errorf("%s %s came from %s, not the static address %s", c.Method, c.Path, c.Remote, guest)
			}
			switch {
			case c.Path == "/v1/lookup":
				lookups++
			case strings.HasPrefix(c.Path, "/v1/heartbeat/"):
				heartbeats++
				if cb, _ := c.Body["callback_url"].(string); cb != "http://"+guest+":9999" {
					t.Errorf("heartbeat callback_url %q, want the static address", cb)
				}
			}
		}
		if lookups == 0 || heartbeats == 0 {
			t.Errorf("lookups %d, heartbeats %d", lookups, heartbeats)
		}
		if got := seg.dhcpSeen(); len(got) != 0 {
			t.Errorf("DHCP requests reached the segment from %v", got)
		}
		c := consoleTail(console, 1<<20)
		for _, want := range []string{"config drive network_data.json found", "static address configured"} {
			if !strings.Contains(c, want) {
				t.Errorf("console lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("console:\n%s", consoleTail(console, 6000))
		}
	})

	t.Run("dhcp-fallback", func(t *testing.T) {
		seg := newL3Segment(t, nodeUUID)
		runCtx, stop := context.WithTimeout(ctx, l3Run)
		defer stop()
		t1 := time.Now()
		console, done := bootL3(runCtx, t, seg, qemu, rd, mac, "")
		select {
		case <-seg.got:
			t.Logf("first DHCP request %s after QEMU started, from %v", time.Since(t1).Round(time.Millisecond), seg.dhcpSeen())
		case err := <-done:
			t.Fatalf("QEMU ended before asking DHCP: %v\n%s", err, consoleTail(console, 4000))
		case <-runCtx.Done():
			t.Fatalf("no DHCP request within %s\n%s", l3Run, consoleTail(console, 6000))
		}
		if c := consoleTail(console, 1<<20); !strings.Contains(c, "no config-2 drive: DHCP") {
			t.Errorf("console lacks the fallback:\n%s", consoleTail(console, 4000))
		}
		if n := len(seg.stub.snapshot()); n != 0 {
			t.Errorf("%d requests reached the stub without an address", n)
		}
	})
}

// consoleTail is the last n bytes of a file ("" when it cannot be read).
func consoleTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
