// Package db is Ironic's database layer: the schema (exactly Ironic's at
// alembic head 4dbec778866e, on SQLite and MySQL/MariaDB) and one method set
// per resource, mirroring ironic/db/sqlalchemy/api.py: the same filters,
// pagination, uniqueness errors, cascades and automatic timestamps, and
// errors that are *ironic.Fault values of Ironic's exception classes with
// Ironic's messages. Other errors (a lost connection, a programming error
// such as an unknown column) are plain errors.
//
// Conventions shared by the methods:
//   - A row is named by a Ref: ByID(internal id), ByUUID(uuid) and, for
//     ports and portgroups, ByAddress(mac). Messages quote the Ref as
//     Ironic quotes the identity it was given.
//   - Create* take a model, fill Ironic's defaults (UUID, created_at,
//     object version, column defaults) and return the stored row; the
//     argument is not modified.
//   - Update* take Values (column name -> value), stamp the object
//     version, write only the columns that change plus updated_at (as
//     SQLAlchemy's unit of work does) and return the row as stored.
//   - List* take a filter struct and ListOpts (limit, marker, sort key and
//     direction, as Ironic's _paginate_query).
//   - Timestamps come from the Clock given with WithClock.
//
// gorm opens the MySQL connections and describes the tables: the column
// lists are derived once, at Open, from the gorm tags of the models in
// db/models. Queries are explicit SQL over those lists, so that hot paths
// (node lists) do no reflection.
package db

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/goironic/ironic"
)

// Dialect is the SQL engine behind a Store.
type Dialect string

// The supported engines.
const (
	SQLite Dialect = "sqlite"
	MySQL  Dialect = "mysql"
)

// Store is the database. It is safe for concurrent use.
type Store struct {
	db      *stmtDB
	dialect Dialect
	log     *slog.Logger
	clock   ironic.Clock
	uuids   ironic.UUIDSource

	defaultPortgroupMode string
	// wsem serialises write transactions on SQLite (one writer at a time
	// is all SQLite allows; waiting here instead of in SQLite's busy loop
	// keeps latency low and avoids SQLITE_BUSY).
	wsem chan struct{}
	t    *tables

	nodeCacheSize int
	nodeCache     *nodeCache

	cfg Config
	// tls, for MySQL, is the connection's TLS (WithTLS).
	tls *tls.Config
}

// Option adjusts a Store at Open.
type Option func(*Store)

// WithClock sets the source of time (default: ironic.SystemClock).
func WithClock(c ironic.Clock) Option { return func(s *Store) { s.clock = c } }

// WithUUIDs sets the source of UUIDs for new rows (default: random).
func WithUUIDs(u ironic.UUIDSource) Option { return func(s *Store) { s.uuids = u } }

// WithTLS makes MySQL connections use TLS with c (the database URL's
// ssl_* parameters, conf.DatabaseTLS); a server without TLS is then an
// error, never a plain-text fallback. SQLite ignores it.
func WithTLS(c *tls.Config) Option { return func(s *Store) { s.tls = c } }

// WithDefaultPortgroupMode sets the mode of portgroups created without one
// (default: Config.DefaultPortgroupMode).
func WithDefaultPortgroupMode(mode string) Option {
	return func(s *Store) { s.defaultPortgroupMode = mode }
}

