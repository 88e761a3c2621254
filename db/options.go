package db

import (
	"database/sql"
	"math"
	"time"

	"github.com/goironic/ironic/option"
)

// Config holds the options of the database layer (see Bind): the
// [database] options of the connection and what rows get by default.
type Config struct {
	// Connection is [database]connection, the SQLAlchemy URL; the caller
	// turns it into Open's driver and DSN (conf.ParseDatabaseURL).
	Connection string
	// MySQLSQLMode is [database]mysql_sql_mode (TRADITIONAL): the
	// sql_mode of MySQL sessions unless the URL sets one; empty leaves
	// the server's.
	MySQLSQLMode string
	// MaxPoolSize, MaxOverflow and ConnectionRecycleTime are
	// [database]max_pool_size (5), max_overflow (50) and
	// connection_recycle_time (3600 s), SQLAlchemy's pool on MySQL: up
	// to MaxPoolSize idle connections are kept, MaxPoolSize+MaxOverflow
	// are open at most (0 and -1 mean no limit, as in SQLAlchemy), and a
	// connection older than ConnectionRecycleTime is replaced. SQLite
	// keeps its own pool, as oslo.db does.
	MaxPoolSize           int
	MaxOverflow           int
	ConnectionRecycleTime time.Duration
	// DefaultPortgroupMode is [DEFAULT]default_portgroup_mode
	// (active-backup), the mode of portgroups created without one.
	DefaultPortgroupMode string
}

// Bind reads the [database] options.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.Connection, "database", "connection")
	b.String(&c.MySQLSQLMode, "database", "mysql_sql_mode")
	b.Int(&c.MaxPoolSize, "database", "max_pool_size")
	b.Int(&c.MaxOverflow, "database", "max_overflow")
	b.Seconds(&c.ConnectionRecycleTime, "database", "connection_recycle_time")
	b.String(&c.DefaultPortgroupMode, "DEFAULT", "default_portgroup_mode")
}

// DefaultConfig is oslo.db's defaults, as Ironic sets them.
func DefaultConfig() Config { return option.Default[Config]() }

// WithConfig sets the [database] options (default: DefaultConfig).
func WithConfig(c Config) Option { return func(s *Store) { s.cfg = c } }

// setPool sizes a MySQL connection pool as SQLAlchemy's QueuePool with
// c's options.
func (c Config) setPool(db *sql.DB) {
	open, idle := c.MaxPoolSize+c.MaxOverflow, c.MaxPoolSize
	switch {
	case c.MaxPoolSize <= 0:
		open, idle = 0, math.MaxInt32
	case c.MaxOverflow < 0:
		open = 0
	}
	db.SetMaxOpenConns(open)
	db.SetMaxIdleConns(idle)
	db.SetConnMaxLifetime(max(c.ConnectionRecycleTime, 0))
}
