package db

import (
	"context"
	"sync"

	"github.com/goironic/ironic/db/models"
)

// WithNodeCache keeps up to n decoded node rows in memory for
// ListNodesShared (SQLite only; 0 disables it). A cached row is used only
// while the row's created_at and updated_at in the database are still the
// ones it was read with: every write of a node, by this process or by
// another (Python Ironic included), sets updated_at to the microsecond, so
// a changed row is always read again. MySQL keeps whole seconds, too
// coarse for this, so there the cache stays off. It relies on the Store's
// clock being the real one (a test clock that stands still would give two
// writes the same stamp).
func WithNodeCache(n int) Option { return func(s *Store) { s.nodeCacheSize = n } }

// nodeCache maps node ids to rows read earlier.
type nodeCache struct {
	mu   sync.Mutex
	max  int
	rows map[int64]cachedNode
}

type cachedNode struct {
	created, updated models.Time
	node             models.Node
}

func newNodeCache(max int) *nodeCache {
	return &nodeCache{max: max, rows: make(map[int64]cachedNode, min(max, 4096))}
}

// get returns the cached row of id when it was read with these stamps.
func (c *nodeCache) get(id int64, created, updated models.Time) (models.Node, bool) {
	c.mu.Lock()
	e, ok := c.rows[id]
	c.mu.Unlock()
	if !ok || !e.created.Equal(created.Time) || !e.updated.Equal(updated.Time) {
		return models.Node{}, false
	}
	return e.node, true
}

// put remembers rows; when full, an arbitrary tenth is dropped first.
func (c *nodeCache) put(nodes []models.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rows)+len(nodes) > c.max {
		drop := max(c.max/10, len(c.rows)+len(nodes)-c.max)
		for id := range c.rows {
			if drop == 0 {
				break
			}
			delete(c.rows, id)
			drop--
		}
	}
	for _, n := range nodes {
		if len(c.rows) >= c.max {
			return
		}
		n.Traits = nil
		c.rows[n.ID] = cachedNode{created: n.CreatedAt, updated: n.UpdatedAt, node: n}
	}
}

// ListNodesShared is ListNodes for readers that don't modify what they
// get: with the node cache on, rows whose stamps haven't changed come from
// memory, and their JSON dicts are shared with the cache. The page itself
// (which nodes, in which order) and the traits are always read from the
// database.
func (s *Store) ListNodesShared(ctx context.Context, f NodeFilter, o ListOpts) ([]models.Node, error) {
	if s.nodeCache == nil {
		return s.ListNodes(ctx, f, o)
	}
	q, err := s.nodeQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	keyCols, keySelects, err := s.t.nodes.subset([]string{"created_at", "updated_at"})
	if err != nil {
		return nil, err
	}
	stubs, err := paginate(ctx, s.db, s.t.nodes, keyCols, keySelects, q, o)
	if err != nil {
		return nil, err
	}
	out := make([]models.Node, len(stubs))
	var missing []any
	at := make(map[int64]int, len(stubs))
	for i, st := range stubs {
		if n, ok := s.nodeCache.get(st.ID, st.CreatedAt, st.UpdatedAt); ok {
			out[i] = n
			continue
		}
		at[st.ID] = i
		missing = append(missing, st.ID)
	}
	gone := map[int]bool{}
	for start := 0; start < len(missing); start += 500 {
		part := missing[start:min(start+500, len(missing))]
		rows, err := selectWhere(ctx, s.db, s.t.nodes, "`nodes`.`id` IN ("+placeholders(len(part))+")", part...)
		if err != nil {
			return nil, err
		}
		found := make(map[int64]bool, len(rows))
		for _, n := range rows {
			out[at[n.ID]] = n
			found[n.ID] = true
		}
		for _, id := range part {
			if !found[id.(int64)] {
				gone[at[id.(int64)]] = true // deleted since the page was read
			}
		}
		s.nodeCache.put(rows)
	}
	if len(gone) > 0 {
		kept := out[:0]
		for i, n := range out {
			if !gone[i] {
				kept = append(kept, n)
			}
		}
		out = kept
	}
	return out, s.loadTraits(ctx, s.db, out)
}
