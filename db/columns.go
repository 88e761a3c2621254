package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/goironic/ironic/db/models"
)

// kind is how a column maps to a Go field.
type kind uint8

const (
	kStr       kind = iota // string, NOT NULL
	kEmptyNull             // string; NULL reads as "", "" writes NULL
	kNullStr               // *string
	kInt                   // int64, NOT NULL
	kNullInt               // *int64
	kBool                  // bool; NULL reads as false
	kNullBool              // *bool
	kTime                  // models.Time; zero is NULL
	kDict                  // models.JSONDict
	kList                  // models.JSONList
)

// column describes one column of table T: its name, its kind, and where
// the field of a row lives (its offset in T).
type column[T any] struct {
	name string
	kind kind
	off  uintptr
}

// addr is the address of the column's field in row r.
func (c *column[T]) addr(r *T) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(r), c.off) }

// ptr points at the column's field of row r; see fieldPtr.
func (c *column[T]) ptr(r *T) any { return fieldPtr(c.kind, c.addr(r)) }

// fieldPtr types the address of a field of kind k: *string, **string,
// *int64, **int64, *bool, **bool, *models.Time, *models.JSONDict or
// *models.JSONList. newTable checked that the field at a column's offset
// has exactly that type (or, for **string, a pointer to another string
// type, laid out alike), so no reflection happens per row.
func fieldPtr(k kind, p unsafe.Pointer) any {
	switch k {
	case kStr, kEmptyNull:
		return (*string)(p)
	case kNullStr:
		return (**string)(p)
	case kInt:
		return (*int64)(p)
	case kNullInt:
		return (**int64)(p)
	case kBool:
		return (*bool)(p)
	case kNullBool:
		return (**bool)(p)
	case kTime:
		return (*models.Time)(p)
	case kDict:
		return (*models.JSONDict)(p)
	case kList:
		return (*models.JSONList)(p)
	}
	panic(fmt.Sprintf("db: unknown column kind %d", k))
}

// table describes a table of rows T with an explicit column list.
type table[T any] struct {
	name    string
	cols    []column[T]
	index   map[string]int
	idCol   int    // the auto-increment id's index in cols, -1 for tables without one
	selects string // "`t`.`c1`, `t`.`c2`, ..."
	// textTimes selects timestamps as plain text (SQLite): the driver
	// would otherwise parse every DATETIME with time.Parse.
	textTimes bool
}

func buildTable[T any](d Dialect, name string, idCol int, cols []column[T]) *table[T] {
	t := &table[T]{name: name, cols: cols, idCol: idCol, index: make(map[string]int, len(cols)), textTimes: d == SQLite}
	var b strings.Builder
	for i, c := range cols {
		t.index[c.name] = i
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.selCol(c))
	}
	t.selects = b.String()
	return t
}

// id points at the auto-increment id of r; nil for tables without one.
func (t *table[T]) id(r *T) *int64 {
	if t.idCol < 0 {
		return nil
	}
	return t.cols[t.idCol].ptr(r).(*int64)
}

// selCol is a column as it appears in a select list.
func (t *table[T]) selCol(c column[T]) string {
	if c.kind == kTime && t.textTimes {
		return "CAST(" + t.qcol(c.name) + " AS TEXT)"
	}
	return t.qcol(c.name)
}

// quote quotes an identifier; backticks work on MySQL and SQLite alike.
func quote(name string) string { return "`" + name + "`" }

// qcol is a column qualified by its table.
func (t *table[T]) qcol(name string) string { return quote(t.name) + "." + quote(name) }

// has reports whether the table has the column.
func (t *table[T]) has(name string) bool { _, ok := t.index[name]; return ok }

