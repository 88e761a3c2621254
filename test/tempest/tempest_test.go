package tempest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/goironic/ironic/test/fakeneutron"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/keystone"
)

// Environment knobs.
const (
	// requireEnv=1 turns a missing tempest into a failure instead of a skip.
	requireEnv = "IRONIC_TEST_REQUIRE_TEMPEST"
	// authEnv overrides the server's [DEFAULT]auth_strategy (and what
	// our plugin expects of it): keystone or noauth.
	authEnv = "IRONIC_TEMPEST_AUTH"
	// portsEnv, "LOW-HIGH", is the range of loopback ports the test takes
	// its ports from (Keystone, our server); by default any free port.
	portsEnv = "IRONIC_TEST_PORTS"
	// regexEnv narrows the upstream tests to those matching it (within
	// ironic_tempest_plugin.tests.api); the counts are then not held to
	// the reference's, only failures fail the test.
	regexEnv = "IRONIC_TEMPEST_REGEX"
	// referenceEnv names the shared harness's reference-ironic.sh: the
	// suite then runs against the reference Python Ironic (keystone auth
	// on the test's Keystone) instead of ours, to measure the counts
	// referenceCounts holds. Development only: CI has no such script.
	referenceEnv = "IRONIC_TEMPEST_REFERENCE"
)

// defaultAuthStrategy is the server's auth_strategy unless authEnv says
// otherwise.
const defaultAuthStrategy = "keystone"

const (
	upstreamPrefix = "ironic_tempest_plugin.tests.api."
	ourPrefix      = "goironic_tempest.tests."
	workers        = 2

	// testBudget bounds the whole test: Keystone, the build and both
	// tempest runs (ours take about a minute each; the reference's three).
	testBudget = 40 * time.Minute
	// runBudget bounds one tempest run.
	runBudget = 15 * time.Minute
	// startTimeout bounds the wait for the server's first answer.
	startTimeout = 30 * time.Second

	// hardwareTypes are the server's enabled_hardware_types: with ipmi,
	// the two reset_interfaces tests run.
	hardwareTypes = "fake-hardware,ipmi"
	// cleaningNetwork is [neutron]cleaning_network (the fake Neutron's).
	cleaningNetwork = fakeneutron.CleaningNetworkName
)

// mode is one tempest run's policy setting.
type mode struct {
	name string
	// srbac: [oslo_policy] enforce_scope and enforce_new_defaults on the
	// server, [enforce_scope] ironic on tempest (a system-scoped admin).
	srbac bool
}

func modes() []mode {
	return []mode{{name: "legacy"}, {name: "srbac", srbac: true}}
}

// referenceCounts are the upstream suite's counts against the reference,
// Python Ironic 21.4 (Debian's python3-ironic, all-in-one, auth_strategy
// keystone, the flat network interface on the fake Neutron, sqlite) with
// ironic-tempest-plugin 2.5.0 and tempest 33, under the same tempest.conf,
// in both modes. (Without Neutron, the 3 TestNodesVif tests skip: 232
// passed, 3 skipped, in both modes.) Measured with ../shared/harness
// (reference-ironic.sh, tempest.sh) and with referenceEnv; recorded in
// tempest-plugin/README.md.
func referenceCounts(mode) Counts { return Counts{Passed: 235} }

func TestMain(m *testing.M) { cluster.Main(m) }

// TestTempestAPI runs the ironic-tempest-plugin API suite and our own
// tempest tests against our all-in-one server, once per policy mode.
func TestTempestAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Keystone and runs tempest twice (minutes); skipped in -short mode")
	}
	tempestBin := requireTempest(t)
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The plugin runs in subprocesses: stat its sources so that go test
	// does not serve a cached result after they changed (cluster.Build
	// does the same for the server's).
	pluginDir := filepath.Join(root, "tempest-plugin")
	if err := statTree(pluginDir); err != nil {
		t.Fatal(err)
	}
	auth := defaultAuthStrategy
	reference := os.Getenv(referenceEnv)
	if reference != "" {
		auth = "keystone"
	}
	if v := os.Getenv(authEnv); v != "" {
		if v != "keystone" && v != "noauth" {
			t.Fatalf("%s=%q: want keystone or noauth", authEnv, v)
		}
		auth = v
	}

	ctx := cluster.TestContext(t, testBudget, 30*time.Second)
	ports := newPorts(t)

	start := time.Now()
	ks := keystone.ForTest(t, keystone.Options{Port: ports.take(t)})
	t.Logf("keystone up at %s in %s", ks.AuthURL(), since(start))

	neutronURL := startNeutron(t, ports)

	r := &runner{
		root: root, tempest: tempestBin, ks: ks, ports: ports, reference: reference,
		auth: auth, neutronURL: neutronURL, regex: os.Getenv(regexEnv),
	}
	if reference == "" {
		cluster.Build(t, cluster.AllInOne)
	}
	for _, m := range modes() {
		t.Run(m.name, func(t *testing.T) { r.run(ctx, t, m) })
	}
}

