package split

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/differential"
	"github.com/goironic/ironic/test/internal/osc"
)

const (
	// skipCLIEnv, set to 1, turns a missing CLI into a skip (as in test/cli).
	skipCLIEnv = "IRONIC_TEST_SKIP_CLI"
	// cliVersion is the newest microversion python-ironicclient 5.0.1 accepts.
	cliVersion = "1.78"
	// restVersion is the microversion of the test's own REST requests.
	restVersion = "1.82"

	// buildTimeout bounds building the three binaries.
	buildTimeout = 4 * time.Minute
	// startTimeout bounds a process's start (first answer, or serving RPC).
	startTimeout = 60 * time.Second
	// stopGrace is how long a process gets to exit after SIGINT.
	stopGrace = 10 * time.Second
)

func TestMain(m *testing.M) {
	code := m.Run()
	rabbittest.StopShared()
	dbtest.StopShared()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binaries are the split deployment's programs, built from this module.
type binaries struct {
	api, conductor, dbsync string
}

// built holds the binaries, built once per test binary (test-only state).
var built struct {
	once sync.Once
	dir  string
	bins binaries
	err  error
}

// buildBinaries builds ironic-api, ironic-conductor and ironic-dbsync once.
func buildBinaries(t *testing.T) binaries {
	t.Helper()
	built.once.Do(func() {
		root, err := differential.ModuleRoot(".")
		if err != nil {
			built.err = err
			return
		}
		// The programs run in subprocesses: stat their sources so that go
		// test does not serve a cached result after they changed.
		if err := differential.StatSources(root); err != nil {
			built.err = err
			return
		}
		built.dir, err = os.MkdirTemp("", "goironic-split-bin-")
		if err != nil {
			built.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		var g errgroup.Group
		for pkg, out := range map[string]*string{
			"ironic-api": &built.bins.api, "ironic-conductor": &built.bins.conductor, "ironic-dbsync": &built.bins.dbsync,
		} {
			g.Go(func() error {
				bin, err := differential.Build(ctx, "github.com/goironic/ironic/cmd/"+pkg, built.dir)
				*out = bin
				return err
			})
		}
		built.err = g.Wait()
	})
	if built.err != nil {
		t.Fatalf("building the binaries: %v", built.err)
	}
	return built.bins
}

// requireCLI returns the openstack CLI's path, or fails (skips when
// IRONIC_TEST_SKIP_CLI=1) when it is not installed.
func requireCLI(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("openstack")
	if err != nil {
		if os.Getenv(skipCLIEnv) == "1" {
			t.Skipf("the openstack CLI is not installed (%v) and %s=1", err, skipCLIEnv)
		}
		t.Fatalf("the openstack CLI is not installed (%v); install python3-openstackclient and python3-ironicclient, or set %s=1", err, skipCLIEnv)
	}
	return bin
}

// testContext bounds a test by budget and by the go test deadline.
func testContext(t *testing.T, budget time.Duration) context.Context {
	t.Helper()
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) - 20*time.Second; left < budget {
			budget = left
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	return ctx
}

// database is one MariaDB database for a deployment.
type database struct {
	srv  *dbtest.Server
	name string
}

// sharedDatabase creates a fresh database on the test binary's MariaDB
// (skipped or failed as dbtest decides when MariaDB is missing); it is
// dropped when t ends.
func sharedDatabase(ctx context.Context, t *testing.T) database {
	t.Helper()
	srv := dbtest.MariaDBServer(t)
	return newDatabase(ctx, t, srv)
}

// privateMariaDB starts a MariaDB server of t's own (for outage tests,
// which stop it), stopped when t ends.
func privateMariaDB(ctx context.Context, t *testing.T) *dbtest.Server {
	t.Helper()
	if _, _, ok := dbtest.Binaries(); !ok {
		if os.Getenv("IRONIC_TEST_REQUIRE_MARIADB") == "1" {
			t.Fatal("MariaDB is required (IRONIC_TEST_REQUIRE_MARIADB=1) but mariadbd is not installed")
		}
		t.Skip("MariaDB is not installed (apt-get install mariadb-server); skipping")
	}
	// A short directory: the unix socket's path is limited to 107 bytes.
	dir, err := os.MkdirTemp("", "goironic-split-db-")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := dbtest.StartMariaDB(ctx, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

func newDatabase(ctx context.Context, t *testing.T, srv *dbtest.Server) database {
	t.Helper()
	name := fmt.Sprintf("split_%d_%s", os.Getpid(), strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name())))
	if err := srv.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.DropDatabase(ctx, name)
	})
	return database{srv: srv, name: name}
}

