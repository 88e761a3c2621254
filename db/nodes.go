package db

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// NodeFilter selects nodes like the filters of Ironic's get_node_list. A
// nil pointer or nil slice means "no filter"; a non-nil empty slice
// matches nothing (SQL IN ()).
type NodeFilter struct {
	// Associated: instance_uuid IS NOT NULL (true) / IS NULL (false).
	Associated *bool
	// Reserved: reservation IS NOT NULL / IS NULL.
	Reserved *bool
	// WithPowerState: power_state IS NOT NULL / IS NULL.
	WithPowerState *bool
	// Sharded: shard IS NOT NULL / IS NULL.
	Sharded *bool

	ConsoleEnabled *bool
	Maintenance    *bool
	Retired        *bool
	Driver         *string
	ResourceClass  *string
	ProvisionState *states.Provision
	UUID           *string
	ID             *int64
	Fault          *states.Fault
	ConductorGroup *string
	Owner          *string
	Lessee         *string
	InstanceUUID   *string

	UUIDIn           []string
	ProvisionStateIn []states.Provision
	ShardIn          []string

	// ChassisUUID limits to the nodes of a chassis, which must exist
	// (ChassisNotFound otherwise).
	ChassisUUID *string
	// ChassisID limits to the nodes of a chassis by internal id.
	ChassisID *int64
	// ReservedByAnyOf: reservation IN (...).
	ReservedByAnyOf []string
	// ProvisionedBefore: provision_updated_at < now - d.
	ProvisionedBefore *time.Duration
	// InspectionStartedBefore: inspection_started_at < now - d.
	InspectionStartedBefore *time.Duration
	// DescriptionContains: description LIKE '%<value>%' (not escaped, as
	// in Ironic).
	DescriptionContains *string
	// Project: owner = p OR lessee = p.
	Project *string
}

// nodeQuery turns f into SQL conditions on nodes.
func (s *Store) nodeQuery(ctx context.Context, f NodeFilter) (query, error) {
	q := query{from: "`nodes`"}
	nn := func(col string, v *bool) {
		if v == nil {
			return
		}
		if *v {
			q.add("`nodes`." + quote(col) + " IS NOT NULL")
		} else {
			q.add("`nodes`." + quote(col) + " IS NULL")
		}
	}
	nn("instance_uuid", f.Associated)
	nn("reservation", f.Reserved)
	nn("power_state", f.WithPowerState)
	nn("shard", f.Sharded)
	eqb := func(col string, v *bool) {
		if v != nil {
			q.add("`nodes`."+quote(col)+" = ?", boolInt(*v))
		}
	}
	eqb("console_enabled", f.ConsoleEnabled)
	eqb("maintenance", f.Maintenance)
	eqb("retired", f.Retired)
	eqs := func(col string, v *string) {
		if v != nil {
			q.add("`nodes`."+quote(col)+" = ?", *v)
		}
	}
	eqs("driver", f.Driver)
	eqs("resource_class", f.ResourceClass)
	eqs("provision_state", (*string)(f.ProvisionState))
	eqs("uuid", f.UUID)
	eqs("fault", (*string)(f.Fault))
	eqs("conductor_group", f.ConductorGroup)
	eqs("owner", f.Owner)
	eqs("lessee", f.Lessee)
	eqs("instance_uuid", f.InstanceUUID)
	if f.ID != nil {
		q.add("`nodes`.`id` = ?", *f.ID)
	}
	if f.UUIDIn != nil {
		in(&q, "`nodes`.`uuid`", f.UUIDIn)
	}
	if f.ProvisionStateIn != nil {
		in(&q, "`nodes`.`provision_state`", f.ProvisionStateIn)
	}
	if f.ShardIn != nil {
		in(&q, "`nodes`.`shard`", f.ShardIn)
	}
	if f.ChassisUUID != nil {
		ch, err := s.GetChassisByUUID(ctx, *f.ChassisUUID)
		if err != nil {
			return q, err
		}
		q.add("`nodes`.`chassis_id` = ?", ch.ID)
	}
	if f.ChassisID != nil {
		q.add("`nodes`.`chassis_id` = ?", *f.ChassisID)
	}
	if f.ReservedByAnyOf != nil {
		in(&q, "`nodes`.`reservation`", f.ReservedByAnyOf)
	}
	if f.ProvisionedBefore != nil {
		q.add("`nodes`.`provision_updated_at` < ?", s.timeArg(s.now().Add(-*f.ProvisionedBefore)))
	}
	if f.InspectionStartedBefore != nil {
		q.add("`nodes`.`inspection_started_at` < ?", s.timeArg(s.now().Add(-*f.InspectionStartedBefore)))
	}
	if f.DescriptionContains != nil {
		q.add("`nodes`.`description` LIKE ?", "%"+*f.DescriptionContains+"%")
	}
	if f.Project != nil {
		q.add("(`nodes`.`owner` = ? OR `nodes`.`lessee` = ?)", *f.Project, *f.Project)
	}
	return q, nil
}

