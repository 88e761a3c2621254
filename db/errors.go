package db

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/goironic/ironic"
)

// Fault classes of the DB layer that are not Ironic exception classes:
// DBMigrationError is oslo.db's (schema commands), NodeHistoryAlreadyExists
// is referenced by Ironic's create_node_history but never defined there.
const (
	DBMigrationError         ironic.Class = "DBMigrationError"
	NodeHistoryAlreadyExists ironic.Class = "NodeHistoryAlreadyExists"
)

// Ref names a row the way Ironic's add_identity_filter does: by internal
// integer id or by UUID (and, for ports and portgroups, by MAC address).
type Ref struct {
	ID      int64
	UUID    string
	Address string
}

// ByID refers to a row by internal id.
func ByID(id int64) Ref { return Ref{ID: id} }

// ByUUID refers to a row by UUID.
func ByUUID(uuid string) Ref { return Ref{UUID: uuid} }

// ByAddress refers to a port or portgroup by MAC address.
func ByAddress(mac string) Ref { return Ref{Address: mac} }

// ParseRef reads an identity as Ironic does: an integer is an id, a
// UUID-like string a UUID; anything else is InvalidIdentity.
func ParseRef(ident string) (Ref, error) {
	if IsIntLike(ident) {
		id, _ := strconv.ParseInt(ident, 10, 64)
		return ByID(id), nil
	}
	if IsUUIDLike(ident) {
		return ByUUID(ident), nil
	}
	return Ref{}, ironic.Errorf(ironic.InvalidIdentity, "Expected a UUID or int but received %s.", ident)
}

// String is the identity as Ironic prints it in messages.
func (r Ref) String() string {
	switch {
	case r.Address != "":
		return r.Address
	case r.UUID != "":
		return r.UUID
	}
	return strconv.FormatInt(r.ID, 10)
}

// where is the SQL condition selecting the row in table t (qualified).
func (r Ref) where(t string) (string, any) {
	switch {
	case r.Address != "":
		return quote(t) + ".`address` = ?", r.Address
	case r.UUID != "":
		return quote(t) + ".`uuid` = ?", r.UUID
	}
	return quote(t) + ".`id` = ?", r.ID
}

// IsIntLike is oslo strutils.is_int_like: str(int(v)) == v.
func IsIntLike(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}

// IsUUIDLike is oslo uuidutils.is_uuid_like: a UUID in any of the forms
// Python's uuid.UUID accepts (hyphens, braces and urn prefix optional).
func IsUUIDLike(s string) bool {
	v := strings.ReplaceAll(s, "urn:", "")
	v = strings.ReplaceAll(v, "uuid:", "")
	v = strings.Trim(v, "{}")
	v = strings.ReplaceAll(v, "-", "")
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isHex(v[i]) {
			return false
		}
	}
	return true
}

// IsValidMAC is oslo netutils.is_valid_mac: six colon-separated octets.
func IsValidMAC(s string) bool {
	if len(s) != 17 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i%3 == 2 {
			if c != ':' {
				return false
			}
			continue
		}
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// IsValidLogicalName is ironic.common.utils.is_valid_logical_name: RFC 3986
// unreserved characters only, at most 255 of them.
func IsValidLogicalName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~':
		default:
			return false
		}
	}
	return true
}

// uniqueViolation reports whether err is a unique constraint violation and
// which columns it names (as oslo.db's DBDuplicateEntry.columns).
func uniqueViolation(err error) ([]string, bool) {
	if err == nil {
		return nil, false
	}
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		if me.Number != 1062 {
			return nil, false
		}
		return mysqlDupColumns(me.Message), true
	}
	var se interface{ Code() int }
	if errors.As(err, &se) {
		code := se.Code()
		// SQLITE_CONSTRAINT_UNIQUE (2067), SQLITE_CONSTRAINT_PRIMARYKEY (1555).
		if code == 2067 || code == 1555 || (code&0xff == 19 && strings.Contains(err.Error(), "UNIQUE constraint failed")) {
			return sqliteDupColumns(err.Error()), true
		}
	}
	return nil, false
}

// sqliteDupColumns parses "UNIQUE constraint failed: nodes.name, nodes.x".
func sqliteDupColumns(msg string) []string {
	i := strings.Index(msg, "constraint failed: ")
	if i < 0 {
		return nil
	}
	rest := msg[i+len("constraint failed: "):]
	if j := strings.Index(rest, " ("); j >= 0 {
		rest = rest[:j]
	}
	var cols []string
	for _, p := range strings.Split(rest, ",") {
		p = strings.TrimSpace(p)
		if k := strings.LastIndexByte(p, '.'); k >= 0 {
			p = p[k+1:]
		}
		cols = append(cols, p)
	}
	return cols
}

// mysqlDupColumns parses "Duplicate entry 'x' for key 'uniq_nodes0name'"
// as oslo.db does: the key name uniq_<table>0<col>[0<col>...] names the
// columns; a plain key name is the column itself.
func mysqlDupColumns(msg string) []string {
	i := strings.LastIndex(msg, " for key '")
	if i < 0 {
		return nil
	}
	key := strings.TrimSuffix(msg[i+len(" for key '"):], "'")
	if j := strings.LastIndexByte(key, '.'); j >= 0 { // MySQL 8: 'nodes.uniq_nodes0name'
		key = key[j+1:]
	}
	if strings.HasPrefix(key, "uniq_") {
		parts := strings.Split(key, "0")
		if len(parts) > 1 {
			return parts[1:]
		}
		return nil
	}
	if key == "PRIMARY" {
		return []string{"PRIMARY"}
	}
	return []string{key}
}

func hasCol(cols []string, name string) bool {
	for _, c := range cols {
		if c == name {
			return true
		}
	}
	return false
}

// isDeadlock reports a MySQL deadlock or lock wait timeout (oslo.db's
// DBDeadlock).
func isDeadlock(err error) bool {
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1213 || me.Number == 1205
	}
	return false
}

// pyList formats strings as Python's repr of a list: ['a', 'b'].
func pyList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyRepr is Python's repr of a str (for the printable ASCII that
// identifiers use).
func pyRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func notFound(c ironic.Class, format string, ident any) error {
	return ironic.Errorf(c, format, fmt.Sprint(ident))
}

// valueTooLong turns MySQL's "Data too long for column" (a value bigger
// than its column, e.g. 64 KiB of TEXT) into a client error: it is the
// request's value that doesn't fit, not a server failure. Other errors
// pass through unchanged.
func valueTooLong(err error) error {
	var me *mysqldrv.MySQLError
	if err == nil || !errors.As(err, &me) || me.Number != 1406 {
		return err
	}
	col := "a field"
	if i := strings.Index(me.Message, "column '"); i >= 0 {
		rest := me.Message[i+len("column '"):]
		if j := strings.IndexByte(rest, '\''); j >= 0 {
			col = rest[:j]
		}
	}
	return ironic.Errorf(ironic.InvalidParameterValue, "The value of %s is too long to be stored.", col)
}
