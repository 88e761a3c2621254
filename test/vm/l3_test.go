package vm_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/vm"
)

// l3Run bounds each L3 VM run: from QEMU's start to the agent's first
// heartbeat or DHCP request (TCG on 2 shared cores: the kernel, the
// modules, the drive).
const l3Run = 4 * time.Minute

// l3Segment is the namespace of the L3 tests with a UDP socket on port
// 67 in it, where a DHCP client's requests arrive (the segment's
// "capture").
type l3Segment struct {
	ns   *vm.NetNS
	mu   sync.Mutex
	dhcp []string // sources of the datagrams port 67 received
	vlan bool     // the host side has VLAN 100
	got  chan struct{}
	once sync.Once
}

func newL3Segment(t *testing.T) *l3Segment {
	t.Helper()
	seg := &l3Segment{ns: vm.NewNetNS(t, "192.0.2.1/24"), got: make(chan struct{})}
	// The segment's IPv6 side and a tagged VLAN 100 with its own subnet.
	seg.ns.IP(t, "addr", "add", "2001:db8:68::1/64", "dev", seg.ns.Tap, "nodad")
	// (A host kernel without 8021q cannot: the guest's side is then
	// checked on its console only.)
	vlan := seg.ns.Tap + ".100"
	if out, err := seg.ns.Command(context.Background(), "ip", "link", "add", "link", seg.ns.Tap, "name", vlan, "type", "vlan", "id", "100").CombinedOutput(); err != nil {
		t.Logf("no VLAN on the host side: %v: %s", err, out)
	} else {
		seg.ns.IP(t, "addr", "add", "203.0.113.1/24", "dev", vlan)
		seg.ns.IP(t, "link", "set", vlan, "up")
		seg.vlan = true
	}
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
// boot_method=vmedia and ipa-api-url=apiURL, cd (if any) as an IDE
// CD-ROM, extra QEMU arguments (a second NIC) after. The machine is killed when ctx ends or the test does; it
// returns the console's path and a channel that yields QEMU's end.
func bootL3(ctx context.Context, t *testing.T, seg *l3Segment, qemu string, rd ramdisk.Output, mac, cd, apiURL string, extra ...string) (string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	console := filepath.Join(dir, "console.log")
	args := []string{"-machine", "pc,accel=tcg", "-m", "512", "-nodefaults", "-display", "none", "-no-reboot",
		"-serial", "file:" + console, "-kernel", rd.Kernel, "-initrd", rd.Initramfs,
		"-append", "console=ttyS0 boot_method=vmedia ipa-api-url=" + apiURL + " ipa-debug=1 ipa-lookup-timeout=300"}
	if cd != "" {
		args = append(args, "-drive", "if=ide,index=1,media=cdrom,format=raw,readonly=on,file="+cd)
	}
	args = append(args, seg.ns.QEMUNetArgs("e1000", mac)...)
	args = append(args, extra...)
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
// directly with boot_method=vmedia and ipa-api-url on the command line,
// and a config-2 ISO (drivers/configdrive's writer) as its CD carrying
// network_data.json with the static address 192.0.2.10/24 for the NIC's
// MAC, a default route and DNS, an IPv6 address, and a VLAN (100) with
// its own address; a second NIC, on a second tap, is the only member of
// a bond with an address of that tap's subnet. Our all-in-one (on the host's loopback,
// reached from the namespace through NetNS.Forward) has the node
// enrolled with fast track, so that, as in 21.4, the agent may look up
// and heartbeat without a deploy. The proof: every connection to the API
// comes from 192.0.2.10, the node's driver_internal_info.agent_url
// (the heartbeat's callback_url) is http://192.0.2.10:9999, and a UDP
// socket on port 67 in the namespace sees no DHCP request; the agent
// answers on the IPv6 address, the bond's and (when the host kernel has
// VLANs) the VLAN's.
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
		mac2     = "52:54:00:68:00:02"
		guest    = "192.0.2.10"
	)

	t.Run("static", func(t *testing.T) {
		cluster.Build(t, cluster.AllInOne)
		seg := newL3Segment(t)
		dir := t.TempDir()
		apiPort, err := vm.FreePort(6801, 6809)
		if err != nil {
			t.Fatal(err)
		}
		conf := vm.Conf{DBPath: filepath.Join(dir, "ironic.sqlite"), HTTPURL: "http://127.0.0.1:6819", HTTPRoot: dir}
		api := cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Port: apiPort, Dir: dir, Config: conf.Text, LogTail: 8000})
		fwd := seg.ns.Forward(t, "192.0.2.1:6801", strings.TrimPrefix(api.URL, "http://"))
		c := cluster.NewClient(api.URL, "1.81")
		// An enrolled node with fast track: 21.4 lets its agent look up and
		// heartbeat, and records the agent's URL, without a deploy.
		c.Must(ctx, t, http.StatusCreated, http.MethodPost, "/v1/nodes", map[string]any{
			"uuid": nodeUUID, "driver": "redfish", "deploy_interface": "direct",
			"driver_info": map[string]any{"redfish_address": "http://127.0.0.1:6818", "redfish_system_id": "/redfish/v1/Systems/l3", "fast_track": true},
		})
		c.Must(ctx, t, http.StatusCreated, http.MethodPost, "/v1/ports", map[string]any{"node_uuid": nodeUUID, "address": mac})
		// The second NIC, a bond's only member, on its own tap.
		tap2 := seg.ns.AddTap(t, "198.51.100.1/24")
		iso := configDriveISO(ctx, t, nodeUUID, mac, mac2, guest)
		runCtx, stop := context.WithTimeout(ctx, l3Run)
		defer stop()
		t1 := time.Now()
		console, done := bootL3(runCtx, t, seg, qemu, rd, mac, iso, "http://192.0.2.1:6801", vm.QEMUTapArgs("n1", tap2, "e1000", mac2)...)
		var agentURL string
		for agentURL == "" {
			select {
			case err := <-done:
				t.Fatalf("QEMU ended before the heartbeat: %v\n%s", err, consoleTail(console, 4000))
			case <-runCtx.Done():
				t.Fatalf("no heartbeat recorded within %s; connections from %v\n%s\n%s", l3Run, fwd.Sources(), consoleTail(console, 6000), api.LogTail(4000))
			case <-time.After(2 * time.Second):
			}
			var n struct {
				DriverInternalInfo map[string]any `json:"driver_internal_info"`
			}
			c.JSON(ctx, t, http.StatusOK, http.MethodGet, "/v1/nodes/"+nodeUUID, nil, &n)
			agentURL, _ = n.DriverInternalInfo["agent_url"].(string)
		}
		t.Logf("agent_url %s recorded %s after QEMU started", agentURL, time.Since(t1).Round(time.Millisecond))
		if agentURL != "http://"+guest+":9999" {
			t.Errorf("agent_url %q, want the static address", agentURL)
		}
		srcs := fwd.Sources()
		for _, src := range srcs {
			if host, _, _ := net.SplitHostPort(src); host != guest {
				t.Errorf("a connection to the API came from %s, not %s", src, guest)
			}
		}
		if len(srcs) == 0 {
			t.Error("no connection reached the API")
		}
		if got := seg.dhcpSeen(); len(got) != 0 {
			t.Errorf("DHCP requests reached the segment from %v", got)
		}
		// The IPv6 address, the bond's and the VLAN's answer too: the agent
		// listens on every address.
		addrs := []string{"[2001:db8:68::10]:9999", "198.51.100.10:9999"}
		if seg.vlan {
			addrs = append(addrs, "203.0.113.10:9999")
		}
		for _, addr := range addrs {
			dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
			conn, err := seg.ns.Dial(dctx, "tcp", addr)
			dcancel()
			if err != nil {
				t.Errorf("the agent at %s: %v", addr, err)
				continue
			}
			_ = conn.Close()
		}
		out := consoleTail(console, 1<<20)
		for _, want := range []string{"config drive network_data.json found",
			`msg="static address configured" interface=eth0 addr=192.0.2.10/24`,
			`msg="static address configured" interface=eth0 addr=2001:db8:68::10/64`,
			`msg="static address configured" interface=bond0 addr=198.51.100.10/24`,
			`msg="static address configured" interface=eth0.100 addr=203.0.113.10/24`} {
			if !strings.Contains(out, want) {
				t.Errorf("console lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("console:\n%s", consoleTail(console, 6000))
		}
	})

	t.Run("dhcp-fallback", func(t *testing.T) {
		seg := newL3Segment(t)
		runCtx, stop := context.WithTimeout(ctx, l3Run)
		defer stop()
		t1 := time.Now()
		console, done := bootL3(runCtx, t, seg, qemu, rd, mac, "", "http://192.0.2.1:6801")
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
	})
}

