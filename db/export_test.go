package db

import (
	"context"
	"database/sql"

	"github.com/goironic/ironic/db/models"
)

// RawDB gives the external tests raw SQL access to a store.
type RawDB struct{ s *Store }

// Raw exposes the store's connection to tests.
func Raw(s *Store) RawDB { return RawDB{s} }

// QueryStrings returns the first column of every row.
func (r RawDB) QueryStrings(ctx context.Context, q string, args ...any) ([]string, error) {
	return stringColumn(ctx, r.s.db, q, args...)
}

// QueryRow runs a single-row query.
func (r RawDB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return r.s.db.QueryRowContext(ctx, q, args...)
}

// Exec runs a statement.
func (r RawDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := r.s.db.ExecContext(ctx, q, args...)
	return err
}

// ListNodesOneQuery is ListNodes without the two-halves read, for tests
// that compare the two.
func ListNodesOneQuery(ctx context.Context, s *Store, f NodeFilter, o ListOpts) ([]models.Node, error) {
	q, err := s.nodeQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	nodes, err := paginate(ctx, s.db, s.t.nodes, s.t.nodes.cols, s.t.nodes.selects, q, o)
	if err != nil {
		return nil, err
	}
	return nodes, s.loadTraits(ctx, s.db, nodes)
}