// timeArg is a timestamp as a query argument, in the stored text form.
func (s *Store) timeArg(t time.Time) string { return t.UTC().Format(models.TimeLayout) }

// ListNodes returns a page of nodes with every column and their traits
// (two queries: the page, then the traits of its nodes).
func (s *Store) ListNodes(ctx context.Context, f NodeFilter, o ListOpts) ([]models.Node, error) {
	q, err := s.nodeQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	if nodes, ok, err := s.listNodesSplit(ctx, q, o); ok || err != nil {
		return nodes, err
	}
	nodes, err := paginate(ctx, s.db, s.t.nodes, s.t.nodes.cols, s.t.nodes.selects, q, o)
	if err != nil {
		return nil, err
	}
	return nodes, s.loadTraits(ctx, s.db, nodes)
}

// ListNodeColumns is ListNodes reading only the named columns (plus id,
// always), like Ironic's get_node_list(fields=...) and get_nodeinfo_list.
// The pseudo-column "traits" loads the traits; other fields are left zero.
func (s *Store) ListNodeColumns(ctx context.Context, columns []string, f NodeFilter, o ListOpts) ([]models.Node, error) {
	withTraits := false
	names := make([]string, 0, len(columns))
	for _, c := range columns {
		if c == "traits" {
			withTraits = true
			continue
		}
		names = append(names, c)
	}
	cols, selects, err := s.t.nodes.subset(names)
	if err != nil {
		return nil, err
	}
	q, err := s.nodeQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	nodes, err := paginate(ctx, s.db, s.t.nodes, cols, selects, q, o)
	if err != nil || !withTraits {
		return nodes, err
	}
	return nodes, s.loadTraits(ctx, s.db, nodes)
}

// loadTraits fills the Traits of nodes with one query per 500 nodes.
func (s *Store) loadTraits(ctx context.Context, db querier, nodes []models.Node) error {
	if len(nodes) == 0 {
		return nil
	}
	pos := make(map[int64]int, len(nodes))
	ids := make([]any, 0, len(nodes))
	for i := range nodes {
		nodes[i].Traits = []models.NodeTrait{}
		pos[nodes[i].ID] = i
		ids = append(ids, nodes[i].ID)
	}
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		rows, err := db.QueryContext(ctx, "SELECT "+s.t.traits.selects+" FROM `node_traits` WHERE `node_traits`.`node_id` IN ("+
			placeholders(len(part))+") ORDER BY `node_traits`.`node_id`, `node_traits`.`trait`", part...)
		if err != nil {
			return err
		}
		traits, err := scanAll(rows, s.t.traits.cols, len(part))
		if err != nil {
			return err
		}
		for _, tr := range traits {
			if i, ok := pos[tr.NodeID]; ok {
				nodes[i].Traits = append(nodes[i].Traits, tr)
			}
		}
	}
	return nil
}

