package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
)

// TestLargePagesReadInHalvesAreTheSame: a page read as two halves at once
// equals the page read in one query, in every direction, from a marker and
// with a filter.
func TestLargePagesReadInHalvesAreTheSame(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		var ids []int64
		for i := 0; i < 1100; i++ {
			rc := "even"
			if i%2 == 1 {
				rc = "odd"
			}
			n, err := s.CreateNode(ctx, &models.Node{Driver: "fake-hardware", Name: models.Ptr(fmt.Sprintf("n%04d", i)), ResourceClass: &rc})
			if err != nil {
				t.Fatal(err)
			}
			if i%7 == 0 {
				if _, err := s.SetNodeTraits(ctx, n.ID, []string{"CUSTOM_A", fmt.Sprintf("CUSTOM_%d", i)}); err != nil {
					t.Fatal(err)
				}
			}
			ids = append(ids, n.ID)
		}
		odd := "odd"
		for _, c := range []struct {
			name string
			f    db.NodeFilter
			o    db.ListOpts
		}{
			{"asc", db.NodeFilter{}, db.ListOpts{Limit: 1000}},
			{"desc", db.NodeFilter{}, db.ListOpts{Limit: 1000, SortDir: "desc"}},
			{"id key", db.NodeFilter{}, db.ListOpts{Limit: 800, SortKey: "id"}},
			{"marker", db.NodeFilter{}, db.ListOpts{Limit: 1000, Marker: ids[50]}},
			{"marker desc", db.NodeFilter{}, db.ListOpts{Limit: 1000, Marker: ids[1050], SortDir: "desc"}},
			{"filter", db.NodeFilter{ResourceClass: &odd}, db.ListOpts{Limit: 500}},
			{"short", db.NodeFilter{ResourceClass: &odd}, db.ListOpts{Limit: 1000}},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := s.ListNodes(ctx, c.f, c.o)
				if err != nil {
					t.Fatal(err)
				}
				want, err := db.ListNodesOneQuery(ctx, s, c.f, c.o)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 {
					t.Fatal("empty page")
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("halves differ from one query (-want +got):\n%s", d)
				}
			})
		}
	})
}
