package interop

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
)

const (
	// cliVersion is the microversion the CLI asks for: the newest that
	// python-ironicclient 5.0.1 (Debian bookworm) knows.
	cliVersion = "1.78"

	// testBudget bounds one top-level test, start-up included.
	testBudget = 6 * time.Minute
	// startTimeout bounds the wait for a service to be ready. Python's
	// need 5-15 s alone, more while the other tests start theirs.
	startTimeout = 90 * time.Second
	// cliTimeout bounds one CLI call, --wait included.
	cliTimeout = 3 * time.Minute
	// waitSeconds is the CLI's --wait timeout for provisioning actions.
	waitSeconds = "120"
	// pollTimeout bounds the wait for an asynchronous change seen through
	// the API or the database (power state, a released reservation).
	pollTimeout = 60 * time.Second
)

func TestMain(m *testing.M) { cluster.Main(m) }

// requirements skips or fails t (see the package comment) unless Python
// Ironic, PyMySQL and the CLI are usable, and returns the CLI's path.
func requirements(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Python Ironic and runs the CLI about 100 times (minutes); skipped in -short mode")
	}
	cluster.RequirePython(t, "ironic.cmd.api, ironic.cmd.conductor, ironic.cmd.dbsync, pymysql", "python3-ironic python3-pymysql")
	openstack, err := exec.LookPath("openstack")
	if err != nil {
		cluster.Missing(t, cluster.RequirePythonEnv,
			fmt.Sprintf("the openstack CLI is not installed (apt-get install python3-openstackclient python3-ironicclient): %v", err))
	}
	return openstack
}

// deployment is one database on the test binary's MariaDB server and the
// services of one test on it and on the shared RabbitMQ.
type deployment struct {
	*cluster.Deployment
	openstack string
	broker    *rabbittest.Broker
	db        *sql.DB
}

// newDeployment checks the requirements, builds our commands, creates an
// empty database named after t and returns the deployment with a context
// bounded by testBudget. Every service of the deployment, ours or
// Python's, reads the same settings: noauth, oslo.messaging on the shared
// broker, the fake-hardware type with fake interfaces and no DHCP.
// Automated cleaning stays on (the default) so that provide and undeploy
// go through cleaning.
func newDeployment(t *testing.T) *deployment {
	t.Helper()
	openstack := requirements(t)
	broker := rabbittest.Shared(t)
	d := newDeploymentOn(t, openstack, cluster.INI{"DEFAULT": {"rpc_transport": "oslo", "transport_url": broker.TransportURL()}})
	d.broker = broker
	return d
}

// newDeploymentOn is newDeployment with the transport's options given
// (no broker unless they name one).
func newDeploymentOn(t *testing.T, openstack string, transport cluster.INI) *deployment {
	t.Helper()
	db := cluster.NewDatabase(t, nil, "interop")
	cluster.Build(t, cluster.API, cluster.Conductor, cluster.DBSync)
	ctx := cluster.TestContext(t, testBudget, 30*time.Second)

	d := &deployment{Deployment: cluster.NewDeployment(ctx, t, nil), openstack: openstack}
	d.StartTimeout = startTimeout
	d.Config = cluster.INI{
		"DEFAULT": {
			"auth_strategy":                 "noauth",
			"use_stderr":                    "true",
			"debug":                         "false",
			"enabled_hardware_types":        "fake-hardware",
			"enabled_bios_interfaces":       "fake",
			"enabled_boot_interfaces":       "fake",
			"enabled_console_interfaces":    "fake",
			"enabled_deploy_interfaces":     "fake",
			"enabled_inspect_interfaces":    "fake",
			"enabled_management_interfaces": "fake",
			"enabled_network_interfaces":    "noop",
			"enabled_power_interfaces":      "fake",
			"enabled_raid_interfaces":       "fake",
			"enabled_rescue_interfaces":     "fake",
			"enabled_storage_interfaces":    "noop",
			"enabled_vendor_interfaces":     "fake",
		},
		"api":      {"host_ip": "127.0.0.1", "api_workers": "1"},
		"database": {"connection": db.URL()},
		"dhcp":     {"dhcp_provider": "none"},
	}.Merged(transport, cluster.StateConfig(t, d.Dir))
	d.db = db.Open(t)
	t.Cleanup(func() { _ = d.db.Close() })
	return d
}

// program is our command (python false) or Python's: an API or a
// conductor.
func program(python, api bool) cluster.Program {
	if api {
		return cluster.Program{Cmd: cluster.API, Python: python}
	}
	return cluster.Program{Cmd: cluster.Conductor, Python: python}
}

// createSchema creates Ironic's schema with our ironic-dbsync or, python
// true, Python's.
func (d *deployment) createSchema(python bool) {
	d.T.Helper()
	d.DBSync(cluster.Program{Cmd: cluster.DBSync, Python: python}, "create_schema")
}

// startConductor starts a conductor and waits until it is ready.
func (d *deployment) startConductor(python bool, host string) *cluster.Service {
	d.T.Helper()
	s := d.Start(program(python, false), host)
	d.waitConductor(s)
	return s
}

// waitConductor waits until the conductor s is registered with
// fake-hardware and consumes its RPC queue.
func (d *deployment) waitConductor(s *cluster.Service) {
	d.T.Helper()
	cluster.WaitConductor(d.Ctx, d.T, d.db, d.broker.AMQPURL(), s, startTimeout)
}

// startAPI starts an API service; it answers when startAPI returns.
func (d *deployment) startAPI(python bool, host string) *cluster.Service {
	d.T.Helper()
	return d.Start(program(python, true), host)
}

// poll calls cond every 250 ms until it reports true, failing the test
// after timeout, when cond fails, or when s (if not nil) exits.
func (d *deployment) poll(t *testing.T, timeout time.Duration, s *cluster.Service, what string, cond func() (bool, error)) {
	t.Helper()
	cluster.Eventually(d.Ctx, t, timeout, what, func() (bool, string) {
		if s != nil {
			s.RequireRunning(t)
		}
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		return ok, ""
	})
}

// cli returns the CLI on the API service api.
func (d *deployment) cli(api *cluster.Service) *osc.CLI {
	c := osc.New(d.Ctx, d.openstack, d.T.TempDir(), api.URL, cliVersion)
	c.Timeout = cliTimeout
	return c
}

// getNode reads a node through the REST API of api at cliVersion.
func (d *deployment) getNode(t *testing.T, api *cluster.Service, ident string) map[string]any {
	t.Helper()
	return d.get(t, api, "/v1/nodes/"+ident)
}

// get reads a JSON object from the REST API of api at cliVersion.
func (d *deployment) get(t *testing.T, api *cluster.Service, path string) map[string]any {
	t.Helper()
	var obj map[string]any
	cluster.NewClient(api.URL, cliVersion).JSON(d.Ctx, t, http.StatusOK, http.MethodGet, path, nil, &obj)
	return obj
}

// request sends a request (with body as JSON unless nil) to the REST API
// of api at cliVersion, requires the status want and returns the body.
func (d *deployment) request(t *testing.T, api *cluster.Service, method, path string, body any, want int) []byte {
	t.Helper()
	return cluster.NewClient(api.URL, cliVersion).Must(d.Ctx, t, want, method, path, body).Body
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
	err := d.db.QueryRowContext(d.Ctx, `SELECT n.provision_state, n.target_provision_state, n.last_error,
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

// conductors lists the host names of the alive conductors that api knows,
// sorted.
func (d *deployment) conductors(t *testing.T, api *cluster.Service) []string {
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
