package db_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
)

// golden returns the DDL statements of one part of testdata/schema.sql
// (the reference dump of Python Ironic's schema): part 1 is MariaDB, part
// 2 SQLite.
func golden(t *testing.T, part int) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i1 := strings.Index(text, "PART 1: MySQL")
	i2 := strings.Index(text, "PART 2: SQLite")
	if i1 < 0 || i2 < 0 {
		t.Fatal("testdata/schema.sql: part markers not found")
	}
	// Each part starts on the line after its marker.
	i1 += strings.IndexByte(text[i1:], '\n') + 1
	i2start := strings.LastIndexByte(text[:i2], '\n') + 1
	i2 += strings.IndexByte(text[i2:], '\n') + 1
	if part == 1 {
		text = text[i1:i2start]
	} else {
		text = text[i2:]
	}
	var out []string
	for _, st := range strings.Split(text, ";\n") {
		var lines []string
		for _, l := range strings.Split(st, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		st = strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "\n")), ";")
		if st != "" && !strings.HasPrefix(st, "INSERT") {
			out = append(out, st)
		}
	}
	return out
}

// sqliteDDL lists the CREATE statements SQLite stored, in creation order.
func sqliteDDL(t *testing.T, path string) []string {
	t.Helper()
	s, err := db.Open(ctx, "sqlite", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return must[[]string](t)(db.Raw(s).QueryStrings(ctx, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE ? ORDER BY rowid",
		db.SQLiteIndexPrefix+"%"))
}

// TestSQLiteForeignKeysIndexed checks that node-scoped lookups use an
// index on SQLite (our addition; MySQL indexes foreign keys itself), also
// on a database that an older release or Python created without them.
func TestSQLiteForeignKeysIndexed(t *testing.T) {
	path := dbtest.SQLitePath(t)
	open := func() *db.Store { return must[*db.Store](t)(db.Open(ctx, "sqlite", path, nil)) }
	plan := func(s *db.Store) string {
		var id, parent, unused int
		var detail string
		ok(t, db.Raw(s).QueryRow(ctx, "EXPLAIN QUERY PLAN SELECT id FROM ports WHERE node_id = 1").Scan(&id, &parent, &unused, &detail))
		return detail
	}
	s := open()
	ok(t, s.CreateSchema(ctx))
	if p := plan(s); !strings.Contains(p, db.SQLiteIndexPrefix) {
		t.Errorf("ports by node_id: %s", p)
	}
	ok(t, db.Raw(s).Exec(ctx, "DROP INDEX "+db.SQLiteIndexPrefix+"ports_node_id"))
	ok(t, s.Close())
	s = open()
	defer s.Close()
	if p := plan(s); strings.Contains(p, db.SQLiteIndexPrefix) {
		t.Fatalf("index still used after DROP: %s", p)
	}
	ok(t, s.Upgrade(ctx))
	ok(t, s.Close())
	s = open()
	defer s.Close()
	if p := plan(s); !strings.Contains(p, db.SQLiteIndexPrefix) {
		t.Errorf("upgrade at head did not restore the index: %s", p)
	}
}

func TestSchemaSQLiteMatchesReference(t *testing.T) {
	path := dbtest.SQLitePath(t)
	s := must[*db.Store](t)(db.Open(ctx, "sqlite", path, nil))
	ok(t, s.CreateSchema(ctx))
	ok(t, s.Close())
	if d := cmp.Diff(golden(t, 2), sqliteDDL(t, path)); d != "" {
		t.Errorf("SQLite schema differs from testdata/schema.sql (-want +got):\n%s", d)
	}
}

var collateRE = regexp.MustCompile(` COLLATE=utf8mb3_general_ci`)

func TestSchemaMariaDBMatchesReference(t *testing.T) {
	dsn := dbtest.MariaDBDSN(t)
	s := must[*db.Store](t)(db.Open(ctx, "mysql", dsn, nil))
	defer s.Close()
	ok(t, s.CreateSchema(ctx))
	var got []string
	for _, table := range db.Tables() {
		var name, ddl string
		if err := db.Raw(s).QueryRow(ctx, "SHOW CREATE TABLE `"+table+"`").Scan(&name, &ddl); err != nil {
			t.Fatal(err)
		}
		got = append(got, collateRE.ReplaceAllString(ddl, ""))
	}
	want := golden(t, 1)
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MariaDB schema differs from testdata/schema.sql (-want +got):\n%s", d)
	}
	if v := must[string](t)(s.Version(ctx)); v != models.AlembicHead {
		t.Errorf("version %q", v)
	}
}

func TestSchemaLifecycle(t *testing.T) {
	for _, b := range []struct {
		name, driver string
		dsn          func(t *testing.T) string
	}{
		{"sqlite", "sqlite", func(t *testing.T) string { return dbtest.SQLitePath(t) }},
		{"mariadb", "mysql", func(t *testing.T) string { return dbtest.MariaDBDSN(t) }},
	} {
		t.Run(b.name, func(t *testing.T) {
			s := must[*db.Store](t)(db.Open(ctx, b.driver, b.dsn(t), nil))
			defer s.Close()
			if v := must[string](t)(s.Version(ctx)); v != "" {
				t.Fatalf("empty database has version %q", v)
			}
			ok(t, s.Upgrade(ctx))
			if v := must[string](t)(s.Version(ctx)); v != models.AlembicHead {
				t.Fatalf("after upgrade: version %q", v)
			}
			ok(t, s.Upgrade(ctx)) // at head: no-op
			wantFault(t, s.CreateSchema(ctx), db.DBMigrationError, "DB schema is already under version control. Use upgrade() instead")
			raw := db.Raw(s)
			ok(t, raw.Exec(ctx, "UPDATE alembic_version SET version_num = 'c0455649680c'"))
			err := s.Upgrade(ctx)
			wantFault(t, err, db.DBMigrationError, "")
			if !strings.Contains(err.Error(), "c0455649680c") {
				t.Errorf("error does not name the revision: %v", err)
			}
			ok(t, raw.Exec(ctx, "UPDATE alembic_version SET version_num = 'ffffffffffff'"))
			err = s.Upgrade(ctx)
			wantFault(t, err, db.DBMigrationError, "")
			if !strings.Contains(err.Error(), "unknown alembic revision ffffffffffff") {
				t.Errorf("unknown revision: %v", err)
			}
			ok(t, raw.Exec(ctx, "DELETE FROM alembic_version"))
			err = s.Upgrade(ctx)
			wantFault(t, err, db.DBMigrationError, "")
			err = s.CreateSchema(ctx)
			wantFault(t, err, db.DBMigrationError, "")
			if !strings.Contains(err.Error(), "nodes") {
				t.Errorf("CreateSchema over tables: %v", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := db.Open(ctx, "postgres", "x", nil); err == nil {
		t.Error("unsupported driver accepted")
	}
	if _, err := db.Open(ctx, "mysql", "not a dsn", nil); err == nil {
		t.Error("bad DSN accepted")
	}
	// In-memory SQLite keeps its data on its one connection.
	s := must[*db.Store](t)(db.Open(ctx, "sqlite", ":memory:", nil))
	defer s.Close()
	ok(t, s.CreateSchema(ctx))
	n := must[*models.Node](t)(s.CreateNode(ctx, &models.Node{Driver: "d"}))
	if _, err := s.GetNodeByID(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetNodeByID(ctx, n.ID+1)
	wantFault(t, err, ironic.NodeNotFound, "")
}
