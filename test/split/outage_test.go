package split

import (
	"net/http"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
	"github.com/goironic/ironic/test/internal/cluster"
)

const (
	// outageBudget bounds an outage test, build included.
	outageBudget = 4 * time.Minute
	// recoverTimeout bounds the return of service after an outage ends.
	recoverTimeout = 90 * time.Second
)

// TestDatabaseRestart stops MariaDB under a running ironic-api and
// conductor: the API answers 503 and nothing crashes; once MariaDB is
// back, requests succeed again, the conductor's heartbeat resumes and a
// provisioning action completes, without restarting either process.
func TestDatabaseRestart(t *testing.T) {
	broker := rabbittest.Shared(t)
	ctx := testContext(t, outageBudget)
	srv := cluster.PrivateMariaDB(ctx, t)
	db := cluster.NewDatabase(t, srv, "split")
	c := startCluster(ctx, t, db, broker, cluster.INI{"conductor": {"heartbeat_interval": "1"}}, "cond-a")
	u := nodeUUID(4, 0)
	c.createNodes(u)

	srv.Halt()
	for _, path := range []string{"/v1/nodes", "/v1/nodes/" + u, "/v1/conductors", "/v1/drivers"} {
		r, err := c.do(http.MethodGet, path, nil)
		if err != nil {
			t.Fatalf("GET %s with the database down: %v", path, err)
		}
		if r.Status != http.StatusServiceUnavailable {
			t.Errorf("GET %s with the database down: got %s, want 503", path, r)
		}
	}
	r, err := c.do(http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "manage"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusServiceUnavailable {
		t.Errorf("PUT provision with the database down: got %s, want 503", r)
	}
	// Long enough for the conductor's heartbeat to fail a few times.
	time.Sleep(3 * time.Second)
	c.requireRunning()

	resumed := time.Now().UTC()
	if err := srv.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	c.eventually(recoverTimeout, "GET /v1/nodes answers 200 again", func() (bool, string) {
		r, err := c.do(http.MethodGet, "/v1/nodes", nil)
		if err != nil {
			return false, err.Error()
		}
		return r.Status == http.StatusOK, r.String()
	})
	c.eventually(recoverTimeout, "the conductor heartbeats again", func() (bool, string) {
		var cd conductor
		c.must(http.StatusOK, http.MethodGet, "/v1/conductors/cond-a", nil, &cd)
		at, err := time.Parse(time.RFC3339, cd.UpdatedAt)
		return err == nil && cd.Alive && at.After(resumed), cd.UpdatedAt
	})
	c.provision(u, "manage", "manageable", recoverTimeout)
	c.provision(u, "provide", "available", recoverTimeout)
	c.requireRunning()
}

// TestRabbitRestart restarts RabbitMQ under a running ironic-api and
// conductor: afterwards calls that need the conductor succeed again
// without restarting either process. A call in flight when the broker
// stops answers 503 at once rather than waiting for rpc_response_timeout.
//
// The in-flight call is a power change on a node whose lock another
// (unregistered) conductor holds: the conductor retries the lock for
// node_locked_retry_attempts seconds inside the call.
func TestRabbitRestart(t *testing.T) {
	broker := rabbittest.Shared(t)
	ctx := testContext(t, outageBudget)
	db := sharedDatabase(t)
	c := startCluster(ctx, t, db, broker, cluster.INI{
		"DEFAULT":   {"rpc_response_timeout": "30"},
		"conductor": {"node_locked_retry_attempts": "40", "node_locked_retry_interval": "1"},
	}, "cond-a")
	free, locked := nodeUUID(3, 0), nodeUUID(3, 1)
	c.createNodes(free, locked)
	c.must(http.StatusAccepted, http.MethodPut, "/v1/nodes/"+free+"/states/power", map[string]any{"target": "power off"}, nil)

	served := c.conductors["cond-a"].LogCount("serving RPC")
	broker.Restart(t)
	c.eventually(recoverTimeout, "conductor calls work again after the broker restart", func() (bool, string) {
		r, err := c.do(http.MethodPut, "/v1/nodes/"+free+"/states/power", map[string]any{"target": "power on"})
		if err != nil {
			return false, err.Error()
		}
		return r.Status == http.StatusAccepted, r.String()
	})
	c.must(http.StatusOK, http.MethodGet, "/v1/nodes/"+free+"/validate", nil, nil)
	c.provision(free, "manage", "manageable", recoverTimeout)
	if got := c.conductors["cond-a"].LogCount("serving RPC"); got <= served {
		t.Errorf("the conductor logged %q %d times after the restart, want more than %d", "serving RPC", got, served)
	}

	// The in-flight call.
	dbExec(ctx, t, db, "UPDATE nodes SET reservation = 'ghost-conductor' WHERE uuid = ?", locked)
	type result struct {
		r   cluster.Response
		err error
		at  time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		r, err := c.do(http.MethodPut, "/v1/nodes/"+locked+"/states/power", map[string]any{"target": "power off"})
		done <- result{r, err, time.Since(start)}
	}()
	select {
	case res := <-done:
		t.Fatalf("the power call on a locked node answered before the broker stopped, after %s: %v %v", res.at, res.r, res.err)
	case <-time.After(3 * time.Second):
	}
	broker.Stop()
	defer func() {
		if err := broker.Start(); err != nil {
			t.Errorf("restarting the broker: %v", err)
		}
	}()
	const inFlightBound = 20 * time.Second // rpc_response_timeout is 30 s
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("in-flight call: %v", res.err)
		}
		if res.r.Status != http.StatusServiceUnavailable {
			t.Errorf("in-flight call when the broker stopped: got %s after %s, want 503", res.r, res.at)
		}
		if res.at > inFlightBound {
			t.Errorf("in-flight call answered after %s, want within %s", res.at, inFlightBound)
		}
	case <-time.After(inFlightBound):
		t.Fatalf("in-flight call: no answer within %s of the request (rpc_response_timeout is 30 s)", inFlightBound)
	}
	if err := broker.Start(); err != nil {
		t.Fatal(err)
	}
	dbExec(ctx, t, db, "UPDATE nodes SET reservation = NULL WHERE uuid = ?", locked)
	c.eventually(recoverTimeout, "the power call works again after the broker is back", func() (bool, string) {
		r, err := c.do(http.MethodPut, "/v1/nodes/"+locked+"/states/power", map[string]any{"target": "power off"})
		if err != nil {
			return false, err.Error()
		}
		return r.Status == http.StatusAccepted, r.String()
	})
	c.requireRunning()
}
