package db

import (
	"context"
	"database/sql"
	"slices"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// MaxTraitsPerNode is Ironic's limit (placement's per resource provider).
const MaxTraitsPerNode = 50

func verifyMaxTraits(nodeID int64, n int) error {
	if n > MaxTraitsPerNode {
		return ironic.Errorf(ironic.InvalidParameterValue,
			"Could not modify traits for node %d as it would exceed the maximum number of traits per node (%d vs. %d)",
			nodeID, n, MaxTraitsPerNode)
	}
	return nil
}

// SetNodeTraits replaces the node's traits (duplicates removed) and
// returns the new rows, ordered by trait. Errors: InvalidParameterValue
// (more than 50), NodeNotFound.
func (s *Store) SetNodeTraits(ctx context.Context, nodeID int64, traits []string) ([]models.NodeTrait, error) {
	uniq := slices.Clone(traits)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	if err := verifyMaxTraits(nodeID, len(uniq)); err != nil {
		return nil, err
	}
	now := models.NewTime(s.now())
	out := make([]models.NodeTrait, 0, len(uniq))
	err := s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM `node_traits` WHERE `node_id` = ?", nodeID); err != nil {
			return err
		}
		for _, t := range uniq {
			r := models.NodeTrait{CreatedAt: now, Version: models.NodeTraitVersion, NodeID: nodeID, Trait: t}
			if err := insertRow(ctx, tx, s.t.traits, &r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UnsetNodeTraits removes all the node's traits (NodeNotFound).
func (s *Store) UnsetNodeTraits(ctx context.Context, nodeID int64) error {
	return s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM `node_traits` WHERE `node_id` = ?", nodeID)
		return err
	})
}

// GetNodeTraits returns the node's traits, ordered by trait
// (NodeNotFound).
func (s *Store) GetNodeTraits(ctx context.Context, nodeID int64) ([]models.NodeTrait, error) {
	if err := s.checkNodeExists(ctx, s.db, nodeID); err != nil {
		return nil, err
	}
	return selectWhere(ctx, s.db, s.t.traits, "`node_traits`.`node_id` = ? ORDER BY `node_traits`.`trait`", nodeID)
}

// AddNodeTrait adds one trait; adding an existing trait is not an error.
// Errors: NodeNotFound, InvalidParameterValue (would exceed 50).
func (s *Store) AddNodeTrait(ctx context.Context, nodeID int64, trait string) (*models.NodeTrait, error) {
	r := models.NodeTrait{CreatedAt: models.NewTime(s.now()), Version: models.NodeTraitVersion, NodeID: nodeID, Trait: trait}
	err := s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		if err := insertRow(ctx, tx, s.t.traits, &r); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM `node_traits` WHERE `node_id` = ?", nodeID).Scan(&n); err != nil {
			return err
		}
		return verifyMaxTraits(nodeID, n)
	})
	if _, dup := uniqueViolation(err); dup {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// DeleteNodeTrait removes one trait. Errors: NodeNotFound,
// NodeTraitNotFound.
func (s *Store) DeleteNodeTrait(ctx context.Context, nodeID int64, trait string) error {
	return s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, "DELETE FROM `node_traits` WHERE `node_id` = ? AND `trait` = ?", nodeID, trait)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ironic.Errorf(ironic.NodeTraitNotFound, "Node %d doesn't have a trait '%s'", nodeID, trait)
		}
		return nil
	})
}

// NodeTraitExists reports whether the node has the trait (NodeNotFound).
func (s *Store) NodeTraitExists(ctx context.Context, nodeID int64, trait string) (bool, error) {
	if err := s.checkNodeExists(ctx, s.db, nodeID); err != nil {
		return false, err
	}
	var one int
	err := s.db.QueryRowContext(ctx, "SELECT 1 FROM `node_traits` WHERE `node_id` = ? AND `trait` = ?", nodeID, trait).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}
