package apiv1

// Helpers shared by the simple resources that Ironic's API serves straight
// from the database (chassis, volume connectors and targets, deploy
// templates): pecan-style argument binding for lists and bodies, the
// field checks and sanitizing of api_utils, and route gates.

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
)

// routeGate registers, ahead of a resource's own routes, an answer pecan
// gives while routing, before any controller method runs (an abort in a
// _lookup or _route): whenever check returns a fault for a request on r,
// whatever its verb, that fault is the answer, without version headers.
func (a *API) routeGate(r *mux.Route, check func(rq *Request) *ironic.Fault) {
	r.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
		rq, ok := req.Context().Value(requestKey{}).(*Request)
		return ok && check(rq) != nil
	}).HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rq := req.Context().Value(requestKey{}).(*Request)
		a.writePlainFault(w, req, check(rq))
	})
}

// missingPositional answers a collection verb whose handler needs an item, as
// args.validate does when a mandatory positional argument is absent.
func missingPositional(name string) handlerFunc {
	return func(*Request) (*Response, error) {
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: %s", name)
	}
}

// postOnItemAsBody answers POST /<collection>/<x>: pecan hands <x> to post() as
// its body argument, which the body schema rejects.
func postOnItemAsBody(bodyName, varName string) handlerFunc {
	return func(rq *Request) (*Response, error) {
		if _, err := readMethodBody(rq); err != nil {
			return nil, err
		}
		if err := rq.CheckArgs(); err != nil {
			return nil, err
		}
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Schema error for %s: %s is not of type 'object'",
			bodyName, pyschema.Repr(rq.Var(varName)))
	}
}

// getFieldsSegment is GET /<collection>/<item>/<x> where <x> names no
// sub-resource: pecan passes <x> to get_one as its fields argument.
func getFieldsSegment(getOne handlerFunc) handlerFunc {
	return func(rq *Request) (*Response, error) {
		if !rq.Has("fields") {
			q := maps.Clone(rq.Query())
			q.Set("fields", rq.Var("extra"))
			rq.query = q
		}
		return getOne(rq)
	}
}

// patchSegment is PATCH /<collection>/<item>/<x>: pecan passes <x> to
// patch() as the patch itself, which the patch schema rejects once the
// item argument has passed checkItem.
func patchSegment(checkItem func(rq *Request) error) handlerFunc {
	return func(rq *Request) (*Response, error) {
		if _, err := readMethodBody(rq); err != nil {
			return nil, err
		}
		if err := rq.CheckArgs(); err != nil {
			return nil, err
		}
		if err := checkItem(rq); err != nil {
			return nil, err
		}
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Schema error for patch: %s is not of type 'array'",
			pyschema.Repr(rq.Var("extra")))
	}
}

// deleteSegment is DELETE /<collection>/<item>/<x>. Ironic fails with a
// TypeError (500): delete() takes no second argument; there is no such
// resource.
func deleteSegment(*Request) (*Response, error) {
	return nil, ironic.Webob(ironic.NotFound, "")
}

// readMethodBody is method.body: the request body decoded with its key order
// kept, an empty body being {}. The body stays readable for a later
// parsePatch.
func readMethodBody(rq *Request) (any, error) {
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

// readPatchBody is a PATCH's body: decoded (first, as method.body does), then
// the query checked with checkArgs, then validated against the patch
// schema. An empty body is {} and fails that schema.
func (a *API) readPatchBody(rq *Request, checkArgs func() error) ([]patchOp, error) {
	doc, err := readMethodBody(rq)
	if err != nil {
		return nil, err
	}
	if err := checkArgs(); err != nil {
		return nil, err
	}
	if o, ok := doc.(pyjson.Object); ok && len(o) == 0 {
		if verr := a.schemas.patch.Validate(doc); verr != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("patch"))
		}
	}
	return a.parsePatch(rq)
}

// isName is utils.is_valid_logical_name, which (unlike node names before
// 1.10) does not depend on the request's version.
func isName(s string) bool { return isLogicalName(mv.UnrestrictedNodeName, s) }

// checkUUIDOrNameArg is args.uuid_or_name.
func checkUUIDOrNameArg(param, s string) error {
	if !isName(s) && !isUUID(s) {
		return ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID or name for %s: %s", param, s)
	}
	return nil
}

// listArgs are the paging arguments of a collection GET.
type listArgs struct {
	marker  *string
	limit   *int
	sortKey string
	sortDir string
	fields  []string
	detail  *bool
}

// markerKind says how a list validates its marker.
type markerKind int

const (
	markerUUID markerKind = iota // args.uuid
	markerName                   // args.name
)

// parseListArgs validates marker, limit, sort_key, sort_dir and, when
// withFields, fields and detail, in that order (the order of the handler's
// parameters, which is the order args.validate checks them in).
func parseListArgs(rq *Request, mk markerKind, withFields bool) (*listArgs, error) {
	p := &listArgs{sortKey: "id", sortDir: "asc"}
	var err error
	switch mk {
	case markerName:
		if p.marker, err = strArg(rq, "marker"); err != nil {
			return nil, err
		}
		if p.marker != nil && !isName(*p.marker) {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected name for marker: %s", *p.marker)
		}
	default:
		if p.marker, err = uuidArg(rq, "marker"); err != nil {
			return nil, err
		}
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
	if withFields {
		if p.fields, err = stringList(rq, "fields"); err != nil {
			return nil, err
		}
		if p.detail, err = rq.Bool("detail"); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// listBase are the next-link arguments every list repeats.
func (p *listArgs) nextArgs() []nextArg {
	return []nextArg{{"sort_key", p.sortKey}, {"sort_dir", p.sortDir}}
}

// checkFields is check_for_invalid_fields: every requested field must be
// a member of the rendered object.
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

// keepViewFields is sanitize_dict: only the requested fields and the
// links stay; nil fields keep everything.
func keepViewFields(o pyjson.Object, fields []string) pyjson.Object {
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

// bodySchemaFault formats a body validation failure as args.schema does.
func bodySchemaFault(verr *pyschema.ValidationError, name string) error {
	return ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage(name))
}

// checkBodyUUID is dict_valid(uuid=args.uuid) for one key of a body.
func checkBodyUUID(body map[string]any, key string) error {
	if s, ok := body[key].(string); ok {
		return checkUUID(key, s)
	}
	return nil
}

// bodyDict returns a body dict value (nil for null or absent).
func bodyDict(v any) models.JSONDict { return dictValueOrNil(v) }

// dictValueOrNil is a request's object as a stored dict: a *pyjson.Dict
// or pyjson.Object keeps its order (a map is sorted); nil for anything
// else.
func dictValueOrNil(v any) models.JSONDict {
	switch v.(type) {
	case *pyjson.Dict, pyjson.Object, map[string]any:
		d, _ := pyjson.AsDict(pyjson.Ordered(v))
		return models.DictFrom(d)
	}
	return models.JSONDict{}
}

// patchDictValue is a JSON dict column as a patch document holds it: a
// copy (so a patch cannot reach the row), or nil for NULL.
func patchDictValue(d models.JSONDict) any {
	if d.IsNil() {
		return nil
	}
	return d.Map() // a copy
}

// pruneToSchema is the pruning of patched_validate_with_schema: only the
// schema's properties stay.
func pruneToSchema(m map[string]any, keys []string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
