package db

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"gorm.io/gorm/schema"

	"github.com/goironic/ironic/db/models"
)

// tables holds the column list of every table, derived from the gorm tags
// of the models (see newTable).
type tables struct {
	chassis     *table[models.Chassis]
	conductors  *table[models.Conductor]
	hwIfaces    *table[models.ConductorHardwareInterface]
	nodes       *table[models.Node]
	ports       *table[models.Port]
	portgroups  *table[models.Portgroup]
	tags        *table[models.NodeTag]
	vconns      *table[models.VolumeConnector]
	vtargets    *table[models.VolumeTarget]
	traits      *table[models.NodeTrait]
	bios        *table[models.BIOSSetting]
	allocations *table[models.Allocation]
	templates   *table[models.DeployTemplate]
	steps       *table[models.DeployTemplateStep]
	history     *table[models.NodeHistory]
	inventory   *table[models.NodeInventory]
}

// newTables derives the column lists of all tables for the dialect. It
// runs once per Store; the queries only read the result.
func newTables(d Dialect) (*tables, error) {
	cache := &sync.Map{} // gorm's parse cache, private to this call
	var ts tables
	err := errors.Join(
		derive(&ts.chassis, d, cache),
		derive(&ts.conductors, d, cache),
		derive(&ts.hwIfaces, d, cache),
		derive(&ts.nodes, d, cache),
		derive(&ts.ports, d, cache),
		derive(&ts.portgroups, d, cache),
		derive(&ts.tags, d, cache),
		derive(&ts.vconns, d, cache),
		derive(&ts.vtargets, d, cache),
		derive(&ts.traits, d, cache),
		derive(&ts.bios, d, cache),
		derive(&ts.allocations, d, cache),
		derive(&ts.templates, d, cache),
		derive(&ts.steps, d, cache),
		derive(&ts.history, d, cache),
		derive(&ts.inventory, d, cache),
	)
	if err != nil {
		return nil, err
	}
	return &ts, nil
}

func derive[T any](dst **table[T], d Dialect, cache *sync.Map) error {
	t, err := newTable[T](d, cache)
	*dst = t
	return err
}

// newTable reads the table of rows T from T's gorm tags with gorm's own
// schema parser: the table name (TableName), the columns in field order
// (column:), the auto-increment id (autoIncrement) and, for string fields,
// whether NULL is possible (not null, primaryKey). The kind of a column
// follows from the Go type of its field; see kindOf.
func newTable[T any](d Dialect, cache *sync.Map) (*table[T], error) {
	var zero T
	sch, err := schema.Parse(&zero, cache, schema.NamingStrategy{})
	if err != nil {
		return nil, fmt.Errorf("db: model %T: %w", zero, err)
	}
	var cols []column[T]
	id := -1
	for _, f := range sch.Fields {
		if f.DBName == "" {
			continue // gorm:"-"
		}
		if len(f.StructField.Index) != 1 {
			return nil, fmt.Errorf("db: %s.%s: fields of embedded structs are not supported", sch.Table, f.DBName)
		}
		k, err := kindOf(f.FieldType, f.NotNull || f.PrimaryKey)
		if err != nil {
			return nil, fmt.Errorf("db: %s.%s: %w", sch.Table, f.DBName, err)
		}
		if f.AutoIncrement {
			if k != kInt || id >= 0 {
				return nil, fmt.Errorf("db: %s.%s: the auto-increment id must be the one int64 primary key", sch.Table, f.DBName)
			}
			id = len(cols)
		}
		cols = append(cols, column[T]{name: f.DBName, kind: k, off: f.StructField.Offset})
	}
	return buildTable(d, sch.Table, id, cols), nil
}

// kindOf is the kind of a column whose field has type t. A plain string
// field reads NULL as ""; it also writes "" as NULL unless the column is
// NOT NULL. A string type of package states (states.Allocation) is a
// string column, a pointer to one (*states.Provision) a *string column:
// their layouts are the same, so the scanner reads them as such.
func kindOf(t reflect.Type, notNull bool) (kind, error) {
	switch {
	case t.Kind() == reflect.String:
		t = reflect.TypeFor[string]()
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.String:
		t = reflect.TypeFor[*string]()
	}
	switch t {
	case reflect.TypeFor[string]():
		if notNull {
			return kStr, nil
		}
		return kEmptyNull, nil
	case reflect.TypeFor[*string]():
		return kNullStr, nil
	case reflect.TypeFor[int64]():
		return kInt, nil
	case reflect.TypeFor[*int64]():
		return kNullInt, nil
	case reflect.TypeFor[bool]():
		return kBool, nil
	case reflect.TypeFor[*bool]():
		return kNullBool, nil
	case reflect.TypeFor[models.Time]():
		return kTime, nil
	case reflect.TypeFor[models.JSONDict]():
		return kDict, nil
	case reflect.TypeFor[models.JSONList]():
		return kList, nil
	}
	return 0, fmt.Errorf("no column kind for Go type %s", t)
}
