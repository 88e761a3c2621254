package db

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// VolumeFilter selects volume connectors or targets. Nil/empty fields do
// not filter.
type VolumeFilter struct {
	NodeID *int64
	// VolumeID selects targets by volume_id (targets only).
	VolumeID *string
	// Project limits to the volumes of nodes whose owner or lessee it is.
	Project string
}

func volumeQuery(table string, f VolumeFilter) query {
	t := quote(table)
	q := query{from: t}
	if f.NodeID != nil {
		q.add(t+".`node_id` = ?", *f.NodeID)
	}
	if f.VolumeID != nil {
		q.add(t+".`volume_id` = ?", *f.VolumeID)
	}
	if f.Project != "" {
		q.from += " JOIN `nodes` ON " + t + ".`node_id` = `nodes`.`id`"
		q.add("(`nodes`.`owner` = ? OR `nodes`.`lessee` = ?)", f.Project, f.Project)
	}
	return q
}

// ListVolumeConnectors returns a page of volume connectors.
func (s *Store) ListVolumeConnectors(ctx context.Context, f VolumeFilter, o ListOpts) ([]models.VolumeConnector, error) {
	f.VolumeID = nil
	return listAll(ctx, s.db, s.t.vconns, volumeQuery("volume_connectors", f), o)
}

// GetVolumeConnector returns a connector by id or UUID
// (VolumeConnectorNotFound).
func (s *Store) GetVolumeConnector(ctx context.Context, ref Ref) (*models.VolumeConnector, error) {
	where, arg := ref.where("volume_connectors")
	c, ok, err := selectOne(ctx, s.db, s.t.vconns, where, "", arg)
	if err == nil && !ok {
		err = notFound(ironic.VolumeConnectorNotFound, "Volume connector %s could not be found.", ref)
	}
	return c, err
}

// CreateVolumeConnector inserts a connector (UUID generated when empty).
// Errors: VolumeConnectorTypeAndIdAlreadyExists,
// VolumeConnectorAlreadyExists.
func (s *Store) CreateVolumeConnector(ctx context.Context, vc *models.VolumeConnector) (*models.VolumeConnector, error) {
	c := *vc
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.VolumeConnectorVersion
	nilDicts(&c.Extra)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.vconns, &c) })
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "type") {
			return nil, ironic.Errorf(ironic.VolumeConnectorTypeAndIdAlreadyExists,
				"A volume connector with type %s and connector ID %s already exists.", pyStr(c.Type), pyStr(c.ConnectorID))
		}
		return nil, ironic.Errorf(ironic.VolumeConnectorAlreadyExists, "A volume connector with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// UpdateVolumeConnector updates columns of a connector. Errors:
// InvalidParameterValue (uuid), VolumeConnectorNotFound,
// VolumeConnectorTypeAndIdAlreadyExists.
func (s *Store) UpdateVolumeConnector(ctx context.Context, ref Ref, values Values) (*models.VolumeConnector, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Volume Connector.")
	}
	vals := withVersion(values, models.VolumeConnectorVersion)
	var out, orig *models.VolumeConnector
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("volume_connectors")
		cur, ok, err := selectOne(ctx, tx, s.t.vconns, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.VolumeConnectorNotFound, "Volume connector %s could not be found.", ref)
		}
		orig = cur
		if _, err := updateChanged(ctx, tx, s.t.vconns, cur, vals, s.now(), "`id` = ?", cur.ID); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.vconns, "`volume_connectors`.`id` = ?", "", cur.ID)
		return err
	})
	if _, dup := uniqueViolation(err); dup && orig != nil {
		typ, cid := pyStr(orig.Type), pyStr(orig.ConnectorID)
		if v, ok := values["type"]; ok {
			typ = pyStr(v)
		}
		if v, ok := values["connector_id"]; ok {
			cid = pyStr(v)
		}
		return nil, ironic.Errorf(ironic.VolumeConnectorTypeAndIdAlreadyExists,
			"A volume connector with type %s and connector ID %s already exists.", typ, cid)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyVolumeConnector deletes a connector (VolumeConnectorNotFound).
func (s *Store) DestroyVolumeConnector(ctx context.Context, ref Ref) error {
	return s.deleteRef(ctx, "volume_connectors", ref, ironic.VolumeConnectorNotFound, "Volume connector %s could not be found.")
}

// ListVolumeTargets returns a page of volume targets.
func (s *Store) ListVolumeTargets(ctx context.Context, f VolumeFilter, o ListOpts) ([]models.VolumeTarget, error) {
	return listAll(ctx, s.db, s.t.vtargets, volumeQuery("volume_targets", f), o)
}

// GetVolumeTarget returns a target by id or UUID (VolumeTargetNotFound).
func (s *Store) GetVolumeTarget(ctx context.Context, ref Ref) (*models.VolumeTarget, error) {
	where, arg := ref.where("volume_targets")
	t, ok, err := selectOne(ctx, s.db, s.t.vtargets, where, "", arg)
	if err == nil && !ok {
		err = notFound(ironic.VolumeTargetNotFound, "Volume target %s could not be found.", ref)
	}
	return t, err
}

// CreateVolumeTarget inserts a target (UUID generated when empty).
// Errors: VolumeTargetBootIndexAlreadyExists, VolumeTargetAlreadyExists.
func (s *Store) CreateVolumeTarget(ctx context.Context, vt *models.VolumeTarget) (*models.VolumeTarget, error) {
	c := *vt
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.VolumeTargetVersion
	nilDicts(&c.Extra, &c.Properties)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.vtargets, &c) })
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "boot_index") {
			return nil, ironic.Errorf(ironic.VolumeTargetBootIndexAlreadyExists,
				"A volume target with boot index '%s' for the same node already exists.", pyStr(c.BootIndex))
		}
		return nil, ironic.Errorf(ironic.VolumeTargetAlreadyExists, "A volume target with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// UpdateVolumeTarget updates columns of a target. Errors:
// InvalidParameterValue (uuid), VolumeTargetNotFound,
// VolumeTargetBootIndexAlreadyExists.
func (s *Store) UpdateVolumeTarget(ctx context.Context, ref Ref, values Values) (*models.VolumeTarget, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Volume Target.")
	}
	vals := withVersion(values, models.VolumeTargetVersion)
	var out, orig *models.VolumeTarget
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("volume_targets")
		cur, ok, err := selectOne(ctx, tx, s.t.vtargets, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.VolumeTargetNotFound, "Volume target %s could not be found.", ref)
		}
		orig = cur
		if _, err := updateChanged(ctx, tx, s.t.vtargets, cur, vals, s.now(), "`id` = ?", cur.ID); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.vtargets, "`volume_targets`.`id` = ?", "", cur.ID)
		return err
	})
	if _, dup := uniqueViolation(err); dup && orig != nil {
		bi := pyStr(orig.BootIndex)
		if v, ok := values["boot_index"]; ok {
			bi = pyStr(v)
		}
		return nil, ironic.Errorf(ironic.VolumeTargetBootIndexAlreadyExists,
			"A volume target with boot index '%s' for the same node already exists.", bi)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyVolumeTarget deletes a target (VolumeTargetNotFound).
func (s *Store) DestroyVolumeTarget(ctx context.Context, ref Ref) error {
	return s.deleteRef(ctx, "volume_targets", ref, ironic.VolumeTargetNotFound, "Volume target %s could not be found.")
}
