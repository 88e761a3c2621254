package split

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

// jsonrpcPorts are the ports the json-rpc tests may give [json_rpc]port.
const jsonrpcFirstPort, jsonrpcLastPort = 7060, 7079

// jsonrpcPort returns a port of jsonrpcPorts free on every address: all
// the conductors of a deployment listen on [json_rpc]port, each on its
// own host_ip, since the API's client (ironic_lib 5.3's) appends that
// one port to every conductor's host name.
func jsonrpcPort(t *testing.T, addrs ...string) int {
	t.Helper()
	for port := jsonrpcFirstPort; port <= jsonrpcLastPort; port++ {
		free := true
		var ls []net.Listener
		for _, a := range addrs {
			l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				free = false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			_ = l.Close()
		}
		if free {
			return port
		}
	}
	t.Fatalf("no port of %d-%d is free on %v", jsonrpcFirstPort, jsonrpcLastPort, addrs)
	return 0
}

// jsonrpcConfig is a deployment's configuration on json-rpc: no broker,
// no transport_url, [json_rpc]port shared, no authentication.
func jsonrpcConfig(dbURL string, port int) cluster.INI {
	c := baseConfig(dbURL, "").Merged(cluster.INI{
		"DEFAULT":  {"rpc_transport": "json-rpc"},
		"json_rpc": {"port": strconv.Itoa(port), "auth_strategy": "noauth"},
	})
	delete(c["DEFAULT"], "transport_url")
	return c
}

// startJSONRPCCluster is startCluster on json-rpc: each conductor's host
// name is a loopback address it listens on ([json_rpc]host_ip), as a
// conductor's host name must resolve to where it serves.
func startJSONRPCCluster(t *testing.T, db cluster.Database, extra cluster.INI, hosts ...string) *splitCluster {
	t.Helper()
	ctx := testContext(t, jsonrpcBudget)
	port := jsonrpcPort(t, hosts...)
	return startDeployment(ctx, t, jsonrpcConfig(db.URL(), port).Merged(extra), func(host string) cluster.INI {
		return cluster.INI{"json_rpc": {"host_ip": host}}
	}, hosts...)
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
	checkLocked(t, r, u, "elsewhere")
	dbExec(c.ctx, t, db, "UPDATE nodes SET reservation = NULL WHERE uuid = ?", u)
	c.must(http.StatusOK, http.MethodPatch, "/v1/nodes/"+u, []map[string]any{{"op": "add", "path": "/extra/k", "value": "v"}}, nil)
	c.must(http.StatusNoContent, http.MethodDelete, "/v1/nodes/"+u, nil, nil)

	killMidDeploy(t, c, db, 9, hosts[0], hosts[1])
}

// checkLocked requires r to be Ironic's 409 for node uuid locked by host.
func checkLocked(t *testing.T, r cluster.Response, uuid, host string) {
	t.Helper()
	var body struct {
		ErrorMessage string `json:"error_message"`
	}
	var fault struct {
		Faultstring string  `json:"faultstring"`
		Faultcode   string  `json:"faultcode"`
		Debuginfo   *string `json:"debuginfo"`
	}
	if r.Status != http.StatusConflict || json.Unmarshal(r.Body, &body) != nil || json.Unmarshal([]byte(body.ErrorMessage), &fault) != nil {
		t.Fatalf("PATCH of a locked node: %s, want 409 with Ironic's error body", r)
	}
	want := fmt.Sprintf("Node %s is locked by host %s, please retry after the current operation is completed.", uuid, host)
	if !strings.HasPrefix(fault.Faultstring, want) || fault.Faultcode != "Client" || fault.Debuginfo != nil {
		t.Errorf("409 body %+v, want faultstring %q, faultcode Client", fault, want)
	}
}
