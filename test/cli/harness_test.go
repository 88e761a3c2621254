package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/test/fakecinder"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
)

const (
	// skipEnv, set to 1, turns a missing CLI into a skip instead of a failure.
	skipEnv = cluster.SkipCLIEnv
	// portEnv, when set, is the port our server listens on (else a free
	// one the kernel picks).
	portEnv = "IRONIC_CLI_PORT"
	// targetEnv names an already running endpoint to test instead of ours.
	targetEnv = "IRONIC_CLI_TARGET"

	// testHost is [DEFAULT]host of the server the test starts.
	testHost = "goironic-cli-test"
	// apiVersion is the microversion the CLI asks for. python-ironicclient
	// 5.0.1 (Debian bookworm) knows versions up to 1.78 and refuses 1.82
	// ("Invalid baremetal client version"), so this is the newest the
	// unmodified CLI can use.
	apiVersion = "1.78"

	// testBudget bounds the whole test, build included.
	testBudget = 15 * time.Minute
	// startTimeout bounds the wait for the server's first answer.
	startTimeout = 30 * time.Second
)

// serverConfig is the ironic.conf the test starts our server with: the
// all-in-one defaults (conf.AllInOneDefaults) with a fixed host name, a
// free port and a SQLite file in a temporary directory.
func serverConfig(host string, port int, dbPath, cinderURL string) string {
	return fmt.Sprintf(`[DEFAULT]
host = %s
auth_strategy = noauth
rpc_transport = none
debug = false
enabled_hardware_types = fake-hardware,manual-management
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake,ipxe,pxe
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake,noop
enabled_network_interfaces = flat,noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop,cinder,external
enabled_vendor_interfaces = fake,no-vendor
default_network_interface = noop

[api]
host_ip = 127.0.0.1
port = %d

[database]
connection = sqlite:///%s

[dhcp]
dhcp_provider = none

[cinder]
auth_type = none
endpoint_override = %s
action_retries = 1
action_retry_interval = 1
`, host, port, dbPath, cinderURL)
}

// fakeHardwareEnabled is, per interface, the implementations that
// fake-hardware supports and serverConfig enables: what `driver show
// fake-hardware` lists as enabled_<interface>_interfaces.
func fakeHardwareEnabled() map[string][]string {
	return map[string][]string{
		"bios":       {"fake", "no-bios"},
		"boot":       {"fake", "ipxe", "pxe"},
		"console":    {"fake", "no-console"},
		"deploy":     {"direct", "fake", "ramdisk"},
		"inspect":    {"fake", "no-inspect"},
		"management": {"fake"},
		"network":    {"flat", "noop"},
		"power":      {"fake"},
		"raid":       {"fake", "no-raid"},
		"rescue":     {"fake", "no-rescue"},
		"storage":    {"cinder", "external", "fake", "noop"},
		"vendor":     {"fake", "no-vendor"},
	}
}

// fakeHardwareDefaults is the interface implementations a fake-hardware
// node gets when it names none, keyed by interface. It holds for the
// reference's configuration too.
func fakeHardwareDefaults() map[string]string {
	return map[string]string{
		"bios": "fake", "boot": "fake", "console": "fake", "deploy": "fake",
		"inspect": "fake", "management": "fake", "network": "noop", "power": "fake",
		"raid": "fake", "rescue": "fake", "storage": "noop", "vendor": "fake",
	}
}

// world is what every sub-test gets: the CLI, the conductor's host name
// and names unique to this run.
type world struct {
	ctx context.Context
	cli *osc.CLI
	// host is the conductor host name of the endpoint.
	host string
	// own is true when the test started our server with serverConfig;
	// checks that depend on that configuration run only then.
	own bool
	// cinder is the fake Cinder our server's cinder storage interface
	// talks to (nil unless own).
	cinder *fakecinder.Server
	// rnd is random per run, so that names and MAC addresses do not clash
	// with objects left in a long-lived target.
	rnd [3]byte
}

