package vm

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Conf is an all-in-one's ironic.conf for nodes of this package: the
// redfish hardware type, ipxe boot, no DHCP provider (QEMU's DHCP hands
// iPXE the ipxe_config URL), noop networking, no automated cleaning unless asked.
type Conf struct {
	// DBPath is the SQLite database file.
	DBPath string
	// HTTPURL and HTTPRoot are [deploy]http_url (as the guest reaches
	// it, on GuestHost) and http_root.
	HTTPURL, HTTPRoot string
	// DeployInterfaces is [DEFAULT]enabled_deploy_interfaces; default
	// "direct,custom-agent,ramdisk".
	DeployInterfaces string
	// BootInterfaces is [DEFAULT]enabled_boot_interfaces; default
	// "ipxe,pxe".
	BootInterfaces string
	// NetworkInterfaces is [DEFAULT]enabled_network_interfaces; default
	// "noop".
	NetworkInterfaces string
	// InspectInterfaces is [DEFAULT]enabled_inspect_interfaces; default
	// "no-inspect".
	InspectInterfaces string
	// APIURL is [service_catalog]endpoint_override, the API as the
	// agent reaches it; default http://GuestHost:<apiPort>.
	APIURL string
	// KernelAppend is added to [pxe]kernel_append_params after
	// "console=ttyS0" (e.g. ipa-advertise-host=127.0.0.1
	// ipa-advertise-port=<AgentPort>).
	KernelAppend string
	// PowerSync is [conductor]sync_power_state_interval in seconds; 0
	// disables it (a guest that powers itself off is left off).
	PowerSync int
	// AutomatedClean is [conductor]automated_clean (off by default: the
	// tests that do not undeploy through the agent skip cleaning).
	AutomatedClean bool
	// Extra is appended verbatim (further sections).
	Extra string
}

// Text is the configuration for the API on apiPort.
func (c Conf) Text(apiPort int) string {
	if c.DeployInterfaces == "" {
		c.DeployInterfaces = "direct,custom-agent,ramdisk"
	}
	if c.NetworkInterfaces == "" {
		c.NetworkInterfaces = "noop"
	}
	if c.BootInterfaces == "" {
		c.BootInterfaces = "ipxe,pxe"
	}
	if c.InspectInterfaces == "" {
		c.InspectInterfaces = "no-inspect"
	}
	if c.APIURL == "" {
		c.APIURL = fmt.Sprintf("http://%s:%d", GuestHost, apiPort)
	}
	return fmt.Sprintf(`[DEFAULT]
host = goironic-vm-test
auth_strategy = noauth
rpc_transport = none
enabled_hardware_types = redfish
enabled_boot_interfaces = %s
enabled_deploy_interfaces = %s
enabled_management_interfaces = redfish
enabled_power_interfaces = redfish
enabled_network_interfaces = %s
enabled_inspect_interfaces = %s
enabled_vendor_interfaces = no-vendor
enabled_bios_interfaces = no-bios
enabled_raid_interfaces = no-raid
enabled_console_interfaces = no-console
enabled_rescue_interfaces = no-rescue
default_boot_interface = ipxe

[api]
host_ip = 127.0.0.1
port = %d

[database]
connection = sqlite:///%s

[deploy]
http_url = %s
http_root = %s
default_boot_mode = bios

[pxe]
kernel_append_params = console=ttyS0 %s
tftp_master_path = %s

[service_catalog]
endpoint_override = %s

[dhcp]
dhcp_provider = none

[conductor]
automated_clean = %t
sync_power_state_interval = %d
%s`, c.BootInterfaces, c.DeployInterfaces, c.NetworkInterfaces, c.InspectInterfaces, apiPort, c.DBPath, c.HTTPURL, c.HTTPRoot, c.KernelAppend, filepath.Join(filepath.Dir(c.HTTPRoot), "master_images"), c.APIURL, c.AutomatedClean, c.PowerSync, c.Extra)
}

// Files is an HTTP server of local files for the guest (deploy kernel
// and ramdisk, images), on 127.0.0.1: the guest reaches it at URL.
type Files struct {
	// URL is the server as the guest reaches it, http://10.0.2.2:PORT.
	URL string
	// HostURL is the server as the host reaches it.
	HostURL string

	files map[string]string
	mu    sync.Mutex
	seen  []string
	root  string
}

// ServeRoot serves the files under dir (the all-in-one's
// [deploy]http_root) at the paths the map does not name.
func (f *Files) ServeRoot(dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.root = dir
}

// ServeFiles serves files (URL path -> local file) for the duration of
// t; other paths are 404.
func ServeFiles(t testing.TB, files map[string]string) *Files {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	f := &Files{URL: fmt.Sprintf("http://%s:%d", GuestHost, port), HostURL: fmt.Sprintf("http://127.0.0.1:%d", port), files: files}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return f
}

func (f *Files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Method+" "+r.URL.Path)
	root := f.root
	f.mu.Unlock()
	p, ok := f.files[r.URL.Path]
	if !ok && root != "" {
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	http.ServeFile(w, r, p)
}

// Seen reports whether path was asked for (GET or HEAD).
func (f *Files) Seen(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.seen {
		if strings.HasSuffix(s, " "+path) {
			return true
		}
	}
	return false
}

// Requests are the requests served, "METHOD /path", in order.
func (f *Files) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}
