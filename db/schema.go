package db

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// SchemaStatements returns the DDL statements that create Ironic's schema
// on the dialect, in order (without the alembic stamp).
func SchemaStatements(d Dialect) ([]string, error) {
	name := "schema/sqlite.sql"
	if d == MySQL {
		name = "schema/mysql.sql"
	}
	b, err := schemaFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, st := range strings.Split(string(b), ";\n") {
		var lines []string
		for _, l := range strings.Split(st, "\n") {
			if strings.HasPrefix(l, "--") {
				continue
			}
			lines = append(lines, l)
		}
		st = strings.TrimSpace(strings.Join(lines, "\n"))
		st = strings.TrimSuffix(st, ";")
		if st != "" {
			out = append(out, st)
		}
	}
	return out, nil
}

// Tables are the 17 tables of the schema.
func Tables() []string {
	return []string{
		"alembic_version", "allocations", "bios_settings", "chassis", "conductor_hardware_interfaces",
		"conductors", "deploy_template_steps", "deploy_templates", "node_history", "node_inventory",
		"node_tags", "node_traits", "nodes", "portgroups", "ports", "volume_connectors", "volume_targets",
	}
}

// Revisions are Ironic's alembic revisions, oldest first; the last is the
// head this package creates.
func Revisions() []string {
	return []string{
		"2581ebaf0cb2", "21b331f883ef", "3cb628139ea4", "31baaf680d2b", "3bea56f25597", "487deb87cc9d",
		"242cc6a923b3", "5674c57409b9", "bb59b63f55a", "3ae36a5f5131", "1e1d5ace7dc6", "4f399b21ae71",
		"2fb93ffd2af1", "789acc877671", "516faf1bb9b1", "48d6c242bb9b", "5ea1b0d310e", "f6fdb920c182",
		"e294876e8028", "10b163d4481e", "dd34e1f1303b", "c14cef6dfedf", "60cf717201bc", "bcdd431ba0bf",
		"daa1ba02d98", "1a59178ebdf6", "493d8f27f235", "1d6951876d68", "2353895ecfae", "dbefd6bdaa2c",
		"3d86a077a3f2", "868cb606a74a", "405cfe08f18d", "b4130a7fc904", "e918ff30eb42", "82c315d60161",
		"2d13bc3d6bba", "fb3f10dd262e", "b9117ac17882", "664f85c2f622", "d2b036ae9378", "93706939026c",
		"f190f9d00a11", "dd67b91a1981", "9cbeefa3763f", "28c44432c9c3", "2aac7e0872f6", "1e15e7122cc9",
		"ce6c4b3cf5a2", "cd2c80feb331", "b2ad35726bb0", "cf1a80fdb352", "c0455649680c", "ac00b586ab95",
		"2bbd96b6ccb9", "c1846a214450", "9ef41f07cb58", "0ac0f39bc5aa", models.AlembicHead,
	}
}