// getNode reads one node (with traits) by a condition.
func (s *Store) getNode(ctx context.Context, db querier, where string, args ...any) (*models.Node, bool, error) {
	n, ok, err := selectOne(ctx, db, s.t.nodes, where, " LIMIT 1", args...)
	if err != nil || !ok {
		return nil, ok, err
	}
	one := []models.Node{*n}
	if err := s.loadTraits(ctx, db, one); err != nil {
		return nil, false, err
	}
	return &one[0], true, nil
}

// GetNodeByID returns the node with internal id id (NodeNotFound).
func (s *Store) GetNodeByID(ctx context.Context, id int64) (*models.Node, error) {
	n, ok, err := s.getNode(ctx, s.db, "`nodes`.`id` = ?", id)
	if err == nil && !ok {
		err = notFound(ironic.NodeNotFound, "Node %s could not be found.", id)
	}
	return n, err
}

// GetNodeByUUID returns the node with that UUID (NodeNotFound).
func (s *Store) GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error) {
	n, ok, err := s.getNode(ctx, s.db, "`nodes`.`uuid` = ?", uuid)
	if err == nil && !ok {
		err = notFound(ironic.NodeNotFound, "Node %s could not be found.", uuid)
	}
	return n, err
}

// GetNodeByName returns the node with that name (NodeNotFound).
func (s *Store) GetNodeByName(ctx context.Context, name string) (*models.Node, error) {
	n, ok, err := s.getNode(ctx, s.db, "`nodes`.`name` = ?", name)
	if err == nil && !ok {
		err = notFound(ironic.NodeNotFound, "Node %s could not be found.", name)
	}
	return n, err
}

// GetNodeByInstance returns the node an instance is deployed on
// (InvalidUUID for a malformed UUID, InstanceNotFound).
func (s *Store) GetNodeByInstance(ctx context.Context, instanceUUID string) (*models.Node, error) {
	if !IsUUIDLike(instanceUUID) {
		return nil, ironic.Errorf(ironic.InvalidUUID, "Expected a UUID but received %s.", instanceUUID)
	}
	n, ok, err := s.getNode(ctx, s.db, "`nodes`.`instance_uuid` = ?", instanceUUID)
	if err == nil && !ok {
		err = notFound(ironic.InstanceNotFound, "Instance %s could not be found.", instanceUUID)
	}
	return n, err
}

// GetNode returns a node by UUID when ident looks like one, else by name.
func (s *Store) GetNode(ctx context.Context, ident string) (*models.Node, error) {
	if IsUUIDLike(ident) {
		return s.GetNodeByUUID(ctx, ident)
	}
	return s.GetNodeByName(ctx, ident)
}

// GetNodeRef returns a node by id or UUID.
func (s *Store) GetNodeRef(ctx context.Context, ref Ref) (*models.Node, error) {
	where, arg := ref.where("nodes")
	n, ok, err := s.getNode(ctx, s.db, where, arg)
	if err == nil && !ok {
		err = notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
	}
	return n, err
}

