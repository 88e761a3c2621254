package split

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/osc"
)

const (
	// cliVersion is the newest microversion python-ironicclient 5.0.1 accepts.
	cliVersion = "1.78"
	// restVersion is the microversion of the test's own REST requests.
	restVersion = "1.82"
	// startTimeout bounds a process's start (first answer, or serving RPC).
	startTimeout = 60 * time.Second
	// stopGrace is how long a process gets to exit after SIGTERM.
	stopGrace = 10 * time.Second
)

func TestMain(m *testing.M) { cluster.Main(m) }

// testContext bounds a test by budget and by the go test deadline.
func testContext(t *testing.T, budget time.Duration) context.Context {
	return cluster.TestContext(t, budget, 20*time.Second)
}

// sharedDatabase creates a fresh database on the test binary's MariaDB
// (skipped or failed as dbtest decides when MariaDB is missing); it is
// dropped when t ends.
func sharedDatabase(t *testing.T) cluster.Database {
	return cluster.NewDatabase(t, nil, "split")
}

// dbExec runs one SQL statement on the database (as root, over the socket):
// the tests use it to leave nodes as a crashed conductor would, or to hold
// a node's lock as another conductor would.
func dbExec(ctx context.Context, t *testing.T, db cluster.Database, query string, args ...any) {
	t.Helper()
	conn := db.Open(t)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// dbQuery runs a two-column SQL query and returns its rows as a map.
func dbQuery(ctx context.Context, t *testing.T, db cluster.Database, query string) map[string]string {
	t.Helper()
	conn := db.Open(t)
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// baseConfig is what every process of a deployment shares: fake-hardware
// with the fake interfaces, no authentication, oslo.messaging on broker.
func baseConfig(dbURL, transportURL string) cluster.INI {
	return cluster.INI{
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

// splitCluster is a split deployment: one ironic-api and some conductors.
type splitCluster struct {
	*cluster.Deployment
	t          *testing.T
	ctx        context.Context
	api        *cluster.Service
	apiURL     string
	conductors map[string]*cluster.Service
	rest       *cluster.Client
	// perHost is a conductor's own configuration (nil: none).
	perHost func(host string) cluster.INI
}

// startCluster creates the schema with ironic-dbsync, starts a conductor
// per host (waiting until each serves its RPC queues) and then the API,
// and waits until the API lists every conductor alive. Everything is
// stopped when t ends (the API first); on failure the logs' tails are
// logged.
func startCluster(ctx context.Context, t *testing.T, db cluster.Database, broker *rabbittest.Broker, extra cluster.INI, hosts ...string) *splitCluster {
	t.Helper()
	return startDeployment(ctx, t, baseConfig(db.URL(), broker.TransportURL()).Merged(extra), nil, hosts...)
}

// startDeployment is startCluster with the deployment's configuration
// given, and perHost's (if not nil) on top of it for each conductor.
func startDeployment(ctx context.Context, t *testing.T, config cluster.INI, perHost func(host string) cluster.INI, hosts ...string) *splitCluster {
	t.Helper()
	cluster.Build(t, cluster.API, cluster.Conductor, cluster.DBSync)
	d := cluster.NewDeployment(ctx, t, config)
	d.StartTimeout, d.StopGrace = startTimeout, stopGrace
	c := &splitCluster{Deployment: d, t: t, ctx: ctx, conductors: map[string]*cluster.Service{}, perHost: perHost}
	d.DBSync(cluster.Ours(cluster.DBSync), "create_schema")
	for _, h := range hosts {
		c.startConductor(h)
	}
	c.api = d.Start(cluster.Ours(cluster.API), "split-api")
	c.apiURL = c.api.URL
	c.rest = cluster.NewClient(c.apiURL, restVersion)
	c.rest.HTTP.Timeout = 60 * time.Second
	c.waitAlive(hosts...)
	return c
}

// startConductor starts ironic-conductor as host and waits until it
// serves its RPC queues.
func (c *splitCluster) startConductor(host string) *cluster.Service {
	c.t.Helper()
	var over []cluster.INI
	if c.perHost != nil {
		over = append(over, c.perHost(host))
	}
	p := c.Start(cluster.Ours(cluster.Conductor), host, over...)
	c.conductors[host] = p
	c.WaitLog(p, "serving RPC", 1, startTimeout)
	return p
}

// requireRunning fails t if a process of the deployment has exited
// (killed conductors excepted).
func (c *splitCluster) requireRunning(except ...string) {
	c.t.Helper()
	for _, p := range append([]*cluster.Service{c.api}, slices.Collect(maps.Values(c.conductors))...) {
		if !slices.Contains(except, p.Name) {
			p.RequireRunning(c.t)
		}
	}
}

// eventually polls cond until it holds (see cluster.Eventually).
func (c *splitCluster) eventually(timeout time.Duration, what string, cond func() (bool, string)) {
	c.t.Helper()
	cluster.Eventually(c.ctx, c.t, timeout, what, cond)
}

// do sends one REST request at restVersion; body, if not nil, is sent as
// JSON. The error is for a request that got no answer.
func (c *splitCluster) do(method, path string, body any) (cluster.Response, error) {
	return c.rest.Do(c.ctx, method, path, body)
}

// must sends a request and requires status want; out, if not nil,
// receives the decoded body.
func (c *splitCluster) must(want int, method, path string, body, out any) {
	c.t.Helper()
	if out == nil {
		c.rest.Must(c.ctx, c.t, want, method, path, body)
		return
	}
	c.rest.JSON(c.ctx, c.t, want, method, path, body, out)
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
func (c *splitCluster) nodes() map[string]node {
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
func (c *splitCluster) createNodes(uuids ...string) {
	c.t.Helper()
	for i, u := range uuids {
		c.must(http.StatusCreated, http.MethodPost, "/v1/nodes",
			map[string]any{"uuid": u, "name": fmt.Sprintf("split-%02d", i), "driver": "fake-hardware"}, nil)
	}
}

// makeAvailable brings enrolled nodes to available (manage, then
// provide), unreserved, each wait bounded by timeout.
func (c *splitCluster) makeAvailable(timeout time.Duration, uuids ...string) {
	c.t.Helper()
	for _, u := range uuids {
		c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "manage"}, nil)
	}
	for _, u := range uuids {
		c.waitNode(u, timeout, func(n node) bool { return n.ProvisionState == "manageable" && n.Reservation == nil })
		c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "provide"}, nil)
	}
	c.eventually(timeout, "every node available and unreserved", func() (bool, string) {
		return allNodes(pick(c.nodes(), uuids), func(n node) bool { return n.ProvisionState == "available" && n.Reservation == nil })
	})
}

// provision requests target for the node and waits until it is in want,
// unreserved.
func (c *splitCluster) provision(uuid, target, want string, timeout time.Duration) {
	c.t.Helper()
	c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target}, nil)
	c.waitNode(uuid, timeout, func(n node) bool { return n.ProvisionState == want && n.Reservation == nil })
}

// waitNode polls the node until ok holds.
func (c *splitCluster) waitNode(uuid string, timeout time.Duration, ok func(node) bool) node {
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
func (c *splitCluster) waitAlive(hosts ...string) {
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
func (c *splitCluster) cli(bin string) *osc.CLI {
	b := osc.New(c.ctx, bin, c.t.TempDir(), c.apiURL, cliVersion)
	b.Timeout = 3 * time.Minute
	return b
}

// nodeUUID returns the i-th UUID of a test's nodes: fixed, so that the
// hash ring's placement of them is the same on every run.
func nodeUUID(test, i int) string {
	return fmt.Sprintf("5b1170%02x-0000-4000-8000-%012x", test, i)
}