// exec runs one SQL statement on the database (as root, over the socket):
// the tests use it to leave nodes as a crashed conductor would, or to hold
// a node's lock as another conductor would.
func (d database) exec(ctx context.Context, t *testing.T, query string, args ...any) {
	t.Helper()
	conn := d.open(t)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func (d database) open(t *testing.T) *sql.DB {
	t.Helper()
	conn, err := sql.Open("mysql", d.srv.DSN(d.name))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// ini is an ironic.conf: section -> option -> value.
type ini map[string]map[string]string

// merged returns a copy of c with over's options set on top.
func (c ini) merged(over ini) ini {
	out := ini{}
	for _, src := range []ini{c, over} {
		for sec, opts := range src {
			if out[sec] == nil {
				out[sec] = map[string]string{}
			}
			maps.Copy(out[sec], opts)
		}
	}
	return out
}

func (c ini) render() string {
	var b strings.Builder
	for _, sec := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "[%s]\n", sec)
		for _, k := range slices.Sorted(maps.Keys(c[sec])) {
			fmt.Fprintf(&b, "%s = %s\n", k, c[sec][k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// baseConfig is what every process of a deployment shares: fake-hardware
// with the fake interfaces, no authentication, oslo.messaging on broker.
func baseConfig(dbURL, transportURL string) ini {
	return ini{
		"DEFAULT": {
			"auth_strategy":                 "noauth",
			"rpc_transport":                 "oslo",
			"transport_url":                 transportURL,
			"debug":                         "false",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_bios_interfaces":       "fake,no-bios",
			"enabled_boot_interfaces":       "fake",
			"enabled_console_interfaces":    "fake,no-console",
			"enabled_deploy_interfaces":     "fake",
			"enabled_inspect_interfaces":    "fake,no-inspect",
			"enabled_management_interfaces": "fake",
			"enabled_network_interfaces":    "noop",
			"enabled_power_interfaces":      "fake",
			"enabled_raid_interfaces":       "fake,no-raid",
			"enabled_rescue_interfaces":     "fake,no-rescue",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "fake,no-vendor",
			"default_network_interface":     "noop",
		},
		"api":      {"host_ip": "127.0.0.1"},
		"database": {"connection": dbURL},
		"dhcp":     {"dhcp_provider": "none"},
	}
}

// proc is one running program of a deployment.
type proc struct {
	*differential.Process
	name, log string
}

// cluster is a split deployment: one ironic-api and some conductors.
type cluster struct {
	t   *testing.T
	ctx context.Context
	dir string
	cfg ini

	apiURL     string
	api        *proc
	conductors map[string]*proc
	http       *http.Client
}

// startCluster creates the schema with ironic-dbsync, starts a conductor
// per host (waiting until each serves its RPC queues) and then the API,
// and waits until the API lists every conductor alive. Everything is
// stopped when t ends; on failure the logs' tails are logged.
func startCluster(ctx context.Context, t *testing.T, db database, broker *rabbittest.Broker, extra ini, hosts ...string) *cluster {
	t.Helper()
	bins := buildBinaries(t)
	c := &cluster{
		t: t, ctx: ctx, dir: t.TempDir(),
		cfg:        baseConfig(db.srv.PythonURL(db.name), broker.TransportURL()).merged(extra),
		conductors: map[string]*proc{},
		http:       &http.Client{Timeout: 60 * time.Second},
	}
	t.Cleanup(c.stop)

	dbsync := exec.CommandContext(ctx, bins.dbsync, "--config-file", c.writeConfig("dbsync", ini{}), "create_schema")
	if out, err := dbsync.CombinedOutput(); err != nil {
		t.Fatalf("ironic-dbsync create_schema: %v\n%s", err, out)
	}
	for _, h := range hosts {
		c.startConductor(h)
	}
	port, err := differential.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c.apiURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	conf := c.writeConfig("api", ini{"DEFAULT": {"host": "split-api"}, "api": {"port": fmt.Sprint(port)}})
	c.api = c.start("ironic-api", bins.api, conf)
	if err := differential.WaitReady(ctx, c.apiURL+"/", startTimeout, c.api.Process); err != nil {
		t.Fatal(err)
	}
	c.waitAlive(hosts...)
	return c
}

// writeConfig writes the deployment's configuration with over on top as
// <name>.conf and returns its path.
func (c *cluster) writeConfig(name string, over ini) string {
	path := filepath.Join(c.dir, name+".conf")
	if err := os.WriteFile(path, []byte(c.cfg.merged(over).render()), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return path
}

func (c *cluster) start(name, bin, conf string) *proc {
	c.t.Helper()
	log := filepath.Join(c.dir, name+".log")
	p, err := differential.Start(bin, []string{"--config-file", conf}, log)
	if err != nil {
		c.t.Fatal(err)
	}
	return &proc{Process: p, name: name, log: log}
}

// startConductor starts ironic-conductor as host and waits until it
// serves its RPC queues.
func (c *cluster) startConductor(host string) *proc {
	c.t.Helper()
	conf := c.writeConfig(host, ini{"DEFAULT": {"host": host}})
	p := c.start(host, buildBinaries(c.t).conductor, conf)
	c.conductors[host] = p
	c.waitLog(p, "serving RPC", 1, startTimeout)
	return p
}

// stop stops every process (API first) and, if t failed, logs their tails.
func (c *cluster) stop() {
	procs := []*proc{c.api}
	for _, h := range slices.Sorted(maps.Keys(c.conductors)) {
		procs = append(procs, c.conductors[h])
	}
	for _, p := range procs {
		if p == nil {
			continue
		}
		if err := p.Stop(stopGrace); err != nil {
			c.t.Logf("%s: %v", p.name, err)
		}
		if c.t.Failed() {
			logTail(c.t, p)
		}
	}
}

func logTail(t *testing.T, p *proc) {
	data, err := os.ReadFile(p.log)
	if err != nil {
		t.Logf("%s log: %v", p.name, err)
		return
	}
	const max = 6000
	if len(data) > max {
		data = data[len(data)-max:]
	}
	t.Logf("%s log (tail):\n%s", p.name, data)
}

// requireRunning fails t if a process of the deployment has exited
// (killed conductors excepted).
func (c *cluster) requireRunning(except ...string) {
	c.t.Helper()
	for _, p := range append([]*proc{c.api}, slices.Collect(maps.Values(c.conductors))...) {
		if slices.Contains(except, p.name) {
			continue
		}
		if done, err := p.Exited(); done {
			c.t.Fatalf("%s exited: %v", p.name, err)
		}
	}
}

// logCount counts the lines of p's log containing s.
func logCount(p *proc, s string) int {
	data, _ := os.ReadFile(p.log)
	return bytes.Count(data, []byte(s))
}

// waitLog waits until p's log has at least n lines containing s.
func (c *cluster) waitLog(p *proc, s string, n int, timeout time.Duration) {
	c.t.Helper()
	c.eventually(timeout, fmt.Sprintf("%s logs %q %d times", p.name, s, n), func() (bool, string) {
		if done, err := p.Exited(); done {
			c.t.Fatalf("%s exited: %v", p.name, err)
		}
		got := logCount(p, s)
		return got >= n, fmt.Sprintf("%d times", got)
	})
}

// eventually polls cond every 250 ms until it holds, failing t with what
// and cond's last report after timeout (or when the test's context ends).
func (c *cluster) eventually(timeout time.Duration, what string, cond func() (bool, string)) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("not within %s: %s; last: %s", timeout, what, last)
		case <-tick.C:
		}
	}
}

// response is one REST answer.
type response struct {
	status int
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

// do sends one REST request at restVersion; body, if not nil, is sent as
// JSON. The error is for a request that got no answer.
func (c *cluster) do(method, path string, body any) (response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, c.apiURL+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", restVersion)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, body: data}, err
}

// must sends a request and requires status want; out, if not nil,
// receives the decoded body.
func (c *cluster) must(want int, method, path string, body, out any) {
	c.t.Helper()
	r, err := c.do(method, path, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	if r.status != want {
		c.t.Fatalf("%s %s: got %s, want status %d", method, path, r, want)
	}
	if out != nil {
		if err := json.Unmarshal(r.body, out); err != nil {
			c.t.Fatalf("%s %s: %v\n%s", method, path, err, r.body)
		}
	}
}

// node is what the tests read of a node.
type node struct {
	UUID                 string  `json:"uuid"`
	Name                 *string `json:"name"`
	Conductor            *string `json:"conductor"`
	ProvisionState       string  `json:"provision_state"`
	TargetProvisionState *string `json:"target_provision_state"`
	PowerState           *string `json:"power_state"`
	TargetPowerState     *string `json:"target_power_state"`
	Reservation          *string `json:"reservation"`
	LastError            *string `json:"last_error"`
	Maintenance          bool    `json:"maintenance"`
}

func (n node) String() string {
	return fmt.Sprintf("%s{conductor=%s provision_state=%s target=%s power=%s target_power=%s reservation=%s last_error=%s}",
		n.UUID, deref(n.Conductor), n.ProvisionState, deref(n.TargetProvisionState), deref(n.PowerState),
		deref(n.TargetPowerState), deref(n.Reservation), deref(n.LastError))
}

func deref(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}

const nodeFields = "uuid,name,conductor,provision_state,target_provision_state,power_state,target_power_state,reservation,last_error,maintenance"

// nodes lists every node with the fields the tests read, by UUID.
func (c *cluster) nodes() map[string]node {
	c.t.Helper()
	var doc struct {
		Nodes []node `json:"nodes"`
	}
	c.must(http.StatusOK, http.MethodGet, "/v1/nodes?fields="+nodeFields, nil, &doc)
	out := map[string]node{}
	for _, n := range doc.Nodes {
		out[n.UUID] = n
	}
	return out
}

// createNodes creates fake-hardware nodes with the given UUIDs over REST.
func (c *cluster) createNodes(uuids ...string) {
	c.t.Helper()
	for i, u := range uuids {
		c.must(http.StatusCreated, http.MethodPost, "/v1/nodes",
			map[string]any{"uuid": u, "name": fmt.Sprintf("split-%02d", i), "driver": "fake-hardware"}, nil)
	}
}

// provision requests target for the node and waits until it is in want,
// unreserved.
func (c *cluster) provision(uuid, target, want string, timeout time.Duration) {
	c.t.Helper()
	c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target}, nil)
	c.waitNode(uuid, timeout, func(n node) bool { return n.ProvisionState == want && n.Reservation == nil })
}

// waitNode polls the node until ok holds.
func (c *cluster) waitNode(uuid string, timeout time.Duration, ok func(node) bool) node {
	c.t.Helper()
	var n node
	c.eventually(timeout, "node "+uuid+" reaches the expected state", func() (bool, string) {
		c.must(http.StatusOK, http.MethodGet, "/v1/nodes/"+uuid+"?fields="+nodeFields, nil, &n)
		return ok(n), n.String()
	})
	return n
}

// conductor is what the tests read of GET /v1/conductors/<host>.
type conductor struct {
	Hostname  string `json:"hostname"`
	Alive     bool   `json:"alive"`
	UpdatedAt string `json:"updated_at"`
}

// waitAlive waits until the API lists every host as an alive conductor.
func (c *cluster) waitAlive(hosts ...string) {
	c.t.Helper()
	c.eventually(startTimeout, fmt.Sprintf("conductors %v alive", hosts), func() (bool, string) {
		var doc struct {
			Conductors []conductor `json:"conductors"`
		}
		c.must(http.StatusOK, http.MethodGet, "/v1/conductors", nil, &doc)
		alive := map[string]bool{}
		for _, cd := range doc.Conductors {
			alive[cd.Hostname] = cd.Alive
		}
		for _, h := range hosts {
			if !alive[h] {
				return false, fmt.Sprint(doc.Conductors)
			}
		}
		return true, ""
	})
}

// cli returns the openstack CLI pointed at the API.
func (c *cluster) cli(bin string) *osc.CLI {
	b := osc.New(c.ctx, bin, c.t.TempDir(), c.apiURL, cliVersion)
	b.Timeout = 3 * time.Minute
	return b
}

// step runs one CLI command and returns an error (with the CLI's output)
// unless it succeeded; unlike osc.CLI.OK it is safe in any goroutine.
func step(b *osc.CLI, args ...string) error {
	r, err := b.Exec(args)
	if err != nil {
		return fmt.Errorf("%v\n%s", err, r)
	}
	if r.Code != 0 {
		return fmt.Errorf("command failed:\n%s", r)
	}
	return nil
}

// nodeUUID returns the i-th UUID of a test's nodes: fixed, so that the
// hash ring's placement of them is the same on every run.
func nodeUUID(test, i int) string {
	return fmt.Sprintf("5b1170%02x-0000-4000-8000-%012x", test, i)
}
