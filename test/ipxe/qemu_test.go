package ipxe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goironic/ironic/test/fakecinder"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/vm"
)

const (
	requireEnv = "IRONIC_TEST_REQUIRE_QEMU"
	// vmTimeout bounds one VM's run; testBudget the whole test.
	vmTimeout  = 60 * time.Second
	testBudget = 4 * time.Minute
	// guestHost is the host as QEMU's user network shows it to the guest.
	guestHost = "10.0.2.2"
	// bfvVolume is the Cinder volume the boot-from-volume node boots from.
	bfvVolume = "b00710a0-0000-4000-8000-00000000b0f3"
)

func port(l net.Listener) int { return l.Addr().(*net.TCPAddr).Port }

// files is the image server: it records the paths asked for.
type files struct {
	mu   sync.Mutex
	seen []string
}

func (f *files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.URL.Path)
	f.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "kernel") || strings.HasSuffix(r.URL.Path, "vmlinuz") {
		// A "kernel" iPXE accepts as an image: a script that stops the VM.
		fmt.Fprint(w, "#!ipxe\necho fake kernel booted\npoweroff\n")
		return
	}
	fmt.Fprint(w, "fake initrd\n")
}

func (f *files) saw(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.seen {
		if p == path {
			return true
		}
	}
	return false
}

type server struct {
	t      *testing.T
	url    string
	dbPath string
}

// call sends a request at 1.82 and fails s.t unless it succeeds; it
// returns the answer's JSON object.
func (s *server) call(method, path string, body any) map[string]any {
	s.t.Helper()
	return cluster.NewClient(s.url, "1.82").Object(context.Background(), s.t, method, path, body)
}

// node enrolls a node (fields of POST /v1/nodes on top of fake-hardware
// with ipxe boot) with a port and makes it available, through the API.
func (s *server) node(mac string, fields map[string]any) string {
	s.t.Helper()
	body := map[string]any{"driver": "fake-hardware", "boot_interface": "ipxe"}
	for k, v := range fields {
		body[k] = v
	}
	n := s.call("POST", "/v1/nodes", body)
	uuid := n["uuid"].(string)
	s.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	s.provision(uuid, map[string]any{"target": "manage"}, "manageable")
	s.provision(uuid, map[string]any{"target": "provide"}, "available")
	return uuid
}

// provision asks for a provision state change and waits (bounded) until
// the node reaches want.
func (s *server) provision(uuid string, req map[string]any, want string) {
	s.t.Helper()
	s.call("PUT", "/v1/nodes/"+uuid+"/states/provision", req)
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := s.call("GET", "/v1/nodes/"+uuid, nil)
		if n["provision_state"] == want {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("node %s: provision state %v (last_error %v), want %s", uuid, n["provision_state"], n["last_error"], want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startServer(ctx context.Context, t *testing.T, fileURL, cinderURL string) *server {
	t.Helper()
	dir := t.TempDir()
	p, err := vm.FreePort(5760, 5779)
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "ironic.sqlite")
	srv := cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Port: p, Dir: dir,
		Config: func(apiPort int) string {
			return fmt.Sprintf(`[DEFAULT]
host = goironic-ipxe-test
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake,ipxe,pxe
enabled_deploy_interfaces = fake,direct,custom-agent,ramdisk
enabled_management_interfaces = fake
enabled_power_interfaces = fake
enabled_network_interfaces = noop
enabled_storage_interfaces = noop,cinder,external
enabled_vendor_interfaces = fake,no-vendor

[api]
host_ip = 0.0.0.0
port = %d

[database]
connection = sqlite:///%s

[deploy]
http_url = %s
http_root = %s

[pxe]
kernel_append_params = nofb console=ttyS0

[service_catalog]
endpoint_override = http://%s:%d

[dhcp]
dhcp_provider = none

[conductor]
automated_clean = false

[cinder]
auth_type = none
endpoint_override = %s
`, apiPort, dbPath, fileURL, dir, guestHost, apiPort, cinderURL)
		},
	})
	return &server{t: t, url: srv.URL, dbPath: dbPath}
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// boot runs a VM whose NIC has mac until done reports true or vmTimeout
// passes; the VM is killed either way. It returns the VM's console.
func boot(ctx context.Context, t *testing.T, qemu, apiPort, mac, macVar string, done func() bool) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, vmTimeout)
	defer cancel()
	bootfile := fmt.Sprintf("http://%s:%s/v1/drivers/fake-hardware/vendor_passthru/ipxe_config?port_address=%s", guestHost, apiPort, macVar)
	cmd := exec.CommandContext(ctx, qemu, "-machine", "accel=tcg", "-m", "128", "-nographic", "-no-reboot",
		"-nodefaults", "-serial", "stdio", "-boot", "n",
		"-netdev", "user,id=n0,bootfile="+bootfile,
		"-device", "e1000,netdev=n0,mac="+mac)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	ok := false
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
loop:
	for {
		if done() {
			ok = true
			break
		}
		select {
		case <-exited:
			ok = done()
			break loop
		case <-ctx.Done():
			break loop
		case <-tick.C:
		}
	}
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
	<-exited
	return out.String(), ok
}

