package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/jsonrpc"
	"github.com/goironic/ironic/rpc/oslo/oslotest"
)

func setup(t *testing.T, cfg jsonrpc.ClientConfig) (*oslotest.Fake, rpc.ConductorAPI, string) {
	t.Helper()
	fake := oslotest.New()
	srv := httptest.NewServer(jsonrpc.NewServer("cond-a", fake, nil, nil))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	return fake, jsonrpc.NewClient(newTransport(t, cfg, srv.Client()), nil), rpc.Topic + "." + host
}

// newTransport is a transport for cfg (noauth unless cfg says otherwise).
func newTransport(t *testing.T, cfg jsonrpc.ClientConfig, hc *http.Client) *jsonrpc.Transport {
	t.Helper()
	tr, err := jsonrpc.New(cfg, hc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ironic.WithRequestContext(ctx,
		&ironic.RequestContext{UserID: "u1", ProjectID: "p1", Roles: []string{"admin"}, RequestID: "req-1"})
}

func TestCallCastAndFaults(t *testing.T) {
	fake, api, topic := setup(t, jsonrpc.ClientConfig{})
	ctx := testCtx(t)

	n := &models.Node{ID: 7, UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "ipmi", Maintenance: true,
		Extra: models.DictOf("k", "v"), UpdatedAt: models.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	fake.SetResult("UpdateNode", n)
	got, err := api.UpdateNode(ctx, topic, rpc.NodeUpdate{Node: *n, Changes: []string{"maintenance"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.UUID != n.UUID || !got.Maintenance || got.Extra.Get("k") != "v" || !got.UpdatedAt.Equal(n.UpdatedAt.Time) {
		t.Errorf("node back: %+v", got)
	}
	last := fake.Last()
	if last.Method != "UpdateNode" || last.Context.UserID != "u1" || last.Context.RequestID != "req-1" ||
		len(last.Context.Roles) != 1 || last.Context.Roles[0] != "admin" {
		t.Errorf("server saw %+v (context %+v)", last, last.Context)
	}
	if upd := last.Args[0].(rpc.NodeUpdate); upd.Changes[0] != "maintenance" {
		t.Errorf("changes %v", upd.Changes)
	}

	fake.SetResult("GetSupportedBootDevices", []string{"pxe", "disk"})
	devs, err := api.GetSupportedBootDevices(ctx, topic, n.UUID)
	if err != nil || len(devs) != 2 || devs[0] != "pxe" {
		t.Errorf("boot devices %v, %v", devs, err)
	}

	const locked = "Node x is locked by host cond-a, please retry after the current operation is completed."
	fake.SetError("DoProvisioningAction", ironic.Errorf(ironic.NodeLocked, locked))
	err = api.DoProvisioningAction(ctx, topic, n.UUID, "provide")
	if f := ironic.AsFault(err); f.Class != ironic.NodeLocked || f.HTTPStatus() != 409 || f.Message != locked {
		t.Errorf("fault %+v", err)
	}
	fake.SetError("InjectNMI", errors.New("boom"))
	if f := ironic.AsFault(api.InjectNMI(ctx, topic, n.UUID)); f.Class != ironic.IronicException || f.HTTPStatus() != 500 {
		t.Errorf("plain error: %+v", f)
	}

	// A cast is a notification: the server runs it.
	seen := make(chan oslotest.Call, 1)
	fake.SetNotify(seen)
	if err := api.ContinueNodeClean(ctx, topic, n.UUID); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-seen:
		if c.Method != "ContinueNodeClean" || c.Args[0] != n.UUID {
			t.Errorf("cast arrived as %+v", c)
		}
	case <-ctx.Done():
		t.Fatal("cast never arrived")
	}
}

// badRequests are malformed requests with ironic_lib's answers (checked
// against 21.4's server by TestServerAnswersAsPython).
var badRequests = []struct{ method, body, want string }{
	{"GET", "", `{"error":{"code":405,"message":"Only POST method can be used"}}`},
	{"POST", "{", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON received by RPC server"}}`},
	{"POST", "[1]", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request object received by RPC server"}}`},
	{"POST", `{"jsonrpc":"1.0","method":"x","id":3}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request object received by RPC server"}}`},
	{"POST", `{"jsonrpc":"2.0","method":"x","params":[],"id":"a"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid request object received by RPC server"}}`},
	{"POST", `{"jsonrpc":"2.0","method":"no_such","params":{},"id":1}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method no_such was not found"}}`},
	{"POST", `{"jsonrpc":"2.0","method":"destroy_node","params":{"context":5},"id":1}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Context must be a dictionary, if provided"}}`},
	{"POST", `{"jsonrpc":"2.0","method":"no_such","params":{}}`, ``},
	{"POST", `{"jsonrpc": "2.0", "method": "no_such", "params": {"context": 5}, "id": [1, {"a": "b"}]}`, `{"jsonrpc":"2.0","id":[1,{"a":"b"}],"error":{"code":-32601,"message":"Method no_such was not found"}}`},
	{"POST", `{"jsonrpc": "2.0", "method": "caf\u00e9", "id": "\u00e9t\u00e9"}`, `{"jsonrpc":"2.0","id":"\u00e9t\u00e9","error":{"code":-32601,"message":"Method caf\u00e9 was not found"}}`},
	{"POST", `{"jsonrpc": "2.0", "method": "", "id": 2}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid request object received by RPC server"}}`},
	{"POST", `{"jsonrpc": "2.0", "method": "x", "id": 2.50}`, `{"jsonrpc":"2.0","id":2.5,"error":{"code":-32601,"message":"Method x was not found"}}`},
	{"POST", `{"jsonrpc": "2.0", "method": "x", "id": 1e2}`, `{"jsonrpc":"2.0","id":100.0,"error":{"code":-32601,"message":"Method x was not found"}}`},
	{"POST", `{"jsonrpc": "2.0", "method": "init_host", "params": {}, "id": 1}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method init_host was not found"}}`},
}

// TestBadRequests: malformed bodies get ironic_lib's JSON-RPC errors.
func TestBadRequests(t *testing.T) {
	srv := httptest.NewServer(jsonrpc.NewServer("cond-a", oslotest.New(), nil, nil))
	defer srv.Close()
	for _, tc := range badRequests {
		req, _ := http.NewRequest(tc.method, srv.URL, strings.NewReader(tc.body))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tc.want {
			t.Errorf("%s %q: %d %s\nwant %s", tc.method, tc.body, resp.StatusCode, b, tc.want)
		}
		if resp.StatusCode >= 500 {
			t.Errorf("%q: status %d", tc.body, resp.StatusCode)
		}
	}
}

// FuzzServer: no body makes the server panic or answer 500.
func FuzzServer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc": "2.0", "method": "destroy_node", "params": {"node_id": 1, "context": {}}, "id": 1}`))
	f.Add([]byte(`{"jsonrpc": "2.0", "method": "update_node", "params": {"node_obj": {}}, "id": 1}`))
	h := jsonrpc.NewServer("c", oslotest.New(), nil, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader(string(body))))
		if w.Code >= 500 {
			t.Errorf("%q: %d", body, w.Code)
		}
	})
}

// TestConnectionErrors: a dead conductor and a call's deadline give
// Ironic's retryable fault, not a transport error.
func TestConnectionErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	api := jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{}, nil), nil)
	f := ironic.AsFault(api.DestroyNode(testCtx(t), rpc.Topic+"."+dead, "n1"))
	if f.Class != ironic.TemporaryFailure || !strings.Contains(f.Message, "Could not reach the conductor") {
		t.Errorf("dead conductor: %+v", f)
	}

	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer slow.Close()
	defer close(block)
	api = jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{Timeout: 200 * time.Millisecond}, nil), nil)
	f = ironic.AsFault(api.DestroyNode(testCtx(t), rpc.Topic+"."+strings.TrimPrefix(slow.URL, "http://"), "n1"))
	if f.Class != ironic.TemporaryFailure || !strings.Contains(f.Message, "Timed out") {
		t.Errorf("deadline: %+v", f)
	}

	// The port comes from the config when the host has none.
	_, err = jsonrpc.NewClient(newTransport(t, jsonrpc.ClientConfig{Port: 1}, nil), nil).
		GetSupportedBootDevices(testCtx(t), rpc.Topic+".127.0.0.1", "n1")
	if f := ironic.AsFault(err); !strings.Contains(f.Message, "127.0.0.1:1") {
		t.Errorf("port: %+v", f)
	}
}
