package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// RegisterConductor registers a conductor service (hostname, drivers,
// conductor_group from c) and marks it online with a fresh heartbeat, as
// Ironic's register_conductor. An existing row is reused when it is
// offline or updateExisting is set; otherwise
// ConductorAlreadyRegistered.
func (s *Store) RegisterConductor(ctx context.Context, c *models.Conductor, updateExisting bool) (*models.Conductor, error) {
	var out *models.Conductor
	err := s.write(ctx, func(tx *txn) error {
		now := models.NewTime(s.now())
		cur, ok, err := selectOne(ctx, tx, s.t.conductors, "`conductors`.`hostname` = ?", s.forUpdate(), c.Hostname)
		if err != nil {
			return err
		}
		drivers := c.Drivers
		if drivers == nil {
			drivers = models.JSONList{}
		}
		if !ok {
			r := models.Conductor{
				CreatedAt: now, UpdatedAt: now, Version: models.ConductorVersion,
				Hostname: c.Hostname, Drivers: drivers, Online: true, ConductorGroup: c.ConductorGroup,
			}
			if err := insertRow(ctx, tx, s.t.conductors, &r); err != nil {
				return err
			}
			out = &r
			return nil
		}
		if cur.Online && !updateExisting {
			return ironic.Errorf(ironic.ConductorAlreadyRegistered, "Conductor %s already registered.", c.Hostname)
		}
		vals := Values{
			"drivers": drivers, "conductor_group": c.ConductorGroup, "version": models.ConductorVersion,
			"online": true, "updated_at": now,
		}
		if _, err := updateChanged(ctx, tx, s.t.conductors, cur, vals, now.Time, "`id` = ?", cur.ID); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.conductors, "`conductors`.`id` = ?", "", cur.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListConductors returns a page of conductors.
func (s *Store) ListConductors(ctx context.Context, o ListOpts) ([]models.Conductor, error) {
	return listAll(ctx, s.db, s.t.conductors, query{}, o)
}

// GetConductor returns a conductor by hostname; with onlineOnly, only if
// it is marked online (Ironic's default). ConductorNotFound otherwise.
func (s *Store) GetConductor(ctx context.Context, hostname string, onlineOnly bool) (*models.Conductor, error) {
	where := "`conductors`.`hostname` = ?"
	if onlineOnly {
		where += " AND `conductors`.`online` = 1"
	}
	c, ok, err := selectOne(ctx, s.db, s.t.conductors, where, "", hostname)
	if err == nil && !ok {
		err = notFound(ironic.ConductorNotFound, "Conductor %s could not be found.", hostname)
	}
	return c, err
}

// GetConductorByID returns a conductor by internal id (ConductorNotFound).
func (s *Store) GetConductorByID(ctx context.Context, id int64) (*models.Conductor, error) {
	c, ok, err := selectOne(ctx, s.db, s.t.conductors, "`conductors`.`id` = ?", "", id)
	if err == nil && !ok {
		err = notFound(ironic.ConductorNotFound, "Conductor %s could not be found.", id)
	}
	return c, err
}

// UnregisterConductor marks an online conductor offline
// (ConductorNotFound when there is none).
func (s *Store) UnregisterConductor(ctx context.Context, hostname string) error {
	return s.write(ctx, func(tx *txn) error {
		r, err := tx.ExecContext(ctx, "UPDATE `conductors` SET `online` = 0, `updated_at` = ? WHERE `hostname` = ? AND `online` = 1",
			s.timeArg(s.now()), hostname)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(ironic.ConductorNotFound, "Conductor %s could not be found.", hostname)
		}
		return nil
	})
}

// TouchConductor records a heartbeat: updated_at = now, online
// (ConductorNotFound).
func (s *Store) TouchConductor(ctx context.Context, hostname string) error {
	return s.write(ctx, func(tx *txn) error {
		r, err := tx.ExecContext(ctx, "UPDATE `conductors` SET `updated_at` = ?, `online` = 1 WHERE `hostname` = ?", s.timeArg(s.now()), hostname)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(ironic.ConductorNotFound, "Conductor %s could not be found.", hostname)
		}
		return nil
	})
}

// aliveSince is the oldest heartbeat of a live conductor.
func (s *Store) aliveSince(heartbeatTimeout time.Duration) string {
	return s.timeArg(s.now().Add(-heartbeatTimeout))
}

// GetActiveHardwareTypeDict maps each hardware type (or, with useGroups,
// "<conductor_group>:<hardware type>") to the sorted hostnames of the live
// conductors that support it. A conductor is live when online and its
// heartbeat is newer than heartbeatTimeout.
func (s *Store) GetActiveHardwareTypeDict(ctx context.Context, useGroups bool, heartbeatTimeout time.Duration) (map[string][]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT `h`.`hardware_type`, `c`.`conductor_group`, `c`.`hostname` "+
		"FROM `conductor_hardware_interfaces` `h` JOIN `conductors` `c` ON `h`.`conductor_id` = `c`.`id` "+
		"WHERE `c`.`online` = 1 AND `c`.`updated_at` >= ?", s.aliveSince(heartbeatTimeout))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var hw, group, host string
		if err := rows.Scan(&hw, &group, &host); err != nil {
			return nil, err
		}
		key := hw
		if useGroups {
			key = group + ":" + hw
		}
		if !slices.Contains(out[key], host) {
			out[key] = append(out[key], host)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out, nil
}

// GetOfflineConductors returns the conductors whose heartbeat is older
// than heartbeatTimeout (whatever their online flag, as Ironic).
func (s *Store) GetOfflineConductors(ctx context.Context, heartbeatTimeout time.Duration) ([]models.Conductor, error) {
	return selectWhere(ctx, s.db, s.t.conductors, "`conductors`.`updated_at` < ? ORDER BY `conductors`.`id`", s.aliveSince(heartbeatTimeout))
}

// GetOnlineConductors returns the hostnames of the live conductors.
func (s *Store) GetOnlineConductors(ctx context.Context, heartbeatTimeout time.Duration) ([]string, error) {
	return stringColumn(ctx, s.db, "SELECT `hostname` FROM `conductors` WHERE `online` = 1 AND `updated_at` >= ? ORDER BY `id`",
		s.aliveSince(heartbeatTimeout))
}

// ListConductorHardwareInterfaces returns the interfaces a conductor
// registered, by id.
func (s *Store) ListConductorHardwareInterfaces(ctx context.Context, conductorID int64) ([]models.ConductorHardwareInterface, error) {
	return selectWhere(ctx, s.db, s.t.hwIfaces, "`conductor_hardware_interfaces`.`conductor_id` = ? ORDER BY `conductor_hardware_interfaces`.`id`", conductorID)
}

// ListHardwareTypeInterfaces returns the interfaces registered for the
// hardware types by live conductors.
func (s *Store) ListHardwareTypeInterfaces(ctx context.Context, hardwareTypes []string, heartbeatTimeout time.Duration) ([]models.ConductorHardwareInterface, error) {
	if len(hardwareTypes) == 0 {
		return []models.ConductorHardwareInterface{}, nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+s.t.hwIfaces.selects+" FROM `conductor_hardware_interfaces` "+
		"JOIN `conductors` ON `conductor_hardware_interfaces`.`conductor_id` = `conductors`.`id` "+
		"WHERE `conductor_hardware_interfaces`.`hardware_type` IN ("+placeholders(len(hardwareTypes))+") "+
		"AND `conductors`.`online` = 1 AND `conductors`.`updated_at` >= ? ORDER BY `conductor_hardware_interfaces`.`id`",
		append(anySlice(hardwareTypes), s.aliveSince(heartbeatTimeout))...)
	if err != nil {
		return nil, err
	}
	return scanAll(rows, s.t.hwIfaces.cols, 0)
}

// RegisterConductorHardwareInterfaces records the interfaces a conductor
// supports (ConductorHardwareInterfacesAlreadyRegistered on duplicates).
// ConductorID of each row is set to conductorID.
func (s *Store) RegisterConductorHardwareInterfaces(ctx context.Context, conductorID int64, ifaces []models.ConductorHardwareInterface) error {
	var row models.ConductorHardwareInterface
	err := s.write(ctx, func(tx *txn) error {
		now := models.NewTime(s.now())
		for _, i := range ifaces {
			row = i
			row.ID = 0
			row.ConductorID = conductorID
			if !row.CreatedAt.Valid() {
				row.CreatedAt = now
			}
			if err := insertRow(ctx, tx, s.t.hwIfaces, &row); err != nil {
				return err
			}
		}
		return nil
	})
	if _, dup := uniqueViolation(err); dup {
		return ironic.Errorf(ironic.ConductorHardwareInterfacesAlreadyRegistered,
			"Duplication detected for hardware_type, interface_type and interface combinations for this conductor while registering the row %s",
			fmt.Sprintf("{'conductor_id': %d, 'hardware_type': %s, 'interface_type': %s, 'interface_name': %s, 'default': %s}",
				conductorID, pyRepr(row.HardwareType), pyRepr(row.InterfaceType), pyRepr(row.InterfaceName), pyBool(row.Default)))
	}
	return err
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// UnregisterConductorHardwareInterfaces deletes a conductor's interfaces.
func (s *Store) UnregisterConductorHardwareInterfaces(ctx context.Context, conductorID int64) error {
	return s.write(ctx, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM `conductor_hardware_interfaces` WHERE `conductor_id` = ?", conductorID)
		return err
	})
}