// CheckNodeList maps each of idents (UUIDs or names) to the UUID of the
// node it names, optionally only among the nodes of project (owner or
// lessee). Unknown ones give NodeNotFound "Nodes cannot be found: ...".
func (s *Store) CheckNodeList(ctx context.Context, idents []string, project string) (map[string]string, error) {
	mapping := map[string]string{}
	if len(idents) == 0 {
		return mapping, nil
	}
	set := map[string]bool{}
	var uuids, names, missing []string
	for _, i := range idents {
		if set[i] {
			continue
		}
		set[i] = true
		switch {
		case IsUUIDLike(i):
			uuids = append(uuids, i)
		case IsValidLogicalName(i):
			names = append(names, i)
		default:
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, ironic.Errorf(ironic.NodeNotFound, "Nodes cannot be found: %s", strings.Join(missing, ", "))
	}
	q := query{}
	var ors []string
	if len(uuids) > 0 {
		ors = append(ors, "`uuid` IN ("+placeholders(len(uuids))+")")
		q.args = append(q.args, anySlice(uuids)...)
	}
	if len(names) > 0 {
		ors = append(ors, "`name` IN ("+placeholders(len(names))+")")
		q.args = append(q.args, anySlice(names)...)
	}
	sqlText := "SELECT `uuid`, `name` FROM `nodes` WHERE (" + strings.Join(ors, " OR ") + ")"
	if project != "" {
		sqlText += " AND (`owner` = ? OR `lessee` = ?)"
		q.args = append(q.args, project, project)
	}
	rows, err := s.db.QueryContext(ctx, sqlText, q.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var uuid string
		var name sql.NullString
		if err := rows.Scan(&uuid, &name); err != nil {
			return nil, err
		}
		if set[uuid] {
			mapping[uuid] = uuid
		}
		if name.Valid && name.String != "" && set[name.String] {
			mapping[name.String] = uuid
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range set {
		if _, ok := mapping[i]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, ironic.Errorf(ironic.NodeNotFound, "Nodes cannot be found: %s", strings.Join(missing, ", "))
	}
	return mapping, nil
}

// CreateNode inserts a node as Ironic's create_node (plus the object
// layer's version stamp): a UUID is generated when empty, provision_state
// defaults to "enroll" when nil, retired to false, created_at to now.
// Traits cannot be given (set them afterwards with SetNodeTraits).
// Errors: DuplicateName, InstanceAssociated, NodeAlreadyExists.
func (s *Store) CreateNode(ctx context.Context, n *models.Node) (*models.Node, error) {
	if len(n.Traits) > 0 {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot create node with traits.")
	}
	c := *n
	if c.UUID == "" {
		c.UUID = s.uuids.NewUUID()
	}
	if c.ProvisionState == nil {
		c.ProvisionState = models.Ptr(states.Enroll)
	}
	if c.Retired == nil {
		c.Retired = models.Ptr(false)
	}
	if !c.CreatedAt.Valid() {
		c.CreatedAt = models.NewTime(s.now())
	}
	c.Version = models.NodeVersion
	nilDicts(&c.InstanceInfo, &c.Properties, &c.DriverInfo, &c.DriverInternalInfo, &c.CleanStep,
		&c.DeployStep, &c.RAIDConfig, &c.TargetRAIDConfig, &c.Extra, &c.NetworkData)
	err := s.write(ctx, func(tx *txn) error { return insertRow(ctx, tx, s.t.nodes, &c) })
	if cols, dup := uniqueViolation(err); dup {
		switch {
		case hasCol(cols, "name"):
			return nil, ironic.Errorf(ironic.DuplicateName, "A node with name %s already exists.", pyStr(c.Name))
		case hasCol(cols, "instance_uuid"):
			return nil, ironic.Errorf(ironic.InstanceAssociated,
				"Instance %s is already associated with a node, it cannot be associated with this other node %s",
				pyStr(c.InstanceUUID), c.UUID)
		}
		return nil, ironic.Errorf(ironic.NodeAlreadyExists, "A node with UUID %s already exists.", c.UUID)
	}
	if err != nil {
		return nil, err
	}
	c.Traits = []models.NodeTrait{}
	return &c, nil
}

// nilDicts replaces nil dicts with empty ones, as they read back.
func nilDicts(ds ...*models.JSONDict) {
	for _, d := range ds {
		if *d == nil {
			*d = models.JSONDict{}
		}
	}
}

// pyStr formats a value as Python's %s would (None for nil).
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *string:
		if x == nil {
			return "None"
		}
		return *x
	case *int64:
		if x == nil {
			return "None"
		}
		return fmt.Sprint(*x)
	}
	return fmt.Sprint(v)
}

// UpdateNode updates columns of a node and returns it (with traits), as
// Ironic's update_node: the version is stamped; a change of
// provision_state sets provision_updated_at and maintains
// inspection_started_at/inspection_finished_at; only changed columns are
// written, with updated_at. Errors: InvalidParameterValue (uuid in
// values), NodeNotFound, DuplicateName, NodeAlreadyExists,
// InstanceAssociated.
func (s *Store) UpdateNode(ctx context.Context, ref Ref, values Values) (*models.Node, error) {
	if _, ok := values["uuid"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite UUID for an existing Node.")
	}
	if _, ok := values["id"]; ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Cannot overwrite the id of an existing Node.")
	}
	vals := withVersion(values, models.NodeVersion)
	var out *models.Node
	err := s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("nodes")
		cur, ok, err := selectOne(ctx, tx, s.t.nodes, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
		}
		now := s.now()
		if ps, ok := vals["provision_state"]; ok {
			nv, err := convert(kNullStr, ps)
			if err != nil {
				return err
			}
			str, _ := nv.(string) // nil for NULL
			newState := states.Provision(str)
			oldState := models.Deref(cur.ProvisionState)
			vals["provision_updated_at"] = now
			switch {
			case newState == states.Inspecting:
				vals["inspection_started_at"] = now
				vals["inspection_finished_at"] = nil
			case (oldState == states.Inspecting || oldState == states.InspectWait) && newState == states.Manageable:
				vals["inspection_finished_at"] = now
				vals["inspection_started_at"] = nil
			case (oldState == states.Inspecting || oldState == states.InspectWait) && newState == states.InspectFailed:
				vals["inspection_started_at"] = nil
			}
		}
		written, err := updateChanged(ctx, tx, s.t.nodes, cur, vals, now, "`id` = ?", cur.ID)
		if err != nil {
			return err
		}
		// The row as written, without reading it back: cur plus the new
		// values, then its traits.
		if written {
			if err := applyValues(s.t.nodes, cur, vals, now); err != nil {
				return err
			}
		}
		one := []models.Node{*cur}
		if err := s.loadTraits(ctx, tx, one); err != nil {
			return err
		}
		out = &one[0]
		return nil
	})
	if cols, dup := uniqueViolation(err); dup {
		switch {
		case hasCol(cols, "name"):
			return nil, ironic.Errorf(ironic.DuplicateName, "A node with name %s already exists.", pyStr(values["name"]))
		case hasCol(cols, "uuid"):
			return nil, ironic.Errorf(ironic.NodeAlreadyExists, "A node with UUID %s already exists.", pyStr(values["uuid"]))
		case hasCol(cols, "instance_uuid"):
			return nil, ironic.Errorf(ironic.InstanceAssociated,
				"Instance %s is already associated with a node, it cannot be associated with this other node %s",
				pyStr(values["instance_uuid"]), ref)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DestroyNode deletes a node and everything that belongs to it in one
// transaction, in Ironic's order: its allocation link, ports, portgroups,
// tags, traits, volume connectors and targets, BIOS settings,
// allocations, history, inventory, then the node (NodeNotFound).
func (s *Store) DestroyNode(ctx context.Context, ref Ref) error {
	return s.write(ctx, func(tx *txn) error {
		where, arg := ref.where("nodes")
		cur, ok, err := selectOne(ctx, tx, s.t.nodes, where, s.forUpdate(), arg)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
		}
		if cur.AllocationID != nil {
			if _, err := tx.ExecContext(ctx, "UPDATE `nodes` SET `allocation_id` = NULL, `updated_at` = ? WHERE `id` = ?",
				s.timeArg(s.now()), cur.ID); err != nil {
				return err
			}
		}
		for _, t := range []string{"ports", "portgroups", "node_tags", "node_traits", "volume_connectors",
			"volume_targets", "bios_settings", "allocations", "node_history", "node_inventory"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+quote(t)+" WHERE `node_id` = ?", cur.ID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM `nodes` WHERE `id` = ?", cur.ID)
		return err
	})
}

// nodeBrief reads the uuid and reservation of a node.
func (s *Store) nodeBrief(ctx context.Context, db querier, ref Ref) (id int64, uuid string, reservation *string, found bool, err error) {
	where, arg := ref.where("nodes")
	var res sql.NullString
	var u sql.NullString
	err = db.QueryRowContext(ctx, "SELECT `id`, `uuid`, `reservation` FROM `nodes` WHERE "+where, arg).Scan(&id, &u, &res)
	if err == sql.ErrNoRows {
		return 0, "", nil, false, nil
	}
	if err != nil {
		return 0, "", nil, false, err
	}
	if res.Valid {
		reservation = &res.String
	}
	return id, u.String, reservation, true, nil
}

// ReserveNode takes the node's exclusive lock for tag (a conductor
// hostname) with a conditional UPDATE, as Ironic's reserve_node, and
// returns the node. Errors: NodeNotFound, NodeLocked.
func (s *Store) ReserveNode(ctx context.Context, tag string, ref Ref) (*models.Node, error) {
	id, uuid, res, found, err := s.nodeBrief(ctx, s.db, ref)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
	}
	if res != nil && *res != "" {
		return nil, nodeLocked(uuid, *res)
	}
	var out *models.Node
	err = s.write(ctx, func(tx *txn) error {
		r, err := tx.ExecContext(ctx, "UPDATE `nodes` SET `reservation` = ?, `updated_at` = ? WHERE `id` = ? AND `reservation` IS NULL",
			tag, s.timeArg(s.now()), id)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		if err != nil {
			return err
		}
		node, ok, err := s.getNode(ctx, tx, "`nodes`.`id` = ?", id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
		}
		if n != 1 {
			return nodeLocked(node.UUID, models.Deref(node.Reservation))
		}
		out = node
		return nil
	})
	return out, err
}

func nodeLocked(uuid, host string) error {
	return ironic.Errorf(ironic.NodeLocked,
		"Node %s is locked by host %s, please retry after the current operation is completed.", uuid, host)
}

// ReleaseNode releases the node's lock held by tag, as Ironic's
// release_node. Errors: NodeNotFound, NodeNotLocked (not locked),
// NodeLocked (locked by another host).
func (s *Store) ReleaseNode(ctx context.Context, tag string, ref Ref) error {
	id, _, _, found, err := s.nodeBrief(ctx, s.db, ref)
	if err != nil {
		return err
	}
	if !found {
		return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
	}
	return s.write(ctx, func(tx *txn) error {
		r, err := tx.ExecContext(ctx, "UPDATE `nodes` SET `reservation` = NULL, `updated_at` = ? WHERE `id` = ? AND `reservation` = ?",
			s.timeArg(s.now()), id, tag)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		if err != nil {
			return err
		}
		if n == 1 {
			return nil
		}
		_, uuid, res, found, err := s.nodeBrief(ctx, tx, ByID(id))
		if err != nil {
			return err
		}
		if !found {
			return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
		}
		if res == nil {
			return ironic.Errorf(ironic.NodeNotLocked, "Node %s found not to be locked on release", uuid)
		}
		return nodeLocked(uuid, *res)
	})
}

// TouchNodeProvisioning sets provision_updated_at to now (NodeNotFound).
func (s *Store) TouchNodeProvisioning(ctx context.Context, ref Ref) error {
	return s.write(ctx, func(tx *txn) error {
		now := s.timeArg(s.now())
		where, arg := ref.where("nodes")
		r, err := tx.ExecContext(ctx, "UPDATE `nodes` SET `provision_updated_at` = ?, `updated_at` = ? WHERE "+where, now, now, arg)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound(ironic.NodeNotFound, "Node %s could not be found.", ref)
		}
		return nil
	})
}

