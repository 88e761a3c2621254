package db

import (
	"context"
	"database/sql"

	"github.com/goironic/ironic/db/models"
)

// versionedTable is a table whose rows carry an object version, in the
// order Ironic's update_to_latest_versions visits them.
type versionedTable struct {
	name, version, key string
}

func versionedTables() []versionedTable {
	return []versionedTable{
		{"chassis", models.ChassisVersion, "id"},
		{"conductors", models.ConductorVersion, "id"},
		{"ports", models.PortVersion, "id"},
		{"portgroups", models.PortgroupVersion, "id"},
		{"volume_connectors", models.VolumeConnectorVersion, "id"},
		{"volume_targets", models.VolumeTargetVersion, "id"},
		{"bios_settings", models.BIOSSettingVersion, "node_id"},
		{"allocations", models.AllocationVersion, "id"},
		{"deploy_templates", models.DeployTemplateVersion, "id"},
		{"node_history", models.NodeHistoryVersion, "id"},
		{"node_inventory", models.NodeInventoryVersion, "id"},
		{"nodes", models.NodeVersion, "id"},
	}
}

// UpdateToLatestVersions stamps rows whose version is not this release's
// with it (ironic-dbsync online_data_migrations), at most maxCount rows
// (0: all). It returns how many rows needed it and how many were updated.
func (s *Store) UpdateToLatestVersions(ctx context.Context, maxCount int64) (total, migrated int64, err error) {
	for _, t := range versionedTables() {
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quote(t.name)+" WHERE `version` != ?", t.version).Scan(&n); err != nil {
			return 0, 0, err
		}
		total += n
	}
	if total == 0 {
		return 0, 0, nil
	}
	left := maxCount
	if left <= 0 {
		left = total
	}
	now := s.timeArg(s.now())
	for _, t := range versionedTables() {
		var done int64
		err := s.write(ctx, func(tx *txn) error {
			var n int64
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quote(t.name)+" WHERE `version` != ?", t.version).Scan(&n); err != nil {
				return err
			}
			var r sql.Result
			var err error
			if left < n {
				ids, err := int64Column(ctx, tx, "SELECT "+quote(t.key)+" FROM "+quote(t.name)+" WHERE `version` != ? LIMIT ?", t.version, left)
				if err != nil {
					return err
				}
				if len(ids) == 0 {
					return nil
				}
				r, err = tx.ExecContext(ctx, "UPDATE "+quote(t.name)+" SET `version` = ?, `updated_at` = ? WHERE "+quote(t.key)+
					" IN ("+placeholders(len(ids))+") AND `version` != ?",
					append(append([]any{t.version, now}, anySlice(ids)...), t.version)...)
				if err != nil {
					return err
				}
			} else {
				r, err = tx.ExecContext(ctx, "UPDATE "+quote(t.name)+" SET `version` = ?, `updated_at` = ? WHERE `version` != ?", t.version, now, t.version)
				if err != nil {
					return err
				}
			}
			done, err = r.RowsAffected()
			return err
		})
		if err != nil {
			return total, migrated, err
		}
		migrated += done
		left -= done
		if left <= 0 {
			break
		}
	}
	return total, migrated, nil
}

func int64Column(ctx context.Context, db querier, q string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
