package conf

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeFile writes a config file into a test directory and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustLoad(t *testing.T, files []string, opts ...LoadOption) *Config {
	t.Helper()
	opts = append([]LoadOption{WithHostname("testhost"), WithMyIP("192.0.2.10")}, opts...)
	c, err := Load(files, opts...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	c := mustLoad(t, nil)
	got := map[string]any{
		"host":                      c.Default.Host,
		"auth_strategy":             c.Default.AuthStrategy,
		"rpc_transport":             c.Default.RPCTransport,
		"transport_url":             c.Default.TransportURL,
		"control_exchange":          c.Default.ControlExchange,
		"enabled_hardware_types":    c.Default.EnabledHardwareTypes,
		"enabled_boot_interfaces":   c.Default.EnabledBootInterfaces,
		"enabled_power_interfaces":  c.Default.EnabledPowerInterfaces,
		"default_storage_interface": c.Default.DefaultStorageInterface,
		"default_boot_interface":    c.Default.DefaultBootInterface,
		"hash_partition_exponent":   c.Default.HashPartitionExponent,
		"hash_ring_reset_interval":  c.Default.HashRingResetInterval,
		"hash_ring_algorithm":       c.Default.HashRingAlgorithm,
		"state_path":                c.Default.StatePath,
		"api.host_ip":               c.API.HostIP,
		"api.port":                  c.API.Port,
		"api.max_limit":             c.API.MaxLimit,
		"api.api_workers":           c.API.APIWorkers,
		"database.connection":       c.Database.Connection,
		"database.max_retries":      c.Database.MaxRetries,
		"database.retry_interval":   c.Database.RetryInterval,
		"conductor.heartbeat":       c.Conductor.HeartbeatTimeout,
		"conductor.workers":         c.Conductor.WorkersPoolSize,
		"conductor.lock_interval":   c.Conductor.NodeLockedRetryInterval,
		"pxe.tftp_server":           c.PXE.TFTPServer,
		"pxe.pxe_config_template":   c.PXE.PXEConfigTemplate,
		"pxe.file_permission":       c.PXE.FilePermission,
		"json_rpc.port":             c.JSONRPC.Port,
		"json_rpc.host_ip":          c.JSONRPC.HostIP,
		"json_rpc.auth_type":        c.JSONRPC.AuthType,
		"json_rpc.timeout":          c.JSONRPC.Timeout,
		"neutron.valid_interfaces":  c.Neutron.ValidInterfaces,
		"neutron.service_type":      c.Neutron.ServiceType,
		"oslo_policy.policy_file":   c.OsloPolicy.PolicyFile,
		"oslo_policy.policy_dirs":   c.OsloPolicy.PolicyDirs,
		"keystone.service_roles":    c.KeystoneAuthtoken.ServiceTokenRoles,
		"keystone.memcached":        c.KeystoneAuthtoken.MemcachedServers,
		"rabbit.kombu_delay":        c.OsloMessagingRabbit.KombuReconnectDelay,
		"dhcp.dhcp_provider":        c.DHCP.DHCPProvider,
		"inventory.data_backend":    c.Inventory.DataBackend,
	}
	want := map[string]any{
		"host":                      "testhost",
		"auth_strategy":             "keystone",
		"rpc_transport":             "oslo",
		"transport_url":             "rabbit://",
		"control_exchange":          "ironic",
		"enabled_hardware_types":    []string{"ipmi", "redfish"},
		"enabled_boot_interfaces":   []string{"ipxe", "pxe", "redfish-virtual-media"},
		"enabled_power_interfaces":  []string(nil),
		"default_storage_interface": "noop",
		"default_boot_interface":    "",
		"hash_partition_exponent":   5,
		"hash_ring_reset_interval":  15 * time.Second,
		"hash_ring_algorithm":       "md5",
		"state_path":                "/usr/lib/python/site-packages/ironic/ironic",
		"api.host_ip":               "0.0.0.0",
		"api.port":                  6385,
		"api.max_limit":             1000,
		"api.api_workers":           0,
		"database.connection":       "sqlite:////usr/lib/python/site-packages/ironic/ironic/ironic.sqlite",
		"database.max_retries":      10,
		"database.retry_interval":   10 * time.Second,
		"conductor.heartbeat":       60 * time.Second,
		"conductor.workers":         100,
		"conductor.lock_interval":   time.Second,
		"pxe.tftp_server":           "192.0.2.10",
		"pxe.pxe_config_template":   "/usr/lib/python/site-packages/ironic/ironic/drivers/modules/pxe_config.template",
		"pxe.file_permission":       0o644,
		"json_rpc.port":             8089,
		"json_rpc.host_ip":          "::",
		"json_rpc.auth_type":        "password",
		"json_rpc.timeout":          120 * time.Second,
		"neutron.valid_interfaces":  []string{"internal", "public"},
		"neutron.service_type":      "network",
		"oslo_policy.policy_file":   "policy.yaml",
		"oslo_policy.policy_dirs":   []string{"policy.d"},
		"keystone.service_roles":    []string{"service"},
		"keystone.memcached":        []string(nil),
		"rabbit.kombu_delay":        time.Second,
		"dhcp.dhcp_provider":        "neutron",
		"inventory.data_backend":    "database",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if len(c.Ignored()) != 0 || len(c.NotImplemented()) != 0 || len(c.Files()) != 0 {
		t.Errorf("no files: Ignored=%v NotImplemented=%v Files=%v", c.Ignored(), c.NotImplemented(), c.Files())
	}
	if c.IsSet("api", "port") {
		t.Error("IsSet(api, port) with no file")
	}
}

func TestHostnameDefaultFromOS(t *testing.T) {
	c, err := Load(nil, WithMyIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.Hostname()
	if err != nil || want == "" {
		want = "localhost"
	}
	if c.Default.Host != want {
		t.Errorf("host = %q, want %q", c.Default.Host, want)
	}
}

func TestParsing(t *testing.T) {
	tests := []struct {
		name string
		text string
		get  func(*Config) any
		want any
	}{
		{"int", "[api]\nport = 8080\n", func(c *Config) any { return c.API.Port }, 8080},
		{"int with sign and spaces", "[api]\nmax_limit =   +25  \n", func(c *Config) any { return c.API.MaxLimit }, 25},
		{"colon delimiter", "[api]\nport: 8081\n", func(c *Config) any { return c.API.Port }, 8081},
		{"upper-case section", "[API]\nport = 8082\n", func(c *Config) any { return c.API.Port }, 8082},
		{"last key in a file wins", "[api]\nport = 1\nport = 2\n", func(c *Config) any { return c.API.Port }, 2},
		{"empty int is unset", "[api]\napi_workers =\n", func(c *Config) any { return c.API.APIWorkers }, 0},
		{"bool true", "[DEFAULT]\ndebug = true\n", func(c *Config) any { return c.Default.Debug }, true},
		{"bool Yes", "[DEFAULT]\ndebug = Yes\n", func(c *Config) any { return c.Default.Debug }, true},
		{"bool ON", "[DEFAULT]\ndebug = ON\n", func(c *Config) any { return c.Default.Debug }, true},
		{"bool 1", "[DEFAULT]\ndebug = 1\n", func(c *Config) any { return c.Default.Debug }, true},
		{"bool False", "[conductor]\nautomated_clean = False\n", func(c *Config) any { return c.Conductor.AutomatedClean }, false},
		{"bool no", "[conductor]\nautomated_clean = no\n", func(c *Config) any { return c.Conductor.AutomatedClean }, false},
		{"bool off", "[conductor]\nautomated_clean = off\n", func(c *Config) any { return c.Conductor.AutomatedClean }, false},
		{"bool 0", "[conductor]\nautomated_clean = 0\n", func(c *Config) any { return c.Conductor.AutomatedClean }, false},
		{"list trims and drops empty items", "[DEFAULT]\nenabled_hardware_types = ipmi , ,redfish,, fake-hardware ,\n",
			func(c *Config) any { return c.Default.EnabledHardwareTypes }, []string{"ipmi", "redfish", "fake-hardware"}},
		{"empty list", "[DEFAULT]\nenabled_raid_interfaces =\n",
			func(c *Config) any { return c.Default.EnabledRAIDInterfaces }, []string{}},
		{"float duration", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = 2.5\n",
			func(c *Config) any { return c.OsloMessagingRabbit.KombuReconnectDelay }, 2500 * time.Millisecond},
		{"int duration", "[conductor]\nheartbeat_timeout = 120\n",
			func(c *Config) any { return c.Conductor.HeartbeatTimeout }, 2 * time.Minute},
		{"negative duration kept", "[conductor]\nsync_power_state_interval = -1\n",
			func(c *Config) any { return c.Conductor.SyncPowerStateInterval }, -time.Second},
		{"dict", "[pxe]\npxe_bootfile_name_by_arch = aarch64: grubaa64.efi , ppc64le:config/ppc\n",
			func(c *Config) any { return c.PXE.PXEBootfileNameByArch }, map[string]string{"aarch64": "grubaa64.efi", "ppc64le": "config/ppc"}},
		{"octal", "[api]\nunix_socket_mode = 0660\n", func(c *Config) any { return c.API.UnixSocketMode }, 0o660},
		{"hash inside a value is kept", "[DEFAULT]\ntransport_url = rabbit://u:p#x@h:5672/\n",
			func(c *Config) any { return c.Default.TransportURL }, "rabbit://u:p#x@h:5672/"},
		{"double quotes are removed", "[DEFAULT]\nrbac_service_project_name = \"svc\"\n",
			func(c *Config) any { return c.Default.RBACServiceProjectName }, "svc"},
		{"single quotes are removed", "[DEFAULT]\nrbac_service_project_name = ' a b '\n",
			func(c *Config) any { return c.Default.RBACServiceProjectName }, " a b "},
		{"inner quotes are kept", "[DEFAULT]\nrbac_service_project_name = a\"b\"\n",
			func(c *Config) any { return c.Default.RBACServiceProjectName }, `a"b"`},
		{"comment lines", "# comment\n; other\n[api]\n# port = 1\nport = 3\n", func(c *Config) any { return c.API.Port }, 3},
		{"continuation line", "[pxe]\nkernel_append_params = a b\n  c d\n",
			func(c *Config) any { return c.PXE.KernelAppendParams }, "a b\nc d"},
		{"multi-valued option", "[conductor]\nclean_step_priority_override = deploy.erase_devices:0\nclean_step_priority_override = deploy.erase_devices_metadata:10\n",
			func(c *Config) any { return c.Conductor.CleanStepPriorityOverride }, []string{"deploy.erase_devices:0", "deploy.erase_devices_metadata:10"}},
		{"deprecated name", "[pxe]\npxe_append_params = nofb\n",
			func(c *Config) any { return c.PXE.KernelAppendParams }, "nofb"},
		{"current name beats deprecated name", "[pxe]\nkernel_append_params = new\npxe_append_params = old\n",
			func(c *Config) any { return c.PXE.KernelAppendParams }, "new"},
		{"deprecated section name", "[DEFAULT]\nsql_connection = mysql://u@h/db\n",
			func(c *Config) any { return c.Database.Connection }, "mysql://u@h/db"},
		{"choices accept unset", "[DEFAULT]\npin_release_version =\n", func(c *Config) any { return c.Default.PinReleaseVersion }, ""},
		{"host address name", "[api]\nhost_ip = api.example.com\n", func(c *Config) any { return c.API.HostIP }, "api.example.com"},
		{"host address IPv6", "[api]\nhost_ip = ::1\n", func(c *Config) any { return c.API.HostIP }, "::1"},
		{"keystoneauth options", "[neutron]\nauth_type = password\nusername = ironic\nendpoint_override = http://127.0.0.1:9696\ntimeout = 30\n",
			func(c *Config) any {
				return []any{c.Neutron.AuthType, c.Neutron.Username, c.Neutron.EndpointOverride, c.Neutron.Timeout}
			}, []any{"password", "ironic", "http://127.0.0.1:9696", 30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, nil, WithText("test.conf", tt.text))
			if diff := cmp.Diff(tt.want, tt.get(c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverridesAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	first := writeFile(t, dir, "a.conf", `[DEFAULT]
host = first
debug = true
[api]
port = 1111
max_limit = 50
[conductor]
clean_step_priority_override = deploy.a:1
`)
	second := writeFile(t, dir, "b.conf", `[DEFAULT]
host = second
[api]
port = 2222
[conductor]
clean_step_priority_override = deploy.b:2
`)
	c := mustLoad(t, []string{first, second})
	got := []any{c.Default.Host, c.Default.Debug, c.API.Port, c.API.MaxLimit, c.Conductor.CleanStepPriorityOverride}
	want := []any{"second", true, 2222, 50, []string{"deploy.a:1", "deploy.b:2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{first, second}, c.Files()); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	if !c.IsSet("api", "port") || !c.IsSet("API", "max_limit") || c.IsSet("api", "host_ip") {
		t.Errorf("IsSet wrong: port=%v max_limit=%v host_ip=%v", c.IsSet("api", "port"), c.IsSet("api", "max_limit"), c.IsSet("api", "host_ip"))
	}

	// A newer file's deprecated name beats an older file's current name.
	third := writeFile(t, dir, "c.conf", "[pxe]\nkernel_append_params = old-file\n")
	fourth := writeFile(t, dir, "d.conf", "[pxe]\npxe_append_params = new-file\n")
	c = mustLoad(t, []string{third, fourth})
	if c.PXE.KernelAppendParams != "new-file" {
		t.Errorf("kernel_append_params = %q, want new-file", c.PXE.KernelAppendParams)
	}
}

func TestInterpolation(t *testing.T) {
	tests := []struct {
		name string
		text string
		get  func(*Config) any
		want any
	}{
		{"default refers to DEFAULT option", "[DEFAULT]\nstate_path = /var/lib/ironic\n",
			func(c *Config) any { return c.Database.Connection }, "sqlite:////var/lib/ironic/ironic.sqlite"},
		{"nested: state_path refers to pybasedir", "[DEFAULT]\npybasedir = /opt/ironic\n",
			func(c *Config) any { return c.Database.Connection }, "sqlite:////opt/ironic/ironic.sqlite"},
		{"braces", "[DEFAULT]\nstate_path = /srv\n[deploy]\nhttp_root = ${state_path}/http\n",
			func(c *Config) any { return c.Deploy.HTTPRoot }, "/srv/http"},
		{"dollar name", "[DEFAULT]\nstate_path = /srv\n[pxe]\ntftp_root = $state_path/tftp\n",
			func(c *Config) any { return c.PXE.TFTPRoot }, "/srv/tftp"},
		{"same section first", "[pxe]\ntftp_root = /tftp\ntftp_master_path = $tftp_root/master\n",
			func(c *Config) any { return c.PXE.TFTPMasterPath }, "/tftp/master"},
		{"explicit section", "[pxe]\ntftp_root = /tftp\n[deploy]\nhttp_root = ${pxe.tftp_root}/http\n",
			func(c *Config) any { return c.Deploy.HTTPRoot }, "/tftp/http"},
		{"my_ip in default", "[DEFAULT]\nmy_ip = 10.0.0.5\n",
			func(c *Config) any { return c.PXE.TFTPServer }, "10.0.0.5"},
		{"escaped dollar", "[keystone_authtoken]\npassword = pa$$word\\$x\n",
			func(c *Config) any { return c.KeystoneAuthtoken.Password }, "pa$word$x"},
		{"dollar without identifier is kept", "[keystone_authtoken]\npassword = 1$-2$\n",
			func(c *Config) any { return c.KeystoneAuthtoken.Password }, "1$-2$"},
		{"unset option is empty", "[deploy]\nhttp_root = /x$my_ipv6/y\n",
			func(c *Config) any { return c.Deploy.HTTPRoot }, "/x/y"},
		{"unknown option set in a file", "[DEFAULT]\nmy_prefix = /base\n[deploy]\nhttp_root = $my_prefix/http\n",
			func(c *Config) any { return c.Deploy.HTTPRoot }, "/base/http"},
		{"in list items", "[DEFAULT]\nhw = ipmi\nenabled_hardware_types = $hw,redfish\n",
			func(c *Config) any { return c.Default.EnabledHardwareTypes }, []string{"ipmi", "redfish"}},
		{"integer from interpolation", "[DEFAULT]\nbase_port = 7000\n[api]\nport = $base_port\n",
			func(c *Config) any { return c.API.Port }, 7000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, nil, WithText("test.conf", tt.text))
			if diff := cmp.Diff(tt.want, tt.get(c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBadValues(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{"bad int", "[api]\nport = abc\n", []string{"bad.conf", "[api] port", `invalid port value "abc"`}},
		{"port out of range", "[api]\nport = 70000\n", []string{"bad.conf", "[api] port", "maximum 65535"}},
		{"below minimum", "[conductor]\nworkers_pool_size = 1\n", []string{"bad.conf", "[conductor] workers_pool_size", "minimum 3"}},
		{"bad bool", "[DEFAULT]\ndebug = yep\n", []string{"bad.conf", "[DEFAULT] debug", `invalid boolean value "yep"`}},
		{"empty bool", "[DEFAULT]\ndebug =\n", []string{"[DEFAULT] debug", "invalid boolean value"}},
		{"bad float", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = soon\n", []string{"[oslo_messaging_rabbit] kombu_reconnect_delay", "floating point"}},
		{"float above max", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = 9\n", []string{"kombu_reconnect_delay", "maximum 4.5"}},
		{"fraction for integer", "[conductor]\nheartbeat_timeout = 1.5\n", []string{"[conductor] heartbeat_timeout", "invalid integer value"}},
		{"bad choice", "[DEFAULT]\nauth_strategy = ldap\n", []string{"bad.conf", "[DEFAULT] auth_strategy", `"ldap"`, "noauth, keystone, http_basic"}},
		{"bad rpc_transport", "[DEFAULT]\nrpc_transport = grpc\n", []string{"[DEFAULT] rpc_transport", "oslo, json-rpc, none"}},
		{"bad dict", "[pxe]\nloader_file_paths = nocolon\n", []string{"[pxe] loader_file_paths", "key:value"}},
		{"bad IP address", "[console]\nsocat_address = not-an-ip\n", []string{"[console] socat_address", "invalid IP address"}},
		{"bad host address", "[api]\nhost_ip = bad_host!\n", []string{"[api] host_ip", "invalid host address"}},
		{"unknown variable", "[deploy]\nhttp_root = $nowhere/x\n", []string{"bad.conf", "[deploy] http_root", "$nowhere"}},
		{"interpolation loop", "[DEFAULT]\nstate_path = $pybasedir\npybasedir = $state_path\n", []string{"loop"}},
		{"loop through unknown options", "[DEFAULT]\na = $b\nb = ${a}\n[deploy]\nhttp_root = $a\n", []string{"[deploy] http_root", "loop"}},
		{"syntax error", "[api\nport = 1\n", []string{"bad.conf"}},
		{"line without delimiter", "[api]\nport\n", []string{"bad.conf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.conf", tt.text)
			_, err := Load([]string{p}, WithHostname("h"), WithMyIP("127.0.0.1"))
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}

	if _, err := Load([]string{filepath.Join(dir, "missing.conf")}); err == nil || !strings.Contains(err.Error(), "missing.conf not found") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestIgnoredAndNotImplemented(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.conf", `[DEFAULT]
host = h
enabled_hardware_types = ipmi
pecan_debug = true
frobnicate = 1
[api]
port = 1
no_such_api_option = x
[ilo]
power_wait = 5
[my_plugin]
b = 2
a = 1
[pxe]
pxe_append_params = old
`)
	b := writeFile(t, dir, "b.conf", "[DEFAULT]\nfrobnicate = 2\n[ilo]\npower_wait = 6\n[MY_PLUGIN]\na = 3\n")
	c := mustLoad(t, []string{a, b})
	if diff := cmp.Diff([]string{"DEFAULT.frobnicate", "api.no_such_api_option", "my_plugin.a", "my_plugin.b"}, c.Ignored()); diff != "" {
		t.Errorf("Ignored (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"DEFAULT.pecan_debug", "ilo.power_wait"}, c.NotImplemented()); diff != "" {
		t.Errorf("NotImplemented (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pxe.pxe_append_params (use pxe.kernel_append_params)"}, c.Deprecated()); diff != "" {
		t.Errorf("Deprecated (-want +got):\n%s", diff)
	}
	if !c.IsSet("ilo", "power_wait") {
		t.Error("IsSet(ilo, power_wait) = false for an option set in a file")
	}
	// Unknown options never break loading, and values of unimplemented
	// options are not validated.
	c = mustLoad(t, nil, WithText("x", "[ilo]\npower_wait = not-a-number\n"))
	if diff := cmp.Diff([]string{"ilo.power_wait"}, c.NotImplemented()); diff != "" {
		t.Errorf("NotImplemented (-want +got):\n%s", diff)
	}
}

func TestWithOverride(t *testing.T) {
	c := mustLoad(t, nil, WithText("x", "[api]\nport = 1\n"), WithOverride("API", "port", "2"))
	if c.API.Port != 2 || !c.IsSet("api", "port") {
		t.Errorf("port = %d, IsSet = %v; want 2, true", c.API.Port, c.IsSet("api", "port"))
	}
	if _, err := Load(nil, WithOverride("api", "nope", "1")); err == nil {
		t.Error("override of an unknown option: no error")
	}
}

func TestInterfaces(t *testing.T) {
	c := mustLoad(t, nil, WithText("x", `[DEFAULT]
enabled_hardware_types = fake-hardware
enabled_power_interfaces = fake, ipmitool
default_power_interface = fake
`))
	got := c.Interfaces()
	if diff := cmp.Diff([]string{"fake-hardware"}, got.EnabledHardwareTypes); diff != "" {
		t.Errorf("EnabledHardwareTypes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"fake", "ipmitool"}, got.Enabled["power"]); diff != "" {
		t.Errorf("Enabled[power] (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"no-bios", "redfish"}, got.Enabled["bios"]); diff != "" {
		t.Errorf("Enabled[bios] (-want +got):\n%s", diff)
	}
	if len(got.Enabled["management"]) != 0 {
		t.Errorf("Enabled[management] = %v, want empty (computed from hardware types)", got.Enabled["management"])
	}
	if len(got.Enabled) != len(InterfaceNames()) {
		t.Errorf("Enabled has %d interfaces, want %d", len(got.Enabled), len(InterfaceNames()))
	}
	if diff := cmp.Diff(map[string]string{"power": "fake", "storage": "noop"}, got.Default); diff != "" {
		t.Errorf("Default (-want +got):\n%s", diff)
	}
	// The result is a copy.
	got.Enabled["power"][0] = "changed"
	if c.Default.EnabledPowerInterfaces[0] != "fake" {
		t.Error("Interfaces() shares memory with the Config")
	}
}

func TestReport(t *testing.T) {
	c := mustLoad(t, nil, WithText("site.conf", "[DEFAULT]\nfrobnicate = 1\npecan_debug = true\n[pxe]\npxe_append_params = x\n"))
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	c.Report(context.Background(), log)
	want := `level=INFO msg="configuration read" files=site.conf
level=WARN msg="ignoring unknown configuration options" options=DEFAULT.frobnicate
level=WARN msg="configuration options not implemented by this service have no effect" options=DEFAULT.pecan_debug
level=WARN msg="deprecated configuration option names in use" options="pxe.pxe_append_params (use pxe.kernel_append_params)"
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	buf.Reset()
	mustLoad(t, nil).Report(context.Background(), log)
	if want := "level=INFO msg=\"no configuration file read, using defaults\"\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
