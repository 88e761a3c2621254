package db

import (
	"context"
	"database/sql"
	"errors"
	"maps"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// AllocationFilter selects allocations (get_allocation_list filters).
// Nil fields do not filter.
type AllocationFilter struct {
	State         *states.Allocation
	ResourceClass *string
	Owner         *string
	// NodeID or NodeUUID: the allocation's node.
	NodeID   *int64
	NodeUUID *string
	// ConductorID or ConductorHostname: the conductor_affinity.
	ConductorID       *int64
	ConductorHostname *string
}

func allocationQuery(f AllocationFilter) query {
	q := query{from: "`allocations`"}
	if f.State != nil {
		q.add("`allocations`.`state` = ?", string(*f.State))
	}
	if f.ResourceClass != nil {
		q.add("`allocations`.`resource_class` = ?", *f.ResourceClass)
	}
	if f.Owner != nil {
		q.add("`allocations`.`owner` = ?", *f.Owner)
	}
	if f.NodeID != nil {
		q.add("`allocations`.`node_id` = ?", *f.NodeID)
	}
	if f.NodeUUID != nil {
		q.from += " JOIN `nodes` ON `allocations`.`node_id` = `nodes`.`id`"
		q.add("`nodes`.`uuid` = ?", *f.NodeUUID)
	}
	if f.ConductorID != nil {
		q.add("`allocations`.`conductor_affinity` = ?", *f.ConductorID)
	}
	if f.ConductorHostname != nil {
		q.from += " JOIN `conductors` ON `allocations`.`conductor_affinity` = `conductors`.`id`"
		q.add("`conductors`.`hostname` = ?", *f.ConductorHostname)
	}
	return q
}

// ListAllocations returns a page of allocations.
func (s *Store) ListAllocations(ctx context.Context, f AllocationFilter, o ListOpts) ([]models.Allocation, error) {
	return listAll(ctx, s.db, s.t.allocations, allocationQuery(f), o)
}

func (s *Store) getAllocation(ctx context.Context, where string, arg any, ident any) (*models.Allocation, error) {
	a, ok, err := selectOne(ctx, s.db, s.t.allocations, where, "", arg)
	if err == nil && !ok {
		err = notFound(ironic.AllocationNotFound, "Allocation %s could not be found.", ident)
	}
	return a, err
}

// GetAllocationByID returns an allocation by id (AllocationNotFound).
func (s *Store) GetAllocationByID(ctx context.Context, id int64) (*models.Allocation, error) {
	return s.getAllocation(ctx, "`allocations`.`id` = ?", id, id)
}

// GetAllocationByUUID returns an allocation by UUID (AllocationNotFound).
func (s *Store) GetAllocationByUUID(ctx context.Context, uuid string) (*models.Allocation, error) {
	return s.getAllocation(ctx, "`allocations`.`uuid` = ?", uuid, uuid)
}

// GetAllocationByName returns an allocation by name (AllocationNotFound).
func (s *Store) GetAllocationByName(ctx context.Context, name string) (*models.Allocation, error) {
	return s.getAllocation(ctx, "`allocations`.`name` = ?", name, name)
}

// CreateAllocation inserts an allocation (UUID generated when empty,
// state "allocating" when empty). Errors: AllocationDuplicateName,
// AllocationAlreadyExists.
func (s *Store) CreateAllocation(ctx context.Context, a *models.Allocation) (*models.Allocation, error) {
	c := *a
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if c.State == "" {
		c.State = states.Allocating
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.AllocationVersion
	nilDicts(&c.Extra)
	nilLists(&c.Traits, &c.CandidateNodes)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.allocations, &c) })
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "name") {
			return nil, ironic.Errorf(ironic.AllocationDuplicateName, "An allocation with name %s already exists.", pyStr(c.Name))
		}
		return nil, ironic.Errorf(ironic.AllocationAlreadyExists, "An allocation with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func nilLists(ls ...*models.JSONList) {
	for _, l := range ls {
		if *l == nil {
			*l = models.JSONList{}
		}
	}
}

