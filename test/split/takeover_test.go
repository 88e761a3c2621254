package split

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// takeoverNodes is how many nodes TestConductorKilledMidDeploy deploys.
	takeoverNodes = 8
	// takeoverBudget bounds TestConductorKilledMidDeploy, build included.
	takeoverBudget = 4 * time.Minute
	// takeoverTimeout bounds each wait of the test after the kill.
	takeoverTimeout = 90 * time.Second
	// takeoverAbort is the last_error (and history event) Ironic's
	// abort_on_conductor_take_over records on a deployment it fails.
	takeoverAbort = "Operation was aborted due to conductor take over"
)

// TestConductorKilledMidDeploy runs ironic-api and two conductors, starts
// deploying nodes mapped to both (the fake deploy interface sleeping in
// each step) and kills one conductor with SIGKILL while its nodes are
// deploying and locked by it. The survivor finishes its own deployments;
// once the dead conductor's heartbeat is older than heartbeat_timeout, the
// hash rings give its nodes to the survivor, whose orphan check releases
// their locks and fails their deployments as Ironic does (deploy failed,
// "Operation was aborted due to conductor take over"). The survivor then
// serves them: an undeploy reaches available and a new deploy active.
func TestConductorKilledMidDeploy(t *testing.T) {
	broker := rabbittest.Shared(t)
	ctx := testContext(t, takeoverBudget)
	db := sharedDatabase(t)
	c := startCluster(ctx, t, db, broker, quickTakeover(4), "cond-a", "cond-b")
	killMidDeploy(t, c, db, 5, "cond-a", "cond-b")
}

