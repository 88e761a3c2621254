package db

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// CreateNodeHistory records a history event; the UUID is always
// generated, as in Ironic.
func (s *Store) CreateNodeHistory(ctx context.Context, h *models.NodeHistory) (*models.NodeHistory, error) {
	c := *h
	c.UUID = s.uuids.NewUUID()
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.NodeHistoryVersion
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.history, &c) })
	if _, dup := uniqueViolation(err); dup {
		return nil, ironic.Errorf(NodeHistoryAlreadyExists, "A node history record with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// DestroyNodeHistoryByUUID deletes one event (NodeHistoryNotFound).
func (s *Store) DestroyNodeHistoryByUUID(ctx context.Context, uuid string) error {
	return s.deleteRef(ctx, "node_history", ByUUID(uuid), ironic.NodeHistoryNotFound, "Node history record %s could not be found.")
}

// GetNodeHistory returns one event by id or UUID (NodeHistoryNotFound).
func (s *Store) GetNodeHistory(ctx context.Context, ref Ref) (*models.NodeHistory, error) {
	where, arg := ref.where("node_history")
	h, ok, err := selectOne(ctx, s.db, s.t.history, where, "", arg)
	if err == nil && !ok {
		err = notFound(ironic.NodeHistoryNotFound, "Node history record %s could not be found.", ref)
	}
	return h, err
}

// ListNodeHistory returns a page of all events; Ironic's default order is
// created_at ascending (pass SortKey "created_at" for it).
func (s *Store) ListNodeHistory(ctx context.Context, o ListOpts) ([]models.NodeHistory, error) {
	return listAll(ctx, s.db, s.t.history, query{}, o)
}

// ListNodeHistoryByNode returns a page of a node's events.
func (s *Store) ListNodeHistoryByNode(ctx context.Context, nodeID int64, o ListOpts) ([]models.NodeHistory, error) {
	q := query{}
	q.add("`node_history`.`node_id` = ?", nodeID)
	return listAll(ctx, s.db, s.t.history, q, o)
}

// QueryNodeHistoryRecordsForPurge returns, for each node whose
// conductor_affinity is conductorID, the ids of its oldest events beyond
// the newest maxEntries, considering only events older than minDays days
// (when minDays > 0), as Ironic's query_node_history_records_for_purge.
func (s *Store) QueryNodeHistoryRecordsForPurge(ctx context.Context, conductorID int64, minDays, maxEntries int) (map[int64][]int64, error) {
	sqlText := "SELECT `node_id`, `id` FROM `node_history` WHERE `node_id` IN (SELECT `id` FROM `nodes` WHERE `conductor_affinity` = ?)"
	args := []any{conductorID}
	if minDays > 0 {
		sqlText += " AND `created_at` < ?"
		args = append(args, s.timeArg(s.now().Add(-time.Duration(minDays)*24*time.Hour)))
	}
	sqlText += " ORDER BY `created_at` ASC, `id` ASC"
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	perNode := map[int64][]int64{}
	var order []int64
	for rows.Next() {
		var nodeID, id int64
		if err := rows.Scan(&nodeID, &id); err != nil {
			return nil, err
		}
		if _, ok := perNode[nodeID]; !ok {
			order = append(order, nodeID)
		}
		perNode[nodeID] = append(perNode[nodeID], id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[int64][]int64, len(perNode))
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	for _, n := range order {
		ids := perNode[n]
		out[n] = []int64{}
		if len(ids) > maxEntries {
			out[n] = append(out[n], ids[:len(ids)-maxEntries]...)
		}
	}
	return out, nil
}

// BulkDeleteNodeHistoryRecords deletes events by id.
func (s *Store) BulkDeleteNodeHistoryRecords(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *txn) error {
		for start := 0; start < len(ids); start += 500 {
			part := ids[start:min(start+500, len(ids))]
			if _, err := tx.ExecContext(ctx, "DELETE FROM `node_history` WHERE `id` IN ("+placeholders(len(part))+")", anySlice(part)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// CreateNodeInventory stores a node's inventory.
func (s *Store) CreateNodeInventory(ctx context.Context, inv *models.NodeInventory) (*models.NodeInventory, error) {
	c := s.inventoryRow(inv)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.inventory, &c) })
	if _, dup := uniqueViolation(err); dup {
		return nil, ironic.Errorf(ironic.NodeInventoryAlreadyExists, "A node inventory with ID %d already exists.", c.ID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// ReplaceNodeInventory stores a node's inventory in place of any it
// had, in one transaction: re-inspection keeps one row per node (Ironic
// 21.4 adds a second one, after which its inventory API fails).
func (s *Store) ReplaceNodeInventory(ctx context.Context, inv *models.NodeInventory) (*models.NodeInventory, error) {
	c := s.inventoryRow(inv)
	err := s.write(ctx, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM `node_inventory` WHERE `node_id` = ?", c.NodeID); err != nil {
			return err
		}
		return insertRow(ctx, tx, s.t.inventory, &c)
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// inventoryRow is the row to insert for inv: created now unless set, at
// the object's version, absent dicts as {}.
func (s *Store) inventoryRow(inv *models.NodeInventory) models.NodeInventory {
	c := *inv
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.NodeInventoryVersion
	nilDicts(&c.InventoryData, &c.PluginData)
	return c
}

// DestroyNodeInventoryByNodeID deletes a node's inventory
// (NodeInventoryNotFound).
func (s *Store) DestroyNodeInventoryByNodeID(ctx context.Context, nodeID int64) error {
	return s.write(ctx, func(tx *txn) error {
		r, err := tx.ExecContext(ctx, "DELETE FROM `node_inventory` WHERE `node_id` = ?", nodeID)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(ironic.NodeInventoryNotFound, "Node inventory record for node %s could not be found.", nodeID)
		}
		return nil
	})
}

// GetNodeInventoryByNodeID returns a node's inventory
// (NodeInventoryNotFound).
func (s *Store) GetNodeInventoryByNodeID(ctx context.Context, nodeID int64) (*models.NodeInventory, error) {
	rows, err := selectWhere(ctx, s.db, s.t.inventory, "`node_inventory`.`node_id` = ? ORDER BY `node_inventory`.`id`", nodeID)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, notFound(ironic.NodeInventoryNotFound, "Node inventory record for node %s could not be found.", nodeID)
	}
	return &rows[0], nil
}

// ListShards returns every shard value with its node count, largest
// first; nodes without a shard count under the name "None", as Ironic's
// get_shard_list.
func (s *Store) ListShards(ctx context.Context) ([]models.Shard, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT COUNT(`id`), `shard` FROM `nodes` GROUP BY `shard` ORDER BY `shard`")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []models.Shard{}
	for rows.Next() {
		var n int64
		var shard sql.NullString
		if err := rows.Scan(&n, &shard); err != nil {
			return nil, err
		}
		name := "None"
		if shard.Valid {
			name = shard.String
		}
		out = append(out, models.Shard{Name: name, Count: n})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out, nil
}