// UpdateAllocation updates columns of an allocation, as Ironic's
// update_allocation. When values set a node_id and updateNode is true the
// node is bound to the allocation in the same transaction: its
// allocation_id and instance_uuid (= the allocation UUID) are set and the
// allocation's traits copied to instance_info["traits"]. Errors:
// InvalidParameterValue (uuid), AllocationNotFound,
// AllocationDuplicateName, NodeAssociated (the node has another
// instance), InstanceAssociated.
func (s *Store) UpdateAllocation(ctx context.Context, ref Ref, values Values, updateNode bool) (*models.Allocation, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing allocation.")
	}
	vals := withVersion(values, models.AllocationVersion)
	var out *models.Allocation
	var instanceUUID, nodeUUID string
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("allocations")
		cur, ok, err := selectOne(ctx, tx, s.t.allocations, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.AllocationNotFound, "Allocation %s could not be found.", ref)
		}
		now := s.now()
		if _, err := updateChanged(ctx, tx, s.t.allocations, cur, vals, now, "`id` = ?", cur.ID); err != nil {
			return err
		}
		a, _, err := selectOne(ctx, tx, s.t.allocations, "`allocations`.`id` = ?", "", cur.ID)
		if err != nil {
			return err
		}
		instanceUUID = a.UUID
		if nid, set := values["node_id"]; set && nid != nil && updateNode && a.NodeID != nil && *a.NodeID != 0 {
			node, ok, err := selectOne(ctx, tx, s.t.nodes, "`nodes`.`id` = ?", s.forUpdate(), *a.NodeID)
			if err != nil {
				return err
			}
			if !ok {
				return notFound(ironic.AllocationNotFound, "Allocation %s could not be found.", ref)
			}
			nodeUUID = node.UUID
			if node.InstanceUUID != nil && *node.InstanceUUID != "" && *node.InstanceUUID != a.UUID {
				return ironic.Errorf(ironic.NodeAssociated, "Node %s is associated with instance %s.", node.UUID, *node.InstanceUUID)
			}
			iinfo := maps.Clone(map[string]any(node.InstanceInfo))
			if iinfo == nil {
				iinfo = map[string]any{}
			}
			traits := []any(a.Traits)
			if traits == nil {
				traits = []any{}
			}
			iinfo["traits"] = traits
			if _, err := updateChanged(ctx, tx, s.t.nodes, node, Values{
				"allocation_id": a.ID, "instance_uuid": a.UUID, "instance_info": iinfo,
			}, now, "`id` = ?", node.ID); err != nil {
				return err
			}
		}
		out = a
		return nil
	})
	if cols, dup := uniqueViolation(err); dup {
		switch {
		case hasCol(cols, "name"):
			return nil, ironic.Errorf(ironic.AllocationDuplicateName, "An allocation with name %s already exists.", pyStr(values["name"]))
		case hasCol(cols, "instance_uuid"):
			return nil, ironic.Errorf(ironic.InstanceAssociated,
				"Instance %s is already associated with a node, it cannot be associated with this other node %s",
				instanceUUID, nodeUUID)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TakeOverAllocation moves an allocation to newConductorID if its
// conductor_affinity is still oldConductorID; false when another
// conductor was faster (AllocationNotFound).
func (s *Store) TakeOverAllocation(ctx context.Context, allocationID, oldConductorID, newConductorID int64) (bool, error) {
	var taken bool
	err := s.write(ctx, func(tx *txn) error {
		cur, ok, err := selectOne(ctx, tx, s.t.allocations, "`allocations`.`id` = ?", s.forUpdate(), allocationID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.AllocationNotFound, "Allocation %s could not be found.", allocationID)
		}
		if cur.ConductorAffinity == nil || *cur.ConductorAffinity != oldConductorID {
			return nil
		}
		taken = true
		_, err = updateChanged(ctx, tx, s.t.allocations, cur, Values{"conductor_affinity": newConductorID}, s.now(), "`id` = ?", cur.ID)
		return err
	})
	return taken, err
}

// DestroyAllocation deletes an allocation, unbinding the nodes that point
// to it (allocation_id and instance_uuid cleared) (AllocationNotFound).
func (s *Store) DestroyAllocation(ctx context.Context, ref Ref) error {
	return s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("allocations")
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT `id` FROM `allocations` WHERE "+where+s.forUpdate(), arg).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(ironic.AllocationNotFound, "Allocation %s could not be found.", ref)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE `nodes` SET `allocation_id` = NULL, `instance_uuid` = NULL, `updated_at` = ? WHERE `allocation_id` = ?",
			s.timeArg(s.now()), id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM `allocations` WHERE `id` = ?", id)
		return err
	})
}