// configDriveISO writes the config-2 drive the virtual-media boot ISO
// carries for the node: meta_data.json and network_data.json giving the
// NIC with mac the static address guest/24, the default route through
// 192.0.2.1, 2001:db8:68::10/64, VLAN 100 with 203.0.113.10/24, and a
// DNS server; the NIC with mac2 the only member of an active-backup
// bond (MTU 1400) with 198.51.100.10/24 (drivers/configdrive's ISO
// writer).
func configDriveISO(ctx context.Context, t *testing.T, node, mac, mac2, guest string) string {
	t.Helper()
	networkData := fmt.Sprintf(`{"links": [{"id": "port-0", "type": "phy", "ethernet_mac_address": %[1]q, "mtu": 1500},
	   {"id": "port-0.100", "type": "vlan", "vlan_link": "port-0", "vlan_id": 100, "vlan_mac_address": %[1]q},
	   {"id": "port-1", "type": "phy", "ethernet_mac_address": %[3]q},
	   {"id": "bond0", "type": "bond", "bond_links": ["port-1"], "bond_mode": "active-backup", "bond_miimon": 100,
	    "ethernet_mac_address": %[3]q, "mtu": 1400}],
	 "networks": [{"id": "provisioning", "type": "ipv4", "link": "port-0", "ip_address": %[2]q, "netmask": "255.255.255.0",
	   "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.0.2.1"}],
	   "network_id": "00000000-0000-0000-0000-000000006800"},
	  {"id": "provisioning-v6", "type": "ipv6", "link": "port-0", "ip_address": "2001:db8:68::10", "netmask": "ffff:ffff:ffff:ffff::",
	   "routes": [], "network_id": "00000000-0000-0000-0000-000000006800"},
	  {"id": "tagged", "type": "ipv4", "link": "port-0.100", "ip_address": "203.0.113.10", "netmask": "255.255.255.0",
	   "routes": [], "network_id": "00000000-0000-0000-0000-000000006801"},
	  {"id": "bonded", "type": "ipv4", "link": "bond0", "ip_address": "198.51.100.10", "netmask": "255.255.255.0",
	   "routes": [], "network_id": "00000000-0000-0000-0000-000000006802"}],
	 "services": [{"type": "dns", "address": "192.0.2.53"}]}`, strings.ToUpper(mac), guest, mac2)
	iso, err := configdrive.Builder{}.ISO(ctx, []configdrive.File{
		{Path: "openstack/latest/meta_data.json", Data: []byte(`{"uuid": "` + node + `"}`)},
		{Path: "openstack/latest/network_data.json", Data: []byte(networkData)},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "config-2.iso")
	if err := os.WriteFile(p, iso, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
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
