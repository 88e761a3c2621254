package db_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
)

// TestNodeCacheSeesEveryChange: rows served from the node cache are never
// stale, whoever changed them: this store, another store on the same file
// (another process), raw SQL that sets updated_at as Ironic does, traits
// and deletions.
func TestNodeCacheSeesEveryChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ironic.sqlite")
	cached, err := db.Open(ctx, "sqlite", path, nil, db.WithNodeCache(100))
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	if err := cached.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := db.Open(ctx, "sqlite", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var ids []int64
	for i := 0; i < 5; i++ {
		n, err := other.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Extra: models.DictOf("v", json.Number("0"))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	list := func() map[int64]models.Node {
		t.Helper()
		got, err := cached.ListNodesShared(ctx, db.NodeFilter{}, db.ListOpts{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		want, err := other.ListNodes(ctx, db.NodeFilter{}, db.ListOpts{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("cached list has %d nodes, the database %d", len(got), len(want))
		}
		out := map[int64]models.Node{}
		for i := range got {
			if got[i].ID != want[i].ID || !got[i].UpdatedAt.Equal(want[i].UpdatedAt.Time) ||
				models.Deref(got[i].Name) != models.Deref(want[i].Name) ||
				got[i].Extra.Get("v") != want[i].Extra.Get("v") || len(got[i].Traits) != len(want[i].Traits) {
				t.Fatalf("node %d: cached %+v\nwant %+v", got[i].ID, got[i], want[i])
			}
			out[got[i].ID] = got[i]
		}
		return out
	}
	list()
	list() // now from the cache
	// Another store changes a node.
	if _, err := other.UpdateNode(ctx, db.ByID(ids[0]), db.Values{"extra": models.DictOf("v", json.Number("1"))}); err != nil {
		t.Fatal(err)
	}
	if got := list(); got[ids[0]].Extra.Get("v") != json.Number("1") {
		t.Errorf("change by another store not seen: %v", got[ids[0]].Extra)
	}
	// This store changes a node.
	if _, err := cached.UpdateNode(ctx, db.ByID(ids[1]), db.Values{"name": "renamed"}); err != nil {
		t.Fatal(err)
	}
	if got := list(); models.Deref(got[ids[1]].Name) != "renamed" {
		t.Errorf("own change not seen")
	}
	// Raw SQL as SQLAlchemy writes it (updated_at to the microsecond).
	if err := db.Raw(other).Exec(ctx, "UPDATE nodes SET extra = '{\"v\": 2}', updated_at = '2031-01-02 03:04:05.123456' WHERE id = ?", ids[2]); err != nil {
		t.Fatal(err)
	}
	if got := list(); got[ids[2]].Extra.Get("v") != json.Number("2") {
		t.Errorf("raw change not seen: %v", got[ids[2]].Extra)
	}
	// Traits are always read fresh.
	if _, err := other.SetNodeTraits(ctx, ids[3], []string{"CUSTOM_X"}); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got[ids[3]].Traits) != 1 {
		t.Errorf("traits not seen")
	}
	// A deleted node, and a new one reusing its id.
	if err := other.DestroyNode(ctx, db.ByID(ids[4])); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 4 {
		t.Errorf("deleted node still listed")
	}
	n, err := other.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr("new")})
	if err != nil {
		t.Fatal(err)
	}
	if got := list(); models.Deref(got[n.ID].Name) != "new" {
		t.Errorf("new node (id %d, reused: %v) served stale", n.ID, n.ID == ids[4])
	}
}
