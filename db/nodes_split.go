package db

import (
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/goironic/ironic/db/models"
)

// splitMin is the page size from which ListNodes reads a page in two
// halves at once, on two connections: a 1000-node page is mostly row
// decoding, which then runs on two cores.
const splitMin = 400

// clone copies a query so that two goroutines can add conditions to it.
func (q query) clone() query {
	return query{from: q.from, where: slices.Clone(q.where), args: slices.Clone(q.args)}
}

// listNodesSplit reads a large page ordered by id as two halves, the
// second starting after the last row of the first (found with a cheap
// id-only query). ok is false when the page doesn't qualify; the caller
// then reads it in one query.
func (s *Store) listNodesSplit(ctx context.Context, q query, o ListOpts) (nodes []models.Node, ok bool, err error) {
	if o.Limit < splitMin || (o.SortKey != "" && o.SortKey != "id") || (o.SortDir != "" && o.SortDir != "asc" && o.SortDir != "desc") {
		return nil, false, nil
	}
	half := o.Limit / 2
	idCols, idSelects, err := s.t.nodes.subset([]string{"id"})
	if err != nil {
		return nil, false, err
	}
	first := o
	first.Limit = half
	ids, err := paginate(ctx, s.db, s.t.nodes, idCols, idSelects, q.clone(), first)
	if err != nil {
		return nil, false, err
	}
	if len(ids) < half {
		return nil, false, nil // a short page: one query is enough
	}
	second := o
	second.Marker = ids[len(ids)-1].ID
	second.Limit = o.Limit - half
	var a, b []models.Node
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		if a, err = paginate(gctx, s.db, s.t.nodes, s.t.nodes.cols, s.t.nodes.selects, q.clone(), first); err != nil {
			return err
		}
		return s.loadTraits(gctx, s.db, a)
	})
	g.Go(func() error {
		var err error
		if b, err = paginate(gctx, s.db, s.t.nodes, s.t.nodes.cols, s.t.nodes.selects, q.clone(), second); err != nil {
			return err
		}
		return s.loadTraits(gctx, s.db, b)
	})
	if err := g.Wait(); err != nil {
		return nil, false, err
	}
	return append(a, b...), true, nil
}
