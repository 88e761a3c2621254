package split

import (
	"net/http"
	"testing"
	"time"

	"github.com/goironic/ironic/rpc/amqp/rabbittest"
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
	srv := privateMariaDB(ctx, t)
	db := newDatabase(ctx, t, srv)
	c := startCluster(ctx, t, db, broker, ini{"conductor": {"heartbeat_interval": "1"}}, "cond-a")
	u := nodeUUID(4, 0)
	c.createNodes(u)

	srv.Halt()
	for _, path := range []string{"/v1/nodes", "/v1/nodes/" + u, "/v1/conductors", "/v1/drivers"} {
		r, err := c.do(http.MethodGet, path, nil)
		if err != nil {
			t.Fatalf("GET %s with the database down: %v", path, err)
		}
		if r.status != http.StatusServiceUnavailable {
			t.Errorf("GET %s with the database down: got %s, want 503", path, r)
		}
	}
	r, err := c.do(http.MethodPut, "/v1/nodes/"+u+"/states/provision", map[string]any{"target": "manage"})
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusServiceUnavailable {
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
		return r.status == http.StatusOK, r.String()
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