// requireTempest returns the tempest command, or skips (fails with
// requireEnv=1) when tempest, stestr or ironic-tempest-plugin is missing.
func requireTempest(t *testing.T) string {
	t.Helper()
	missing := func(what string, err error) {
		t.Helper()
		msg := fmt.Sprintf("%s: %v (install the Debian packages: scripts/install-test-deps.sh)", what, err)
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s; %s=1", msg, requireEnv)
		}
		t.Skip(msg)
	}
	bin := "/usr/bin/tempest" // Debian's, as the harness uses
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("tempest"); err != nil {
			missing("tempest", err)
		}
	}
	if _, err := exec.LookPath("stestr"); err != nil {
		missing("stestr", err)
	}
	out, err := exec.Command(python, "-c", "import ironic_tempest_plugin, tempest").CombinedOutput()
	if err != nil {
		missing("ironic-tempest-plugin", fmt.Errorf("%w: %s", err, bytes.TrimSpace(out)))
	}
	return bin
}

// python is the interpreter tempest's workers run (Debian's, with the
// OpenStack libraries).
const python = "/usr/bin/python3"

// runner holds what both modes share.
type runner struct {
	root, tempest string
	ks            *keystone.Keystone
	ports         *ports
	reference     string // referenceEnv
	auth          string
	neutronURL    string
	regex         string
}

