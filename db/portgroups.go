package db

import (
	"context"
	"database/sql"
	"errors"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// PortgroupFilter selects portgroups (get_portgroup_list,
// get_portgroups_by_node_id). Zero fields do not filter.
type PortgroupFilter struct {
	NodeID  *int64
	Address *string
	Name    *string
	// Project limits to portgroups of nodes whose owner or lessee it is.
	Project string
}

func portgroupQuery(f PortgroupFilter) query {
	q := query{from: "`portgroups`"}
	if f.NodeID != nil {
		q.add("`portgroups`.`node_id` = ?", *f.NodeID)
	}
	if f.Address != nil {
		q.add("`portgroups`.`address` = ?", *f.Address)
	}
	if f.Name != nil {
		q.add("`portgroups`.`name` = ?", *f.Name)
	}
	if f.Project != "" {
		q.from += " JOIN `nodes` ON `portgroups`.`node_id` = `nodes`.`id`"
		q.add("(`nodes`.`owner` = ? OR `nodes`.`lessee` = ?)", f.Project, f.Project)
	}
	return q
}

// ListPortgroups returns a page of portgroups.
func (s *Store) ListPortgroups(ctx context.Context, f PortgroupFilter, o ListOpts) ([]models.Portgroup, error) {
	return listAll(ctx, s.db, s.t.portgroups, portgroupQuery(f), o)
}

func (s *Store) getPortgroup(ctx context.Context, q query, ident any) (*models.Portgroup, error) {
	rows, err := listAll(ctx, s.db, s.t.portgroups, q, ListOpts{Limit: 2})
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, notFound(ironic.PortgroupNotFound, "Portgroup %s could not be found.", ident)
	}
	return &rows[0], nil
}

// GetPortgroupByID returns a portgroup by internal id, optionally only
// among the nodes of project (PortgroupNotFound).
func (s *Store) GetPortgroupByID(ctx context.Context, id int64, project string) (*models.Portgroup, error) {
	q := portgroupQuery(PortgroupFilter{Project: project})
	q.add("`portgroups`.`id` = ?", id)
	return s.getPortgroup(ctx, q, id)
}

// GetPortgroupByUUID returns a portgroup by UUID (PortgroupNotFound).
func (s *Store) GetPortgroupByUUID(ctx context.Context, uuid string) (*models.Portgroup, error) {
	q := query{from: "`portgroups`"}
	q.add("`portgroups`.`uuid` = ?", uuid)
	return s.getPortgroup(ctx, q, uuid)
}

// GetPortgroupByAddress returns a portgroup by MAC address, optionally
// only among the nodes of project (PortgroupNotFound).
func (s *Store) GetPortgroupByAddress(ctx context.Context, address, project string) (*models.Portgroup, error) {
	return s.getPortgroup(ctx, portgroupQuery(PortgroupFilter{Address: &address, Project: project}), address)
}

// GetPortgroupByName returns a portgroup by name (PortgroupNotFound).
func (s *Store) GetPortgroupByName(ctx context.Context, name string) (*models.Portgroup, error) {
	return s.getPortgroup(ctx, portgroupQuery(PortgroupFilter{Name: &name}), name)
}

// CreatePortgroup inserts a portgroup (UUID generated when empty, mode
// defaulting to the configured default, standalone_ports_supported to
// true). Errors: PortgroupDuplicateName, PortgroupMACAlreadyExists,
// PortgroupAlreadyExists.
func (s *Store) CreatePortgroup(ctx context.Context, p *models.Portgroup) (*models.Portgroup, error) {
	c := *p
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if c.Mode == nil || *c.Mode == "" {
		c.Mode = models.Ptr(s.defaultPortgroupMode)
	}
	if c.StandalonePortsSupported == nil {
		c.StandalonePortsSupported = models.Ptr(true)
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.PortgroupVersion
	nilDicts(&c.Extra, &c.InternalInfo, &c.Properties)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.portgroups, &c) })
	if cols, dup := uniqueViolation(err); dup {
		switch {
		case hasCol(cols, "name"):
			return nil, ironic.Errorf(ironic.PortgroupDuplicateName, "A portgroup with name %s already exists.", pyStr(c.Name))
		case hasCol(cols, "address"):
			return nil, ironic.Errorf(ironic.PortgroupMACAlreadyExists, "A portgroup with MAC address %s already exists.", pyStr(c.Address))
		}
		return nil, ironic.Errorf(ironic.PortgroupAlreadyExists, "A portgroup with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// UpdatePortgroup updates columns of a portgroup (by id, UUID or address).
// Errors: InvalidParameterValue (uuid), PortgroupNotFound,
// PortgroupDuplicateName, PortgroupMACAlreadyExists.
func (s *Store) UpdatePortgroup(ctx context.Context, ref Ref, values Values) (*models.Portgroup, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing portgroup.")
	}
	vals := withVersion(values, models.PortgroupVersion)
	var out *models.Portgroup
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("portgroups")
		cur, ok, err := selectOne(ctx, tx, s.t.portgroups, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.PortgroupNotFound, "Portgroup %s could not be found.", ref)
		}
		if _, err := updateChanged(ctx, tx, s.t.portgroups, cur, vals, s.now(), "`id` = ?", cur.ID); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.portgroups, "`portgroups`.`id` = ?", "", cur.ID)
		return err
	})
	if cols, dup := uniqueViolation(err); dup {
		switch {
		case hasCol(cols, "name"):
			return nil, ironic.Errorf(ironic.PortgroupDuplicateName, "A portgroup with name %s already exists.", pyStr(values["name"]))
		case hasCol(cols, "address"):
			return nil, ironic.Errorf(ironic.PortgroupMACAlreadyExists, "A portgroup with MAC address %s already exists.", pyStr(values["address"]))
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyPortgroup deletes a portgroup (by id or UUID) that has no ports.
// Errors: PortgroupNotEmpty, PortgroupNotFound.
func (s *Store) DestroyPortgroup(ctx context.Context, ref Ref) error {
	return s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("portgroups")
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT `id` FROM `portgroups` WHERE "+where+s.forUpdate(), arg).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(ironic.PortgroupNotFound, "Portgroup %s could not be found.", ref)
		}
		if err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(`id`) FROM `ports` WHERE `portgroup_id` = ?", id).Scan(&n); err != nil {
			return err
		}
		if n != 0 {
			return ironic.Errorf(ironic.PortgroupNotEmpty,
				"Cannot complete the requested action because portgroup %s contains ports.", ref)
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM `portgroups` WHERE `id` = ?", id)
		return err
	})
}
