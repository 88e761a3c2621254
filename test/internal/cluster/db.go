package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver of Database.Open
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/rpc"
)

// Database is an empty database of one test on a MariaDB server, dropped
// when the test ends.
type Database struct {
	Server *dbtest.Server
	Name   string
}

// databases numbers the databases of this test process, so that their
// names are unique in it whatever their tests are called.
var databases atomic.Int64

// NewDatabase creates a database named after prefix and t on srv, or with
// srv nil on the test process's shared MariaDB (dbtest.MariaDBServer,
// which skips or fails t as dbtest decides when MariaDB is missing).
func NewDatabase(t testing.TB, srv *dbtest.Server, prefix string) Database {
	t.Helper()
	if srv == nil {
		srv = dbtest.MariaDBServer(t)
	}
	name := fmt.Sprintf("%s_%d_%d_%s", prefix, os.Getpid(), databases.Add(1),
		strings.ToLower(regexp.MustCompile(`\W`).ReplaceAllString(t.Name(), "_")))
	if len(name) > 64 {
		name = name[:64]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.DropDatabase(ctx, name)
	})
	return Database{Server: srv, Name: name}
}

// URL is the database's SQLAlchemy URL, for [database]connection (both
// implementations read it; Python through PyMySQL).
func (d Database) URL() string { return d.Server.PythonURL(d.Name) }

// Open connects to the database as root over the socket; the caller
// closes the pool.
func (d Database) Open(t testing.TB) *sql.DB {
	t.Helper()
	conn, err := sql.Open("mysql", d.Server.DSN(d.Name))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// PrivateMariaDB starts a MariaDB server of t's own (for outage tests,
// which stop it), stopped when t ends. It skips t when MariaDB is not
// installed, or fails it when IRONIC_TEST_REQUIRE_MARIADB=1.
func PrivateMariaDB(ctx context.Context, t testing.TB, extra ...string) *dbtest.Server {
	t.Helper()
	if _, _, ok := dbtest.Binaries(); !ok {
		Missing(t, "IRONIC_TEST_REQUIRE_MARIADB", "MariaDB is not installed (apt-get install mariadb-server)")
	}
	// A short directory: the unix socket's path is limited to 107 bytes.
	dir, err := os.MkdirTemp("", "goironic-db-")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := dbtest.StartMariaDB(ctx, dir, extra...)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// WaitConductor waits until the conductor s, ours or Python's, is
// registered online in db with the fake-hardware type and consumes its
// RPC queue on the broker at amqpURL, failing the test if s exits first.
func WaitConductor(ctx context.Context, t testing.TB, db *sql.DB, amqpURL string, s *Service, timeout time.Duration) {
	t.Helper()
	waitConductor(ctx, t, db, s, timeout, func() (bool, error) { return consuming(amqpURL, rpc.Topic+"."+s.Name) })
}

// WaitJSONRPCConductor is WaitConductor on json-rpc: registered, and
// accepting connections on addr ([json_rpc]host_ip:port).
func WaitJSONRPCConductor(ctx context.Context, t testing.TB, db *sql.DB, addr string, s *Service, timeout time.Duration) {
	t.Helper()
	waitConductor(ctx, t, db, s, timeout, func() (bool, error) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, nil //nolint:nilerr // not listening yet
		}
		return true, c.Close()
	})
}

// waitConductor waits until s is registered with fake-hardware and
// serving reports true.
func waitConductor(ctx context.Context, t testing.TB, db *sql.DB, s *Service, timeout time.Duration, serving func() (bool, error)) {
	t.Helper()
	start := time.Now()
	Eventually(ctx, t, timeout, fmt.Sprintf("%s registered and serving", s), func() (bool, string) {
		s.RequireRunning(t)
		var n int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM conductors c
			JOIN conductor_hardware_interfaces h ON h.conductor_id = c.id
			WHERE c.hostname = ? AND c.online = 1 AND h.hardware_type = 'fake-hardware'`, s.Name).Scan(&n)
		if err != nil {
			t.Fatalf("waiting for %s: %v", s, err)
		}
		if n == 0 {
			return false, "not registered"
		}
		ok, err := serving()
		if err != nil {
			t.Fatalf("waiting for %s: %v", s, err)
		}
		return ok, "registered, not serving"
	})
	t.Logf("%s ready after %s", s, time.Since(start).Round(time.Millisecond))
}

// consuming reports whether the broker has the queue name with a
// consumer (a passive declare).
func consuming(amqpURL, name string) (bool, error) {
	conn, err := amqp.Dial(amqpURL)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return false, err
	}
	defer ch.Close()
	q, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
	var amqpErr *amqp.Error
	if errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return q.Consumers > 0, nil
}
