package db

import (
	"context"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// ListChassis returns a page of chassis.
func (s *Store) ListChassis(ctx context.Context, o ListOpts) ([]models.Chassis, error) {
	return listAll(ctx, s.db, s.t.chassis, query{}, o)
}

// GetChassisByID returns a chassis by internal id (ChassisNotFound).
func (s *Store) GetChassisByID(ctx context.Context, id int64) (*models.Chassis, error) {
	return s.GetChassis(ctx, ByID(id))
}

// GetChassisByUUID returns a chassis by UUID (ChassisNotFound).
func (s *Store) GetChassisByUUID(ctx context.Context, uuid string) (*models.Chassis, error) {
	return s.GetChassis(ctx, ByUUID(uuid))
}

// GetChassis returns a chassis by id or UUID (ChassisNotFound).
func (s *Store) GetChassis(ctx context.Context, ref Ref) (*models.Chassis, error) {
	where, arg := ref.where("chassis")
	c, ok, err := selectOne(ctx, s.db, s.t.chassis, where, "", arg)
	if err == nil && !ok {
		err = notFound(ironic.ChassisNotFound, "Chassis %s could not be found.", ref)
	}
	return c, err
}

// CreateChassis inserts a chassis (UUID generated when empty)
// (ChassisAlreadyExists).
func (s *Store) CreateChassis(ctx context.Context, ch *models.Chassis) (*models.Chassis, error) {
	c := *ch
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.ChassisVersion
	nilDicts(&c.Extra)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.chassis, &c) })
	if _, dup := uniqueViolation(err); dup {
		return nil, ironic.Errorf(ironic.ChassisAlreadyExists, "A chassis with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// UpdateChassis updates columns of a chassis. Errors:
// InvalidParameterValue (uuid), ChassisNotFound.
func (s *Store) UpdateChassis(ctx context.Context, ref Ref, values Values) (*models.Chassis, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Chassis.")
	}
	vals := withVersion(values, models.ChassisVersion)
	var out *models.Chassis
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("chassis")
		cur, ok, err := selectOne(ctx, tx, s.t.chassis, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.ChassisNotFound, "Chassis %s could not be found.", ref)
		}
		// Ironic's update_chassis is a bulk UPDATE: updated_at is always set.
		sets, args, err := changes(s.t.chassis, cur, vals)
		if err != nil {
			return err
		}
		if _, given := vals["updated_at"]; !given {
			sets = append(sets, "`updated_at` = ?")
			args = append(args, s.timeArg(s.now()))
		}
		args = append(args, cur.ID)
		if _, err := tx.ExecContext(ctx, "UPDATE `chassis` SET "+strings.Join(sets, ", ")+" WHERE `id` = ?", args...); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.chassis, "`chassis`.`id` = ?", "", cur.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyChassis deletes a chassis that has no nodes. Errors:
// ChassisNotEmpty, ChassisNotFound.
func (s *Store) DestroyChassis(ctx context.Context, ref Ref) error {
	return s.write(ctx, func(tx *txn) error {
		var n int64
		var err error
		if ref.UUID != "" {
			err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM `nodes` JOIN `chassis` ON `nodes`.`chassis_id` = `chassis`.`id` WHERE `chassis`.`uuid` = ?", ref.UUID).Scan(&n)
		} else {
			err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM `nodes` WHERE `chassis_id` = ?", ref.ID).Scan(&n)
		}
		if err != nil {
			return err
		}
		if n != 0 {
			return ironic.Errorf(ironic.ChassisNotEmpty, "Cannot complete the requested action because chassis %s contains nodes.", ref)
		}
		where, arg := ref.where("chassis")
		r, err := tx.ExecContext(ctx, "DELETE FROM `chassis` WHERE "+where, arg)
		if err != nil {
			return err
		}
		if c, err := r.RowsAffected(); err != nil {
			return err
		} else if c != 1 {
			return notFound(ironic.ChassisNotFound, "Chassis %s could not be found.", ref)
		}
		return nil
	})
}
