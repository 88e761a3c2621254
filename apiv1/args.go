package apiv1

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// Arguments. Every handler declares the parameters of the Ironic
// controller method it serves as an argSpec, in the method's order, and
// binds them with argSpec.bind, which reproduces the three layers an
// argument passes in Ironic, in their order:
//
//  1. pecan hands the method the path segments below its controller as
//     positional arguments, and the query parameters as keyword arguments
//     (a repeated parameter as a list); for any verb but GET, the keys of
//     a JSON object body are keyword arguments too.
//  2. method.body, for a method that has it, decodes the body into one
//     parameter (an empty body is {}); the body's keys are then no longer
//     keyword arguments.
//  3. args.validate refuses a keyword the method does not declare
//     ("Unexpected arguments"), then validates the parameters in
//     declaration order, each from its positional value or else its
//     keyword; a mandatory parameter given neither way is "Missing
//     mandatory parameter".
//
// Positional arguments beyond the parameters, and a keyword repeating a
// positional one, make Ironic fail with a TypeError (a 500); bind answers
// them as the client errors they are.

// validator is one of ironic.common.args' validators: it checks one
// argument and returns it normalised. nil (an absent value or a JSON null)
// stays nil.
type validator func(name string, v any) (any, error)

// param is one parameter of a controller method.
type param struct {
	name     string
	check    validator // nil: taken as given
	required bool      // no default: "Missing mandatory parameter"
}

// opt is a parameter with a default.
func opt(name string, check validator) param { return param{name: name, check: check} }

// req is a mandatory parameter.
func req(name string, check validator) param { return param{name: name, check: check, required: true} }

// argSpec is a controller method's parameters in declaration order (the
// order args.validate checks them in) and the one method.body fills.
type argSpec struct {
	params  []param
	body    string
	varargs bool
	kwargs  bool
}

// params starts a spec.
func params(ps ...param) argSpec { return argSpec{}.and(ps...) }

// and appends parameters (at most 64 in all).
func (s argSpec) and(ps ...param) argSpec {
	s.params = append(slices.Clip(s.params), ps...)
	if len(s.params) > 64 {
		panic("apiv1: more than 64 parameters")
	}
	return s
}

// takesBody names the parameter method.body fills; it must be one of the
// params. Its validator sees the body, or a path segment bound to it in
// its place.
func (s argSpec) takesBody(name string) argSpec {
	s.body = name
	return s
}

// withVarargs lets the method take more positional arguments than it has
// parameters (Python's *args): they are args.varargs.
func (s argSpec) withVarargs() argSpec {
	s.varargs = true
	return s
}

// withKwargs lets the method take keywords it does not declare (Python's
// **kwargs).
func (s argSpec) withKwargs() argSpec {
	s.kwargs = true
	return s
}

// without drops parameters.
func (s argSpec) without(names ...string) argSpec {
	s.params = slices.DeleteFunc(slices.Clone(s.params), func(p param) bool { return slices.Contains(names, p.name) })
	return s
}

// args are the bound arguments of one request.
type args struct {
	params []param
	// vals are the validated values, by parameter; set has bit i for a
	// parameter given (a JSON null counts).
	vals []any
	set  uint64
	// body is what method.body decoded (nil without one).
	body any
	// varargs are the positional arguments beyond the parameters.
	varargs []string
}

func (b args) index(name string) int {
	for i, p := range b.params {
		if p.name == name {
			return i
		}
	}
	return -1
}

// given reports whether the parameter was given (a JSON null counts).
func (b args) given(name string) bool {
	i := b.index(name)
	return i >= 0 && b.set&(1<<i) != 0
}

// value is the validated value (nil when absent or null).
func (b args) value(name string) any {
	if i := b.index(name); i >= 0 {
		return b.vals[i]
	}
	return nil
}

// str is a string argument (nil when absent or null).
func (b args) str(name string) *string {
	if s, ok := b.value(name).(string); ok {
		return &s
	}
	return nil
}

// strAs is a string argument of one of the string types of package
// states (nil when absent or null): a client's provision state, fault or
// verb, unchecked.
func strAs[S ~string](b args, name string) *S {
	if s, ok := b.value(name).(string); ok {
		v := S(s)
		return &v
	}
	return nil
}

// ident is an identifying argument (a node's, say) as Python's "%s"
// shows it: "None" for null.
func (b args) ident(name string) string { return pyStr(b.value(name)) }

// strOr is a string argument or def.
func (b args) strOr(name, def string) string {
	if s := b.str(name); s != nil {
		return *s
	}
	return def
}

