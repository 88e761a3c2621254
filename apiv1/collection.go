package apiv1

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// Collections: the paging of every list (marker, limit, sort_key,
// sort_dir), its next link, and the fields a list or item shows.

// paging are the paging parameters of a collection GET, in the order
// Ironic's get_all methods declare them; marker is args.uuid, or args.name
// for resources paged by name.
func paging(marker validator) []param {
	return []param{opt("marker", marker), opt("limit", intArg), opt("sort_key", strArg), opt("sort_dir", strArg)}
}

// page is a list's validated paging.
type page struct {
	limit   int
	marker  *string
	sortKey string
	sortDir string
}

// page is validate_limit and validate_sort_dir over the paging arguments
// (sort_key defaults to id, sort_dir to asc).
func (a *API) page(b args) (page, error) {
	p := page{marker: b.str("marker"), sortKey: b.strOr("sort_key", "id"), sortDir: b.strOr("sort_dir", "asc")}
	var err error
	if p.limit, err = a.limit(b.integer("limit")); err != nil {
		return p, err
	}
	if p.sortDir != "asc" && p.sortDir != "desc" {
		return p, ironic.Errorf(ironic.ClientSideError, "Invalid sort direction: %s. Acceptable values are 'asc' or 'desc'", p.sortDir)
	}
	return p, nil
}

// limit is validate_limit: [api]max_limit by default and at most.
func (a *API) limit(l *int) (int, error) {
	if l == nil {
		return a.cfg.MaxLimit, nil
	}
	if *l <= 0 {
		return 0, ironic.Errorf(ironic.ClientSideError, "Limit must be positive")
	}
	return min(*l, a.cfg.MaxLimit), nil
}

// pagingOrder is the order in which a resource's _get_*_collection checks
// the sort key and looks the marker up.
type pagingOrder bool

const (
	markerFirst  pagingOrder = false
	sortKeyFirst pagingOrder = true
)

// listOpts finishes the paging: the sort key must not be one of the
// resource's unsortable fields, and the marker names a row (lookup gives
// its id), in the resource's order.
func (p page) listOpts(order pagingOrder, unsortable []string, lookup func(marker string) (int64, error)) (db.ListOpts, error) {
	o := db.ListOpts{Limit: p.limit, SortKey: p.sortKey, SortDir: p.sortDir}
	checkKey := func() error {
		if slices.Contains(unsortable, p.sortKey) {
			return ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value %s is an invalid field for sorting", p.sortKey)
		}
		return nil
	}
	if order == sortKeyFirst {
		if err := checkKey(); err != nil {
			return o, err
		}
	}
	if p.marker != nil {
		id, err := lookup(*p.marker)
		if err != nil {
			return o, err
		}
		o.Marker = id
	}
	return o, checkKey()
}

// nextArgs are the next-link arguments every list repeats; a detail
// argument given to the list is repeated too.
func (p page) nextArgs(detail *bool) []nextArg {
	args := []nextArg{{"sort_key", p.sortKey}, {"sort_dir", p.sortDir}}
	if detail != nil {
		args = append(args, nextArg{"detail", *detail})
	}
	return args
}

// badSortKey rewrites the DB's unknown-column error with the API's text.
func badSortKey(err error, key string) error {
	if f := ironic.AsFault(err); f.Class == ironic.InvalidParameterValue && strings.Contains(f.Message, "sort") {
		return ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value \"%s\" is an invalid field for sorting", key)
	}
	return err
}

// nextArg is one key=value of a next link, written as Python's "%s" would.
type nextArg struct {
	key string
	val any
}

// nextLink is collection.get_next: present only when the page is full.
func nextLink(rq *Request, resource string, count, limit int, marker string, args []nextArg, fields []string) any {
	if limit <= 0 || count != limit {
		return nil
	}
	var b strings.Builder
	b.WriteString(rq.BaseURL())
	b.WriteString("/v1/")
	b.WriteString(resource)
	b.WriteByte('?')
	for _, a := range args {
		b.WriteString(a.key)
		b.WriteByte('=')
		b.WriteString(pyStr(a.val))
		b.WriteByte('&')
	}
	if len(fields) > 0 {
		b.WriteString("fields=")
		b.WriteString(strings.Join(fields, ","))
		b.WriteByte('&')
	}
	fmt.Fprintf(&b, "limit=%d&marker=%s", limit, marker)
	return b.String()
}

// collection is {"<name>": items, "next": url?}.
func collection(name string, items any, next any) pyjson.Object {
	o := pyjson.Object{{Key: name, Value: items}}
	if next != nil {
		o = append(o, pyjson.Member{Key: "next", Value: next})
	}
	return o
}

// returnFields is get_request_return_fields.
func returnFields(v mv.Version, fields []string, detail *bool, defaults []string) ([]string, error) {
	if detail != nil && !v.AtLeast(mv.EnableDetailQuery) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Invalid query parameter ?detail=%s received.", pyBool(*detail))
	}
	if fields != nil && detail != nil && *detail {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Can not specify ?detail=True and fields in the same request.")
	}
	if fields == nil && (detail == nil || !*detail) {
		return defaults, nil
	}
	return fields, nil
}

// checkFieldsVersion is check_allow_specify_fields: ?fields= needs 1.8.
func checkFieldsVersion(v mv.Version, fields []string) error {
	if fields != nil && !v.AtLeast(mv.FetchingSubsetOfFields) {
		return notAcceptable()
	}
	return nil
}

// checkFields is check_for_invalid_fields: every requested field must be
// a member of the rendered object (nil fields: all are). Ironic joins a
// set, in no fixed order; the request's order is kept.
func checkFields(fields []string, o pyjson.Object) error {
	var bad []string
	for _, f := range fields {
		if _, ok := o.Get(f); !ok && !slices.Contains(bad, f) {
			bad = append(bad, f)
		}
	}
	if len(bad) > 0 {
		return ironic.Errorf(ironic.InvalidParameterValue, "Field(s) \"%s\" are not valid", strings.Join(bad, ", "))
	}
	return nil
}

// keepFields is sanitize_dict: only the requested fields and the links
// stay, in order; nil fields keep everything.
func keepFields(o pyjson.Object, fields []string) pyjson.Object {
	if fields == nil {
		return o
	}
	out := make(pyjson.Object, 0, len(fields)+1)
	for _, m := range o {
		if m.Key == "links" || slices.Contains(fields, m.Key) {
			out = append(out, m)
		}
	}
	return out
}
