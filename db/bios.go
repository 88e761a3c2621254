package db

import (
	"context"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// CreateBIOSSettings inserts settings for a node (NodeID of each is set to
// nodeID). Errors: NodeNotFound, BIOSSettingAlreadyExists (naming, as
// Ironic does, the last setting of the batch).
func (s *Store) CreateBIOSSettings(ctx context.Context, nodeID int64, settings []models.BIOSSetting) ([]models.BIOSSetting, error) {
	out := make([]models.BIOSSetting, 0, len(settings))
	err := s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		now := models.NewTime(s.now())
		for _, st := range settings {
			r := st
			r.NodeID = nodeID
			r.Version = models.BIOSSettingVersion
			if !r.CreatedAt.Valid() {
				r.CreatedAt = now
			}
			r.UpdatedAt = models.Time{}
			nilLists(&r.AllowableValues)
			if err := insertRow(ctx, tx, s.t.bios, &r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if _, dup := uniqueViolation(err); dup && len(settings) > 0 {
		return nil, ironic.Errorf(ironic.BIOSSettingAlreadyExists, "A BIOS setting %s for node %d already exists.",
			settings[len(settings)-1].Name, nodeID)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// biosValues are the columns update_bios_setting_list rewrites.
func biosValues(st *models.BIOSSetting) Values {
	return Values{
		"value": st.Value, "attribute_type": st.AttributeType, "allowable_values": st.AllowableValues,
		"lower_bound": st.LowerBound, "max_length": st.MaxLength, "min_length": st.MinLength,
		"read_only": st.ReadOnly, "reset_required": st.ResetRequired, "unique": st.Unique,
		"upper_bound": st.UpperBound, "version": models.BIOSSettingVersion,
	}
}

// UpdateBIOSSettings rewrites the value and registry fields of existing
// settings. Errors: NodeNotFound, BIOSSettingNotFound.
func (s *Store) UpdateBIOSSettings(ctx context.Context, nodeID int64, settings []models.BIOSSetting) ([]models.BIOSSetting, error) {
	out := make([]models.BIOSSetting, 0, len(settings))
	err := s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		now := s.now()
		for i := range settings {
			st := &settings[i]
			const where = "`bios_settings`.`node_id` = ? AND `bios_settings`.`name` = ?"
			cur, ok, err := selectOne(ctx, tx, s.t.bios, where, s.forUpdate(), nodeID, st.Name)
			if err != nil {
				return err
			}
			if !ok {
				return ironic.Errorf(ironic.BIOSSettingNotFound, "Node %d doesn't have a BIOS setting '%s'", nodeID, st.Name)
			}
			if _, err := updateChanged(ctx, tx, s.t.bios, cur, biosValues(st), now, where, nodeID, st.Name); err != nil {
				return err
			}
			r, _, err := selectOne(ctx, tx, s.t.bios, where, "", nodeID, st.Name)
			if err != nil {
				return err
			}
			out = append(out, *r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteBIOSSettings deletes settings by name. Missing names give
// BIOSSettingListNotFound after the others are deleted (as Ironic, which
// commits first). Errors: NodeNotFound.
func (s *Store) DeleteBIOSSettings(ctx context.Context, nodeID int64, names []string) error {
	return s.write(ctx, func(tx *txn) error {
		if err := s.checkNodeExists(ctx, tx, nodeID); err != nil {
			return err
		}
		var missing []string
		for _, n := range names {
			r, err := tx.ExecContext(ctx, "DELETE FROM `bios_settings` WHERE `node_id` = ? AND `name` = ?", nodeID, n)
			if err != nil {
				return err
			}
			if c, err := r.RowsAffected(); err != nil {
				return err
			} else if c == 0 {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return &commitThenFail{ironic.Errorf(ironic.BIOSSettingListNotFound, "Node %d doesn't have BIOS settings '%s'",
				nodeID, strings.Join(missing, ","))}
		}
		return nil
	})
}

// GetBIOSSetting returns one setting. Errors: NodeNotFound,
// BIOSSettingNotFound.
func (s *Store) GetBIOSSetting(ctx context.Context, nodeID int64, name string) (*models.BIOSSetting, error) {
	if err := s.checkNodeExists(ctx, s.db, nodeID); err != nil {
		return nil, err
	}
	st, ok, err := selectOne(ctx, s.db, s.t.bios, "`bios_settings`.`node_id` = ? AND `bios_settings`.`name` = ?", "", nodeID, name)
	if err == nil && !ok {
		err = ironic.Errorf(ironic.BIOSSettingNotFound, "Node %d doesn't have a BIOS setting '%s'", nodeID, name)
	}
	return st, err
}

// ListBIOSSettings returns a node's settings, by name (NodeNotFound).
func (s *Store) ListBIOSSettings(ctx context.Context, nodeID int64) ([]models.BIOSSetting, error) {
	if err := s.checkNodeExists(ctx, s.db, nodeID); err != nil {
		return nil, err
	}
	return selectWhere(ctx, s.db, s.t.bios, "`bios_settings`.`node_id` = ? ORDER BY `bios_settings`.`name`", nodeID)
}
