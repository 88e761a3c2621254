package conf

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"host":                      get(t, c, "DEFAULT.host"),
		"auth_strategy":             get(t, c, "DEFAULT.auth_strategy"),
		"rpc_transport":             get(t, c, "DEFAULT.rpc_transport"),
		"transport_url":             get(t, c, "DEFAULT.transport_url"),
		"control_exchange":          get(t, c, "DEFAULT.control_exchange"),
		"enabled_hardware_types":    get(t, c, "DEFAULT.enabled_hardware_types"),
		"enabled_boot_interfaces":   get(t, c, "DEFAULT.enabled_boot_interfaces"),
		"enabled_power_interfaces":  get(t, c, "DEFAULT.enabled_power_interfaces"),
		"default_storage_interface": get(t, c, "DEFAULT.default_storage_interface"),
		"default_boot_interface":    get(t, c, "DEFAULT.default_boot_interface"),
		"hash_partition_exponent":   get(t, c, "DEFAULT.hash_partition_exponent"),
		"hash_ring_reset_interval":  get(t, c, "DEFAULT.hash_ring_reset_interval"),
		"hash_ring_algorithm":       get(t, c, "DEFAULT.hash_ring_algorithm"),
		"state_path":                get(t, c, "DEFAULT.state_path"),
		"api.host_ip":               get(t, c, "api.host_ip"),
		"api.port":                  get(t, c, "api.port"),
		"api.max_limit":             get(t, c, "api.max_limit"),
		"api.api_workers":           get(t, c, "api.api_workers"),
		"database.connection":       get(t, c, "database.connection"),
		"database.max_retries":      get(t, c, "database.max_retries"),
		"database.retry_interval":   get(t, c, "database.retry_interval"),
		"conductor.heartbeat":       get(t, c, "conductor.heartbeat_timeout"),
		"conductor.workers":         get(t, c, "conductor.workers_pool_size"),
		"conductor.lock_interval":   get(t, c, "conductor.node_locked_retry_interval"),
		"pxe.tftp_server":           get(t, c, "pxe.tftp_server"),
		"pxe.pxe_config_template":   get(t, c, "pxe.pxe_config_template"),
		"pxe.file_permission":       get(t, c, "pxe.file_permission"),
		"json_rpc.port":             get(t, c, "json_rpc.port"),
		"json_rpc.host_ip":          get(t, c, "json_rpc.host_ip"),
		"json_rpc.auth_type":        get(t, c, "json_rpc.auth_type"),
		"json_rpc.timeout":          get(t, c, "json_rpc.timeout"),
		"neutron.valid_interfaces":  get(t, c, "neutron.valid_interfaces"),
		"neutron.service_type":      get(t, c, "neutron.service_type"),
		"oslo_policy.policy_file":   get(t, c, "oslo_policy.policy_file"),
		"oslo_policy.policy_dirs":   get(t, c, "oslo_policy.policy_dirs"),
		"keystone.service_roles":    get(t, c, "keystone_authtoken.service_token_roles"),
		"keystone.memcached":        get(t, c, "keystone_authtoken.memcached_servers"),
		"rabbit.kombu_delay":        get(t, c, "oslo_messaging_rabbit.kombu_reconnect_delay"),
		"dhcp.dhcp_provider":        get(t, c, "dhcp.dhcp_provider"),
		"inventory.data_backend":    get(t, c, "inventory.data_backend"),
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
		"hash_ring_reset_interval":  15,
		"hash_ring_algorithm":       "md5",
		"state_path":                "/usr/lib/python/site-packages/ironic/ironic",
		"api.host_ip":               "0.0.0.0",
		"api.port":                  6385,
		"api.max_limit":             1000,
		"api.api_workers":           0,
		"database.connection":       "sqlite:////usr/lib/python/site-packages/ironic/ironic/ironic.sqlite",
		"database.max_retries":      10,
		"database.retry_interval":   10,
		"conductor.heartbeat":       60,
		"conductor.workers":         100,
		"conductor.lock_interval":   1,
		"pxe.tftp_server":           "192.0.2.10",
		"pxe.pxe_config_template":   "/usr/lib/python/site-packages/ironic/ironic/drivers/modules/pxe_config.template",
		"pxe.file_permission":       0o644,
		"json_rpc.port":             8089,
		"json_rpc.host_ip":          "::",
		"json_rpc.auth_type":        "password",
		"json_rpc.timeout":          120,
		"neutron.valid_interfaces":  []string{"internal", "public"},
		"neutron.service_type":      "network",
		"oslo_policy.policy_file":   "policy.yaml",
		"oslo_policy.policy_dirs":   []string{"policy.d"},
		"keystone.service_roles":    []string{"service"},
		"keystone.memcached":        []string(nil),
		"rabbit.kombu_delay":        1.0,
		"dhcp.dhcp_provider":        "neutron",
		"inventory.data_backend":    "database",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if len(c.Ignored()) != 0 || len(c.NotImplemented(nil)) != 0 || len(c.Files()) != 0 {
		t.Errorf("no files: Ignored=%v NotImplemented=%v Files=%v", c.Ignored(), c.NotImplemented(nil), c.Files())
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
	if get(t, c, "DEFAULT.host") != want {
		t.Errorf("host = %q, want %q", get(t, c, "DEFAULT.host"), want)
	}
}

