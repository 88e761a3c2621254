package conf

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite etc/ironic/ironic.conf.sample")

const samplePath = "../etc/ironic/ironic.conf.sample"

// TestSampleGolden checks that the committed sample is the generated one.
// Run `go test ./conf -update` after changing the option table.
func TestSampleGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSample(&buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(samplePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(samplePath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatalf("%v (run go test ./conf -update)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s is out of date; run go test ./conf -update", samplePath)
	}
}

func TestSampleContent(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSample(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.HasPrefix(s, "[DEFAULT]\n\n#\n# From ironic\n#\n") {
		t.Errorf("sample does not start with [DEFAULT] and the ironic namespace:\n%.200s", s)
	}
	for _, want := range []string{
		"\n#auth_strategy = keystone\n",
		"\n# noauth - no authentication\n",
		"\n#host = localhost\n",
		"\n#my_ip = 127.0.0.1\n",
		"\n#enabled_hardware_types = ipmi,redfish\n",
		"\n#enabled_power_interfaces = <None>\n",
		"\n[api]\n",
		"\n# Minimum value: 0\n# Maximum value: 65535\n#port = 6385\n",
		"\n#connection = sqlite:///$state_path/ironic.sqlite\n",
		"\n# Deprecated group/name - [pxe]/pxe_append_params\n",
		"\n#clean_step_priority_override =\n",
		"\n#policy_dirs = policy.d\n",
		"# Not implemented by this service: accepted and ignored.\n#pecan_debug = false\n",
		"\n# This option is deprecated for removal",
		"\n[keystone_authtoken]\n",
		"\n#password = <None>\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("sample lacks %q", want)
		}
	}
	// Sections: DEFAULT first, then sorted.
	var secs []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "[") {
			secs = append(secs, line)
		}
	}
	for i := 2; i < len(secs); i++ {
		if secs[i-1] >= secs[i] {
			t.Errorf("sections out of order: %s before %s", secs[i-1], secs[i])
		}
	}
}

func TestWriteWrapped(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	long := strings.Repeat("word ", 30) + "averyveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword end"
	writeWrapped(w, long+"\n\nsecond paragraph")
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			t.Errorf("line %q is not a comment", l)
		}
		if len(l) > sampleWidth && strings.Contains(strings.TrimPrefix(l, "# "), " ") {
			t.Errorf("line %q is longer than %d", l, sampleWidth)
		}
	}
	if got := lines[len(lines)-2:]; got[0] != "#" || got[1] != "# second paragraph" {
		t.Errorf("paragraphs not kept: %q", got)
	}
	if !strings.Contains(buf.String(), "\n# averyvery") {
		t.Errorf("long word not on its own line:\n%s", buf.String())
	}
}

