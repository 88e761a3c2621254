package db

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the statement cache: queries built with
// variable IN-lists have many spellings, and those beyond the bound are
// simply run unprepared.
const maxCachedStatements = 256

// stmtDB is the connection pool with a cache of prepared statements for
// queries run outside transactions. Parsing a 60-column SELECT costs more
// than running it on SQLite, and every read is one of a few spellings.
//
// Only SQLite uses it: on MySQL, statements prepared on every pooled
// connection would count against the server's max_prepared_stmt_count,
// and the server parses quickly anyway.
//
// A transaction may only use statements that are already prepared when
// preparing one could need a second connection that doesn't exist (an
// in-memory database has exactly one): txPrepare says whether it may
// prepare new ones.
type stmtDB struct {
	*sql.DB
	cache     bool
	txPrepare bool
	mu        sync.RWMutex
	stmts     map[string]*sql.Stmt
}

func newStmtDB(db *sql.DB, cache, txPrepare bool) *stmtDB {
	return &stmtDB{DB: db, cache: cache, txPrepare: txPrepare, stmts: map[string]*sql.Stmt{}}
}

// txStmt is stmt for use inside a transaction.
func (d *stmtDB) txStmt(ctx context.Context, query string) *sql.Stmt {
	if d.txPrepare {
		return d.stmt(ctx, query)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.stmts[query]
}

// stmt returns the prepared statement for query, preparing it on first
// use; nil when the cache is full or preparing fails (the caller then runs
// the query directly, which reports any error).
func (d *stmtDB) stmt(ctx context.Context, query string) *sql.Stmt {
	if !d.cache {
		return nil
	}
	d.mu.RLock()
	st, ok := d.stmts[query]
	full := len(d.stmts) >= maxCachedStatements
	d.mu.RUnlock()
	if ok || full {
		return st
	}
	st, err := d.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if prev, ok := d.stmts[query]; ok {
		st.Close()
		return prev
	}
	if len(d.stmts) >= maxCachedStatements {
		st.Close()
		return nil
	}
	d.stmts[query] = st
	return st
}

// QueryContext runs a query through its cached statement.
func (d *stmtDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := d.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return d.DB.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a single-row query through its cached statement.
func (d *stmtDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := d.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return d.DB.QueryRowContext(ctx, query, args...)
}

// Close closes the cached statements and the pool.
func (d *stmtDB) Close() error {
	d.mu.Lock()
	for q, st := range d.stmts {
		st.Close()
		delete(d.stmts, q)
	}
	d.mu.Unlock()
	return d.DB.Close()
}

// txn is a write transaction whose statements come from the cache too.
type txn struct {
	*sql.Tx
	db *stmtDB
}

// ExecContext runs a statement in the transaction.
func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.db.txStmt(ctx, query); st != nil {
		return t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction.
func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.db.txStmt(ctx, query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a single-row query in the transaction.
func (t *txn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.db.txStmt(ctx, query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