// boolean is a boolean argument.
func (b args) boolean(name string) *bool {
	if v, ok := b.value(name).(bool); ok {
		return &v
	}
	return nil
}

// integer is an integer argument.
func (b args) integer(name string) *int {
	if v, ok := b.value(name).(int); ok {
		return &v
	}
	return nil
}

// list is a string_list argument (nil when absent).
func (b args) list(name string) []string {
	l, _ := b.value(name).([]string)
	return l
}

// bind binds the request's arguments to the spec; positional are the path
// segments below the controller, in order.
func (s argSpec) bind(rq *Request, positional ...string) (args, error) {
	b := args{params: s.params, vals: make([]any, len(s.params))}
	var bodyKeys pyjson.Object
	if s.body != "" {
		doc, err := readMethodBody(rq)
		if err != nil {
			return b, err
		}
		b.body = doc
		bodyKeys, _ = doc.(pyjson.Object)
	}
	kw := rq.keywords(s.body == "")
	for _, m := range bodyKeys {
		delete(kw, m.Key)
	}
	var bad []string
	for k := range kw {
		i := slices.IndexFunc(s.params, func(p param) bool { return p.name == k })
		if k != s.body && (i < 0 || i < len(positional)) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 && !s.kwargs {
		slices.Sort(bad)
		return b, ironic.Errorf(ironic.InvalidParameterValue, "Unexpected arguments: %s", strings.Join(bad, ", "))
	}
	for i, p := range s.params {
		var v any
		switch kv, ok := kw[p.name]; {
		case i < len(positional):
			v = positional[i]
		case p.name == s.body:
			v = b.body
		case ok:
			v = kv
		case p.required:
			return b, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: %s", p.name)
		default:
			continue
		}
		if p.check != nil {
			var err error
			if v, err = p.check(p.name, v); err != nil {
				return b, err
			}
		}
		b.vals[i], b.set = v, b.set|1<<i
		if p.name == s.body && i >= len(positional) {
			b.body = v
		}
	}
	if len(positional) > len(s.params) {
		if s.varargs {
			b.varargs = positional[len(s.params):]
			return b, nil
		}
		// Ironic: TypeError (too many positional arguments), a 500.
		return b, ironic.Webob(ironic.NotFound, "")
	}
	return b, nil
}

// keywords are the request's keyword arguments as pecan collects them:
// the query (a repeated parameter is a list), and with withBody, for a
// verb other than GET, the keys of a JSON object body (a key also in the
// query collects both values, as NestedMultiDict.mixed does). A body that
// is not a JSON object adds nothing. The body stays readable.
func (rq *Request) keywords(withBody bool) map[string]any {
	var kw map[string]any
	if q := rq.Query(); len(q) > 0 {
		kw = make(map[string]any, len(q))
		for k, v := range q {
			kw[k] = queryValue(v)
		}
	}
	if !withBody || rq.HTTP.Method == http.MethodGet || !isJSONContentType(rq.HTTP.Header.Get("Content-Type")) {
		return kw
	}
	raw, err := rq.ReadBody()
	if err != nil || len(raw) == 0 {
		return kw
	}
	rq.HTTP.Body = io.NopCloser(bytes.NewReader(raw))
	doc, _ := pyschema.DecodeOrdered(raw)
	o, _ := doc.(pyjson.Object)
	if len(o) > 0 && kw == nil {
		kw = make(map[string]any, len(o))
	}
	for _, m := range o {
		if prev, ok := kw[m.Key]; ok {
			l, isList := prev.([]any)
			if !isList {
				l = []any{prev}
			}
			kw[m.Key] = append(l, m.Value)
			continue
		}
		kw[m.Key] = m.Value
	}
	return kw
}

// queryValue is a query parameter as pecan hands it over: its value, or
// the list of its values when it is repeated.
func queryValue(v []string) any {
	if len(v) == 1 {
		return v[0]
	}
	l := make([]any, len(v))
	for i, s := range v {
		l[i] = s
	}
	return l
}

// isJSONContentType is webob's content_type (the media type without
// parameters) being one pecan decodes: application/json or
// application/javascript.
func isJSONContentType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return mt == "application/json" || mt == "application/javascript"
}

// readMethodBody is method.body: the body decoded with its key order kept,
// an empty body being {}. The body stays readable (for parsePatch).
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

// decodeBody decodes a JSON body keeping key order.
func decodeBody(raw []byte) (any, error) {
	doc, err := pyschema.DecodeOrdered(raw)
	if err != nil {
		return nil, malformedJSON(raw)
	}
	return doc, nil
}

