package apiv1

// Small helpers of the drivers, conductors and misc routes: pecan-style
// argument binding, api_utils' field checks, and routing gates. They carry
// a "misc" prefix so that they never clash with the helpers of the other
// resource files of this package.

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// miscRouteGate registers, ahead of a controller's routes, an answer that
// pecan gives while routing (an abort in a _route or _lookup): whenever
// check returns a fault for a request on r, that fault is the answer,
// without version headers.
func (a *API) miscRouteGate(r *mux.Route, check func(rq *Request) *ironic.Fault) {
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
		rq, ok := req.Context().Value(requestKey{}).(*Request)
		return ok && check(rq) != nil
	}).HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rq := req.Context().Value(requestKey{}).(*Request)
		a.writePlainFault(w, req, check(rq))
	})
}

// miscMissingParam answers a verb whose handler needs a path argument
// that is absent, as args.validate does.
func miscMissingParam(name string) handlerFunc {
	return func(rq *Request) (*Response, error) {
		if _, err := miscReadBody(rq); err != nil {
			return nil, err
		}
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: %s", name)
	}
}

// miscReadBody is method.body: the body decoded with its key order kept
// (an empty body is {}); the raw body stays readable.
func miscReadBody(rq *Request) (any, error) {
	raw, err := rq.ReadBody()
	if err != nil {
		return nil, err
	}
	rq.HTTP.Body = io.NopCloser(bytes.NewReader(raw))
	if len(raw) == 0 {
		return pyjson.Object{}, nil
	}
	return decodeBody(raw)
}

// miscIsName is utils.is_valid_logical_name (whatever the version).
func miscIsName(s string) bool { return isLogicalName(mv.UnrestrictedNodeName, s) }

// miscCheckUUIDOrName is args.uuid_or_name.
func miscCheckUUIDOrName(param, s string) error {
	if !miscIsName(s) && !isUUID(s) {
		return ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID or name for %s: %s", param, s)
	}
	return nil
}

// miscListArgs are the paging arguments of a list.
type miscListArgs struct {
	marker  *string
	limit   *int
	sortKey string
	sortDir string
}

// miscParseListArgs reads marker (a UUID, or with byName a logical name),
// limit, sort_key and sort_dir in the order args.validate checks them.
func miscParseListArgs(rq *Request, byName bool) (*miscListArgs, error) {
	p := &miscListArgs{sortKey: "id", sortDir: "asc"}
	var err error
	if byName {
		if p.marker, err = strArg(rq, "marker"); err != nil {
			return nil, err
		}
		if p.marker != nil && !miscIsName(*p.marker) {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected name for marker: %s", *p.marker)
		}
	} else if p.marker, err = uuidArg(rq, "marker"); err != nil {
		return nil, err
	}
	if p.limit, err = rq.Int("limit"); err != nil {
		return nil, err
	}
	if s, err := strArg(rq, "sort_key"); err != nil {
		return nil, err
	} else if s != nil {
		p.sortKey = *s
	}
	if s, err := strArg(rq, "sort_dir"); err != nil {
		return nil, err
	} else if s != nil {
		p.sortDir = *s
	}
	return p, nil
}

// nextArgs are the next-link arguments of every list.
func (p *miscListArgs) nextArgs() []nextArg {
	return []nextArg{{"sort_key", p.sortKey}, {"sort_dir", p.sortDir}}
}

// miscFieldsArg reads the fields argument of a GET on one item: the query
// parameter, or the extra path segment {fields} that pecan binds to it.
func miscFieldsArg(rq *Request) ([]string, error) {
	if s, ok := rq.Vars["fields"]; ok {
		return miscSplitFields(s), nil
	}
	return stringList(rq, "fields")
}

// miscCheckFields is check_for_invalid_fields against a rendered object.
// Ironic joins a set (in no fixed order); we keep the request's order.
func miscCheckFields(fields []string, o pyjson.Object) error {
	var bad []string
	for _, f := range fields {
		if _, ok := o.Get(f); !ok && !slices.Contains(bad, f) {
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return ironic.Errorf(ironic.InvalidParameterValue, `Field(s) "%s" are not valid`, strings.Join(bad, ", "))
}

// miscSanitize is sanitize_dict: only the requested fields and links
// stay, in order; nil fields keep everything.
func miscSanitize(o pyjson.Object, fields []string) pyjson.Object {
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

// miscBodyUUID is dict_valid(<key>=args.uuid) on a decoded body.
func miscBodyUUID(body map[string]any, key string) error {
	if s, ok := body[key].(string); ok {
		return checkUUID(key, s)
	}
	return nil
}

// miscSplitFields is args.string_list on a value known to be one string.
func miscSplitFields(s string) []string {
	items := []string{}
	for _, v := range strings.Split(s, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "" && !slices.Contains(items, v) {
			items = append(items, v)
		}
	}
	return items
}

// miscAsStatus re-codes a fault of class c with another HTTP status, as Ironic
// does by setting e.code before re-raising.
func miscAsStatus(err error, c ironic.Class, status int) error {
	if f := ironic.AsFault(err); f.Class == c {
		return f.WithStatus(status)
	}
	return err
}