// subset returns the columns named, in the table's order, always with the
// id (as SQLAlchemy's load_only keeps the primary key).
func (t *table[T]) subset(names []string) ([]column[T], string, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		if !t.has(n) {
			return nil, "", fmt.Errorf("db: table %s has no column %q", t.name, n)
		}
		want[n] = true
	}
	if t.idCol >= 0 {
		want[t.cols[t.idCol].name] = true
	}
	var cols []column[T]
	var b strings.Builder
	for _, c := range t.cols {
		if !want[c.name] {
			continue
		}
		if len(cols) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.selCol(c))
		cols = append(cols, c)
	}
	return cols, b.String(), nil
}

// fieldScanner scans one column into the field of the current row (dst,
// the field's address, of the type its kind says) with a switch on the
// kind: no reflection, no allocation beyond the value itself.
type fieldScanner struct {
	kind kind
	dst  unsafe.Pointer
}

func (f *fieldScanner) Scan(src any) error {
	switch f.kind {
	case kStr, kEmptyNull:
		p := (*string)(f.dst)
		if src == nil {
			*p = ""
			return nil
		}
		s, err := asString(src)
		*p = s
		return err
	case kNullStr:
		p := (**string)(f.dst)
		if src == nil {
			*p = nil
			return nil
		}
		s, err := asString(src)
		*p = &s
		return err
	case kInt:
		p := (*int64)(f.dst)
		if src == nil {
			*p = 0
			return nil
		}
		v, err := asInt(src)
		*p = v
		return err
	case kNullInt:
		p := (**int64)(f.dst)
		if src == nil {
			*p = nil
			return nil
		}
		v, err := asInt(src)
		*p = &v
		return err
	case kBool:
		p := (*bool)(f.dst)
		if src == nil {
			*p = false
			return nil
		}
		v, err := asBool(src)
		*p = v
		return err
	case kNullBool:
		p := (**bool)(f.dst)
		if src == nil {
			*p = nil
			return nil
		}
		v, err := asBool(src)
		*p = &v
		return err
	case kTime:
		return (*models.Time)(f.dst).Scan(src)
	case kDict:
		return (*models.JSONDict)(f.dst).Scan(src)
	case kList:
		return (*models.JSONList)(f.dst).Scan(src)
	}
	return fmt.Errorf("db: unknown column kind %d", f.kind)
}

func asString(src any) (string, error) {
	switch v := src.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		if v {
			return "1", nil
		}
		return "0", nil
	case time.Time:
		return v.UTC().Format(models.TimeLayout), nil
	}
	return "", fmt.Errorf("db: cannot scan %T into a string", src)
}