// run is one mode: our server with its policy settings, the catalog
// pointed at it, a tempest workspace, the run and its verdict.
func (r *runner) run(ctx context.Context, t *testing.T, m mode) {
	art := t.ArtifactDir()
	began := time.Now()
	var base string
	if r.reference != "" {
		base = r.startReference(ctx, t, m)
	} else {
		base = r.startServer(ctx, t, m, art)
	}
	if err := r.ks.SetCatalog(ctx, base, r.neutronURL); err != nil {
		t.Fatal(err)
	}
	maxVersion, err := advertisedVersion(ctx, base)
	if err != nil {
		t.Fatal(err)
	}

	ws := t.TempDir()
	env := r.env(ws)
	if out, err := r.command(ctx, ws, env, "init", "--workspace-path", filepath.Join(ws, "workspace.yaml"), filepath.Join(ws, "tempest")).CombinedOutput(); err != nil {
		t.Fatalf("tempest init: %v\n%s", err, out)
	}
	dir := filepath.Join(ws, "tempest")
	conf := filepath.Join(dir, "etc", "tempest.conf")
	env = append(env, "TEMPEST_CONFIG_DIR="+filepath.Dir(conf), "TEMPEST_CONFIG="+filepath.Base(conf))
	// tempest init's etc/logging.conf would win over log_file, and its
	// handler truncates tempest.log in each worker.
	if err := os.Remove(filepath.Join(filepath.Dir(conf), "logging.conf")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := r.writePluginMetadata(filepath.Join(ws, "site")); err != nil {
		t.Fatal(err)
	}
	if err := r.writeTempestConf(conf, tempestConf{
		LogFile:              filepath.Join(art, "tempest.log"),
		LockPath:             filepath.Join(dir, "tempest_lock"),
		AdminPassword:        keystone.AdminPassword,
		AuthURL:              r.ks.AuthURL(),
		Neutron:              r.neutronURL != "",
		EnforceScope:         m.srbac,
		MaxMicroversion:      maxVersion,
		EnabledHardwareTypes: hardwareTypes,
		AuthStrategy:         r.auth,
	}); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(conf, filepath.Join(art, "tempest.conf")); err != nil {
		t.Fatal(err)
	}

	regex := `^(` + regexp.QuoteMeta(upstreamPrefix) + `|` + regexp.QuoteMeta(ourPrefix) + `)`
	if r.regex != "" {
		regex = `^(` + regexp.QuoteMeta(upstreamPrefix) + `.*(` + r.regex + `)|` + regexp.QuoteMeta(ourPrefix) + `)`
	}
	listed, err := r.listTests(ctx, dir, env, conf, regex)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) == 0 {
		t.Fatalf("tempest lists no test for %s", regex)
	}

	runCtx, cancel := context.WithTimeout(ctx, runBudget)
	defer cancel()
	console := filepath.Join(art, "console.log")
	t.Logf("tempest run: %d tests, %d workers, auth_strategy=%s, neutron=%t; console: %s", len(listed), workers, r.auth, r.neutronURL != "", console)
	ran := time.Now()
	runErr := r.runTempest(runCtx, dir, env, conf, regex, console)
	wall := time.Since(ran)

	stream := filepath.Join(art, "results.subunit")
	if err := r.lastStream(ctx, dir, env, stream); err != nil {
		t.Fatalf("reading the run's results (tempest: %v): %v\n%s", runErr, err, tail(console, 4000))
	}
	f, err := os.Open(stream)
	if err != nil {
		t.Fatal(err)
	}
	results, err := ParseResults(f, listed)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFiles(art); err != nil {
		t.Fatal(err)
	}
	up, ours := results.Select(upstreamPrefix).Counts(), results.Select(ourPrefix).Counts()
	other := results.Counts()
	other.Passed -= up.Passed + ours.Passed
	other.Failed -= up.Failed + ours.Failed
	other.Skipped -= up.Skipped + ours.Skipped
	summary := fmt.Sprintf("tempest: %s\ngoironic_tempest: %s\nwall: tempest run %s, mode %s\n", up, ours, since(ran), since(began))
	if err := os.WriteFile(filepath.Join(art, "summary.txt"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: tempest: %s (goironic_tempest: %s); tempest run %s, mode %s; results in %s",
		m.name, up, ours, wall.Round(time.Second), since(began), art)

	for _, x := range results {
		if x.Outcome == Fail {
			t.Errorf("FAIL %s | %s", x.ID, x.Reason)
		}
	}
	if other.Failed > 0 { // setUpClass of a class with no listed test
		t.Errorf("%d failures outside the listed tests", other.Failed)
	}
	want := referenceCounts(m)
	switch {
	case r.reference != "" && up != want:
		t.Errorf("the reference: %s; referenceCounts says %s: measure again and update it and tempest-plugin/README.md", up, want)
	case r.reference != "":
		t.Logf("the reference's counts are referenceCounts' (%s)", want)
	case r.regex != "":
		t.Logf("%s set: the counts are not held to the reference's (%s)", regexEnv, want)
	case m.srbac && up != want:
		t.Errorf("upstream suite: %s; the reference has %s in this mode", up, want)
	case !m.srbac && (up.Passed < want.Passed || up.Failed > 0):
		t.Errorf("upstream suite: %s; the reference has %s in this mode", up, want)
	}
	if ours.Passed == 0 || ours.Failed > 0 || ours.Skipped > 0 {
		t.Errorf("goironic_tempest: %s; want all passed", ours)
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("tempest run: %v, although no test failed\n%s", runErr, tail(console, 4000))
	}
}

// startServer writes ironic.conf for mode m into art and starts our
// server, its log in art too; it is stopped when t ends.
func (r *runner) startServer(ctx context.Context, t *testing.T, m mode, art string) string {
	t.Helper()
	dir := t.TempDir()
	port := r.ports.take(t)
	conf := serverConfig(serverSettings{
		Port: port, DBPath: filepath.Join(dir, "ironic.sqlite"), Auth: r.auth, SRBAC: m.srbac,
		AuthURL: r.ks.AuthURL(), NeutronURL: r.neutronURL,
	})
	return cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Port: port, Dir: art, StartTimeout: startTimeout, LogTail: 3000,
		Config: func(int) string { return conf },
	}).URL
}

