// Package pyschema validates decoded JSON against a JSON Schema exactly as
// Python's jsonschema 4.10 (Debian 12's python3-jsonschema, which Ironic
// uses) does, down to the wording of its messages and the error that
// jsonschema.exceptions.best_match picks. Ironic copies those messages into
// API errors ("Schema error for node: 'driver' is a required property"), so
// they must match byte for byte.
//
// Like jsonschema.validate, the draft is chosen by the root schema's
// $schema (Draft 2020-12 when absent or unknown), and a subschema with its
// own $schema switches draft below it. Drafts 4, 6, 7, 2019-09 and 2020-12
// are supported, with every keyword of those drafts except $dynamicRef and
// unevaluatedItems/unevaluatedProperties; format is not checked, as
// jsonschema.validate does not check it by default. $ref must be a
// fragment ("#/definitions/x", "#anchor") resolved in the root schema.
//
// Error iteration follows the schema's key order and the instance's key
// order, so schemas are kept ordered, and instances should be given as
// pyjson.Object (see DecodeOrdered) where their order can show.
package pyschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root    any
	regexps map[string]*regexp.Regexp
}

// Compile parses a schema from JSON text, keeping its key order, and
// prepares it for validation. It fails on invalid JSON, on regular
// expressions that cannot be translated, on unknown types, on $refs that do
// not resolve and on unsupported keywords.
func Compile(schemaJSON string) (*Schema, error) {
	v, err := DecodeOrdered([]byte(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("pyschema: decoding schema: %w", err)
	}
	return CompileValue(v)
}

// MustCompile is Compile for schemas that are constants of the program; it
// panics on error.
func MustCompile(schemaJSON string) *Schema {
	s, err := Compile(schemaJSON)
	if err != nil {
		panic(err)
	}
	return s
}

// CompileValue prepares an already decoded schema: pyjson.Object for
// objects (Go maps are accepted but taken in sorted key order), []any,
// string, json.Number, bool and nil.
func CompileValue(schema any) (*Schema, error) {
	root, err := canonical(schema)
	if err != nil {
		return nil, fmt.Errorf("pyschema: schema: %w", err)
	}
	s := &Schema{root: root, regexps: map[string]*regexp.Regexp{}}
	c := compiler{s: s}
	if err := c.walk(root, "#", true, draft202012); err != nil {
		return nil, err
	}
	return s, nil
}

// Value returns the schema as decoded (pyjson.Object for objects). It is
// shared with the Schema and must not be modified.
func (s *Schema) Value() any { return s.root }

type compiler struct {
	s *Schema
}

func (c *compiler) regexp(pattern string) error {
	if _, ok := c.s.regexps[pattern]; ok {
		return nil
	}
	re, err := compilePython(pattern)
	if err != nil {
		return err
	}
	c.s.regexps[pattern] = re
	return nil
}

// walk checks a schema position and compiles the regular expressions under
// it. d is the draft the position is seen with (lexically; a $ref keeps the
// draft of the referring schema at validation time).
func (c *compiler) walk(schema any, where string, root bool, d draft) error {
	switch sc := schema.(type) {
	case bool:
		return nil
	case pyjson.Object:
		return c.walkObject(sc, where, root, dialectFor(sc, d))
	}
	return fmt.Errorf("pyschema: %s: schema must be an object or a boolean, not %s", where, Repr(schema))
}

func (c *compiler) walkObject(sc pyjson.Object, where string, root bool, d draft) error {
	sub := func(k string, v any) error { return c.walk(v, where+"/"+k, false, d) }
	schemaMap := func(k string, v any) error {
		o, ok := v.(pyjson.Object)
		if !ok {
			return fmt.Errorf("pyschema: %s/%s must be an object", where, k)
		}
		for _, m := range o {
			if err := c.walk(m.Value, where+"/"+k+"/"+m.Key, false, d); err != nil {
				return err
			}
		}
		return nil
	}
	schemaList := func(k string, v any) error {
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("pyschema: %s/%s must be an array", where, k)
		}
		for i, e := range l {
			if err := c.walk(e, where+"/"+k+"/"+strconv.Itoa(i), false, d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range sc {
		k, v := m.Key, m.Value
		var err error
		switch k {
		case "$schema":
			if uri, ok := v.(string); ok {
				if d, known := draftByURI(uri); known && d == draft3 {
					err = fmt.Errorf("pyschema: %s: draft 3 is not supported", where)
				}
			}
		case "$ref":
			ref, ok := v.(string)
			if !ok {
				err = fmt.Errorf("pyschema: %s: $ref must be a string", where)
				break
			}
			_, err = c.s.resolveRef(ref)
		case "$id", "id":
			// A subschema's id changes the base URI of the $refs below it,
			// which only matters (and is only supported) for fragment ids.
			isID := (k == "id") == (d == draft4)
			if id, ok := v.(string); ok && isID && !root && (!strings.HasPrefix(id, "#") || id == "#") {
				err = fmt.Errorf("pyschema: %s: %s %q changing the base URI is not supported", where, k, id)
			}
		case "$dynamicRef", "unevaluatedItems", "unevaluatedProperties":
			err = fmt.Errorf("pyschema: %s: %s is not supported", where, k)
		case "type":
			err = checkTypes(v, where)
		case "pattern":
			if p, ok := v.(string); ok {
				err = c.regexp(p)
			}
		case "patternProperties":
			o, ok := v.(pyjson.Object)
			if !ok {
				err = fmt.Errorf("pyschema: %s/patternProperties must be an object", where)
				break
			}
			for _, pm := range o {
				if err = c.regexp(pm.Key); err != nil {
					break
				}
			}
			if err == nil {
				err = schemaMap(k, v)
			}
			if err == nil && objectHas(sc, "additionalProperties") && len(o) > 0 {
				err = c.regexp(joinedPatterns(o))
			}
		case "properties", "definitions", "$defs", "dependentSchemas":
			err = schemaMap(k, v)
		case "dependencies":
			o, ok := v.(pyjson.Object)
			if !ok {
				err = fmt.Errorf("pyschema: %s/dependencies must be an object", where)
				break
			}
			for _, dm := range o {
				if _, isList := dm.Value.([]any); isList {
					continue
				}
				if err = c.walk(dm.Value, where+"/dependencies/"+dm.Key, false, d); err != nil {
					break
				}
			}
		case "items":
			if _, isList := v.([]any); isList {
				err = schemaList(k, v)
			} else {
				err = sub(k, v)
			}
		case "additionalProperties", "additionalItems", "contains", "propertyNames",
			"not", "if", "then", "else":
			err = sub(k, v)
		case "allOf", "anyOf", "oneOf", "prefixItems":
			err = schemaList(k, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func checkTypes(v any, where string) error {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return fmt.Errorf("pyschema: %s: type must be a string or an array", where)
	}
	for _, n := range names {
		switch n {
		case "array", "boolean", "integer", "null", "number", "object", "string":
		default:
			return fmt.Errorf("pyschema: %s: unknown type %s", where, Repr(n))
		}
	}
	return nil
}

// joinedPatterns is the "|".join(patternProperties) regex that
// find_additional_properties searches with.
func joinedPatterns(o pyjson.Object) string {
	keys := make([]string, len(o))
	for i, m := range o {
		keys[i] = m.Key
	}
	return strings.Join(keys, "|")
}

// re returns the compiled form of a pattern; patterns outside the positions
// Compile walked are compiled on the fly.
func (s *Schema) re(pattern string) *regexp.Regexp {
	if re, ok := s.regexps[pattern]; ok {
		return re
	}
	re, err := compilePython(pattern)
	if err != nil {
		return nil
	}
	return re
}

// search is Python's re.search(pattern, s) is not None.
func (s *Schema) search(pattern, str string) bool {
	re := s.re(pattern)
	return re != nil && re.MatchString(str)
}

// resolveRef resolves a $ref within the root schema the way jsonschema's
// RefResolver.resolve_fragment does: anchors and fragment ids first, then
// a JSON pointer.
func (s *Schema) resolveRef(ref string) (any, error) {
	hash := strings.IndexByte(ref, '#')
	if hash != 0 {
		if hash < 0 || !s.isRootURI(ref[:hash]) {
			return nil, fmt.Errorf("pyschema: $ref %q: only references within the schema are supported", ref)
		}
	}
	fragment := strings.TrimLeft(ref[hash+1:], "/")
	if fragment == "" {
		return s.root, nil
	}
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		if found := findKeyword(s.root, kw, fragment); found != nil {
			return found, nil
		}
	}
	for _, kw := range []string{"id", "$id"} {
		if found := findKeyword(s.root, kw, "#"+fragment); found != nil {
			return found, nil
		}
	}
	unquoted, err := url.PathUnescape(fragment)
	if err != nil {
		unquoted = fragment
	}
	doc := s.root
	for _, part := range strings.Split(unquoted, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch d := doc.(type) {
		case pyjson.Object:
			v, ok := d.Get(part)
			if !ok {
				return nil, fmt.Errorf("pyschema: Unresolvable JSON pointer: %s", pyStrRepr(fragment))
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(part)
			if err == nil && i < 0 {
				i += len(d)
			}
			if err != nil || i < 0 || i >= len(d) {
				return nil, fmt.Errorf("pyschema: Unresolvable JSON pointer: %s", pyStrRepr(fragment))
			}
			doc = d[i]
		default:
			return nil, fmt.Errorf("pyschema: Unresolvable JSON pointer: %s", pyStrRepr(fragment))
		}
	}
	return doc, nil
}

// isRootURI reports whether a $ref's document part names the root schema.
func (s *Schema) isRootURI(uri string) bool {
	o, ok := s.root.(pyjson.Object)
	if !ok {
		return false
	}
	for _, kw := range []string{"$id", "id"} {
		if id, ok := o.Get(kw); ok {
			if str, ok := id.(string); ok && strings.TrimSuffix(strings.TrimRight(str, "#"), "/") == strings.TrimSuffix(uri, "/") {
				return true
			}
		}
	}
	return false
}

// findKeyword finds, depth first, an object whose key kw has the string
// value want.
func findKeyword(v any, kw, want string) pyjson.Object {
	switch x := v.(type) {
	case pyjson.Object:
		if got, ok := x.Get(kw); ok {
			if str, ok := got.(string); ok && str == want {
				return x
			}
		}
		for _, m := range x {
			if found := findKeyword(m.Value, kw, want); found != nil {
				return found
			}
		}
	case []any:
		for _, e := range x {
			if found := findKeyword(e, kw, want); found != nil {
				return found
			}
		}
	}
	return nil
}

// draft is a JSON Schema draft as jsonschema implements it.
type draft int

const (
	draft3 draft = iota + 1
	draft4
	draft6
	draft7
	draft201909
	draft202012
)

// draftByURI looks a $schema value up as jsonschema's validator_for does
// (its URIDict drops an empty fragment).
func draftByURI(uri string) (draft, bool) {
	switch strings.TrimSuffix(uri, "#") {
	case "http://json-schema.org/draft-03/schema":
		return draft3, true
	case "http://json-schema.org/draft-04/schema":
		return draft4, true
	case "http://json-schema.org/draft-06/schema":
		return draft6, true
	case "http://json-schema.org/draft-07/schema":
		return draft7, true
	case "https://json-schema.org/draft/2019-09/schema":
		return draft201909, true
	case "https://json-schema.org/draft/2020-12/schema":
		return draft202012, true
	}
	return 0, false
}

// dialectFor is validator_for(schema, default=cur).
func dialectFor(schema any, cur draft) draft {
	o, ok := schema.(pyjson.Object)
	if !ok {
		return cur
	}
	v, ok := o.Get("$schema")
	if !ok {
		return cur
	}
	if uri, ok := v.(string); ok {
		if d, known := draftByURI(uri); known {
			return d
		}
	}
	return cur
}

// has reports whether the draft's validator class has the keyword.
func (d draft) has(kw string) bool {
	switch kw {
	case "$ref", "additionalItems", "additionalProperties", "allOf", "anyOf",
		"enum", "format", "items", "maxItems", "maxLength", "maxProperties",
		"maximum", "minItems", "minLength", "minProperties", "minimum",
		"multipleOf", "not", "oneOf", "pattern", "patternProperties",
		"properties", "required", "type", "uniqueItems":
		return true
	case "dependencies":
		return d <= draft7
	case "const", "contains", "exclusiveMaximum", "exclusiveMinimum", "propertyNames":
		return d >= draft6
	case "if":
		return d >= draft7
	case "dependentRequired", "dependentSchemas":
		return d >= draft201909
	case "$recursiveRef":
		return d == draft201909
	case "prefixItems":
		return d >= draft202012
	}
	return false
}

// ignoresRefSiblings reports whether $ref hides the other keywords of its
// schema, as it does up to draft 7.
func (d draft) ignoresRefSiblings() bool { return d <= draft7 }

// isType is the draft's TypeChecker.is_type.
func isType(v any, typ string, d draft) bool {
	switch typ {
	case "array":
		_, ok := v.([]any)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "object":
		_, ok := v.(pyjson.Object)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		return isPyNumber(v)
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		num, ok := toNumber(n)
		if !ok {
			return false
		}
		if !num.isFloat {
			return true
		}
		return d >= draft6 && isIntegral(num.f)
	}
	return false
}
