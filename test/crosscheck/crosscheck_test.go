package crosscheck

import (
	"context"
	"testing"
	"time"
)

// crossBudget bounds TestCrossCheck as a whole, builds included.
const crossBudget = 5 * time.Minute

// TestCrossCheck runs, on SQLite and on MariaDB, both directions:
//
//   - go-to-python: our ironic-dbsync creates the schema and our server
//     the objects; Python's server, on the same database, must answer as
//     ours did; Python then modifies objects, and our server, restarted,
//     must answer as Python did after the change.
//   - python-to-go: the same with the roles swapped (Python's
//     ironic-dbsync and server first, ours second).
func TestCrossCheck(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ctx, cancel := context.WithTimeout(t.Context(), crossBudget)
	defer cancel()
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			t.Run("go-to-python", func(t *testing.T) {
				crossCheck(ctx, t, be.newDB(t), false)
			})
			t.Run("python-to-go", func(t *testing.T) {
				crossCheck(ctx, t, be.newDB(t), true)
			})
		})
	}
}

// crossCheck runs one direction on the empty database dbURL: the first
// implementation (Python's when pythonFirst) creates the schema with its
// ironic-dbsync, populates it through its server and records the answers;
// the second, started on the same database, must answer the same, then
// modifies objects and records again; the first, restarted, must see the
// changes and answer as the second did.
func crossCheck(ctx context.Context, t *testing.T, dbURL string, pythonFirst bool) {
	start := time.Now()
	first, second := "go", "python"
	if pythonFirst {
		first, second = second, first
	}
	host := goHost
	if pythonFirst {
		host = pyHost
	}
	confPath := writeConf(t, host, dbURL)
	if r := dbsync(ctx, t, pythonFirst, confPath, "create_schema"); r.Code != 0 {
		t.Fatalf("%s ironic-dbsync create_schema: exit %d\n%s", first, r.Code, r.Stderr)
	}

	a := startServer(ctx, t, pythonFirst, dbURL)
	fx := populate(ctx, t, newClient(a))
	aSnap := record(ctx, t, a, fx)
	a.stop(t)

	b := startServer(ctx, t, !pythonFirst, dbURL)
	bSnap := record(ctx, t, b, fx)
	compare(t, first, aSnap, second, bSnap)
	fx = modify(ctx, t, newClient(b), fx)
	checkModified(ctx, t, newClient(b), fx)
	bModified := record(ctx, t, b, fx)
	b.stop(t)

	a = startServer(ctx, t, pythonFirst, dbURL)
	checkModified(ctx, t, newClient(a), fx)
	aModified := record(ctx, t, a, fx)
	a.stop(t)
	compare(t, second, bModified, first, aModified)
	t.Logf("%s-to-%s took %s", first, second, time.Since(start).Round(time.Millisecond))
}
