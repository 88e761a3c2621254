package split

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// lifecycleNodes is how many nodes TestSplitLifecycle provisions.
	lifecycleNodes = 20
	// lifecycleWorkers bounds the nodes driven through the CLI at once.
	lifecycleWorkers = 5
	// lifecycleBudget bounds TestSplitLifecycle, build included.
	lifecycleBudget = 6 * time.Minute
	// waitSeconds is the CLI's --wait bound for one provisioning action.
	waitSeconds = "120"
)

// TestSplitLifecycle runs ironic-api and two conductors on one MariaDB
// and one RabbitMQ, creates 20 nodes with the CLI, checks that the hash
// ring spreads them over both conductors, and takes every node through
// manage, inspect, provide, deploy (with a config drive), rebuild, rescue,
// unrescue, undeploy, power off and on, and delete, with the CLI's --wait.
func TestSplitLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI (about a minute); skipped in -short mode")
	}
	cliBin := cluster.RequireCLI(t)
	broker := rabbittest.Shared(t)
	ctx := testContext(t, lifecycleBudget)
	db := sharedDatabase(t)
	hosts := []string{"cond-a", "cond-b"}
	c := startCluster(ctx, t, db, broker, cluster.INI{"DEFAULT": {"hash_ring_reset_interval": "2"}}, hosts...)
	cli := c.cli(cliBin)

	// Create the nodes with one `baremetal create` of a JSON file.
	var uuids []string
	var specs []map[string]any
	for i := range lifecycleNodes {
		u := nodeUUID(1, i)
		uuids = append(uuids, u)
		specs = append(specs, map[string]any{"uuid": u, "name": fmt.Sprintf("split-life-%02d", i), "driver": "fake-hardware"})
	}
	file := filepath.Join(t.TempDir(), "nodes.json")
	data, err := json.Marshal(map[string]any{"nodes": specs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cli.OK(t, "create", file)

	// The API places the nodes with the ring over both conductors.
	owner := map[string]string{}
	perHost := map[string]int{}
	for _, n := range c.nodes() {
		if n.ProvisionState != "enroll" {
			t.Errorf("new node %s", n)
		}
		owner[n.UUID] = deref(n.Conductor)
		perHost[deref(n.Conductor)]++
	}
	if len(owner) != lifecycleNodes {
		t.Fatalf("GET /v1/nodes lists %d nodes, want %d", len(owner), lifecycleNodes)
	}
	for _, h := range hosts {
		if perHost[h] == 0 {
			t.Errorf("no node is mapped to %s: %v", h, perHost)
		}
	}
	if perHost["cond-a"]+perHost["cond-b"] != lifecycleNodes {
		t.Errorf("nodes mapped to unknown conductors: %v", perHost)
	}
	t.Logf("nodes per conductor: %v", perHost)
	if t.Failed() {
		t.FailNow()
	}

	// Every node through the provisioning states, lifecycleWorkers at a
	// time, each in one CLI process (see batch); the node's provision
	// state is printed after every action.
	drive := filepath.Join(t.TempDir(), "configdrive")
	if err := os.WriteFile(drive, []byte(configDrive(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	type action struct {
		args []string
		want string // provision state afterwards
	}
	lifecycle := func(u string) []action {
		return []action{
			{[]string{"node", "manage", u, "--wait", waitSeconds}, "manageable"},
			{[]string{"node", "inspect", u, "--wait", waitSeconds}, "manageable"},
			{[]string{"node", "provide", u, "--wait", waitSeconds}, "available"},
			{[]string{"node", "deploy", u, "--wait", waitSeconds, "--config-drive", drive}, "active"},
			{[]string{"node", "rebuild", u, "--wait", waitSeconds}, "active"},
			{[]string{"node", "rescue", u, "--wait", waitSeconds, "--rescue-password", "split-rescue"}, "rescue"},
			{[]string{"node", "unrescue", u, "--wait", waitSeconds}, "active"},
			{[]string{"node", "undeploy", u, "--wait", waitSeconds}, "available"},
			{[]string{"node", "power", "off", u}, "available"},
		}
	}
	forEachNode(t, uuids, func(u string) error {
		var cmds [][]string
		var want []string
		for _, a := range lifecycle(u) {
			cmds = append(cmds, a.args, []string{"node", "show", u, "-f", "value", "-c", "provision_state"})
			want = append(want, a.want)
		}
		out, err := batch(ctx, cliBin, c.apiURL, cmds)
		if err != nil {
			return err
		}
		if !slices.Equal(out, want) {
			return fmt.Errorf("provision states after each action: got %q, want %q", out, want)
		}
		return nil
	})

	// The conductor that deployed each node (its conductor_affinity) is
	// the one the API mapped it to: the calls went where the ring says.
	deployedBy := dbQuery(ctx, t, db, "SELECT n.uuid, c.hostname FROM nodes n JOIN conductors c ON n.conductor_affinity = c.id")
	for _, u := range uuids {
		if deployedBy[u] != owner[u] {
			t.Errorf("node %s was deployed by %q, but the API maps it to %q", u, deployedBy[u], owner[u])
		}
	}

	c.eventually(time.Minute, "every node powered off", func() (bool, string) {
		return allNodes(c.nodes(), func(n node) bool { return deref(n.PowerState) == "power off" })
	})
	var powerOn [][]string
	for _, u := range uuids {
		powerOn = append(powerOn, []string{"node", "power", "on", u})
	}
	if _, err := batch(ctx, cliBin, c.apiURL, powerOn); err != nil {
		t.Fatal(err)
	}
	c.eventually(time.Minute, "every node available, powered on, unreserved, without error", func() (bool, string) {
		return allNodes(c.nodes(), func(n node) bool {
			return n.ProvisionState == "available" && n.TargetProvisionState == nil && deref(n.PowerState) == "power on" &&
				n.TargetPowerState == nil && n.Reservation == nil && n.LastError == nil && !n.Maintenance
		})
	})

	cli.OK(t, append([]string{"node", "delete"}, uuids...)...)
	if rows := cli.Rows(t, "node", "list"); len(rows) != 0 {
		t.Errorf("nodes left after delete: %v", rows)
	}
	c.requireRunning()
}

// forEachNode runs fn for every node, lifecycleWorkers at a time, and
// fails t with every error.
func forEachNode(t *testing.T, uuids []string, fn func(uuid string) error) {
	t.Helper()
	sem := make(chan struct{}, lifecycleWorkers)
	errs := make(chan error, len(uuids))
	for _, u := range uuids {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if err := fn(u); err != nil {
				errs <- fmt.Errorf("node %s: %w", u, err)
				return
			}
			errs <- nil
		}()
	}
	for range uuids {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// allNodes reports whether every node satisfies ok, and those that do not.
func allNodes(nodes map[string]node, ok func(node) bool) (bool, string) {
	var bad []string
	for _, n := range nodes {
		if !ok(n) {
			bad = append(bad, n.String())
		}
	}
	slices.Sort(bad)
	return len(bad) == 0 && len(nodes) > 0, strings.Join(bad, "\n")
}