// The validators of ironic.common.args. Values are strings (path segments
// and query parameters), lists (repeated query parameters) or decoded
// JSON (body keys); messages show them as Python's "%s" does.

// strArg is args.string.
func strArg(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(string); !ok {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected string for %s: %s", name, pyStr(v))
	}
	return v, nil
}

// boolArg is args.boolean: oslo's bool_from_string(strict=True) of str(v).
func boolArg(name string, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	}
	b, err := parseBool(name, pyStr(v))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// parseBool is oslo_utils.strutils.bool_from_string(strict=True) with
// Ironic's error text.
func parseBool(name, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "t", "true", "on", "y", "yes":
		return true, nil
	case "0", "f", "false", "off", "n", "no":
		return false, nil
	}
	return false, ironic.Errorf(ironic.InvalidParameterValue,
		"Invalid %s: Unrecognized value '%s', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'", name, s)
}

// intArg is args.integer (Python's int() of the value).
func intArg(name string, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case []any:
		// int() of a list is a TypeError.
	default:
		if n, err := strconv.Atoi(strings.TrimSpace(pyStr(v))); err == nil {
			return n, nil
		}
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected an integer for %s: %s", name, pyStr(v))
}

// uuidArg is args.uuid.
func uuidArg(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); !ok || !isUUID(s) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID for %s: %s", name, pyStr(v))
	}
	return v, nil
}

// nameArg is args.name (utils.is_valid_logical_name, whatever the version).
func nameArg(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); !ok || !isName(s) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected name for %s: %s", name, pyStr(v))
	}
	return v, nil
}

// uuidOrNameArg is args.uuid_or_name (names whatever the version).
func uuidOrNameArg(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); !ok || !isName(s) && !isUUID(s) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected UUID or name for %s: %s", name, pyStr(v))
	}
	return v, nil
}

// stringListArg is args.string_list: comma separated, trimmed,
// lower-cased, de-duplicated, order kept.
func stringListArg(name string, v any) (any, error) {
	v, err := strArg(name, v)
	if v == nil || err != nil {
		return nil, err
	}
	return splitStringList(v.(string)), nil
}

func splitStringList(s string) []string {
	items := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.ToLower(strings.TrimSpace(v)); v != "" && !slices.Contains(items, v) {
			items = append(items, v)
		}
	}
	return items
}

// macArg is args.mac_address: the address, lower-cased.
func macArg(name string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		if m, ok := normalizeMAC(s); ok {
			return m, nil
		}
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected valid MAC address for %s: %s", name, pyStr(v))
}

// typesArg is args.types: the value must be of one of the named Python
// types ("NoneType" admits null).
func typesArg(types ...string) validator {
	return func(name string, v any) (any, error) {
		var got string
		switch v.(type) {
		case nil:
			got = "NoneType"
		case pyjson.Object, map[string]any:
			got = "dict"
		case []any:
			got = "list"
		case string:
			got = "str"
		case bool:
			got = "bool"
		default:
			got = "number"
		}
		if slices.Contains(types, got) {
			return v, nil
		}
		names := make([]string, len(types))
		for i, t := range types {
			names[i] = "<class '" + t + "'>"
		}
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected types %s for %s: %s",
			strings.Join(names, ", "), name, pyStr(v))
	}
}

// pyStr is Python's str() of a value, as "%s" formats it: None,
// True/False, strings as they are, numbers as sent, lists and dicts as
// their repr; pointers show what they point to.
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
		return optStr(x)
	case *states.Provision:
		return optStr(x)
	case *states.Power:
		return optStr(x)
	case *states.Fault:
		return optStr(x)
	case int, int64:
		return fmt.Sprint(x)
	case interface{ String() string }:
		return x.String()
	}
	return pyschema.Repr(v)
}

// optStr is Python's "%s" of an optional string (or state): None for nil.
func optStr[S ~string](p *S) string {
	if p == nil {
		return "None"
	}
	return string(*p)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// bodyOf is the first check of a method.body parameter validated against
// a schema of jsonType ("object", or "array" for a patch): a string (a
// path segment bound to the parameter, or a JSON string body) is refused
// as the schema refuses it. The handler validates anything else against
// the whole schema.
func bodyOf(jsonType string) validator {
	return func(name string, v any) (any, error) {
		if _, ok := v.(string); ok {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Schema error for %s: %s is not of type '%s'",
				name, pyschema.Repr(v), jsonType)
		}
		return v, nil
	}
}
