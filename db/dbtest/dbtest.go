// Package dbtest gives tests a fresh database: SQLite in a temporary file,
// or a database on a private MariaDB server that the test binary starts
// itself (a plain mariadbd process with its own datadir, socket and port,
// stopped when the binary exits).
//
// MariaDB tests are skipped when mariadbd is not installed, unless the
// environment sets IRONIC_TEST_REQUIRE_MARIADB=1, which makes them fail.
package dbtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goironic/ironic/db"
)

// Backend opens a fresh store with Ironic's schema for one test.
type Backend struct {
	Name string
	Open func(t testing.TB, opts ...db.Option) *db.Store
}

// Backends are SQLite and MariaDB, for table-driven store tests.
func Backends() []Backend {
	return []Backend{{"sqlite", SQLite}, {"mariadb", MariaDB}}
}

// RunBoth runs body as a subtest on SQLite and on MariaDB.
func RunBoth(t *testing.T, body func(t *testing.T, s *db.Store), opts ...db.Option) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) {
			body(t, b.Open(t, opts...))
		})
	}
}

// SQLitePath returns the path of a new, empty SQLite database file in the
// test's temporary directory.
func SQLitePath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "ironic.sqlite")
}

// SQLite opens a store on a new temporary SQLite file with the schema
// created. The store is closed when the test ends.
func SQLite(t testing.TB, opts ...db.Option) *db.Store {
	t.Helper()
	return openWithSchema(t, "sqlite", SQLitePath(t), opts...)
}

// MariaDB opens a store on a new database of the test binary's MariaDB
// server with the schema created. The store is closed and the database
// dropped when the test ends.
func MariaDB(t testing.TB, opts ...db.Option) *db.Store {
	t.Helper()
	return openWithSchema(t, "mysql", MariaDBDSN(t), opts...)
}

func openWithSchema(t testing.TB, driver, dsn string, opts ...db.Option) *db.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := db.Open(ctx, driver, dsn, nil, opts...)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", driver, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.CreateSchema(ctx); err != nil {
		t.Fatalf("dbtest: create schema on %s: %v", driver, err)
	}
	return s
}

// MariaDBDSN creates a new empty database (utf8mb3) on the shared server
// and returns its go-sql-driver DSN; it is dropped when the test ends.
func MariaDBDSN(t testing.TB) string {
	t.Helper()
	srv := sharedServer(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), srv.nextID())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.CreateDatabase(ctx, name); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.DropDatabase(ctx, name)
	})
	return srv.DSN(name)
}

// MariaDBServer returns the test binary's MariaDB server (starting it on
// first use), for tests that need its socket, e.g. to hand it to Python.
func MariaDBServer(t testing.TB) *Server {
	t.Helper()
	return sharedServer(t)
}

// Main runs the tests and then stops the shared MariaDB server, for use
// in TestMain: func TestMain(m *testing.M) { dbtest.Main(m) }. Without it
// the server still stops when the test binary exits.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}
