package db

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/gorm/schema"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

type tableInfo struct {
	name  string
	cols  []string
	kinds map[string]kind
	model any
}

func describe[T any](t *table[T]) tableInfo {
	ti := tableInfo{name: t.name, kinds: map[string]kind{}}
	for _, c := range t.cols {
		ti.cols = append(ti.cols, c.name)
		ti.kinds[c.name] = c.kind
	}
	var zero T
	ti.model = &zero
	return ti
}

func allTables(ts *tables) []tableInfo {
	return []tableInfo{
		describe(ts.chassis), describe(ts.conductors), describe(ts.hwIfaces), describe(ts.nodes),
		describe(ts.ports), describe(ts.portgroups), describe(ts.tags), describe(ts.vconns),
		describe(ts.vtargets), describe(ts.traits), describe(ts.bios), describe(ts.allocations),
		describe(ts.templates), describe(ts.steps), describe(ts.history), describe(ts.inventory),
	}
}

// TestColumnsMatchSchema checks the column lists derived from the models'
// gorm tags against Ironic's DDL: the same columns in the same order, NOT
// NULL exactly where the DDL says so, and kinds that fit the declared
// types.
func TestColumnsMatchSchema(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "sqlite", filepath.Join(t.TempDir(), "x.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ti := range append(allTables(s.t), tableInfo{name: "alembic_version", model: &models.AlembicVersion{}}) {
		seen[ti.name] = true
		sch, err := schema.Parse(ti.model, &sync.Map{}, schema.NamingStrategy{})
		if err != nil {
			t.Fatalf("gorm parse %T: %v", ti.model, err)
		}
		if sch.Table != ti.name {
			t.Errorf("gorm table of %T = %s, want %s", ti.model, sch.Table, ti.name)
		}
		tagged := map[string]*schema.Field{}
		var tcols []string
		for _, f := range sch.Fields {
			if f.DBName != "" {
				tagged[f.DBName] = f
				tcols = append(tcols, f.DBName)
			}
		}
		rows, err := s.db.QueryContext(ctx, "SELECT name, type, \"notnull\", pk > 0 FROM pragma_table_info(?) ORDER BY cid", ti.name)
		if err != nil {
			t.Fatal(err)
		}
		var ddl []string
		for rows.Next() {
			var name, typ string
			var notnull, pk bool
			if err := rows.Scan(&name, &typ, &notnull, &pk); err != nil {
				t.Fatal(err)
			}
			ddl = append(ddl, name)
			if f := tagged[name]; f != nil {
				if f.PrimaryKey != pk {
					t.Errorf("%s.%s: primary key %v in the DDL, tagged %v", ti.name, name, pk, f.PrimaryKey)
				}
				if got := f.NotNull || f.PrimaryKey; got != notnull {
					t.Errorf("%s.%s: NOT NULL %v in the DDL, tagged %v", ti.name, name, notnull, got)
				}
			}
			k, ok := ti.kinds[name]
			if !ok {
				continue
			}
			var fits bool
			switch {
			case typ == "DATETIME":
				fits = k == kTime
			case typ == "BOOLEAN":
				fits = k == kBool || (k == kNullBool && !notnull)
			case typ == "INTEGER":
				fits = k == kInt || (k == kNullInt && !notnull)
			case typ == "TEXT" && (k == kDict || k == kList):
				fits = true
			case typ == "TEXT" || strings.HasPrefix(typ, "VARCHAR"):
				fits = (k == kStr && notnull) || (k == kEmptyNull || k == kNullStr) && !notnull
			}
			if !fits {
				t.Errorf("%s.%s: declared %s (not null %v) but mapped as kind %d", ti.name, name, typ, notnull, k)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if !slices.Equal(ddl, tcols) {
			t.Errorf("%s: DDL columns %v, gorm tags %v", ti.name, ddl, tcols)
		}
		if ti.cols != nil && !slices.Equal(ddl, ti.cols) {
			t.Errorf("%s: DDL columns %v, column list %v", ti.name, ddl, ti.cols)
		}
	}
	for _, name := range Tables() {
		if !seen[name] {
			t.Errorf("table %s has no model", name)
		}
	}
}

// TestTableFromTags checks what newTable reads from the tags: the table
// name, the auto-increment id, and the kinds, on a model of its own.
func TestTableFromTags(t *testing.T) {
	type row struct {
		ID       int64            `gorm:"column:id;primaryKey;autoIncrement"`
		Name     string           `gorm:"column:name;not null"`
		Version  string           `gorm:"column:version"`
		Note     *string          `gorm:"column:note"`
		Count    *int64           `gorm:"column:count"`
		On       bool             `gorm:"column:on"`
		Maybe    *bool            `gorm:"column:maybe"`
		At       models.Time      `gorm:"column:at"`
		Info     models.JSONDict  `gorm:"column:info"`
		Items    models.JSONList  `gorm:"column:items"`
		Children []models.NodeTag `gorm:"-"`
	}
	tb, err := newTable[row](SQLite, &sync.Map{})
	if err != nil {
		t.Fatal(err)
	}
	if tb.name != "rows" {
		t.Errorf("table name %q", tb.name)
	}
	want := map[string]kind{"id": kInt, "name": kStr, "version": kEmptyNull, "note": kNullStr, "count": kNullInt,
		"on": kBool, "maybe": kNullBool, "at": kTime, "info": kDict, "items": kList}
	got := map[string]kind{}
	for _, c := range tb.cols {
		got[c.name] = c.kind
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	r := row{ID: 7, Name: "n", Note: models.Ptr("x"), Info: models.JSONDict{"a": "b"}}
	if p := tb.id(&r); p != &r.ID {
		t.Errorf("id points at %p, not at the ID field %p", p, &r.ID)
	}
	wantVals := map[string]driver.Value{"id": int64(7), "name": "n", "version": nil, "note": "x", "count": nil,
		"on": int64(0), "maybe": nil, "at": nil, "info": `{"a": "b"}`, "items": "[]"}
	for _, c := range tb.cols {
		v, err := dbValue(c.kind, c.ptr(&r))
		if err != nil || v != wantVals[c.name] {
			t.Errorf("%s = %#v, %v; want %#v", c.name, v, err, wantVals[c.name])
		}
	}
	if tb.selects != "`rows`.`id`, `rows`.`name`, `rows`.`version`, `rows`.`note`, `rows`.`count`, `rows`.`on`, `rows`.`maybe`, CAST(`rows`.`at` AS TEXT), `rows`.`info`, `rows`.`items`" {
		t.Errorf("selects %s", tb.selects)
	}

	type bad struct {
		ID   int64   `gorm:"column:id;primaryKey;autoIncrement"`
		Size float64 `gorm:"column:size"`
	}
	if _, err := newTable[bad](SQLite, &sync.Map{}); err == nil || !strings.Contains(err.Error(), "bads.size: no column kind for Go type float64") {
		t.Errorf("float column: %v", err)
	}
	type noID struct {
		A string `gorm:"column:a;primaryKey"`
	}
	tb2, err := newTable[noID](MySQL, &sync.Map{})
	if err != nil {
		t.Fatal(err)
	}
	if tb2.id(&noID{}) != nil || tb2.cols[0].kind != kStr {
		t.Errorf("composite/text key: id %v, kind %d", tb2.id(&noID{}), tb2.cols[0].kind)
	}
}

func TestUniqueViolationParsing(t *testing.T) {
	for _, tc := range []struct {
		err  error
		cols []string
		dup  bool
	}{
		{&mysqldrv.MySQLError{Number: 1062, Message: "Duplicate entry 'n1' for key 'uniq_nodes0name'"}, []string{"name"}, true},
		{&mysqldrv.MySQLError{Number: 1062, Message: "Duplicate entry 'n1' for key 'nodes.uniq_nodes0name'"}, []string{"name"}, true},
		{&mysqldrv.MySQLError{Number: 1062, Message: "Duplicate entry 'iqn-x' for key 'uniq_volumeconnectors0type0connector_id'"}, []string{"type", "connector_id"}, true},
		{&mysqldrv.MySQLError{Number: 1062, Message: "Duplicate entry '1-A' for key 'PRIMARY'"}, []string{"PRIMARY"}, true},
		{&mysqldrv.MySQLError{Number: 1452, Message: "Cannot add or update a child row"}, nil, false},
		{fakeSQLiteErr{2067, "constraint failed: UNIQUE constraint failed: nodes.name (2067)"}, []string{"name"}, true},
		{fakeSQLiteErr{1555, "UNIQUE constraint failed: node_traits.node_id, node_traits.trait"}, []string{"node_id", "trait"}, true},
		{fakeSQLiteErr{787, "FOREIGN KEY constraint failed"}, nil, false},
	} {
		cols, dup := uniqueViolation(tc.err)
		if dup != tc.dup || !reflect.DeepEqual(cols, tc.cols) {
			t.Errorf("%v: got %v %v, want %v %v", tc.err, cols, dup, tc.cols, tc.dup)
		}
	}
}

type fakeSQLiteErr struct {
	code int
	msg  string
}

func (e fakeSQLiteErr) Error() string { return e.msg }
func (e fakeSQLiteErr) Code() int     { return e.code }

func TestIdentityHelpers(t *testing.T) {
	for s, want := range map[string]bool{"1": true, "-5": true, "05": false, " 1": false, "1.0": false, "x": false, "": false} {
		if IsIntLike(s) != want {
			t.Errorf("IsIntLike(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{
		"1be26c0b-03f2-4d2e-ae87-c02d7f33c123": true, "1BE26C0B03F24D2EAE87C02D7F33C123": true,
		"{1be26c0b-03f2-4d2e-ae87-c02d7f33c123}": true, "urn:uuid:1be26c0b-03f2-4d2e-ae87-c02d7f33c123": true,
		"1be26c0b-03f2-4d2e-ae87-c02d7f33c12": false, "node-1": false, "": false,
	} {
		if IsUUIDLike(s) != want {
			t.Errorf("IsUUIDLike(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{"52:54:00:AB:cd:01": true, "52-54-00-ab-cd-01": false, "52:54:00:ab:cd": false, "52:54:00:ab:cd:0g": false} {
		if IsValidMAC(s) != want {
			t.Errorf("IsValidMAC(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{"node-1.a_b~c": true, "node 1": false, "": false, "ü": false, strings.Repeat("a", 255): true, strings.Repeat("a", 256): false} {
		if IsValidLogicalName(s) != want {
			t.Errorf("IsValidLogicalName(%q) != %v", s, want)
		}
	}
	if r, err := ParseRef("12"); err != nil || r != ByID(12) {
		t.Errorf("ParseRef(12) = %v, %v", r, err)
	}
	if _, err := ParseRef("name"); err == nil || err.Error() != "Expected a UUID or int but received name." {
		t.Errorf("ParseRef(name) error = %v", err)
	}
	if got := pyList([]string{"a", "b'c"}); got != `['a', "b'c"]` {
		t.Errorf("pyList = %s", got)
	}
}

func TestMarkerCriteria(t *testing.T) {
	ts, err := newTables(SQLite)
	if err != nil {
		t.Fatal(err)
	}
	tbl := ts.nodes
	keys := []sortKey{{name: "name"}, {name: "id"}}
	crit, args := markerCriteria(tbl, keys, []driver.Value{"n1", int64(7)})
	want := "((`nodes`.`name` > ?) OR (`nodes`.`name` = ? AND `nodes`.`id` > ?))"
	if crit != want || !reflect.DeepEqual(args, []any{"n1", "n1", int64(7)}) {
		t.Errorf("got %s %v", crit, args)
	}
	crit, args = markerCriteria(tbl, keys, []driver.Value{nil, int64(7)})
	if crit != "((`nodes`.`id` > ?))" || !reflect.DeepEqual(args, []any{int64(7)}) {
		t.Errorf("NULL marker: got %s %v", crit, args)
	}
	crit, _ = markerCriteria(tbl, []sortKey{{name: "name", desc: true, nulls: "nullsfirst"}, {name: "id", desc: true, nulls: "nullsfirst"}}, []driver.Value{"n1", int64(7)})
	if !strings.Contains(crit, "(`nodes`.`name` < ? OR `nodes`.`name` IS NULL)") {
		t.Errorf("nullsfirst: got %s", crit)
	}
}

// TestChangedColumns holds the diff the conductor saves a task's node
// with: every kind of column is compared by value (nullable ones through
// their pointers), the id and timestamps never count, and the columns
// come in the table's order.
func TestChangedColumns(t *testing.T) {
	ts, err := newTables(SQLite)
	if err != nil {
		t.Fatal(err)
	}
	base := func() models.Node {
		return models.Node{ID: 1, UUID: "u", Name: models.Ptr("n"), ProvisionState: models.Ptr(states.Manageable),
			ChassisID: models.Ptr(int64(3)), AutomatedClean: models.Ptr(true), Extra: models.JSONDict{"a": "b"},
			Maintenance: true, ProvisionUpdatedAt: models.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))}
	}
	old := base()
	same := base() // equal values behind other pointers and maps
	if got := changedColumns(ts.nodes, &old, &same); got != nil {
		t.Errorf("unchanged node: %v", got)
	}
	cur := base()
	cur.ID, cur.CreatedAt, cur.UpdatedAt = 2, models.NewTime(time.Now()), models.NewTime(time.Now())
	cur.Name = nil
	cur.ProvisionState = models.Ptr(states.Available)
	cur.ChassisID = models.Ptr(int64(4))
	cur.AutomatedClean = nil
	cur.Extra["a"] = "c"
	cur.Maintenance = false
	cur.Driver = "fake-hardware"
	cur.ProvisionUpdatedAt = models.Time{}
	want := []string{"name", "chassis_id", "provision_state", "provision_updated_at", "driver", "maintenance",
		"extra", "automated_clean"}
	if got := changedColumns(ts.nodes, &old, &cur); !slices.Equal(got, want) {
		t.Errorf("changed columns %v, want %v", got, want)
	}
}
