package interop

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/differential"
	"github.com/goironic/ironic/test/internal/osc"
)

const (
	// pythonBin is Debian's python, the one python3-ironic is installed for.
	pythonBin = "/usr/bin/python3"
	// requirePythonEnv, set to 1, turns a missing Python Ironic or CLI
	// into a failure instead of a skip.
	requirePythonEnv = "IRONIC_TEST_REQUIRE_PYTHON"

	// cliVersion is the microversion the CLI asks for: the newest that
	// python-ironicclient 5.0.1 (Debian bookworm) knows.
	cliVersion = "1.78"

	// testBudget bounds one top-level test, start-up included.
	testBudget = 6 * time.Minute
	// buildTimeout bounds building our three commands.
	buildTimeout = 3 * time.Minute
	// startTimeout bounds the wait for a service to be ready. Python's
	// need 5-15 s alone, more while the other tests start theirs.
	startTimeout = 90 * time.Second
	// stopGrace is how long a service gets to exit after SIGTERM.
	stopGrace = 20 * time.Second
	// commandTimeout bounds one ironic-dbsync run.
	commandTimeout = 2 * time.Minute
	// cliTimeout bounds one CLI call, --wait included.
	cliTimeout = 3 * time.Minute
	// waitSeconds is the CLI's --wait timeout for provisioning actions.
	waitSeconds = "120"
	// pollTimeout bounds the wait for an asynchronous change seen through
	// the API or the database (power state, a released reservation).
	pollTimeout = 60 * time.Second
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

// binaries are our three commands, built once per test binary.
type binaries struct {
	api, conductor, dbsync string
}

var built struct {
	sync.Mutex
	dir  string
	bins binaries
	err  error
}

// build compiles our commands on first use.
func build(t *testing.T) binaries {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if built.bins.api == "" && built.err == nil {
		built.bins, built.err = buildAll()
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bins
}

func buildAll() (binaries, error) {
	root, err := differential.ModuleRoot(".")
	if err != nil {
		return binaries{}, err
	}
	// The commands run in subprocesses: make `go test` notice when their
	// sources change.
	if err := differential.StatSources(root); err != nil {
		return binaries{}, err
	}
	built.dir, err = os.MkdirTemp("", "goironic-interop-bin-")
	if err != nil {
		return binaries{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	var bins binaries
	for _, b := range []struct {
		pkg string
		dst *string
	}{
		{"github.com/goironic/ironic/cmd/ironic-api", &bins.api},
		{"github.com/goironic/ironic/cmd/ironic-conductor", &bins.conductor},
		{"github.com/goironic/ironic/cmd/ironic-dbsync", &bins.dbsync},
	} {
		if *b.dst, err = differential.Build(ctx, b.pkg, built.dir); err != nil {
			return binaries{}, err
		}
	}
	return bins, nil
}

// requirements skips or fails t (see the package comment) unless Python
// Ironic, PyMySQL and the CLI are usable, and returns the CLI's path.
func requirements(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Python Ironic and runs the CLI about 100 times (minutes); skipped in -short mode")
	}
	missing := func(msg string) {
		if os.Getenv(requirePythonEnv) == "1" {
			t.Fatalf("%s=1: %s", requirePythonEnv, msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const modules = "ironic.cmd.api, ironic.cmd.conductor, ironic.cmd.dbsync, pymysql"
	if out, err := exec.CommandContext(ctx, pythonBin, "-c", "import "+modules).CombinedOutput(); err != nil {
		missing(fmt.Sprintf("%s cannot import %s (apt-get install python3-ironic python3-pymysql): %v\n%s",
			pythonBin, modules, err, tail(out, 1500)))
	}
	openstack, err := exec.LookPath("openstack")
	if err != nil {
		missing(fmt.Sprintf("the openstack CLI is not installed (apt-get install python3-openstackclient python3-ironicclient): %v", err))
	}
	return openstack
}

// deployment is one database on the test binary's MariaDB server and the
// services of one test on it and on the shared RabbitMQ.
type deployment struct {
	t         *testing.T
	ctx       context.Context
	dir       string
	bins      binaries
	openstack string
	broker    *rabbittest.Broker
	mariadb   *dbtest.Server
	dbName    string
	db        *sql.DB
}

// newDeployment checks the requirements, builds our commands, creates an
// empty database named after t and returns the deployment with a context
// bounded by testBudget.
func newDeployment(t *testing.T) *deployment {
	t.Helper()
	openstack := requirements(t)
	broker := rabbittest.Shared(t)
	mariadb := dbtest.MariaDBServer(t)
	bins := build(t)

	budget := testBudget
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) - 30*time.Second; left < budget {
			budget = left
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), budget)
	t.Cleanup(cancel)

	d := &deployment{
		t: t, ctx: ctx, dir: t.TempDir(), bins: bins, openstack: openstack,
		broker: broker, mariadb: mariadb,
		dbName: "interop_" + strings.ToLower(regexp.MustCompile(`\W`).ReplaceAllString(t.Name(), "_")),
	}
	if len(d.dbName) > 64 {
		d.dbName = d.dbName[:64]
	}
	for _, sub := range []string{"http", "tftp", "images", "master_images", "locks"} {
		if err := os.Mkdir(filepath.Join(d.dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = mariadb.DropDatabase(ctx, d.dbName)
	if err := mariadb.CreateDatabase(ctx, d.dbName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = mariadb.DropDatabase(ctx, d.dbName)
	})
	db, err := sql.Open("mysql", mariadb.DSN(d.dbName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d.db = db
	return d
}

// writeConf writes the ironic.conf of the service on host (port is
// [api]port, ignored by conductors) and returns its path. Every service
// of the deployment, ours or Python's, reads the same settings: noauth,
// oslo.messaging on the shared broker, the fake-hardware type with fake
// interfaces and no DHCP. Automated cleaning stays on (the default) so
// that provide and undeploy go through cleaning.
func (d *deployment) writeConf(host string, port int) string {
	d.t.Helper()
	text := fmt.Sprintf(`[DEFAULT]
host = %[1]s
auth_strategy = noauth
rpc_transport = oslo
transport_url = %[2]s
use_stderr = true
debug = false
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake
enabled_boot_interfaces = fake
enabled_console_interfaces = fake
enabled_deploy_interfaces = fake
enabled_inspect_interfaces = fake
enabled_management_interfaces = fake
enabled_network_interfaces = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake
enabled_rescue_interfaces = fake
enabled_storage_interfaces = noop
enabled_vendor_interfaces = fake

[api]
host_ip = 127.0.0.1
port = %[3]d
api_workers = 1

[database]
connection = %[4]s

[dhcp]
dhcp_provider = none

[deploy]
http_root = %[5]s/http
http_url = http://127.0.0.1:8080

[pxe]
tftp_root = %[5]s/tftp
tftp_master_path = %[5]s/master_images
images_path = %[5]s/images
instance_master_path = %[5]s/master_images

[oslo_concurrency]
lock_path = %[5]s/locks
`, host, d.broker.TransportURL(), port, d.mariadb.PythonURL(d.dbName), d.dir)
	path := filepath.Join(d.dir, host+".conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		d.t.Fatal(err)
	}
	return path
}

// pythonArgs runs the main() of ironic.cmd.<module> with argv[0] name, the
// way Debian's Ironic runs without its console scripts.
func pythonArgs(module, name string, args ...string) []string {
	code := fmt.Sprintf("import sys; from ironic.cmd.%s import main; sys.argv=['%s']+sys.argv[1:]; main()", module, name)
	return append([]string{"-c", code}, args...)
}

// createSchema creates Ironic's schema with our ironic-dbsync or, python
// true, Python's.
func (d *deployment) createSchema(python bool) {
	d.t.Helper()
	conf := d.writeConf("dbsync", 0)
	bin, args := d.bins.dbsync, []string{"--config-file", conf, "create_schema"}
	if python {
		bin, args = pythonBin, pythonArgs("dbsync", "ironic-dbsync", args...)
	}
	ctx, cancel := context.WithTimeout(d.ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		d.t.Fatalf("%s create_schema (python %v): %v\n%s", filepath.Base(bin), python, err, tail(out, 3000))
	}
}

// service is one running ironic-api or ironic-conductor.
type service struct {
	name string // e.g. "python ironic-api"
	host string
	url  string // APIs only
	log  string
	proc *differential.Process
}

// logTail is the end of the service's log.
func (s *service) logTail(n int) string {
	b, _ := os.ReadFile(s.log)
	return tail(b, n)
}

// start runs one service (python or ours, api or conductor) with host as
// [DEFAULT]host, stops it when the test ends and shows its log then if the
// test failed.
func (d *deployment) start(python, api bool, host string) *service {
	d.t.Helper()
	impl, module, bin := "go", "conductor", d.bins.conductor
	if api {
		module, bin = "api", d.bins.api
	}
	if python {
		impl = "python"
	}
	s := &service{name: impl + " ironic-" + module, host: host, log: filepath.Join(d.dir, host+".log")}
	port := 0
	if api {
		var err error
		if port, err = differential.FreePort(); err != nil {
			d.t.Fatal(err)
		}
		s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	args := []string{"--config-file", d.writeConf(host, port)}
	if python {
		bin, args = pythonBin, pythonArgs(module, "ironic-"+module, args...)
	}
	proc, err := differential.StartGroup(bin, args, s.log)
	if err != nil {
		d.t.Fatal(err)
	}
	s.proc = proc
	d.t.Cleanup(func() {
		_ = proc.Stop(stopGrace)
		if d.t.Failed() {
			d.t.Logf("%s (%s) log, last lines:\n%s", s.name, host, s.logTail(6000))
		}
	})
	return s
}

// startConductor starts a conductor and waits until it is ready.
func (d *deployment) startConductor(python bool, host string) *service {
	d.t.Helper()
	s := d.start(python, false, host)
	d.waitConductor(s)
	return s
}

// waitConductor waits until the conductor s is registered with
// fake-hardware and consumes its RPC queue.
func (d *deployment) waitConductor(s *service) {
	d.t.Helper()
	start := time.Now()
	host := s.host
	d.poll(d.t, startTimeout, s, fmt.Sprintf("%s %s registered and consuming", s.name, host), func() (bool, error) {
		var n int
		err := d.db.QueryRowContext(d.ctx, `SELECT COUNT(*) FROM conductors c
			JOIN conductor_hardware_interfaces h ON h.conductor_id = c.id
			WHERE c.hostname = ? AND c.online = 1 AND h.hardware_type = 'fake-hardware'`, host).Scan(&n)
		if err != nil || n == 0 {
			return false, err
		}
		return d.queueExists(rpc.Topic + "." + host)
	})
	d.t.Logf("%s %s ready after %s", s.name, host, time.Since(start).Round(time.Millisecond))
}

// startAPI starts an API service and waits until it answers.
func (d *deployment) startAPI(python bool, host string) *service {
	d.t.Helper()
	s := d.start(python, true, host)
	d.waitAPI(s)
	return s
}

// waitAPI waits until the API service s answers.
func (d *deployment) waitAPI(s *service) {
	d.t.Helper()
	start := time.Now()
	host := s.host
	if err := differential.WaitReady(d.ctx, s.url+"/", startTimeout, s.proc); err != nil {
		d.t.Fatalf("%s %s: %v\nlog:\n%s", s.name, host, err, s.logTail(4000))
	}
	d.t.Logf("%s %s ready at %s after %s", s.name, host, s.url, time.Since(start).Round(time.Millisecond))
}

// queueExists reports whether the broker has the queue name (a passive
// declare: the conductor has started consuming its topic).
func (d *deployment) queueExists(name string) (bool, error) {
	conn, err := amqp.Dial(d.broker.AMQPURL())
	if err != nil {
		return false, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return false, err
	}
	defer ch.Close()
	q, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
	var amqpErr *amqp.Error
	if errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return q.Consumers > 0, nil
}

// poll calls cond every 250 ms until it reports true, failing the test
// after timeout, when cond fails, or when s (if not nil) exits.
func (d *deployment) poll(t *testing.T, timeout time.Duration, s *service, what string, cond func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(d.ctx, timeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if s != nil {
			if done, err := s.proc.Exited(); done {
				t.Fatalf("waiting for %s: %s exited (%v)\nlog:\n%s", what, s.name, err, s.logTail(4000))
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %s within %s", what, timeout)
		case <-tick.C:
		}
	}
}

// cli returns the CLI on the API service api.
func (d *deployment) cli(api *service) *osc.CLI {
	c := osc.New(d.ctx, d.openstack, d.t.TempDir(), api.url, cliVersion)
	c.Timeout = cliTimeout
	return c
}

// getNode reads a node through the REST API of api at cliVersion.
func (d *deployment) getNode(t *testing.T, api *service, ident string) map[string]any {
	t.Helper()
	return d.get(t, api, "/v1/nodes/"+ident)
}

// get reads a JSON object from the REST API of api at cliVersion.
func (d *deployment) get(t *testing.T, api *service, path string) map[string]any {
	t.Helper()
	var obj map[string]any
	body := d.request(t, api, http.MethodGet, path, nil, http.StatusOK)
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("GET %s from %s: %v", path, api.name, err)
	}
	return obj
}

// request sends a request (with body as JSON unless nil) to the REST API
// of api at cliVersion, requires the status want and returns the body.
func (d *deployment) request(t *testing.T, api *service, method, path string, body any, want int) []byte {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(d.ctx, method, api.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", cliVersion)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, api.name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s on %s: status %d, want %d: %s", method, path, api.name, resp.StatusCode, want, tail(raw, 1000))
	}
	return raw
}

// nodeRow is what the database says about a node, read directly.
type nodeRow struct {
	provisionState    string
	targetState       sql.NullString
	lastError         sql.NullString
	reservation       sql.NullString
	affinityHost      sql.NullString
	instanceInfo      map[string]any
	maintenance       bool
	maintenanceReason sql.NullString
}

func (d *deployment) nodeRow(t *testing.T, uuid string) nodeRow {
	t.Helper()
	var r nodeRow
	var info sql.NullString
	err := d.db.QueryRowContext(d.ctx, `SELECT n.provision_state, n.target_provision_state, n.last_error,
			n.reservation, c.hostname, n.instance_info, n.maintenance, n.maintenance_reason
		FROM nodes n LEFT JOIN conductors c ON c.id = n.conductor_affinity WHERE n.uuid = ?`, uuid).
		Scan(&r.provisionState, &r.targetState, &r.lastError, &r.reservation, &r.affinityHost, &info,
			&r.maintenance, &r.maintenanceReason)
	if err != nil {
		t.Fatalf("node %s in the database: %v", uuid, err)
	}
	if info.Valid && info.String != "" {
		if err := json.Unmarshal([]byte(info.String), &r.instanceInfo); err != nil {
			t.Fatalf("node %s: instance_info %q: %v", uuid, info.String, err)
		}
	}
	return r
}

// waitReleased waits until no conductor holds the node's lock: a --wait
// of the CLI returns when the state is reached, which a conductor saves
// just before it releases its reservation.
func (d *deployment) waitReleased(t *testing.T, uuid string) nodeRow {
	t.Helper()
	var r nodeRow
	d.poll(t, pollTimeout, nil, "node "+uuid+" reservation released", func() (bool, error) {
		r = d.nodeRow(t, uuid)
		return !r.reservation.Valid, nil
	})
	return r
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// conductors lists the host names of the alive conductors that api knows,
// sorted.
func (d *deployment) conductors(t *testing.T, api *service) []string {
	t.Helper()
	var hosts []string
	for _, c := range d.get(t, api, "/v1/conductors")["conductors"].([]any) {
		c := c.(map[string]any)
		if c["alive"] == true {
			hosts = append(hosts, c["hostname"].(string))
		}
	}
	slices.Sort(hosts)
	return hosts
}
