package crosscheck

import (
	"context"
	"strings"
	"testing"
	"time"
)

// headRevision is the alembic head of Ironic 21.4 (the node shard
// migration), what `ironic-dbsync version` prints for a current schema.
const headRevision = "4dbec778866e"

// dbsyncBudget bounds TestDBSyncInterop as a whole, builds included.
const dbsyncBudget = 8 * time.Minute

// TestDBSyncInterop runs our ironic-dbsync and Python's against each
// other's schemas, on SQLite and MariaDB: `version` prints the same
// revision (the head, 4dbec778866e) with exit 0, `upgrade` of a current
// schema succeeds and changes nothing, and `create_schema` refuses a
// database that already has a schema, with a non-zero exit code and
// Python's message, leaving its revision as it was.
func TestDBSyncInterop(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ctx, cancel := context.WithTimeout(t.Context(), dbsyncBudget)
	defer cancel()

	// run runs one ironic-dbsync command and returns its trimmed stdout
	// when it exits with 0, failing t otherwise.
	run := func(t *testing.T, python bool, confPath, command string) string {
		t.Helper()
		r := dbsync(ctx, t, python, confPath, command)
		if r.Code != 0 {
			t.Fatalf("%s ironic-dbsync %s: exit %d\nstdout: %s\nstderr: %s",
				implName(python), command, r.Code, r.Stdout, tail([]byte(r.Stderr), 3000))
		}
		return r.Stdout
	}
	// refuses checks that create_schema fails on an existing schema.
	refuses := func(t *testing.T, python bool, confPath string) {
		t.Helper()
		r := dbsync(ctx, t, python, confPath, "create_schema")
		if r.Code == 0 {
			t.Errorf("%s ironic-dbsync create_schema on an existing schema: exit 0, want an error\nstdout: %s\nstderr: %s",
				implName(python), r.Stdout, r.Stderr)
			return
		}
		// Python raises oslo.db's DBMigrationError with this text.
		const why = "DB schema is already under version control"
		if !strings.Contains(r.Stderr, why) {
			t.Errorf("%s ironic-dbsync create_schema on an existing schema: exit %d without %q\nstderr: %s",
				implName(python), r.Code, why, tail([]byte(r.Stderr), 3000))
		}
	}

	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			t.Run("python-schema", func(t *testing.T) {
				confPath := writeConf(t, pyHost, be.newDB(t))
				// An empty database has no revision: both say None.
				if py, ours := run(t, true, confPath, "version"), run(t, false, confPath, "version"); ours != py || py != "None\n" {
					t.Errorf("version of an empty database: ours %q, Python's %q, want %q", ours, py, "None\n")
				}
				run(t, true, confPath, "create_schema")
				py := run(t, true, confPath, "version")
				if py != headRevision+"\n" {
					t.Fatalf("Python's version after its create_schema: %q, want %q", py, headRevision+"\n")
				}
				if ours := run(t, false, confPath, "version"); ours != py {
					t.Errorf("our version of Python's schema: %q, Python's %q", ours, py)
				}
				run(t, false, confPath, "upgrade")
				if ours := run(t, false, confPath, "version"); ours != py {
					t.Errorf("our version after our upgrade: %q, want %q", ours, py)
				}
				refuses(t, false, confPath)
				if got := run(t, true, confPath, "version"); got != py {
					t.Errorf("Python's version after our upgrade and create_schema: %q, want %q", got, py)
				}
			})
			t.Run("go-schema", func(t *testing.T) {
				confPath := writeConf(t, goHost, be.newDB(t))
				run(t, false, confPath, "create_schema")
				ours := run(t, false, confPath, "version")
				if ours != headRevision+"\n" {
					t.Fatalf("our version after our create_schema: %q, want %q", ours, headRevision+"\n")
				}
				if py := run(t, true, confPath, "version"); py != ours {
					t.Errorf("Python's version of our schema: %q, ours %q", py, ours)
				}
				run(t, true, confPath, "upgrade")
				refuses(t, true, confPath)
				refuses(t, false, confPath)
				if got := run(t, false, confPath, "version"); got != ours {
					t.Errorf("our version after Python's upgrade and both create_schema: %q, want %q", got, ours)
				}
			})
		})
	}
}

func implName(python bool) string {
	if python {
		return "Python's"
	}
	return "our"
}