func asInt(src any) (int64, error) {
	switch v := src.(type) {
	case int64:
		return v, nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	case float64:
		return int64(v), nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("db: cannot scan %T into an integer", src)
}

func asBool(src any) (bool, error) {
	switch v := src.(type) {
	case bool:
		return v, nil
	case int64:
		return v != 0, nil
	case []byte:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n != 0, err
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n != 0, err
	case float64:
		return v != 0, nil
	}
	return false, fmt.Errorf("db: cannot scan %T into a boolean", src)
}

// scanAll reads every row of rows into new values of T.
func scanAll[T any](rows *sql.Rows, cols []column[T], sizeHint int) ([]T, error) {
	defer rows.Close()
	scs := make([]fieldScanner, len(cols))
	dest := make([]any, len(cols))
	for i := range scs {
		scs[i].kind = cols[i].kind
		dest[i] = &scs[i]
	}
	if sizeHint <= 0 || sizeHint > 1024 {
		sizeHint = 16
	}
	out := make([]T, 0, sizeHint)
	var zero T
	for rows.Next() {
		out = append(out, zero)
		r := &out[len(out)-1]
		for i := range cols {
			scs[i].dst = cols[i].addr(r)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// selectWhere reads the rows of t matching where (may be empty).
func selectWhere[T any](ctx context.Context, q querier, t *table[T], where string, args ...any) ([]T, error) {
	query := "SELECT " + t.selects + " FROM " + quote(t.name)
	if where != "" {
		query += " WHERE " + where
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return scanAll(rows, t.cols, 0)
}

// selectOne reads the single row of t matching where; found is false when
// there is none.
func selectOne[T any](ctx context.Context, q querier, t *table[T], where, suffix string, args ...any) (*T, bool, error) {
	rows, err := selectWhere(ctx, q, t, where+suffix, args...)
	if err != nil {
		return nil, false, err
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	return &rows[0], true, nil
}

// dbValue is the value written for a field of kind k, given a pointer to
// the field. The results are comparable (nil, string, int64).
func dbValue(k kind, p any) (driver.Value, error) {
	switch k {
	case kStr:
		return *p.(*string), nil
	case kEmptyNull:
		if s := *p.(*string); s != "" {
			return s, nil
		}
		return nil, nil
	case kNullStr:
		if s := *p.(**string); s != nil {
			return *s, nil
		}
		return nil, nil
	case kInt:
		return *p.(*int64), nil
	case kNullInt:
		if v := *p.(**int64); v != nil {
			return *v, nil
		}
		return nil, nil
	case kBool:
		return boolInt(*p.(*bool)), nil
	case kNullBool:
		if v := *p.(**bool); v != nil {
			return boolInt(*v), nil
		}
		return nil, nil
	case kTime:
		return p.(*models.Time).Value()
	case kDict:
		return p.(*models.JSONDict).Value()
	case kList:
		return p.(*models.JSONList).Value()
	}
	return nil, fmt.Errorf("db: unknown column kind %d", k)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Values are column values for an update, keyed by column name, as in
// Ironic's update_*(ident, values). Accepted Go types per column:
// strings as string or *string; integers as int, int64, int32, *int64 or
// json.Number; booleans as bool or *bool; timestamps as models.Time,
// time.Time or *time.Time; JSON dicts as models.JSONDict or map[string]any;
// JSON lists as models.JSONList, []any or []string; nil for NULL (for JSON
// columns: an empty dict or list).
type Values map[string]any

// convert turns an update value into what is written for a column of
// kind k (comparable, like dbValue).
func convert(k kind, v any) (driver.Value, error) {
	if v == nil {
		switch k {
		case kDict:
			return "{}", nil
		case kList:
			return "[]", nil
		}
		return nil, nil
	}
	switch k {
	case kStr, kEmptyNull, kNullStr:
		switch x := v.(type) {
		case string:
			if k == kEmptyNull && x == "" {
				return nil, nil
			}
			return x, nil
		case *string:
			if x == nil {
				return nil, nil
			}
			return convert(k, *x)
		}
		// A string type of package states, or a pointer to one.
		switch rv := reflect.ValueOf(v); {
		case rv.Kind() == reflect.String:
			return convert(k, rv.String())
		case rv.Kind() == reflect.Pointer && rv.Type().Elem().Kind() == reflect.String:
			if rv.IsNil() {
				return nil, nil
			}
			return convert(k, rv.Elem().String())
		}
	case kInt, kNullInt:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int:
			return int64(x), nil
		case int32:
			return int64(x), nil
		case *int64:
			if x == nil {
				return nil, nil
			}
			return *x, nil
		case *int:
			if x == nil {
				return nil, nil
			}
			return int64(*x), nil
		case json.Number:
			return x.Int64()
		}
	case kBool, kNullBool:
		switch x := v.(type) {
		case bool:
			return boolInt(x), nil
		case *bool:
			if x == nil {
				return nil, nil
			}
			return boolInt(*x), nil
		}
	case kTime:
		switch x := v.(type) {
		case models.Time:
			return x.Value()
		case *models.Time:
			if x == nil {
				return nil, nil
			}
			return x.Value()
		case time.Time:
			return models.NewTime(x).Value()
		case *time.Time:
			if x == nil {
				return nil, nil
			}
			return models.NewTime(*x).Value()
		}
	case kDict:
		switch x := v.(type) {
		case models.JSONDict:
			return x.Value()
		case map[string]any:
			return models.JSONDict(x).Value()
		}
	case kList:
		switch x := v.(type) {
		case models.JSONList:
			return x.Value()
		case []any:
			return models.JSONList(x).Value()
		case []string:
			return models.StringList(x).Value()
		}
	}
	return nil, fmt.Errorf("db: value of type %T does not fit a column of kind %d", v, k)
}

// insertRow writes r into t (every column; the id is assigned by the
// database when zero) and stores the new id back into r.
func insertRow[T any](ctx context.Context, q querier, t *table[T], r *T) error {
	var (
		names = make([]string, 0, len(t.cols))
		marks = make([]string, 0, len(t.cols))
		args  = make([]any, 0, len(t.cols))
	)
	newID := t.idCol >= 0 && *t.id(r) == 0
	for i, c := range t.cols {
		if newID && i == t.idCol {
			continue
		}
		p := c.ptr(r)
		v, err := dbValue(c.kind, p)
		if err != nil {
			return fmt.Errorf("db: %s.%s: %w", t.name, c.name, err)
		}
		names = append(names, quote(c.name))
		marks = append(marks, "?")
		args = append(args, v)
	}
	query := "INSERT INTO " + quote(t.name) + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	if newID {
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		*t.id(r) = id
	}
	return nil
}

// changes compares values with the current row and returns the SET
// assignments for the columns whose value differs, as SQLAlchemy's unit of
// work does (unchanged attributes are not written).
func changes[T any](t *table[T], cur *T, values Values) (sets []string, args []any, err error) {
	for name, v := range values {
		i, ok := t.index[name]
		if !ok {
			return nil, nil, fmt.Errorf("db: table %s has no column %q", t.name, name)
		}
		c := t.cols[i]
		nv, err := convert(c.kind, v)
		if err != nil {
			return nil, nil, fmt.Errorf("db: %s.%s: %w", t.name, name, err)
		}
		ov, err := dbValue(c.kind, c.ptr(cur))
		if err != nil {
			return nil, nil, err
		}
		if ov == nv {
			continue
		}
		sets = append(sets, quote(name)+" = ?")
		args = append(args, nv)
	}
	return sets, args, nil
}

// updateChanged writes the changed values of the row found by where, plus
// updated_at (unless given), and reports whether anything was written.
func updateChanged[T any](ctx context.Context, q querier, t *table[T], cur *T, values Values, now time.Time, where string, whereArgs ...any) (bool, error) {
	sets, args, err := changes(t, cur, values)
	if err != nil {
		return false, err
	}
	if len(sets) == 0 {
		return false, nil
	}
	if _, given := values["updated_at"]; !given && t.has("updated_at") {
		sets = append(sets, quote("updated_at")+" = ?")
		args = append(args, now.Format(models.TimeLayout))
	}
	args = append(args, whereArgs...)
	_, err = q.ExecContext(ctx, "UPDATE "+quote(t.name)+" SET "+strings.Join(sets, ", ")+" WHERE "+where, args...)
	return err == nil, err
}

// applyValues sets the values just written by updateChanged (and
// updated_at = now unless given) on cur, as a read-back of the row would
// find them: each value goes through the same conversion as the UPDATE
// and the same scanner as a SELECT.
func applyValues[T any](t *table[T], cur *T, values Values, now time.Time) error {
	for name, v := range values {
		c := t.cols[t.index[name]]
		nv, err := convert(c.kind, v)
		if err != nil {
			return err
		}
		if err := (&fieldScanner{kind: c.kind, dst: c.addr(cur)}).Scan(nv); err != nil {
			return fmt.Errorf("db: %s.%s: %w", t.name, name, err)
		}
	}
	if _, given := values["updated_at"]; !given && t.has("updated_at") {
		c := t.cols[t.index["updated_at"]]
		return (&fieldScanner{kind: c.kind, dst: c.addr(cur)}).Scan(now.Format(models.TimeLayout))
	}
	return nil
}

// placeholders returns "?, ?, ..." for n values.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// anySlice converts a slice to []any for query arguments.
func anySlice[E any](s []E) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