// existingTables lists the tables present in the database.
func (s *Store) existingTables(ctx context.Context) ([]string, error) {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if s.dialect == MySQL {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	}
	names, err := stringColumn(ctx, s.db, q)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// Version returns the alembic revision the database is stamped with, or
// "" when it is not under version control (no alembic_version table or no
// row), like `ironic-dbsync version` printing None.
func (s *Store) Version(ctx context.Context) (string, error) {
	tables, err := s.existingTables(ctx)
	if err != nil {
		return "", err
	}
	if !slices.Contains(tables, "alembic_version") {
		return "", nil
	}
	vs, err := stringColumn(ctx, s.db, "SELECT `version_num` FROM `alembic_version`")
	if err != nil {
		return "", err
	}
	switch len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", fmt.Errorf("db: alembic_version has %d rows (branched history is not supported)", len(vs))
}

// CreateSchema creates Ironic's schema and stamps it with the alembic
// head, as `ironic-dbsync create_schema`. It refuses a database that is
// under version control already or that has any of Ironic's tables.
func (s *Store) CreateSchema(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return err
	}
	if v != "" {
		return ironic.Errorf(DBMigrationError, "DB schema is already under version control. Use upgrade() instead")
	}
	existing, err := s.existingTables(ctx)
	if err != nil {
		return err
	}
	var clash []string
	for _, t := range Tables() {
		if slices.Contains(existing, t) {
			clash = append(clash, t)
		}
	}
	if len(clash) > 0 {
		return ironic.Errorf(DBMigrationError, "Database already has tables (%s); refusing to create the schema over them",
			strings.Join(clash, ", "))
	}
	stmts, err := SchemaStatements(s.dialect)
	if err != nil {
		return err
	}
	if s.dialect == MySQL {
		// DDL commits implicitly on MySQL; the tables reference each other
		// in a cycle (nodes <-> allocations), so FK checks are off on the
		// one connection that creates them, as in a mysqldump.
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS=0"); err != nil {
			return err
		}
		for _, st := range stmts {
			if _, err := conn.ExecContext(ctx, st); err != nil {
				_, _ = conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS=1")
				return fmt.Errorf("db: create schema: %w", err)
			}
		}
		if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS=1"); err != nil {
			return err
		}
		_, err = conn.ExecContext(ctx, "INSERT INTO `alembic_version` (`version_num`) VALUES (?)", models.AlembicHead)
		return err
	}
	return s.write(ctx, func(tx *txn) error {
		for _, st := range append(stmts, sqliteForeignKeyIndexes()...) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("db: create schema: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO `alembic_version` (`version_num`) VALUES (?)", models.AlembicHead)
		return err
	})
}

// SQLiteIndexPrefix names the indexes this package adds to SQLite
// databases beyond Ironic's schema (see sqliteForeignKeyIndexes).
const SQLiteIndexPrefix = "goironic_"

// sqliteForeignKeyIndexes index the foreign-key columns of SQLite
// databases. MySQL indexes every foreign key implicitly (the KEY `node_id`
// lines of Ironic's MySQL schema), SQLite does not, so on SQLite each port
// or volume lookup by node would scan its table. The indexes carry our
// prefix and change nothing Ironic reads: Python serves such a database
// as it is. The nodes table is left as Ironic has it: every node insert
// writes one page per index (eleven already), and its foreign keys are
// rarely looked up.
func sqliteForeignKeyIndexes() []string {
	var out []string
	for _, c := range [][2]string{
		{"ports", "node_id"}, {"ports", "portgroup_id"}, {"portgroups", "node_id"},
		{"volume_connectors", "node_id"}, {"volume_targets", "node_id"},
		{"allocations", "node_id"}, {"allocations", "conductor_affinity"},
	} {
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s%s_%s ON %s (%s)", SQLiteIndexPrefix, c[0], c[1], c[0], c[1]))
	}
	return out
}

// Upgrade brings the database to the head revision, as `ironic-dbsync
// upgrade`: an empty database gets the schema and the stamp, a database at
// the head is left alone. Upgrading from an older Ironic revision is not
// supported yet and is reported as an error naming the revision.
func (s *Store) Upgrade(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return err
	}
	switch {
	case v == models.AlembicHead:
		s.log.InfoContext(ctx, "database schema is at the head revision", "revision", v)
		if s.dialect == MySQL {
			return nil
		}
		// A SQLite database Python created lacks our foreign-key indexes.
		return s.write(ctx, func(tx *txn) error {
			for _, st := range sqliteForeignKeyIndexes() {
				if _, err := tx.ExecContext(ctx, st); err != nil {
					return err
				}
			}
			return nil
		})
	case v == "":
		existing, err := s.existingTables(ctx)
		if err != nil {
			return err
		}
		if len(existing) > 0 {
			return ironic.Errorf(DBMigrationError,
				"Database has tables (%s) but is not under alembic version control; refusing to upgrade it",
				strings.Join(existing, ", "))
		}
		s.log.InfoContext(ctx, "creating database schema", "revision", models.AlembicHead)
		return s.CreateSchema(ctx)
	case slices.Contains(Revisions(), v):
		return ironic.Errorf(DBMigrationError,
			"Upgrading the database from alembic revision %s is not supported yet; only databases at %s (or empty ones) are. "+
				"Run Python Ironic's ironic-dbsync upgrade first.", v, models.AlembicHead)
	}
	return ironic.Errorf(DBMigrationError, "Database is at unknown alembic revision %s (this Ironic knows up to %s)", v, models.AlembicHead)
}