func TestOptTable(t *testing.T) {
	opts := Opts()
	seen := map[string]bool{}
	for _, o := range opts {
		if seen[o.Key()] {
			t.Errorf("duplicate option %s", o.Key())
		}
		seen[o.Key()] = true
		if o.Section != normalizeSection(o.Section) || o.Name == "" || strings.ContainsAny(o.Name, " -") {
			t.Errorf("bad option name %q", o.Key())
		}
		if o.Type < String || o.Type > Octal {
			t.Errorf("%s: bad type %d", o.Key(), o.Type)
		}
		if o.Help == "" {
			t.Errorf("%s: no help", o.Key())
		}
	}
	if len(opts) < 900 {
		t.Errorf("only %d options", len(opts))
	}

	// The options the services need are present and implemented.
	required := []string{"DEFAULT.host", "DEFAULT.auth_strategy", "DEFAULT.rpc_transport", "DEFAULT.transport_url",
		"DEFAULT.control_exchange", "DEFAULT.enabled_hardware_types", "DEFAULT.default_resource_class",
		"DEFAULT.default_portgroup_mode", "DEFAULT.hash_partition_exponent", "DEFAULT.hash_ring_algorithm",
		"DEFAULT.hash_ring_reset_interval", "DEFAULT.pin_release_version", "DEFAULT.http_basic_auth_user_file",
		"DEFAULT.debug", "DEFAULT.state_path", "DEFAULT.rbac_service_role_elevated_access",
		"DEFAULT.rbac_service_project_name", "DEFAULT.force_raw_images",
		"api.host_ip", "api.port", "api.public_endpoint", "api.max_limit", "api.api_workers", "api.enable_ssl_api",
		"api.restrict_lookup", "api.enable_ramdisk_endpoints", "api.project_admin_can_manage_own_nodes",
		"api.ramdisk_heartbeat_timeout", "database.connection", "database.max_retries", "database.retry_interval",
		"database.mysql_engine", "conductor.heartbeat_interval", "conductor.heartbeat_timeout",
		"conductor.workers_pool_size", "conductor.node_locked_retry_attempts", "conductor.node_locked_retry_interval",
		"conductor.sync_power_state_interval", "conductor.power_state_sync_max_retries",
		"conductor.force_power_state_during_sync", "conductor.check_provision_state_interval",
		"conductor.deploy_callback_timeout", "conductor.clean_callback_timeout", "conductor.inspect_wait_timeout",
		"conductor.rescue_callback_timeout", "conductor.automated_clean", "conductor.allow_deleting_available_nodes",
		"conductor.soft_power_off_timeout", "conductor.power_state_change_timeout", "conductor.sync_local_state_interval",
		"conductor.conductor_group", "conductor.node_history", "conductor.node_history_max_entries",
		"conductor.periodic_max_workers", "conductor.allow_provisioning_in_maintenance", "deploy.http_url",
		"deploy.http_root", "deploy.configdrive_use_object_store", "deploy.fast_track", "pxe.tftp_root",
		"pxe.tftp_server", "pxe.kernel_append_params", "pxe.ipxe_timeout", "pxe.pxe_config_template",
		"pxe.ipxe_boot_script", "pxe.images_path", "pxe.instance_master_path", "pxe.tftp_master_path",
		"pxe.uefi_ipxe_bootfile_name", "keystone_authtoken.www_authenticate_uri", "keystone_authtoken.auth_url",
		"keystone_authtoken.auth_type", "keystone_authtoken.username", "keystone_authtoken.password",
		"keystone_authtoken.project_name", "keystone_authtoken.user_domain_name",
		"keystone_authtoken.project_domain_name", "keystone_authtoken.service_token_roles",
		"keystone_authtoken.service_token_roles_required", "keystone_authtoken.memcached_servers",
		"oslo_policy.enforce_scope", "oslo_policy.enforce_new_defaults", "oslo_policy.policy_file",
		"neutron.endpoint_override", "neutron.auth_type", "neutron.cleaning_network", "neutron.provisioning_network",
		"json_rpc.port", "json_rpc.host_ip", "inventory.data_backend", "dhcp.dhcp_provider",
		"oslo_concurrency.lock_path", "cinder.retries", "swift.swift_max_retries", "inspector.power_off"}
	for _, iface := range InterfaceNames() {
		required = append(required, "DEFAULT.enabled_"+iface+"_interfaces", "DEFAULT.default_"+iface+"_interface")
	}
	idx := newOptIndex(opts)
	for _, key := range required {
		o, ok := idx.lookup(key)
		if !ok || o.Key() != key {
			t.Errorf("option %s missing", key)
		} else if !o.Implemented {
			t.Errorf("option %s not implemented", key)
		}
	}
	for _, o := range opts {
		for _, d := range o.DeprecatedNames {
			if got, ok := idx.lookup(normalizeKey(d)); !ok || (got.Key() != o.Key() && idx.byKey[normalizeKey(d)] == 0) {
				t.Errorf("deprecated name %s of %s does not resolve", d, o.Key())
			}
		}
	}
}

// TestBindings checks every binding against the table: the option
// exists, the field's type suits the option's type, no two options share
// a field, and every field of Config's sections is bound.
func TestBindings(t *testing.T) {
	idx := newOptIndex(upstreamOpts())
	c := &Config{}
	fields := map[uintptr]string{}
	for key, b := range bindings() {
		o, ok := idx.byKey[key]
		if !ok {
			t.Errorf("binding for unknown option %s", key)
			continue
		}
		typ := idx.opts[o].Type
		ptr := b(c)
		okType := false
		switch ptr.(type) {
		case *string:
			okType = typ == String || typ == HostAddress || typ == IPAddress
		case *int:
			okType = typ == Integer || typ == Port || typ == Octal
		case **int:
			okType = typ == Integer && idx.opts[o].NoDefault
		case *float64:
			okType = typ == Float
		case *bool:
			okType = typ == Boolean
		case *[]string:
			okType = typ == List || typ == MultiString
		case *map[string]string:
			okType = typ == Dict
		case *time.Duration:
			okType = typ == Integer || typ == Float
		}
		if !okType {
			t.Errorf("%s: %s option bound to %T", key, typ, ptr)
		}
		addr := reflect.ValueOf(ptr).Pointer()
		if other, dup := fields[addr]; dup {
			t.Errorf("%s and %s share a field", key, other)
		}
		fields[addr] = key
	}

	// Every exported leaf field of the sections is bound.
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeOf(time.Duration(0)) {
				walk(fv, path+"."+f.Name)
				continue
			}
			if _, ok := fields[fv.Addr().Pointer()]; !ok {
				t.Errorf("field %s%s is not bound to an option", path, "."+f.Name)
			}
		}
	}
	walk(reflect.ValueOf(c).Elem(), "Config")
}