// ClearNodeReservationsForConductor releases every lock held by hostname
// (matched case-insensitively with LIKE, as Ironic's ILIKE), logging the
// nodes it freed.
func (s *Store) ClearNodeReservationsForConductor(ctx context.Context, hostname string) error {
	var uuids []string
	err := s.write(ctx, func(tx *txn) error {
		var err error
		uuids, err = stringColumn(ctx, tx, "SELECT `uuid` FROM `nodes` WHERE LOWER(`reservation`) LIKE LOWER(?)", hostname)
		if err != nil || len(uuids) == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE `nodes` SET `reservation` = NULL, `updated_at` = ? WHERE LOWER(`reservation`) LIKE LOWER(?)",
			s.timeArg(s.now()), hostname)
		return err
	})
	if err == nil && len(uuids) > 0 {
		s.log.WarnContext(ctx, fmt.Sprintf("Cleared reservations held by %s: %s", hostname, strings.Join(uuids, ", ")),
			"hostname", hostname)
	}
	return err
}

// ClearNodeTargetPowerState clears target_power_state (with last_error
// "Pending power operation was aborted due to conductor restart") of the
// nodes locked by hostname that were in a power transition.
func (s *Store) ClearNodeTargetPowerState(ctx context.Context, hostname string) error {
	var uuids []string
	const cond = "LOWER(`reservation`) LIKE LOWER(?) AND `target_power_state` IS NOT NULL"
	err := s.write(ctx, func(tx *txn) error {
		var err error
		uuids, err = stringColumn(ctx, tx, "SELECT `uuid` FROM `nodes` WHERE "+cond, hostname)
		if err != nil || len(uuids) == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE `nodes` SET `target_power_state` = NULL, `last_error` = ?, `updated_at` = ? WHERE "+cond,
			"Pending power operation was aborted due to conductor restart", s.timeArg(s.now()), hostname)
		return err
	})
	if err == nil && len(uuids) > 0 {
		s.log.WarnContext(ctx, "Cleared target_power_state of the locked nodes in powering process, their power state can be incorrect: "+
			strings.Join(uuids, ", "))
	}
	return err
}

