package db

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/goironic/ironic/db/models"
)

// rowValues reads the named columns of row r as update Values.
func rowValues[T any](t *table[T], r *T, cols []string) (Values, error) {
	v := make(Values, len(cols))
	for _, name := range cols {
		i, ok := t.index[name]
		if !ok {
			return nil, fmt.Errorf("db: table %s has no column %q", t.name, name)
		}
		v[name] = reflect.ValueOf(t.cols[i].ptr(r)).Elem().Interface()
	}
	return v, nil
}

// changedColumns lists the columns of t whose fields differ between rows
// a and b, in the table's order, leaving out the id and the timestamps
// (which the store writes itself).
func changedColumns[T any](t *table[T], a, b *T) []string {
	var out []string
	for i := range t.cols {
		c := &t.cols[i]
		if i == t.idCol || c.name == "created_at" || c.name == "updated_at" {
			continue
		}
		if !sameField(c.kind, c.addr(a), c.addr(b)) {
			out = append(out, c.name)
		}
	}
	return out
}

// sameField compares two fields of kind k: values for the scalars (and
// the pointed-to values of nullable ones), reflect.DeepEqual for the
// timestamps and JSON columns.
func sameField(k kind, a, b unsafe.Pointer) bool {
	switch k {
	case kStr, kEmptyNull:
		return *(*string)(a) == *(*string)(b)
	case kNullStr:
		return samePtr(*(**string)(a), *(**string)(b))
	case kInt:
		return *(*int64)(a) == *(*int64)(b)
	case kNullInt:
		return samePtr(*(**int64)(a), *(**int64)(b))
	case kBool:
		return *(*bool)(a) == *(*bool)(b)
	case kNullBool:
		return samePtr(*(**bool)(a), *(**bool)(b))
	case kTime:
		return reflect.DeepEqual(*(*models.Time)(a), *(*models.Time)(b))
	case kDict:
		return reflect.DeepEqual(*(*models.JSONDict)(a), *(*models.JSONDict)(b))
	case kList:
		return reflect.DeepEqual(*(*models.JSONList)(a), *(*models.JSONList)(b))
	}
	panic(fmt.Sprintf("db: unknown column kind %d", k))
}

func samePtr[V comparable](a, b *V) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ChangedNodeColumns lists the columns whose values differ between two
// versions of a node row (id and timestamps left out), in the table's
// order, from the column description the gorm tags give: the conductor
// saves what a task changed.
func (s *Store) ChangedNodeColumns(old, cur *models.Node) []string {
	return changedColumns(s.t.nodes, old, cur)
}

// NodeValues returns the named columns of n, ready for UpdateNode: the
// conductor saves exactly the fields a caller changed.
func (s *Store) NodeValues(n *models.Node, cols []string) (Values, error) {
	return rowValues(s.t.nodes, n, cols)
}

// PortValues is NodeValues for ports.
func (s *Store) PortValues(p *models.Port, cols []string) (Values, error) {
	return rowValues(s.t.ports, p, cols)
}

// PortgroupValues is NodeValues for port groups.
func (s *Store) PortgroupValues(p *models.Portgroup, cols []string) (Values, error) {
	return rowValues(s.t.portgroups, p, cols)
}

// VolumeConnectorValues is NodeValues for volume connectors.
func (s *Store) VolumeConnectorValues(c *models.VolumeConnector, cols []string) (Values, error) {
	return rowValues(s.t.vconns, c, cols)
}

// VolumeTargetValues is NodeValues for volume targets.
func (s *Store) VolumeTargetValues(t *models.VolumeTarget, cols []string) (Values, error) {
	return rowValues(s.t.vtargets, t, cols)
}