// killMidDeploy is TestConductorKilledMidDeploy on a running deployment
// of two conductors, survivor and victim, with nodes of test number
// test: whatever the transport, the victim's deployments are failed and
// its nodes served by the survivor.
func killMidDeploy(t *testing.T, c *splitCluster, db cluster.Database, test int, survivor, victim string) {
	t.Helper()
	ctx := c.ctx
	var uuids []string
	for i := range takeoverNodes {
		uuids = append(uuids, nodeUUID(test, i))
	}
	c.createNodes(uuids...)
	c.makeAvailable(takeoverTimeout, uuids...)

	// Which conductor the API's ring gives each node.
	byHost := map[string][]string{}
	for _, n := range c.nodes() {
		byHost[deref(n.Conductor)] = append(byHost[deref(n.Conductor)], n.UUID)
	}
	mine, theirs := byHost[survivor], byHost[victim]
	slices.Sort(mine)
	slices.Sort(theirs)
	t.Logf("%s: %v; %s: %v", survivor, mine, victim, theirs)
	if len(mine) == 0 || len(theirs) == 0 || len(mine)+len(theirs) != takeoverNodes {
		t.Fatalf("the nodes are not spread over both conductors: %v", byHost)
	}

	// Deploy every node, without waiting; kill the victim once its nodes are
	// deploying (each deployment then sleeps at least twice deploy_delay).
	for _, u := range uuids {
		c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "active"}, nil)
	}
	c.eventually(takeoverTimeout, "the victim's nodes deploying", func() (bool, string) {
		nodes := c.nodes()
		return allNodes(pick(nodes, theirs), func(n node) bool { return n.ProvisionState == "deploying" })
	})
	killed := time.Now()
	if err := c.conductors[victim].Kill(); err != nil {
		t.Fatalf("killing %s: %v", victim, err)
	}
	// The database now holds what the victim left behind.
	var orphans []string
	for _, n := range pick(c.nodes(), theirs) {
		switch {
		case n.ProvisionState == "deploying" && deref(n.Reservation) == victim:
			orphans = append(orphans, n.UUID)
		case n.ProvisionState == "active" && n.Reservation == nil:
			// Finished between the poll and the kill (a loaded machine).
			t.Logf("the victim finished deploying %s before it was killed", n.UUID)
		default:
			t.Errorf("the victim's node right after the kill: %s", n)
		}
	}
	slices.Sort(orphans)
	if len(orphans) == 0 {
		t.Fatalf("no node of the victim was left deploying by the kill")
	}
	t.Logf("the victim killed with %d nodes deploying: %v", len(orphans), orphans)

	// The survivor finishes its own deployments.
	c.eventually(takeoverTimeout, "the survivor's nodes active", func() (bool, string) {
		return allNodes(pick(c.nodes(), mine), func(n node) bool {
			return n.ProvisionState == "active" && n.TargetProvisionState == nil && n.Reservation == nil && n.LastError == nil
		})
	})

	// The victim is no longer alive, and the API maps every node to the survivor.
	c.eventually(takeoverTimeout, "the victim listed as not alive", func() (bool, string) {
		var doc struct {
			Conductors []conductor `json:"conductors"`
		}
		c.must(http.StatusOK, http.MethodGet, "/v1/conductors", nil, &doc)
		alive := map[string]bool{}
		for _, cd := range doc.Conductors {
			alive[cd.Hostname] = cd.Alive
		}
		return !alive[victim] && alive[survivor], fmt.Sprint(doc.Conductors)
	})
	t.Logf("the victim listed as not alive %s after the kill", time.Since(killed).Round(time.Second))
	c.eventually(takeoverTimeout, "every node mapped to the survivor", func() (bool, string) {
		return allNodes(c.nodes(), func(n node) bool { return deref(n.Conductor) == survivor })
	})

	// The survivor's orphan check released the victim's locks and failed the
	// deployments it left.
	c.eventually(takeoverTimeout, "the victim's orphaned nodes in deploy failed, unreserved", func() (bool, string) {
		return allNodes(pick(c.nodes(), orphans), func(n node) bool {
			return n.ProvisionState == "deploy failed" && n.Reservation == nil
		})
	})
	t.Logf("the victim's nodes failed %s after the kill", time.Since(killed).Round(time.Second))
	for _, n := range pick(c.nodes(), orphans) {
		if deref(n.LastError) != takeoverAbort || deref(n.TargetProvisionState) != "active" || n.Maintenance {
			t.Errorf("orphaned node %s: want last_error %q, target active, not in maintenance", n, takeoverAbort)
		}
		var hist struct {
			History []struct {
				Event    string `json:"event"`
				Severity string `json:"severity"`
			} `json:"history"`
		}
		c.must(http.StatusOK, http.MethodGet, "/v1/nodes/"+n.UUID+"/history", nil, &hist)
		found := false
		for _, h := range hist.History {
			found = found || (h.Event == takeoverAbort && h.Severity == "ERROR")
		}
		if !found {
			t.Errorf("node %s: no ERROR history entry %q in %+v", n.UUID, takeoverAbort, hist.History)
		}
	}
	if got := c.conductors[survivor].LogCount("Forcibly removed reservation of conductor " + victim); got < len(orphans) {
		t.Errorf("%s logged %d forcible releases of %s's reservations, want at least %d", survivor, got, victim, len(orphans))
	}
	if t.Failed() {
		t.FailNow()
	}

	// The survivor serves the victim's former nodes: undeploy every orphan,
	// then deploy one of them again.
	for _, u := range orphans {
		c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "deleted"}, nil)
	}
	c.eventually(takeoverTimeout, "the victim's former nodes undeployed", func() (bool, string) {
		return allNodes(pick(c.nodes(), orphans), func(n node) bool {
			return n.ProvisionState == "available" && n.TargetProvisionState == nil && n.Reservation == nil && n.LastError == nil
		})
	})
	c.provision(orphans[0], "active", "active", takeoverTimeout)

	// The victim's former nodes that are active now (the one redeployed, and
	// any it finished before the kill) end with the survivor's affinity: it
	// deployed or took them over.
	const affinityQuery = "SELECT n.uuid, c.hostname FROM nodes n JOIN conductors c ON n.conductor_affinity = c.id"
	for _, u := range theirs {
		if slices.Contains(orphans, u) && u != orphans[0] {
			continue
		}
		c.eventually(takeoverTimeout, "node "+u+" deployed or taken over by the survivor", func() (bool, string) {
			h := dbQuery(ctx, t, db, affinityQuery)[u]
			return h == survivor, "conductor_affinity " + h
		})
	}

	c.eventually(takeoverTimeout, "no node reserved, none stuck", func() (bool, string) {
		return allNodes(c.nodes(), func(n node) bool {
			return n.Reservation == nil && n.TargetProvisionState == nil && !strings.Contains(n.ProvisionState, "ing") &&
				n.ProvisionState != "wait call-back"
		})
	})
	c.requireRunning(victim)
}

// quickTakeover is the configuration of the takeover tests: a dead
// conductor's nodes move after 6 s (heartbeat_timeout, the ring reset
// every 2 s), no automated cleaning, and each of the fake deploy
// interface's steps (prepare, deploy, tear down, clean up) sleeping
// deployDelay seconds.
func quickTakeover(deployDelay int) cluster.INI {
	return cluster.INI{
		"DEFAULT": {"hash_ring_reset_interval": "2"},
		"conductor": {
			"heartbeat_interval":             "1",
			"heartbeat_timeout":              "6",
			"check_provision_state_interval": "1",
			"sync_local_state_interval":      "2",
			"automated_clean":                "false",
		},
		"fake": {"deploy_delay": strconv.Itoa(deployDelay)},
	}
}

// pick returns the nodes with the given UUIDs (only those listed).
func pick(nodes map[string]node, uuids []string) map[string]node {
	out := map[string]node{}
	for _, u := range uuids {
		if n, ok := nodes[u]; ok {
			out[u] = n
		}
	}
	return out
}