func stringColumn(ctx context.Context, db querier, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}

// GetNodeByPortAddresses returns the one node that has ports with any of
// the MAC addresses. Errors: NodeNotFound when none or several match.
func (s *Store) GetNodeByPortAddresses(ctx context.Context, addresses []string) (*models.Node, error) {
	if len(addresses) == 0 {
		return nil, ironic.Errorf(ironic.NodeNotFound, "Node with port addresses %s was not found", pyList(addresses))
	}
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT "+s.t.nodes.selects+" FROM `nodes` JOIN `ports` ON `ports`.`node_id` = `nodes`.`id` WHERE `ports`.`address` IN ("+
		placeholders(len(addresses))+") LIMIT 2", anySlice(addresses)...)
	if err != nil {
		return nil, err
	}
	nodes, err := scanAll(rows, s.t.nodes.cols, 2)
	if err != nil {
		return nil, err
	}
	switch len(nodes) {
	case 0:
		return nil, ironic.Errorf(ironic.NodeNotFound, "Node with port addresses %s was not found", pyList(addresses))
	case 1:
	default:
		return nil, ironic.Errorf(ironic.NodeNotFound, "Multiple nodes with port addresses %s were found", pyList(addresses))
	}
	if err := s.loadTraits(ctx, s.db, nodes); err != nil {
		return nil, err
	}
	return &nodes[0], nil
}

// CountNodesInProvisionState counts the nodes in any of the states.
func (s *Store) CountNodesInProvisionState(ctx context.Context, sts ...states.Provision) (int64, error) {
	if len(sts) == 0 {
		return 0, nil
	}
	var n int64
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(`id`) FROM `nodes` WHERE `provision_state` IN ("+placeholders(len(sts))+")",
		stringArgs(sts)...).Scan(&n)
	return n, err
}

// checkNodeExists is Ironic's _check_node_exists (NodeNotFound).
func (s *Store) checkNodeExists(ctx context.Context, db querier, nodeID int64) error {
	var one int
	err := db.QueryRowContext(ctx, "SELECT 1 FROM `nodes` WHERE `id` = ?", nodeID).Scan(&one)
	if err == sql.ErrNoRows {
		return notFound(ironic.NodeNotFound, "Node %s could not be found.", nodeID)
	}
	return err
}