// startNeutron starts the fake Neutron (test/fakeneutron, with the
// cleaning network) on a port of ours; it is stopped when t ends. Our
// server's flat network interface and tempest's VIF tests use it.
func startNeutron(t *testing.T, ports *ports) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports.take(t))))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fakeneutron.New(fakeneutron.Options{
		Networks: []map[string]any{fakeneutron.CleaningNetwork()},
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// startReference starts the reference Python Ironic with referenceEnv's
// script (the shared harness's reference-ironic.sh), keystone auth on the
// test's Keystone, mode m's policy and a fresh database; it is stopped
// when t ends.
func (r *runner) startReference(ctx context.Context, t *testing.T, m mode) string {
	t.Helper()
	port := r.ports.take(t)
	env := append(os.Environ(), "AUTH=keystone", "RESET=1", "NETWORK_INTERFACE=flat", "NEUTRON_URL="+r.neutronURL,
		"PORT="+strconv.Itoa(port), "STATE_DIR="+t.TempDir(),
		"KEYSTONE_URL="+strings.TrimSuffix(r.ks.AuthURL(), "/v3"),
		"IRONIC_SERVICE_PASSWORD="+keystone.ServicePassword,
		"SRBAC="+map[bool]string{true: "1", false: "0"}[m.srbac])
	script := func(ctx context.Context, verb string) error {
		cmd := exec.CommandContext(ctx, r.reference, verb)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", r.reference, verb, err, out)
		}
		return nil
	}
	if err := script(ctx, "up"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := script(ctx, "down"); err != nil {
			t.Error(err)
		}
	})
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// serverSettings are what varies in our server's ironic.conf.
type serverSettings struct {
	Port       int
	DBPath     string
	Auth       string // noauth | keystone
	SRBAC      bool
	AuthURL    string // Keystone's /v3
	NeutronURL string // the fake Neutron: [neutron]endpoint_override
}

// serverConfig is the ironic.conf our server runs the suite under: the
// reference's choices (fake-hardware and ipmi with every fake interface,
// automated cleaning off, flat networking on the fake Neutron).
func serverConfig(s serverSettings) string {
	return fmt.Sprintf(`[DEFAULT]
host = goironic-tempest
auth_strategy = %[3]s
rpc_transport = none
debug = false
enabled_hardware_types = %[6]s
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake,ipxe,pxe
enabled_console_interfaces = fake,no-console,ipmitool-socat
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake,ipmitool,noop
enabled_network_interfaces = noop,flat
default_network_interface = flat
enabled_power_interfaces = fake,ipmitool
enabled_raid_interfaces = fake,no-raid,agent
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = fake,noop
enabled_vendor_interfaces = fake,no-vendor,ipmitool

[api]
host_ip = 127.0.0.1
port = %[1]d

[database]
connection = sqlite:///%[2]s

[dhcp]
dhcp_provider = none

[conductor]
automated_clean = false

[oslo_policy]
enforce_scope = %[4]t
enforce_new_defaults = %[4]t

[neutron]
auth_type = none
endpoint_override = %[7]s
cleaning_network = %[8]s

[keystone_authtoken]
auth_type = password
auth_url = %[5]s
www_authenticate_uri = %[5]s
username = ironic
password = %[9]s
user_domain_name = Default
project_name = service
project_domain_name = Default
`, s.Port, s.DBPath, s.Auth, s.SRBAC, s.AuthURL, hardwareTypes, s.NeutronURL, cleaningNetwork,
		keystone.ServicePassword)
}

// advertisedVersion is the "version" of GET base/'s default_version: the
// newest microversion tempest may ask for.
func advertisedVersion(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var doc struct {
		Default struct {
			Version string `json:"version"`
		} `json:"default_version"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return "", fmt.Errorf("GET %s/: %w", base, err)
	}
	if doc.Default.Version == "" {
		return "", fmt.Errorf("GET %s/: no default_version.version", base)
	}
	return doc.Default.Version, nil
}

// tempestConf are the fields of tempest-plugin/tempest.conf.tmpl.
type tempestConf struct {
	LogFile, LockPath    string
	AdminPassword        string
	AuthURL              string
	Neutron              bool
	EnforceScope         bool
	MaxMicroversion      string
	EnabledHardwareTypes string
	AuthStrategy         string
}

func (r *runner) writeTempestConf(path string, c tempestConf) error {
	tmpl, err := template.New("tempest.conf.tmpl").Option("missingkey=error").
		ParseFiles(filepath.Join(r.root, "tempest-plugin", "tempest.conf.tmpl"))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, c); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writePluginMetadata publishes goironic_tempest's tempest entry point:
// a dist-info directory under site (on PYTHONPATH) is how Python's
// importlib.metadata, and so tempest's plugin loader, finds it, without
// installing anything.
func (r *runner) writePluginMetadata(site string) error {
	d := filepath.Join(site, "goironic_tempest-0.0.0.dist-info")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"METADATA":         "Metadata-Version: 2.1\nName: goironic-tempest\nVersion: 0.0.0\n",
		"entry_points.txt": "[tempest.test_plugins]\ngoironic_tests = goironic_tempest.plugin:GoironicTempestPlugin\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// env is the environment of every tempest and stestr command: Debian's
// Python first, our plugin on PYTHONPATH, caches in the workspace, no
// proxy for loopback, and none of the caller's OS_* settings.
func (r *runner) env(ws string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OS_") || k == "PYTHONPATH" || k == "TEMPEST_CONFIG" || k == "TEMPEST_CONFIG_DIR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH=/usr/bin:/bin:"+os.Getenv("PATH"),
		"PYTHON="+python, // what stestr's workers run
		"PYTHONPATH="+filepath.Join(r.root, "tempest-plugin")+string(os.PathListSeparator)+filepath.Join(ws, "site"),
		"PYTHONDONTWRITEBYTECODE=1",                  // keep the source tree clean
		"XDG_CACHE_HOME="+filepath.Join(ws, "cache"), // stevedore's entry point cache
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	)
}

// command is tempest (args) in dir, in a process group of its own that a
// cancelled ctx kills whole (stestr's workers included).
func (r *runner) command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	return groupCommand(ctx, dir, env, r.tempest, args...)
}

func groupCommand(ctx context.Context, dir string, env []string, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// testIDPattern matches a test id line of tempest run --list-tests.
var testIDPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+(\[.*\])?$`)

// listTests returns the ids of the tests regex selects.
func (r *runner) listTests(ctx context.Context, dir string, env []string, conf, regex string) ([]string, error) {
	cmd := r.command(ctx, dir, env, "run", "--config-file", conf, "--list-tests", "--regex", regex)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tempest run --list-tests: %w\n%s%s", err, out, stderr.Bytes())
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); testIDPattern.MatchString(line) {
			ids = append(ids, line)
		}
	}
	return ids, sc.Err()
}