// Open connects to the database. driver is "sqlite" (dsn: a file path,
// "file:" URI or ":memory:") or "mysql" (dsn in go-sql-driver format, e.g.
// "user:pw@tcp(127.0.0.1:3306)/ironic?charset=utf8"). It does not create
// the schema; see CreateSchema and Upgrade.
//
// SQLite runs like Python Ironic's (no foreign key enforcement), in WAL
// mode with a busy timeout, with write transactions serialised by the
// Store and started with BEGIN IMMEDIATE. MySQL sessions use the
// sql_mode of Config (TRADITIONAL) and UTC, in a pool sized by Config.
func Open(ctx context.Context, driver, dsn string, log *slog.Logger, opts ...Option) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		log:   log,
		clock: ironic.SystemClock{},
		uuids: ironic.RandomUUIDs{},
		cfg:   DefaultConfig(),
	}
	for _, o := range opts {
		o(s)
	}
	if s.defaultPortgroupMode == "" {
		s.defaultPortgroupMode = s.cfg.DefaultPortgroupMode
	}
	gcfg := &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true}
	var (
		gdb      *gorm.DB
		sqliteDB *sql.DB
		err      error
	)
	memory := false
	switch driver {
	case "sqlite", "sqlite3":
		s.dialect = SQLite
		s.wsem = make(chan struct{}, 1)
		var full string
		full, memory = sqliteDSN(dsn)
		// SQLite goes through database/sql with the pure-Go driver
		// directly: every query here is explicit SQL, and gorm's SQLite
		// dialect would pin an older, slower driver.
		sqliteDB, err = sql.Open("sqlite", full)
	case "mysql", "mysql+pymysql", "mariadb":
		s.dialect = MySQL
		var cfg *mysqldrv.Config
		cfg, err = mysqldrv.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("db: bad MySQL DSN: %w", err)
		}
		cfg.Loc = time.UTC
		cfg.InterpolateParams = true
		// Row counts are matched rows, as SQLAlchemy's MySQL dialects ask
		// for (CLIENT_FOUND_ROWS), not changed rows.
		cfg.ClientFoundRows = true
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		if _, ok := cfg.Params["sql_mode"]; !ok && s.cfg.MySQLSQLMode != "" {
			cfg.Params["sql_mode"] = "'" + s.cfg.MySQLSQLMode + "'"
		}
		if _, ok := cfg.Params["time_zone"]; !ok {
			cfg.Params["time_zone"] = "'+00:00'"
		}
		// The connection's TLS (WithTLS) travels in the driver's Config,
		// not in a DSN (whose tls=<name> needs the driver's global
		// registry), so connections come from a connector on cfg.
		if s.tls != nil {
			cfg.TLS = s.tls.Clone()
		}
		conn, cerr := mysqldrv.NewConnector(cfg)
		if cerr != nil {
			return nil, fmt.Errorf("db: bad MySQL settings: %w", cerr)
		}
		gdb, err = gorm.Open(mysql.New(mysql.Config{Conn: sql.OpenDB(conn), DSNConfig: cfg}), gcfg)
	default:
		return nil, fmt.Errorf("db: unsupported driver %q (want sqlite or mysql)", driver)
	}
	if err != nil {
		return nil, fmt.Errorf("db: open %s: %w", driver, err)
	}
	sqlDB := sqliteDB
	if gdb != nil {
		if sqlDB, err = gdb.DB(); err != nil {
			return nil, err
		}
	}
	if s.t, err = newTables(s.dialect); err != nil {
		sqlDB.Close()
		return nil, err
	}
	s.db = newStmtDB(sqlDB, s.dialect == SQLite, !memory)
	if s.nodeCacheSize > 0 && s.dialect == SQLite {
		s.nodeCache = newNodeCache(s.nodeCacheSize)
	}
	switch {
	case memory:
		// Every connection to :memory: is a separate database.
		sqlDB.SetMaxOpenConns(1)
		sqlDB.SetMaxIdleConns(1)
		sqlDB.SetConnMaxLifetime(0)
		sqlDB.SetConnMaxIdleTime(0)
	case s.dialect == SQLite:
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
	default:
		s.cfg.setPool(sqlDB)
	}
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("db: connect: %w", err)
	}
	return s, nil
}

// sqliteDSN adds the connection pragmas to a SQLite path or URI. It
// reports whether the database lives in memory.
func sqliteDSN(dsn string) (string, bool) {
	memory := dsn == "" || dsn == ":memory:" || strings.Contains(dsn, "mode=memory") ||
		strings.HasPrefix(dsn, "file::memory:")
	if dsn == "" {
		dsn = ":memory:"
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if !memory {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	q.Set("_txlock", "immediate")
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + q.Encode(), memory
}

// Dialect says which engine the store talks to.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close closes the connections.
func (s *Store) Close() error { return s.db.Close() }

// now is the clock's time at the precision the engine stores: microseconds
// on SQLite, seconds on MySQL (DATETIME without fraction), so that what a
// method returns equals what a later read returns.
func (s *Store) now() time.Time {
	t := s.clock.Now().UTC()
	if s.dialect == MySQL {
		return t.Truncate(time.Second)
	}
	return t.Truncate(time.Microsecond)
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// forUpdate is the row lock suffix (SQLite has none: its write
// transactions are exclusive already).
func (s *Store) forUpdate() string {
	if s.dialect == MySQL {
		return " FOR UPDATE"
	}
	return ""
}

// maxDeadlockRetries mirrors oslo.db's retry_on_deadlock (5 retries).
const maxDeadlockRetries = 5

// write runs fn in a write transaction, retrying on deadlocks like
// oslo_db.api.retry_on_deadlock. A *commitThenFail error from fn commits
// the transaction and then returns the wrapped error (Ironic raises some
// errors after its session has committed).
func (s *Store) write(ctx context.Context, fn func(tx *txn) error) error {
	if s.wsem != nil {
		select {
		case s.wsem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-s.wsem }()
	}
	delay := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		if err == nil || !isDeadlock(err) || attempt >= maxDeadlockRetries {
			return valueTooLong(err)
		}
		s.log.DebugContext(ctx, "database deadlock, retrying", "attempt", attempt+1, "error", err)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		delay *= 2
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *txn) error) (err error) {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx := &txn{Tx: sqlTx, db: s.db}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
	}()
	err = fn(tx)
	var ctf *commitThenFail
	if err != nil && !errors.As(err, &ctf) {
		_ = tx.Rollback()
		return err
	}
	if cerr := tx.Commit(); cerr != nil {
		return cerr
	}
	if ctf != nil {
		return ctf.err
	}
	return nil
}

// commitThenFail asks write to commit and then report err.
type commitThenFail struct{ err error }

func (c *commitThenFail) Error() string { return c.err.Error() }
