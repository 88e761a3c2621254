package db

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
)

// ListOpts pages and sorts a list exactly as Ironic's _paginate_query and
// oslo.db's paginate_query: rows are ordered by SortKey and then by id (the
// tie-break), in SortDir for both; the page starts after the Marker row.
type ListOpts struct {
	// Limit is the page size; 0 means no limit.
	Limit int
	// Marker is the internal id of the last row of the previous page (the
	// API resolves the marker UUID to it); 0 means the first page. A
	// marker row that no longer exists yields an empty page.
	Marker int64
	// SortKey is a column of the table; "" sorts by id only. A name that is
	// not a column is InvalidParameterValue, as in Ironic.
	SortKey string
	// SortDir is "asc" (the default when empty) or "desc", optionally with
	// "-nullsfirst" or "-nullslast".
	SortDir string
}

// query is a SELECT being built: FROM clause, conditions and arguments.
type query struct {
	from  string
	where []string
	args  []any
}

func (q *query) add(cond string, args ...any) {
	q.where = append(q.where, cond)
	q.args = append(q.args, args...)
}

// in adds "col IN (...)"; an empty list matches nothing, as SQLAlchemy's
// in_([]) does.
func in[S ~string](q *query, col string, vals []S) {
	if len(vals) == 0 {
		q.add("1 = 0")
		return
	}
	q.add(col+" IN ("+placeholders(len(vals))+")", stringArgs(vals)...)
}

// stringArgs converts strings of any string type to query arguments of
// type string (drivers convert named string types each in their own way).
func stringArgs[S ~string](vals []S) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

func (q *query) whereSQL() string {
	if len(q.where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(q.where, " AND ")
}

type sortKey struct {
	name  string
	desc  bool
	nulls string // "", "nullsfirst", "nullslast"
}

// sortKeys validates o against t and returns the keys [sort_key, id].
func sortKeys[T any](t *table[T], o ListOpts) ([]sortKey, error) {
	dir := o.SortDir
	if dir == "" {
		dir = "asc"
	}
	main, nulls, _ := strings.Cut(dir, "-")
	if (main != "asc" && main != "desc") || (nulls != "" && nulls != "nullsfirst" && nulls != "nullslast") {
		return nil, ironic.Errorf(ironic.InvalidParameterValue,
			"Unknown sort direction, must be one of: asc-nullsfirst, asc-nullslast, desc-nullsfirst, desc-nullslast")
	}
	names := []string{"id"}
	if o.SortKey != "" && o.SortKey != "id" {
		names = []string{o.SortKey, "id"}
	}
	keys := make([]sortKey, 0, len(names))
	for _, n := range names {
		if !t.has(n) {
			return nil, ironic.Errorf(ironic.InvalidParameterValue,
				"The sort_key value \"%s\" is an invalid field for sorting", o.SortKey)
		}
		keys = append(keys, sortKey{name: n, desc: main == "desc", nulls: nulls})
	}
	return keys, nil
}

// paginate runs the SELECT of cols (selects) for q, ordered and paged by o.
// A marker row that no longer exists gives an empty page.
func paginate[T any](ctx context.Context, db querier, t *table[T], cols []column[T], selects string, q query, o ListOpts) ([]T, error) {
	keys, err := sortKeys(t, o)
	if err != nil {
		return nil, err
	}
	if o.Marker != 0 {
		vals, found, err := markerValues(ctx, db, t, keys, o.Marker)
		if err != nil {
			return nil, err
		}
		if !found {
			return []T{}, nil
		}
		if crit, args := markerCriteria(t, keys, vals); crit != "" {
			q.add(crit, args...)
		}
	}
	var b strings.Builder
	b.Grow(len(selects) + 256)
	b.WriteString("SELECT ")
	b.WriteString(selects)
	b.WriteString(" FROM ")
	b.WriteString(q.from)
	b.WriteString(q.whereSQL())
	b.WriteString(" ORDER BY ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		c := t.qcol(k.name)
		switch k.nulls {
		case "nullsfirst":
			b.WriteString(c + " IS NULL DESC, ")
		case "nullslast":
			b.WriteString(c + " IS NOT NULL DESC, ")
		}
		b.WriteString(c)
		if k.desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
	}
	if o.Limit > 0 {
		b.WriteString(" LIMIT ")
		b.WriteString(strconv.Itoa(o.Limit))
	}
	rows, err := db.QueryContext(ctx, b.String(), q.args...)
	if err != nil {
		return nil, err
	}
	return scanAll(rows, cols, o.Limit)
}

// markerValues reads the sort key values of the marker row, as written.
func markerValues[T any](ctx context.Context, db querier, t *table[T], keys []sortKey, id int64) ([]driver.Value, bool, error) {
	cols := make([]column[T], len(keys))
	names := make([]string, len(keys))
	for i, k := range keys {
		cols[i] = t.cols[t.index[k.name]]
		names[i] = t.qcol(k.name)
	}
	rows, err := db.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+quote(t.name)+" WHERE "+t.qcol("id")+" = ?", id)
	if err != nil {
		return nil, false, err
	}
	found, err := scanAll(rows, cols, 1)
	if err != nil || len(found) == 0 {
		return nil, false, err
	}
	vals := make([]driver.Value, len(keys))
	for i, c := range cols {
		if vals[i], err = dbValue(c.kind, c.ptr(&found[0])); err != nil {
			return nil, false, err
		}
	}
	return vals, true, nil
}

// markerCriteria is oslo.db's lexicographic "after the marker" condition,
// with its handling of NULL marker values (a NULL value contributes no
// condition of its own and no equality to later keys).
func markerCriteria[T any](t *table[T], keys []sortKey, vals []driver.Value) (string, []any) {
	var ors []string
	var args []any
	for i, k := range keys {
		if vals[i] == nil {
			continue
		}
		var ands []string
		for j := 0; j < i; j++ {
			if vals[j] != nil {
				ands = append(ands, t.qcol(keys[j].name)+" = ?")
				args = append(args, vals[j])
			}
		}
		c := t.qcol(k.name)
		var crit string
		if k.desc {
			crit = c + " < ?"
			if k.nulls == "nullsfirst" {
				crit = "(" + crit + " OR " + c + " IS NULL)"
			}
		} else {
			crit = c + " > ?"
			if k.nulls == "nullslast" {
				crit = "(" + crit + " OR " + c + " IS NULL)"
			}
		}
		args = append(args, vals[i])
		ands = append(ands, crit)
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	if len(ors) == 0 {
		return "", nil
	}
	return "(" + strings.Join(ors, " OR ") + ")", args
}

// listAll pages through rows of t with conditions q (FROM defaults to t).
func listAll[T any](ctx context.Context, db querier, t *table[T], q query, o ListOpts) ([]T, error) {
	if q.from == "" {
		q.from = quote(t.name)
	}
	return paginate(ctx, db, t, t.cols, t.selects, q, o)
}