func TestMain(m *testing.M) { cluster.Main(m) }

func TestIPXEBootsFromOurScript(t *testing.T) {
	start := time.Now()
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("qemu-system-x86_64 not found (%s=1): %v", requireEnv, err)
		}
		t.Skip("qemu-system-x86_64 not installed (scripts/install-test-deps.sh)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), testBudget)
	defer cancel()

	fl, err := vm.Listen(5780, 5789)
	if err != nil {
		t.Fatal(err)
	}
	f := &files{}
	fsrv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = fsrv.Serve(fl) }()
	t.Cleanup(func() { _ = fsrv.Close() })
	fileURL := fmt.Sprintf("http://%s:%d", guestHost, port(fl))

	// The iSCSI portal: a listener that counts connections.
	il, err := vm.Listen(5790, 5799)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	connected := make(chan struct{})
	go func() {
		for {
			c, err := il.Accept()
			if err != nil {
				return
			}
			once.Do(func() { close(connected) })
			c.Close()
		}
	}()
	t.Cleanup(func() { il.Close() })

	// Cinder: the boot volume's connection data names that portal.
	cinder := fakecinder.ForTest(t, fakecinder.Options{Volumes: []map[string]any{{"id": bfvVolume}},
		Portal: fmt.Sprintf("%s:%d", guestHost, port(il))})

	s := startServer(ctx, t, fileURL, cinder.URL+"/v3")
	apiPort := s.url[strings.LastIndexByte(s.url, ':')+1:]
	di := map[string]any{"deploy_kernel": fileURL + "/deploy.kernel", "deploy_ramdisk": fileURL + "/deploy.initramfs"}

	// Every node gets where it is through the API and the conductor.
	// custom-agent: deploying boots the agent ramdisk and waits for its
	// call back, which never comes here.
	agentNode := s.node("52:54:00:12:34:01", map[string]any{"deploy_interface": "custom-agent", "driver_info": di})
	s.provision(agentNode, map[string]any{"target": "active"}, "wait call-back")
	// ramdisk: the instance kernel and ramdisk boot over the network.
	ramdisk := s.node("52:54:00:12:34:02", map[string]any{"deploy_interface": "ramdisk", "driver_info": di,
		"instance_info": map[string]any{"kernel": fileURL + "/instance.vmlinuz", "ramdisk": fileURL + "/instance.initrd"}})
	s.provision(ramdisk, map[string]any{"target": "active"}, "active")
	// direct + cinder: the node boots from its iSCSI volume, attached in
	// Cinder during the deployment; no image is written.
	bfv := s.node("52:54:00:12:34:03", map[string]any{"deploy_interface": "direct", "storage_interface": "cinder", "driver_info": di,
		"properties": map[string]any{"capabilities": "iscsi_boot:True"}})
	s.call("POST", "/v1/volume/connectors", map[string]any{"node_uuid": bfv, "type": "iqn", "connector_id": "iqn.2010-10.org.openstack:node-3"})
	s.call("POST", "/v1/volume/targets", map[string]any{"node_uuid": bfv, "volume_type": "iscsi", "boot_index": 0, "volume_id": bfvVolume})
	s.provision(bfv, map[string]any{"target": "active"}, "active")
	if got := cinder.Server.Actions(); !slices.Contains(got, "os-attach "+bfvVolume) {
		t.Errorf("Cinder saw no attachment of %s: %v", bfvVolume, got)
	}
	s.node("52:54:00:12:34:04", nil)

	// iPXE expands ${mac} as 52:54:00:12:34:01, ${mac:hexhyp} as
	// 52-54-00-12-34-02; both reach the node.
	cases := []struct {
		name, mac, macVar string
		done              func() bool
	}{
		{"wait call-back", "52:54:00:12:34:01", "${mac}", func() bool { return f.saw("/deploy.kernel") && f.saw("/deploy.initramfs") }},
		{"active ramdisk", "52:54:00:12:34:02", "${mac:hexhyp}", func() bool { return f.saw("/instance.vmlinuz") && f.saw("/instance.initrd") }},
		{"active boot from volume", "52:54:00:12:34:03", "${mac}", func() bool {
			select {
			case <-connected:
				return true
			default:
				return false
			}
		}},
	}
	for _, c := range cases {
		t0 := time.Now()
		console, ok := boot(ctx, t, qemu, apiPort, c.mac, c.macVar, c.done)
		if !ok {
			t.Errorf("%s: iPXE did not fetch what the script names within %s; file server saw %v\nconsole:\n%s", c.name, vmTimeout, f.seen, lastBytes([]byte(console), 4000))
			continue
		}
		t.Logf("%s: ok in %s", c.name, time.Since(t0).Round(time.Millisecond))
	}

	// A node with no boot configuration gets the error script.
	res, err := http.Get(s.url + "/v1/drivers/fake-hardware/vendor_passthru/ipxe_config?port_address=52-54-00-12-34-04")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(string(body), "#!ipxe") || !strings.Contains(string(body), `"available"`) {
		t.Errorf("available node: %d\n%s", res.StatusCode, body)
	}
	t.Logf("wall time %s", time.Since(start).Round(time.Millisecond))
}