// name returns a unique object name starting with "cli-".
func (w *world) name(what string) string {
	return fmt.Sprintf("cli-%s-%s", what, hex.EncodeToString(w.rnd[:]))
}

// trait returns a unique valid custom trait or deploy template name.
func (w *world) trait(what string) string {
	return strings.ToUpper(fmt.Sprintf("CUSTOM_CLI_%s_%s", what, hex.EncodeToString(w.rnd[:])))
}

// mac returns the n-th MAC address of this run, in lower case.
func (w *world) mac(n byte) string {
	return fmt.Sprintf("52:54:%02x:%02x:%02x:%02x", w.rnd[0], w.rnd[1], w.rnd[2], n)
}

// cleanup runs the CLI command args at the end of t when the endpoint is
// not ours (ours is thrown away with its database), ignoring the outcome.
// Sub-tests use it to delete what they create on a long-lived target
// even when they fail half-way.
func (w *world) cleanup(t *testing.T, args ...string) {
	t.Helper()
	if w.own {
		return
	}
	t.Cleanup(func() { _, _ = w.cli.Exec(args) })
}

func TestMain(m *testing.M) { cluster.Main(m) }

// TestBaremetalCLI runs the OpenStack CLI against our server, one parallel
// sub-test per resource.
func TestBaremetalCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI about 120 times (minutes); skipped in -short mode")
	}
	openstack := cluster.RequireCLI(t)

	ctx := cluster.TestContext(t, testBudget, 15*time.Second)

	w := &world{ctx: ctx}
	if _, err := rand.Read(w.rnd[:]); err != nil {
		t.Fatal(err)
	}
	endpoint := os.Getenv(targetEnv)
	if endpoint == "" {
		var cinderURL string
		w.cinder, cinderURL = startCinder(t)
		endpoint = startServer(ctx, t, cinderURL)
		w.host, w.own = testHost, true
	} else {
		endpoint = strings.TrimRight(endpoint, "/")
		hosts, err := cluster.DiscoverHosts(ctx, endpoint)
		if err != nil {
			t.Fatalf("%s=%s: %v", targetEnv, endpoint, err)
		}
		w.host = hosts[0]
	}
	w.cli = osc.New(ctx, openstack, t.TempDir(), endpoint, apiVersion)

	// One probe first: a missing ironicclient plugin gives the same
	// choice as a missing CLI, and a broken setup fails once, not in
	// every sub-test.
	if r, err := w.cli.Exec([]string{"driver", "list", "-f", "json"}); err != nil || r.Code != 0 {
		if err == nil && strings.Contains(r.Stderr, "is not an openstack command") && os.Getenv(skipEnv) == "1" {
			t.Skipf("the baremetal commands (python3-ironicclient) are not installed and %s=1", skipEnv)
		}
		t.Fatalf("the CLI does not work against %s: %v\n%s", endpoint, err, r)
	}

	t.Run("resources", func(t *testing.T) {
		for _, st := range []struct {
			name string
			fn   func(*testing.T, *world)
		}{
			{"nodes", testNodes},
			{"node-manual-management", testManualManagementNode},
			{"node-power-maintenance-validate", testNodeStates},
			{"node-configdrive", testConfigDrive},
			{"node-network-data", testNetworkData},
			{"ports", testPorts},
			{"portgroups", testPortgroups},
			{"chassis", testChassis},
			{"deploy-templates", testDeployTemplates},
			{"volume-connectors", testVolumeConnectors},
			{"volume-targets", testVolumeTargets},
			{"boot-from-volume", testBootFromVolume},
			{"drivers", testDrivers},
			{"conductors", testConductors},
			{"errors", testErrors},
			{"api-version-and-flags", testVersionAndFlags},
		} {
			t.Run(st.name, func(t *testing.T) {
				t.Parallel()
				st.fn(t, w)
			})
		}
	})
}

