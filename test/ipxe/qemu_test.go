package ipxe

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/goironic/ironic/test/differential"
)

const (
	requireEnv = "IRONIC_TEST_REQUIRE_QEMU"
	// vmTimeout bounds one VM's run; testBudget the whole test.
	vmTimeout  = 60 * time.Second
	testBudget = 4 * time.Minute
	// guestHost is the host as QEMU's user network shows it to the guest.
	guestHost = "10.0.2.2"
)

// listenIn listens on the first free port of 127.0.0.1:[lo, hi].
func listenIn(t *testing.T, lo, hi int) net.Listener {
	t.Helper()
	for p := lo; p <= hi; p++ {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			return l
		}
	}
	t.Fatalf("no free port in %d-%d", lo, hi)
	return nil
}

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

func (s *server) call(method, path string, body any) map[string]any {
	s.t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.url+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-OpenStack-Ironic-API-Version", "1.82")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		s.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// node enrolls a node with a port and puts it in state (written to the
// database directly: no conductor work is needed to be there).
func (s *server) node(mac, state string, driverInfo, instanceInfo map[string]any) string {
	s.t.Helper()
	n := s.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "boot_interface": "ipxe", "driver_info": driverInfo})
	uuid := n["uuid"].(string)
	s.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	ii, _ := json.Marshal(instanceInfo)
	s.sql("UPDATE nodes SET provision_state = ?, instance_info = ? WHERE uuid = ?", state, string(ii), uuid)
	return uuid
}

// sql runs a statement on the server's database.
func (s *server) sql(query string, args ...any) {
	s.t.Helper()
	db, err := sql.Open("sqlite", s.dbPath)
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		s.t.Fatal(err)
	}
}

func startServer(ctx context.Context, t *testing.T, fileURL string) *server {
	t.Helper()
	root, err := differential.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := differential.StatSources(root); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, err := differential.Build(ctx, differential.ServerPackage, dir)
	if err != nil {
		t.Fatal(err)
	}
	l := listenIn(t, 5760, 5779)
	p := port(l)
	l.Close()
	dbPath := filepath.Join(dir, "ironic.sqlite")
	cfg := fmt.Sprintf(`[DEFAULT]
host = goironic-ipxe-test
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = fake-hardware
enabled_boot_interfaces = fake,ipxe,pxe
enabled_deploy_interfaces = fake,direct,ramdisk
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
`, p, dbPath, fileURL, dir, guestHost, p)
	confPath := filepath.Join(dir, "ironic.conf")
	if err := os.WriteFile(confPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "ironic.log")
	proc, err := differential.Start(bin, []string{"--config-file", confPath}, logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = proc.Stop(10 * time.Second)
		if t.Failed() {
			if data, err := os.ReadFile(logPath); err == nil {
				t.Logf("server log:\n%s", lastBytes(data, 6000))
			}
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", p)
	if err := differential.WaitReady(ctx, url+"/", 30*time.Second, proc); err != nil {
		t.Fatal(err)
	}
	return &server{t: t, url: url, dbPath: dbPath}
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

	fl := listenIn(t, 5780, 5789)
	f := &files{}
	fsrv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = fsrv.Serve(fl) }()
	t.Cleanup(func() { _ = fsrv.Close() })
	fileURL := fmt.Sprintf("http://%s:%d", guestHost, port(fl))

	// The iSCSI portal: a listener that counts connections.
	il := listenIn(t, 5790, 5799)
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

	s := startServer(ctx, t, fileURL)
	apiPort := s.url[strings.LastIndexByte(s.url, ':')+1:]
	di := map[string]any{"deploy_kernel": fileURL + "/deploy.kernel", "deploy_ramdisk": fileURL + "/deploy.initramfs"}

	s.node("52:54:00:12:34:01", "deploying", di, nil)
	netboot := map[string]any{"image_source": fileURL + "/part.img", "kernel": fileURL + "/instance.vmlinuz", "ramdisk": fileURL + "/instance.initrd"}
	s.node("52:54:00:12:34:02", "active", di, netboot)
	bfv := s.node("52:54:00:12:34:03", "active", di, map[string]any{})
	vt := s.call("POST", "/v1/volume/targets", map[string]any{"node_uuid": bfv, "volume_type": "iscsi", "boot_index": 0, "volume_id": "vol-0",
		"properties": map[string]any{"target_portal": fmt.Sprintf("%s:%d", guestHost, port(il)), "target_iqn": "iqn.2010-10.org.openstack:vol-0",
			"target_lun": 0, "auth_username": "chap", "auth_password": "secret"}})
	// What the deployment records when the boot interface boots iSCSI
	// volumes (deploy_utils.populate_storage_driver_internal_info).
	s.sql("UPDATE nodes SET driver_internal_info = ? WHERE uuid = ?", fmt.Sprintf(`{"boot_from_volume": %q}`, vt["uuid"]), bfv)
	s.node("52:54:00:12:34:04", "available", di, nil)

	// iPXE expands ${mac} as 52:54:00:12:34:01, ${mac:hexhyp} as
	// 52-54-00-12-34-02; both reach the node.
	cases := []struct {
		name, mac, macVar string
		done              func() bool
	}{
		{"deploying", "52:54:00:12:34:01", "${mac}", func() bool { return f.saw("/deploy.kernel") && f.saw("/deploy.initramfs") }},
		{"active netboot", "52:54:00:12:34:02", "${mac:hexhyp}", func() bool { return f.saw("/instance.vmlinuz") && f.saw("/instance.initrd") }},
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
