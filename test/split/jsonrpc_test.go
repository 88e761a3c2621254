package split

import (
	"net/http"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

// jsonrpcConfig is a deployment's configuration on json-rpc: no broker,
// no transport_url.
func jsonrpcConfig(dbURL string, port int) cluster.INI {
	c := baseConfig(dbURL, "").Merged(cluster.JSONRPC(port))
	delete(c["DEFAULT"], "transport_url")
	return c
}

// startJSONRPCCluster is startCluster on json-rpc: each conductor's host
// name is a loopback address it listens on ([json_rpc]host_ip), as a
// conductor's host name must resolve to where it serves.
func startJSONRPCCluster(t *testing.T, db cluster.Database, extra cluster.INI, hosts ...string) *splitCluster {
	t.Helper()
	ctx := testContext(t, jsonrpcBudget)
	port, err := cluster.FreePortOn(hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return startDeployment(ctx, t, jsonrpcConfig(db.URL(), port).Merged(extra), cluster.JSONRPCConductor, hosts...)
}

// jsonrpcBudget bounds TestJSONRPCSplit, build included.
const jsonrpcBudget = 5 * time.Minute

// TestJSONRPCSplit runs ironic-api and two conductors on json-rpc
// ([DEFAULT]rpc_transport = json-rpc, no RabbitMQ): the API reaches each
// conductor at its host name and [json_rpc]port. Nodes deploy on both
// conductors; a node another host holds is refused with 409 and Ironic's
// body, carried from the conductor's NodeLocked over JSON-RPC; a
// conductor killed mid-deploy is taken over (killMidDeploy).
func TestJSONRPCSplit(t *testing.T) {
	db := sharedDatabase(t)
	hosts := []string{"127.0.0.2", "127.0.0.3"}
	c := startJSONRPCCluster(t, db, quickTakeover(4), hosts...)
	for _, h := range hosts {
		if n := c.conductors[h].LogCount("transport=json-rpc"); n != 1 {
			t.Errorf("%s logged serving json-rpc %d times", h, n)
		}
	}

	// NodeLocked crosses JSON-RPC: a PATCH of a node that another host
	// holds is the conductor's 409, with its message.
	u := nodeUUID(9, 99)
	c.createNodes(u)
	dbExec(c.ctx, t, db, "UPDATE nodes SET reservation = 'elsewhere' WHERE uuid = ?", u)
	r, err := c.do(http.MethodPatch, "/v1/nodes/"+u, []map[string]any{{"op": "add", "path": "/extra/k", "value": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	cluster.CheckNodeLocked(t, r, u, "elsewhere")
	dbExec(c.ctx, t, db, "UPDATE nodes SET reservation = NULL WHERE uuid = ?", u)
	c.must(http.StatusOK, http.MethodPatch, "/v1/nodes/"+u, []map[string]any{{"op": "add", "path": "/extra/k", "value": "v"}}, nil)
	c.must(http.StatusNoContent, http.MethodDelete, "/v1/nodes/"+u, nil, nil)

	killMidDeploy(t, c, db, 9, hosts[0], hosts[1])
}
