package db

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

// PortFilter selects ports (Ironic's get_port_list, get_ports_by_node_id,
// get_ports_by_portgroup_id, get_ports_by_shards). Zero fields do not
// filter.
type PortFilter struct {
	NodeID      *int64
	PortgroupID *int64
	Address     *string
	// Shards limits to ports of nodes in these shards (nil: no filter).
	Shards []string
	// Owner limits to ports of nodes owned by this project; it takes
	// precedence over Project, as in Ironic.
	Owner string
	// Project limits to ports of nodes whose owner or lessee it is.
	Project string
}

func portQuery(f PortFilter) query {
	q := query{from: "`ports`"}
	if f.NodeID != nil {
		q.add("`ports`.`node_id` = ?", *f.NodeID)
	}
	if f.PortgroupID != nil {
		q.add("`ports`.`portgroup_id` = ?", *f.PortgroupID)
	}
	if f.Address != nil {
		q.add("`ports`.`address` = ?", *f.Address)
	}
	if f.Shards != nil {
		if len(f.Shards) == 0 {
			q.add("1 = 0")
		} else {
			q.add("`ports`.`node_id` IN (SELECT `nodes`.`id` FROM `nodes` WHERE `nodes`.`shard` IN ("+placeholders(len(f.Shards))+"))",
				anySlice(f.Shards)...)
		}
	}
	switch {
	case f.Owner != "":
		q.from += " JOIN `nodes` ON `ports`.`node_id` = `nodes`.`id`"
		q.add("`nodes`.`owner` = ?", f.Owner)
	case f.Project != "":
		q.from += " JOIN `nodes` ON `ports`.`node_id` = `nodes`.`id`"
		q.add("(`nodes`.`owner` = ? OR `nodes`.`lessee` = ?)", f.Project, f.Project)
	}
	return q
}

// ListPorts returns a page of ports.
func (s *Store) ListPorts(ctx context.Context, f PortFilter, o ListOpts) ([]models.Port, error) {
	return listAll(ctx, s.db, s.t.ports, portQuery(f), o)
}

func (s *Store) getPort(ctx context.Context, q query, ident any) (*models.Port, error) {
	rows, err := listAll(ctx, s.db, s.t.ports, q, ListOpts{Limit: 2})
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, notFound(ironic.PortNotFound, "Port %s could not be found.", ident)
	}
	return &rows[0], nil
}

// GetPortByID returns a port by internal id (PortNotFound).
func (s *Store) GetPortByID(ctx context.Context, id int64) (*models.Port, error) {
	q := query{from: "`ports`"}
	q.add("`ports`.`id` = ?", id)
	return s.getPort(ctx, q, id)
}

// GetPortByUUID returns a port by UUID (PortNotFound).
func (s *Store) GetPortByUUID(ctx context.Context, uuid string) (*models.Port, error) {
	q := query{from: "`ports`"}
	q.add("`ports`.`uuid` = ?", uuid)
	return s.getPort(ctx, q, uuid)
}

// GetPortByName returns a port by name (PortNotFound).
func (s *Store) GetPortByName(ctx context.Context, name string) (*models.Port, error) {
	q := query{from: "`ports`"}
	q.add("`ports`.`name` = ?", name)
	return s.getPort(ctx, q, name)
}

// GetPortByAddress returns a port by MAC address, optionally only if its
// node is owned by owner, or else owned or leased by project
// (PortNotFound).
func (s *Store) GetPortByAddress(ctx context.Context, address, owner, project string) (*models.Port, error) {
	return s.getPort(ctx, portQuery(PortFilter{Address: &address, Owner: owner, Project: project}), address)
}

// CreatePort inserts a port (UUID generated when empty, pxe_enabled
// defaulting to true and is_smartnic to false when nil). Errors:
// MACAlreadyExists, PortAlreadyExists.
func (s *Store) CreatePort(ctx context.Context, p *models.Port) (*models.Port, error) {
	c := *p
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if c.PXEEnabled == nil {
		c.PXEEnabled = models.Ptr(true)
	}
	if c.IsSmartNIC == nil {
		c.IsSmartNIC = models.Ptr(false)
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.PortVersion
	nilDicts(&c.Extra, &c.LocalLinkConnection, &c.InternalInfo)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.ports, &c) })
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "address") {
			return nil, ironic.Errorf(ironic.MACAlreadyExists, "A port with MAC address %s already exists.", pyStr(c.Address))
		}
		return nil, ironic.Errorf(ironic.PortAlreadyExists, "A port with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// UpdatePort updates columns of a port (by id, UUID or address) and
// returns it. Errors: InvalidParameterValue (uuid), PortNotFound,
// PortDuplicateName, MACAlreadyExists.
func (s *Store) UpdatePort(ctx context.Context, ref Ref, values Values) (*models.Port, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Port.")
	}
	vals := withVersion(values, models.PortVersion)
	var out *models.Port
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("ports")
		cur, ok, err := selectOne(ctx, tx, s.t.ports, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.PortNotFound, "Port %s could not be found.", ref)
		}
		if _, err := updateChanged(ctx, tx, s.t.ports, cur, vals, s.now(), "`id` = ?", cur.ID); err != nil {
			return err
		}
		out, _, err = selectOne(ctx, tx, s.t.ports, "`ports`.`id` = ?", "", cur.ID)
		return err
	})
	if cols, dup := uniqueViolation(err); dup {
		if hasCol(cols, "name") {
			return nil, ironic.Errorf(ironic.PortDuplicateName, "A port with name %s already exists.", pyStr(values["name"]))
		}
		return nil, ironic.Errorf(ironic.MACAlreadyExists, "A port with MAC address %s already exists.", pyStr(values["address"]))
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyPort deletes a port (by id, UUID or address) (PortNotFound).
func (s *Store) DestroyPort(ctx context.Context, ref Ref) error {
	return s.deleteRef(ctx, "ports", ref, ironic.PortNotFound, "Port %s could not be found.")
}

// deleteRef deletes the row ref names, or reports class c.
func (s *Store) deleteRef(ctx context.Context, table string, ref Ref, c ironic.Class, msg string) error {
	return s.write(ctx, func(tx *txn) error {
		where, arg := ref.where(table)
		r, err := tx.ExecContext(ctx, "DELETE FROM "+quote(table)+" WHERE "+where, arg)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(c, msg, ref)
		}
		return nil
	})
}

// withVersion copies values, adding the object version unless given.
func withVersion(values Values, version string) Values {
	vals := make(Values, len(values)+2)
	for k, v := range values {
		vals[k] = v
	}
	if _, ok := vals["version"]; !ok && version != "" {
		vals["version"] = version
	}
	return vals
}
