package apiv1

import (
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// stringList is args.string_list: comma separated, trimmed, lower-cased,
// de-duplicated, order kept; nil when absent.
func stringList(rq *Request, k string) ([]string, error) {
	s, ok := rq.Str(k)
	if !ok {
		return nil, nil
	}
	if len(rq.Query()[k]) > 1 {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected string for %s: %s", k, s)
	}
	items := []string{}
	for _, v := range strings.Split(s, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			continue
		}
		dup := false
		for _, x := range items {
			if x == v {
				dup = true
				break
			}
		}
		if !dup {
			items = append(items, v)
		}
	}
	return items, nil
}

// strArg is args.string for a query parameter.
func strArg(rq *Request, k string) (*string, error) {
	s, ok := rq.Str(k)
	if !ok {
		return nil, nil
	}
	if len(rq.Query()[k]) > 1 {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected string for %s: %s", k, s)
	}
	return &s, nil
}

// uuidArg is args.uuid for a query parameter.
func uuidArg(rq *Request, k string) (*string, error) {
	s, err := strArg(rq, k)
	if err != nil || s == nil {
		return s, err
	}
	if err := checkUUID(k, *s); err != nil {
		return nil, err
	}
	return s, nil
}

// listOpts are the paging parameters shared by lists.
type listOpts struct {
	limit   int
	marker  *string
	sortKey string
	sortDir string
}

// validateLimit is validate_limit.
func (a *API) validateLimit(limit *int) (int, error) {
	if limit == nil {
		return a.cfg.MaxLimit, nil
	}
	if *limit <= 0 {
		return 0, ironic.Errorf(ironic.ClientSideError, "Limit must be positive")
	}
	return min(*limit, a.cfg.MaxLimit), nil
}

// validateSortDir is validate_sort_dir.
func validateSortDir(d string) error {
	if d != "asc" && d != "desc" {
		return ironic.Errorf(ironic.ClientSideError, "Invalid sort direction: %s. Acceptable values are 'asc' or 'desc'", d)
	}
	return nil
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

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
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

// pyStr formats v as Python's "%s".
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return pyBool(x)
	case *bool:
		if x == nil {
			return "None"
		}
		return pyBool(*x)
	case string:
		return x
	case *string:
		if x == nil {
			return "None"
		}
		return *x
	}
	return fmt.Sprint(v)
}

// collection is {"<name>": items, "next": url?}.
func collection(name string, items any, next any) pyjson.Object {
	o := pyjson.Object{{Key: name, Value: items}}
	if next != nil {
		o = append(o, pyjson.Member{Key: "next", Value: next})
	}
	return o
}