// runTempest runs the selected tests, the console going to console.
func (r *runner) runTempest(ctx context.Context, dir string, env []string, conf, regex, console string) error {
	f, err := os.Create(console)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := r.command(ctx, dir, env, "run", "--config-file", conf, "--regex", regex,
		"--parallel", "--concurrency", strconv.Itoa(workers))
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("tempest run did not finish within %s: %w", runBudget, ctx.Err())
	}
	return err
}

// lastStream writes the subunit stream of the workspace's last stestr run
// to path.
func (r *runner) lastStream(ctx context.Context, dir string, env []string, path string) error {
	stestr, err := exec.LookPath("stestr")
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := groupCommand(ctx, dir, env, stestr, "last", "--subunit")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	// stestr last exits 1 when the run had failures; the stream is there.
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			return fmt.Errorf("stestr last --subunit: %w: %s", err, stderr.Bytes())
		}
	}
	return nil
}

// ports hands out loopback ports: from portsEnv's range when it is set,
// any free one otherwise.
type ports struct {
	ranged     bool
	next, high int
}

func newPorts(t *testing.T) *ports {
	t.Helper()
	spec := os.Getenv(portsEnv)
	if spec == "" {
		return &ports{}
	}
	lo, hi, ok := strings.Cut(spec, "-")
	low, err1 := strconv.Atoi(lo)
	high, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || low < 1 || high > 65535 || low > high {
		t.Fatalf("%s=%q: want LOW-HIGH", portsEnv, spec)
	}
	return &ports{ranged: true, next: low, high: high}
}

// take returns a port nothing listens on now.
func (p *ports) take(t *testing.T) int {
	t.Helper()
	if !p.ranged {
		port, err := cluster.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		return port
	}
	for p.next <= p.high {
		port := p.next
		p.next++
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			l.Close()
			return port
		}
	}
	t.Fatalf("no free port left in %s=%s", portsEnv, os.Getenv(portsEnv))
	return 0
}

// statTree stats every file under dir (for go test's cache).
func statTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			_, err = os.Stat(path)
		}
		return err
	})
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// tail is the end of the file at path, at most max bytes.
func tail(path string, max int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return string(data)
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Second) }
