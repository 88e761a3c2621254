package interop

import (
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/goironic/ironic/test/internal/cluster"
)

// jsonrpcDeployment is a deployment on json-rpc ([DEFAULT]rpc_transport
// = json-rpc, no RabbitMQ) whose conductor listens on host, a loopback
// address, at a port free there.
func jsonrpcDeployment(t *testing.T, host string) (*deployment, int) {
	t.Helper()
	openstack := requirements(t)
	port, err := cluster.FreePortOn(host)
	if err != nil {
		t.Fatal(err)
	}
	return newDeploymentOn(t, openstack, cluster.JSONRPC(port)), port
}

// startJSONRPCConductor starts a conductor as host, listening there, and
// waits until it is registered and accepts connections.
func (d *deployment) startJSONRPCConductor(python bool, host string, port int) *cluster.Service {
	d.T.Helper()
	s := d.Start(program(python, false), host, cluster.JSONRPCConductor(host))
	cluster.WaitJSONRPCConductor(d.Ctx, d.T, d.db, net.JoinHostPort(host, strconv.Itoa(port)), s, startTimeout)
	return s
}

// TestJSONRPCPythonAPIGoConductor: Python's ironic-api (ironic_lib's
// json-rpc client) calls our ironic-conductor's JSON-RPC server.
func TestJSONRPCPythonAPIGoConductor(t *testing.T) {
	t.Parallel()
	jsonrpcPair(t, true, "127.0.0.5", "0e0a6f21-8c55-4a8e-9d3b-5a7c1f2e3d01")
}

// TestJSONRPCGoAPIPythonConductor: our ironic-api's json-rpc client calls
// Python's ironic-conductor (ironic_lib's JSON-RPC server on eventlet's
// WSGI server). That server answers only in a process eventlet has
// monkey-patched, as importing ironic.cmd does: started in a plain
// Python process, its socket listens and queues connections, but the
// green thread that accepts them never runs while the main thread
// blocks (an unpatched sleep or read), so calls get no answer.
func TestJSONRPCGoAPIPythonConductor(t *testing.T) {
	t.Parallel()
	jsonrpcPair(t, false, "127.0.0.4", "7b3d9e42-1f6a-4c2b-8e5d-0a9c4b6f2e02")
}

// jsonrpcPair runs jsonrpcCalls on an API and a conductor of different
// implementations on json-rpc: Python's API (pythonAPI) and our
// conductor, or ours and Python's, the schema made by the API's side; the
// conductor is host, a loopback address.
func jsonrpcPair(t *testing.T, pythonAPI bool, host, uuid string) {
	d, port := jsonrpcDeployment(t, host)
	d.createSchema(pythonAPI)
	cond := d.startJSONRPCConductor(!pythonAPI, host, port)
	api := d.startAPI(pythonAPI, "api-jsonrpc")
	jsonrpcCalls(t, d, api, cond, uuid)
}

// jsonrpcCalls sends, through api, conductor calls of each kind to cond
// over json-rpc and checks their effect: create, driver properties,
// update, NodeLocked's 409, provisioning actions (manage, provide with
// cleaning, deploy, undeploy) whose work the conductor finishes after
// answering, a power change, delete.
func jsonrpcCalls(t *testing.T, d *deployment, api, cond *cluster.Service, uuid string) {
	rest := cluster.NewClient(api.URL, cliVersion)
	ctx := d.Ctx
	rest.Must(ctx, t, http.StatusCreated, http.MethodPost, "/v1/nodes", map[string]any{"uuid": uuid, "driver": "fake-hardware"})
	if n := d.getNode(t, api, uuid); n["conductor"] != cond.Name {
		t.Errorf("node's conductor %v, want %s", n["conductor"], cond.Name)
	}
	props := d.get(t, api, "/v1/drivers/fake-hardware/properties")
	if len(props) == 0 {
		t.Errorf("fake-hardware's properties: %v", props)
	}
	patch := []map[string]any{{"op": "add", "path": "/extra/k", "value": "v"}}
	rest.Must(ctx, t, http.StatusOK, http.MethodPatch, "/v1/nodes/"+uuid, patch)
	if extra, _ := d.getNode(t, api, uuid)["extra"].(map[string]any); extra["k"] != "v" {
		t.Errorf("extra after PATCH: %v", extra)
	}

	// The conductor's NodeLocked keeps its class and code across JSON-RPC.
	if _, err := d.db.ExecContext(ctx, "UPDATE nodes SET reservation = 'elsewhere' WHERE uuid = ?", uuid); err != nil {
		t.Fatal(err)
	}
	r, err := rest.Do(ctx, http.MethodPatch, "/v1/nodes/"+uuid, patch)
	if err != nil {
		t.Fatal(err)
	}
	cluster.CheckNodeLocked(t, r, uuid, "elsewhere")
	if _, err := d.db.ExecContext(ctx, "UPDATE nodes SET reservation = NULL WHERE uuid = ?", uuid); err != nil {
		t.Fatal(err)
	}

	provision := func(target, want string) {
		t.Helper()
		rest.Must(ctx, t, http.StatusAccepted, http.MethodPut, "/v1/nodes/"+uuid+"/states/provision", map[string]any{"target": target})
		d.poll(t, pollTimeout, cond, "node "+uuid+" "+want+" and unlocked", func() (bool, error) {
			r := d.nodeRow(t, uuid)
			if r.lastError.Valid && r.lastError.String != "" {
				t.Fatalf("%s: last_error %q", target, r.lastError.String)
			}
			return r.provisionState == want && !r.reservation.Valid, nil
		})
	}
	provision("manage", "manageable")
	provision("provide", "available")
	provision("active", "active")
	if r := d.nodeRow(t, uuid); r.affinityHost.String != cond.Name {
		t.Errorf("deployed by %q, want %s", r.affinityHost.String, cond.Name)
	}
	rest.Must(ctx, t, http.StatusAccepted, http.MethodPut, "/v1/nodes/"+uuid+"/states/power", map[string]any{"target": "power off"})
	d.poll(t, pollTimeout, cond, "node "+uuid+" powered off", func() (bool, error) {
		return d.getNode(t, api, uuid)["power_state"] == "power off", nil
	})
	provision("deleted", "available")
	rest.Must(ctx, t, http.StatusNoContent, http.MethodDelete, "/v1/nodes/"+uuid, nil)
	rest.Must(ctx, t, http.StatusNotFound, http.MethodGet, "/v1/nodes/"+uuid, nil)
	cond.RequireRunning(t)
	api.RequireRunning(t)
}
