package db

import (
	"fmt"
	"reflect"

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
