package interop

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// ringGo and ringPy are the hosts of our and Python's conductor in
	// TestMixedRing.
	ringGo = "go-cond-ring"
	ringPy = "py-cond-ring"
	// ringNodesPerHost is how many nodes of TestMixedRing each conductor
	// owns: one driven through each API.
	ringNodesPerHost = 2
	// hashPartitionExponent is [DEFAULT]hash_partition_exponent, left at
	// its default by every service of the test.
	hashPartitionExponent = 5
)

// TestMixedRing runs our conductor and Python's at once, behind our API
// and Python's, on a schema created by our ironic-dbsync. The nodes are
// chosen so that the tooz hash ring (rpc.HashRing) gives each conductor
// ringNodesPerHost of them; both APIs must name that conductor for every
// node, route every call of manage/provide/deploy/undeploy to it (the
// deploying conductor records itself as the node's conductor_affinity),
// and every node must end available with no error and no lock.
func TestMixedRing(t *testing.T) {
	t.Parallel()
	d := newDeployment(t)
	mixedRing(t, d, ringGo, ringPy, ringNodesPerHost, func(python bool, host string) *cluster.Service {
		return d.Start(program(python, false), host)
	}, d.waitConductor)
}

// TestJSONRPCMixedRing is TestMixedRing on json-rpc, one node per
// conductor: both conductors listen on one [json_rpc]port, each on the
// loopback address that is its host name, and both APIs reach each at
// the host name their rings give.
func TestJSONRPCMixedRing(t *testing.T) {
	t.Parallel()
	const goHost, pyHost = "127.0.0.6", "127.0.0.7"
	openstack := requirements(t)
	port, err := cluster.FreePortOn(goHost, pyHost)
	if err != nil {
		t.Fatal(err)
	}
	d := newDeploymentOn(t, openstack, cluster.JSONRPC(port))
	mixedRing(t, d, goHost, pyHost, 1, func(python bool, host string) *cluster.Service {
		return d.Start(program(python, false), host, cluster.JSONRPCConductor(host))
	}, func(s *cluster.Service) {
		cluster.WaitJSONRPCConductor(d.Ctx, t, d.db, net.JoinHostPort(s.Name, strconv.Itoa(port)), s, startTimeout)
	})
}

// mixedRing is TestMixedRing's scenario on d with our conductor as
// ringGo and Python's as ringPy, started by start and waited for by
// wait, and perHost nodes per conductor.
func mixedRing(t *testing.T, d *deployment, ringGo, ringPy string, perHost int,
	start func(python bool, host string) *cluster.Service, wait func(*cluster.Service)) {
	t.Helper()
	d.createSchema(false)
	// Both conductors register before either API builds its ring.
	conds := []*cluster.Service{start(false, ringGo), start(true, ringPy)}
	for _, c := range conds {
		wait(c)
	}
	apis := []*cluster.Service{d.startAPI(false, "go-api-ring"), d.startAPI(true, "py-api-ring")}
	for _, a := range apis {
		if got := d.conductors(t, a); !slices.Equal(got, []string{ringGo, ringPy}) {
			t.Fatalf("%s: alive conductors = %v, want %s and %s", a, got, ringGo, ringPy)
		}
	}

	type placed struct{ uuid, host string }
	var nodes []placed
	ring := rpc.NewHashRing([]string{ringGo, ringPy}, hashPartitionExponent)
	count := map[string]int{}
	for i := 1; len(nodes) < 2*perHost; i++ {
		if i > 1000 {
			t.Fatalf("no %d nodes per host among 1000 UUIDs: the ring is lopsided (%v)", perHost, count)
		}
		uuid := fmt.Sprintf("5e1f0000-0000-4000-8000-%012x", i)
		host := ring.Get(uuid)
		if count[host] < perHost {
			count[host]++
			nodes = append(nodes, placed{uuid, host})
		}
	}

	for i, n := range nodes {
		// The k-th node of a host goes through the k-th API, counted
		// from Python's for our conductor: with one node per host, each
		// conductor is driven by the other implementation's API.
		k := 0
		if n.host == ringGo {
			k = 1
		}
		for _, p := range nodes[:i] {
			if p.host == n.host {
				k++
			}
		}
		api := apis[k%len(apis)]
		t.Run(n.uuid, func(t *testing.T) {
			t.Parallel()
			cli := d.cli(api)
			cli.OK(t, "node", "create", "--driver", "fake-hardware", "--uuid", n.uuid)
			for _, a := range apis {
				if got := d.getNode(t, a, n.uuid)["conductor"]; got != n.host {
					t.Errorf("%s places node %s on %v; the tooz ring on %s", a, n.uuid, got, n.host)
				}
			}
			for _, p := range []struct{ action, want string }{
				{"manage", "manageable"}, {"provide", "available"}, {"deploy", "active"}, {"undeploy", "available"},
			} {
				cli.OK(t, "node", p.action, n.uuid, "--wait", waitSeconds)
				r := d.waitReleased(t, n.uuid)
				if r.provisionState != p.want || r.targetState.Valid || r.lastError.Valid {
					t.Fatalf("after %s through %s: provision_state %q, target %v, last_error %v",
						p.action, api, r.provisionState, r.targetState, r.lastError)
				}
				if p.action == "deploy" && r.affinityHost.String != n.host {
					t.Errorf("node %s deployed by conductor %v, want %s", n.uuid, r.affinityHost, n.host)
				}
			}
			t.Logf("node %s on %s through %s: manage, provide, deploy, undeploy done", n.uuid, n.host, api)
		})
	}
}