// startServer builds and starts our all-in-one server and returns its
// endpoint once it answers. The server is stopped when t ends.
func startServer(ctx context.Context, t *testing.T, cinderURL string) string {
	t.Helper()
	port := 0 // a free one
	if p := os.Getenv(portEnv); p != "" {
		var err error
		if port, err = strconv.Atoi(p); err != nil {
			t.Fatalf("%s=%q: %v", portEnv, p, err)
		}
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	return cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Port: port, Dir: dir, StartTimeout: startTimeout, LogTail: 8000,
		Config: func(port int) string {
			return serverConfig(testHost, port, filepath.Join(state, "ironic.sqlite"), cinderURL)
		},
	}).URL
}

// object is a decoded JSON object as the CLI prints it.
type object = osc.Object

// normalize passes v through JSON so that Go literals (ints, nested
// maps) compare equal to decoded output (float64, map[string]any).
func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFields reports every key of want whose value in got differs. A
// want value of absent means the key must not be in got at all.
func checkFields(t *testing.T, what string, got object, want object) {
	t.Helper()
	for k, wv := range want {
		gv, ok := got[k]
		if wv == absent {
			if ok {
				t.Errorf("%s: %q = %v, want no such field", what, k, gv)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no field %q (want %v); got %v", what, k, wv, got)
			continue
		}
		if diff := cmp.Diff(normalize(t, wv), normalize(t, gv)); diff != "" {
			t.Errorf("%s: field %q (-want +got):\n%s", what, k, diff)
		}
	}
}

// absent is a checkFields want value: the field must not be there.
const absent = "\x00absent"

// checkKeys requires got to have exactly the keys want.
func checkKeys(t *testing.T, what string, got object, want ...string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	if diff := cmp.Diff(sortedCopy(want), sortedCopy(keys)); diff != "" {
		t.Errorf("%s: keys (-want +got):\n%s", what, diff)
	}
}

// findRow returns the row whose column col is value, or nil.
func findRow(rows []object, col, value string) object {
	for _, r := range rows {
		if s, ok := r[col].(string); ok && s == value {
			return r
		}
	}
	return nil
}

// mustRow is findRow failing t when there is no such row.
func mustRow(t *testing.T, what string, rows []object, col, value string) object {
	t.Helper()
	r := findRow(rows, col, value)
	if r == nil {
		t.Fatalf("%s: no row with %s %q in %v", what, col, value, rows)
	}
	return r
}

// str returns the string field key of o, failing t if it is not one.
func str(t *testing.T, o object, key string) string {
	t.Helper()
	s, ok := o[key].(string)
	if !ok {
		t.Fatalf("field %q is %#v, want a string; object: %v", key, o[key], o)
	}
	return s
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// uuidOf returns the "uuid" field of o and checks that it is a UUID.
func uuidOf(t *testing.T, o object) string {
	t.Helper()
	u := str(t, o, "uuid")
	if !uuidPattern.MatchString(u) {
		t.Fatalf("uuid %q is not a UUID", u)
	}
	return u
}

// column returns the values of column col of rows.
func column(rows []object, col string) []string {
	var out []string
	for _, r := range rows {
		s, _ := r[col].(string)
		out = append(out, s)
	}
	return out
}

// sortedCopy returns a sorted copy of s (never nil, so that an empty
// result compares equal to an empty want).
func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

// waitField polls `<show...> -f json` until field has the value want, for
// at most tries polls a second apart, and returns the object shown; it
// fails t if the value does not come. It is for the results of
// asynchronous actions (power changes).
func waitField(t *testing.T, w *world, field string, want any, show ...string) object {
	t.Helper()
	const tries = 30
	var last any
	for i := 0; i < tries; i++ {
		o := w.cli.Object(t, show...)
		last = o[field]
		if cmp.Equal(normalize(t, want), last) {
			return o
		}
		select {
		case <-w.ctx.Done():
			t.Fatalf("%s: %v", strings.Join(show, " "), w.ctx.Err())
		case <-time.After(time.Second):
		}
	}
	t.Fatalf("%s: %s is still %v after %d polls, want %v", strings.Join(show, " "), field, last, tries, want)
	return nil
}