func TestParsing(t *testing.T) {
	tests := []struct {
		name string
		text string
		key  string
		want any
	}{
		{"int", "[api]\nport = 8080\n", "api.port", 8080},
		{"int with sign and spaces", "[api]\nmax_limit =   +25  \n", "api.max_limit", 25},
		{"colon delimiter", "[api]\nport: 8081\n", "api.port", 8081},
		{"upper-case section", "[API]\nport = 8082\n", "api.port", 8082},
		{"last key in a file wins", "[api]\nport = 1\nport = 2\n", "api.port", 2},
		{"empty int is unset", "[api]\napi_workers =\n", "api.api_workers", 0},
		{"bool true", "[DEFAULT]\ndebug = true\n", "DEFAULT.debug", true},
		{"bool Yes", "[DEFAULT]\ndebug = Yes\n", "DEFAULT.debug", true},
		{"bool ON", "[DEFAULT]\ndebug = ON\n", "DEFAULT.debug", true},
		{"bool 1", "[DEFAULT]\ndebug = 1\n", "DEFAULT.debug", true},
		{"bool False", "[conductor]\nautomated_clean = False\n", "conductor.automated_clean", false},
		{"bool no", "[conductor]\nautomated_clean = no\n", "conductor.automated_clean", false},
		{"bool off", "[conductor]\nautomated_clean = off\n", "conductor.automated_clean", false},
		{"bool 0", "[conductor]\nautomated_clean = 0\n", "conductor.automated_clean", false},
		{"list trims and drops empty items", "[DEFAULT]\nenabled_hardware_types = ipmi , ,redfish,, fake-hardware ,\n",
			"DEFAULT.enabled_hardware_types", []string{"ipmi", "redfish", "fake-hardware"}},
		{"empty list", "[DEFAULT]\nenabled_raid_interfaces =\n",
			"DEFAULT.enabled_raid_interfaces", []string{}},
		{"float", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = 2.5\n",
			"oslo_messaging_rabbit.kombu_reconnect_delay", 2.5},
		{"int seconds", "[conductor]\nheartbeat_timeout = 120\n",
			"conductor.heartbeat_timeout", 120},
		{"negative kept", "[conductor]\nsync_power_state_interval = -1\n",
			"conductor.sync_power_state_interval", -1},
		{"dict", "[pxe]\npxe_bootfile_name_by_arch = aarch64: grubaa64.efi , ppc64le:config/ppc\n",
			"pxe.pxe_bootfile_name_by_arch", map[string]string{"aarch64": "grubaa64.efi", "ppc64le": "config/ppc"}},
		{"octal", "[api]\nunix_socket_mode = 0660\n", "api.unix_socket_mode", 0o660},
		{"hash inside a value is kept", "[DEFAULT]\ntransport_url = rabbit://u:p#x@h:5672/\n",
			"DEFAULT.transport_url", "rabbit://u:p#x@h:5672/"},
		{"double quotes are removed", "[DEFAULT]\nrbac_service_project_name = \"svc\"\n",
			"DEFAULT.rbac_service_project_name", "svc"},
		{"single quotes are removed", "[DEFAULT]\nrbac_service_project_name = ' a b '\n",
			"DEFAULT.rbac_service_project_name", " a b "},
		{"inner quotes are kept", "[DEFAULT]\nrbac_service_project_name = a\"b\"\n",
			"DEFAULT.rbac_service_project_name", `a"b"`},
		{"comment lines", "# comment\n; other\n[api]\n# port = 1\nport = 3\n", "api.port", 3},
		{"continuation line", "[pxe]\nkernel_append_params = a b\n  c d\n",
			"pxe.kernel_append_params", "a b\nc d"},
		{"multi-valued option", "[conductor]\nclean_step_priority_override = deploy.erase_devices:0\nclean_step_priority_override = deploy.erase_devices_metadata:10\n",
			"conductor.clean_step_priority_override", []string{"deploy.erase_devices:0", "deploy.erase_devices_metadata:10"}},
		{"deprecated name", "[pxe]\npxe_append_params = nofb\n",
			"pxe.kernel_append_params", "nofb"},
		{"current name beats deprecated name", "[pxe]\nkernel_append_params = new\npxe_append_params = old\n",
			"pxe.kernel_append_params", "new"},
		{"deprecated section name", "[DEFAULT]\nsql_connection = mysql://u@h/db\n",
			"database.connection", "mysql://u@h/db"},
		{"choices accept unset", "[DEFAULT]\npin_release_version =\n", "DEFAULT.pin_release_version", ""},
		{"host address name", "[api]\nhost_ip = api.example.com\n", "api.host_ip", "api.example.com"},
		{"host address IPv6", "[api]\nhost_ip = ::1\n", "api.host_ip", "::1"},
		{"keystoneauth option", "[neutron]\nauth_type = password\nusername = ironic\nendpoint_override = http://127.0.0.1:9696\ntimeout = 30\n",
			"neutron.endpoint_override", "http://127.0.0.1:9696"},
		{"keystoneauth timeout", "[neutron]\ntimeout = 30\n", "neutron.timeout", 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, nil, WithText("test.conf", tt.text))
			if diff := cmp.Diff(tt.want, get(t, c, tt.key)); diff != "" {
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
	got := []any{get(t, c, "DEFAULT.host"), get(t, c, "DEFAULT.debug"), get(t, c, "api.port"), get(t, c, "api.max_limit"), get(t, c, "conductor.clean_step_priority_override")}
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
	if get(t, c, "pxe.kernel_append_params") != "new-file" {
		t.Errorf("kernel_append_params = %q, want new-file", get(t, c, "pxe.kernel_append_params"))
	}
}

func TestInterpolation(t *testing.T) {
	tests := []struct {
		name string
		text string
		key  string
		want any
	}{
		{"default refers to DEFAULT option", "[DEFAULT]\nstate_path = /var/lib/ironic\n",
			"database.connection", "sqlite:////var/lib/ironic/ironic.sqlite"},
		{"nested: state_path refers to pybasedir", "[DEFAULT]\npybasedir = /opt/ironic\n",
			"database.connection", "sqlite:////opt/ironic/ironic.sqlite"},
		{"braces", "[DEFAULT]\nstate_path = /srv\n[deploy]\nhttp_root = ${state_path}/http\n",
			"deploy.http_root", "/srv/http"},
		{"dollar name", "[DEFAULT]\nstate_path = /srv\n[pxe]\ntftp_root = $state_path/tftp\n",
			"pxe.tftp_root", "/srv/tftp"},
		{"same section first", "[pxe]\ntftp_root = /tftp\ntftp_master_path = $tftp_root/master\n",
			"pxe.tftp_master_path", "/tftp/master"},
		{"explicit section", "[pxe]\ntftp_root = /tftp\n[deploy]\nhttp_root = ${pxe.tftp_root}/http\n",
			"deploy.http_root", "/tftp/http"},
		{"my_ip in default", "[DEFAULT]\nmy_ip = 10.0.0.5\n",
			"pxe.tftp_server", "10.0.0.5"},
		{"escaped dollar", "[keystone_authtoken]\npassword = pa$$word\\$x\n",
			"keystone_authtoken.password", "pa$word$x"},
		{"dollar without identifier is kept", "[keystone_authtoken]\npassword = 1$-2$\n",
			"keystone_authtoken.password", "1$-2$"},
		{"unset option is empty", "[deploy]\nhttp_root = /x$my_ipv6/y\n",
			"deploy.http_root", "/x/y"},
		{"unknown option set in a file", "[DEFAULT]\nmy_prefix = /base\n[deploy]\nhttp_root = $my_prefix/http\n",
			"deploy.http_root", "/base/http"},
		{"in list items", "[DEFAULT]\nhw = ipmi\nenabled_hardware_types = $hw,redfish\n",
			"DEFAULT.enabled_hardware_types", []string{"ipmi", "redfish"}},
		{"integer from interpolation", "[DEFAULT]\nbase_port = 7000\n[api]\nport = $base_port\n",
			"api.port", 7000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, nil, WithText("test.conf", tt.text))
			if diff := cmp.Diff(tt.want, get(t, c, tt.key)); diff != "" {
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
		key  string   // the option bound; "" when Load itself fails
		want []string // substrings of the error
	}{
		{"bad int", "[api]\nport = abc\n", "api.port", []string{"bad.conf", "[api] port", `invalid port value "abc"`}},
		{"port out of range", "[api]\nport = 70000\n", "api.port", []string{"bad.conf", "[api] port", "maximum 65535"}},
		{"below minimum", "[conductor]\nworkers_pool_size = 1\n", "conductor.workers_pool_size", []string{"bad.conf", "[conductor] workers_pool_size", "minimum 3"}},
		{"bad bool", "[DEFAULT]\ndebug = yep\n", "DEFAULT.debug", []string{"bad.conf", "[DEFAULT] debug", `invalid boolean value "yep"`}},
		{"empty bool", "[DEFAULT]\ndebug =\n", "DEFAULT.debug", []string{"[DEFAULT] debug", "invalid boolean value"}},
		{"bad float", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = soon\n", "oslo_messaging_rabbit.kombu_reconnect_delay", []string{"[oslo_messaging_rabbit] kombu_reconnect_delay", "floating point"}},
		{"float above max", "[oslo_messaging_rabbit]\nkombu_reconnect_delay = 9\n", "oslo_messaging_rabbit.kombu_reconnect_delay", []string{"kombu_reconnect_delay", "maximum 4.5"}},
		{"fraction for integer", "[conductor]\nheartbeat_timeout = 1.5\n", "conductor.heartbeat_timeout", []string{"[conductor] heartbeat_timeout", "invalid integer value"}},
		{"bad choice", "[DEFAULT]\nauth_strategy = ldap\n", "DEFAULT.auth_strategy", []string{"bad.conf", "[DEFAULT] auth_strategy", `"ldap"`, "noauth, keystone, http_basic"}},
		{"bad rpc_transport", "[DEFAULT]\nrpc_transport = grpc\n", "DEFAULT.rpc_transport", []string{"[DEFAULT] rpc_transport", "oslo, json-rpc, none"}},
		{"bad dict", "[pxe]\nloader_file_paths = nocolon\n", "pxe.loader_file_paths", []string{"[pxe] loader_file_paths", "key:value"}},
		{"bad IP address", "[console]\nsocat_address = not-an-ip\n", "console.socat_address", []string{"[console] socat_address", "invalid IP address"}},
		{"bad host address", "[api]\nhost_ip = bad_host!\n", "api.host_ip", []string{"[api] host_ip", "invalid host address"}},
		{"unknown variable", "[deploy]\nhttp_root = $nowhere/x\n", "deploy.http_root", []string{"bad.conf", "[deploy] http_root", "$nowhere"}},
		{"interpolation loop", "[DEFAULT]\nstate_path = $pybasedir\npybasedir = $state_path\n", "database.connection", []string{"loop"}},
		{"loop through unknown options", "[DEFAULT]\na = $b\nb = ${a}\n[deploy]\nhttp_root = $a\n", "deploy.http_root", []string{"[deploy] http_root", "loop"}},
		{"syntax error", "[api\nport = 1\n", "", []string{"bad.conf"}},
		{"line without delimiter", "[api]\nport\n", "", []string{"bad.conf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.conf", tt.text)
			c, err := Load([]string{p}, WithHostname("h"), WithMyIP("127.0.0.1"))
			if err == nil && tt.key != "" {
				// Values are checked when a component binds them.
				_, err = bindAs(c, tt.key)
			}
			if err == nil {
				t.Fatal("no error")
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
	implemented := []string{"DEFAULT.enabled_hardware_types", "DEFAULT.host", "api.port", "pxe.kernel_append_params"}
	if diff := cmp.Diff([]string{"DEFAULT.pecan_debug", "ilo.power_wait"}, c.NotImplemented(implemented)); diff != "" {
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
	if diff := cmp.Diff([]string{"ilo.power_wait"}, c.NotImplemented(implemented)); diff != "" {
		t.Errorf("NotImplemented (-want +got):\n%s", diff)
	}
}

func TestWithOverride(t *testing.T) {
	c := mustLoad(t, nil, WithText("x", "[api]\nport = 1\n"), WithOverride("API", "port", "2"))
	if get(t, c, "api.port") != 2 || !c.IsSet("api", "port") {
		t.Errorf("port = %d, IsSet = %v; want 2, true", get(t, c, "api.port"), c.IsSet("api", "port"))
	}
	if _, err := Load(nil, WithOverride("api", "nope", "1")); err == nil {
		t.Error("override of an unknown option: no error")
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
	c.Report(context.Background(), log, []string{"pxe.kernel_append_params"})
	want := `level=INFO msg="configuration read" files=site.conf
level=WARN msg="ignoring unknown configuration options" options=DEFAULT.frobnicate
level=WARN msg="configuration options not implemented by this service have no effect" options=DEFAULT.pecan_debug
level=WARN msg="deprecated configuration option names in use" options="pxe.pxe_append_params (use pxe.kernel_append_params)"
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	buf.Reset()
	mustLoad(t, nil).Report(context.Background(), log, nil)
	if want := "level=INFO msg=\"no configuration file read, using defaults\"\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
