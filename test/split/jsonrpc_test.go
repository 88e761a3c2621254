package split

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
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
// perHost, when not nil, adds to each conductor's own configuration.
// It returns the cluster and the conductors' [json_rpc]port.
func startJSONRPCCluster(t *testing.T, db cluster.Database, extra cluster.INI, perHost func(host string) cluster.INI, hosts ...string) (*splitCluster, int) {
	t.Helper()
	ctx := testContext(t, jsonrpcBudget)
	port, err := cluster.FreePortOn(hosts...)
	if err != nil {
		t.Fatal(err)
	}
	own := cluster.JSONRPCConductor
	if perHost != nil {
		own = func(h string) cluster.INI { return cluster.JSONRPCConductor(h).Merged(perHost(h)) }
	}
	return startDeployment(ctx, t, jsonrpcConfig(db.URL(), port).Merged(extra), own, hosts...), port
}

// jsonrpcBudget bounds TestJSONRPCSplit, build included.
const jsonrpcBudget = 5 * time.Minute

// TestJSONRPCSplit runs ironic-api and two conductors on json-rpc
// ([DEFAULT]rpc_transport = json-rpc, no RabbitMQ): the API reaches each
// conductor at its host name and [json_rpc]port. Nodes deploy on both
// conductors; a node another host holds is refused with 409 and Ironic's
// body, carried from the conductor's NodeLocked over JSON-RPC; a
// conductor killed mid-deploy is taken over (killMidDeploy).
//
// The conductors serve over TLS ([json_rpc]use_ssl with oslo.service's
// [ssl] certificate, made by the test for each conductor's address) and
// require http_basic; the API presents [json_rpc]username/password and
// verifies them with [json_rpc]cafile. The same calls without the
// password are refused by the conductor (checked with a plain client).
func TestJSONRPCSplit(t *testing.T) {
	db := sharedDatabase(t)
	hosts := []string{"127.0.0.2", "127.0.0.3"}
	sec := newJSONRPCSecurity(t, hosts...)
	c, port := startJSONRPCCluster(t, db, quickTakeover(4).Merged(sec.shared), sec.perHost, hosts...)
	for _, h := range hosts {
		if n := c.conductors[h].LogCount("transport=json-rpc"); n != 1 {
			t.Errorf("%s logged serving json-rpc %d times", h, n)
		}
	}
	sec.checkRefused(c.ctx, t, hosts[0], port)

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

// jsonrpcSecurity is http_basic over TLS for a json-rpc deployment: a
// test-made CA, a certificate per conductor address, an htpasswd file.
type jsonrpcSecurity struct {
	shared cluster.INI
	certs  map[string][2]string // host: certificate and key files
	ca     *x509.CertPool
}

// jsonrpcHtpasswd is "admin:password", bcrypt (python3 -c "import bcrypt;
// print(bcrypt.hashpw(b'password', bcrypt.gensalt(5)).decode())").
const jsonrpcHtpasswd = "admin:$2b$05$UFTsGmz4Dujyl0fCmGAYJuIg/vGECOo2MpYS9nag7smjhrAii5nEm\n"

func newJSONRPCSecurity(t *testing.T, hosts ...string) *jsonrpcSecurity {
	t.Helper()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	ca, caKey, err := rabbittest.NewCert(nil, nil, "json-rpc test CA", caFile, filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	s := &jsonrpcSecurity{certs: map[string][2]string{}, ca: x509.NewCertPool()}
	s.ca.AddCert(ca)
	for _, h := range hosts {
		cert, key := filepath.Join(dir, h+".pem"), filepath.Join(dir, h+".key")
		if _, _, err := rabbittest.NewCert(ca, caKey, h, cert, key); err != nil {
			t.Fatal(err)
		}
		s.certs[h] = [2]string{cert, key}
	}
	users := filepath.Join(dir, "htpasswd-json-rpc")
	if err := os.WriteFile(users, []byte(jsonrpcHtpasswd), 0o600); err != nil {
		t.Fatal(err)
	}
	s.shared = cluster.INI{"json_rpc": {
		"auth_strategy": "http_basic", "http_basic_auth_user_file": users,
		"username": "admin", "password": "password",
		"use_ssl": "true", "cafile": caFile,
	}}
	return s
}

// perHost is a conductor's [ssl] certificate for its address.
func (s *jsonrpcSecurity) perHost(h string) cluster.INI {
	return cluster.INI{"ssl": {"cert_file": s.certs[h][0], "key_file": s.certs[h][1]}}
}

// checkRefused: the conductor at host:port answers only over TLS with its
// certificate, and refuses a call without the password with ironic_lib's
// 401.
func (s *jsonrpcSecurity) checkRefused(ctx context.Context, t *testing.T, host string, port int) {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.ca, MinVersion: tls.VersionTLS12}}}
	defer hc.CloseIdleConnections()
	body := `{"jsonrpc": "2.0", "method": "get_conductor_info", "params": {"context": {}}, "id": "1"}`
	base := "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
	do := func(user, pass string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("json-rpc over TLS to %s: %v", base, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := do("", ""); code != http.StatusUnauthorized {
		t.Errorf("no credentials: %d %s, want 401", code, b)
	}
	if code, b := do("admin", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong password: %d %s, want 401", code, b)
	}
	plain := &http.Client{Timeout: 10 * time.Second}
	if resp, err := plain.Post("http://"+net.JoinHostPort(host, strconv.Itoa(port))+"/", "application/json", strings.NewReader(body)); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS endpoint: %d, want the TLS server's 400", resp.StatusCode)
		}
	}
}
