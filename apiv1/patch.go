package apiv1

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// Ironic's JSON-Patch dialect: only add, replace and remove; paths are
// "/"-separated word segments (no RFC 6901 escapes); operations apply one at
// a time and the first failure is reported with the operation it came from.
// Python's jsonpatch/jsonpointer libraries decide the error texts, so this is
// our own small engine rather than a general RFC 6902 library: clients see
// those texts.

const patchSchemaJSON = `{
  "type": "array",
  "items": {
    "type": "object",
    "properties": {
      "path": {"type": "string", "pattern": "^(/[\\w-]+)+$"},
      "op": {"type": "string", "enum": ["add", "replace", "remove"]},
      "value": {}
    },
    "additionalProperties": false,
    "required": ["op", "path"]
  }
}`

// patchOp is one validated operation.
type patchOp struct {
	Op       string
	Path     string
	Value    any
	HasValue bool
	raw      pyjson.Object // as sent, for error messages
}

// patchOps is args.patch: a PATCH body (as method.body decoded it)
// validated against Ironic's patch schema, as operations.
func (a *API) patchOps(doc any) ([]patchOp, error) {
	if verr := a.schemas.patch.Validate(doc); verr != nil {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "%s", verr.IronicMessage("patch"))
	}
	items, _ := doc.([]any)
	ops := make([]patchOp, 0, len(items))
	for _, it := range items {
		o := it.(pyjson.Object)
		var op patchOp
		op.raw = o
		for _, m := range o {
			switch m.Key {
			case "op":
				op.Op = m.Value.(string)
			case "path":
				op.Path = m.Value.(string)
			case "value":
				op.Value = plain(m.Value)
				op.HasValue = true
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// plain turns ordered objects into maps (order no longer matters once the
// value is stored).
func plain(v any) any {
	switch x := v.(type) {
	case pyjson.Object:
		m := make(map[string]any, len(x))
		for _, mem := range x {
			m[mem.Key] = plain(mem.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// patchRoot is the first path segment ("driver_info" for /driver_info/x).
func patchRoot(path string) string {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

// checkPatchAllowed is patch_validate_allowed_fields.
func checkPatchAllowed(ops []patchOp, allowed []string) error {
	for _, op := range ops {
		root := patchRoot(op.Path)
		ok := false
		for _, f := range allowed {
			if f == root {
				ok = true
				break
			}
		}
		if !ok {
			return ironic.Errorf(ironic.Invalid, "Cannot patch %s. Only the following can be updated: %s",
				op.Path, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// patchValues is get_patch_values: the values of non-remove ops on path.
func patchValues(ops []patchOp, path string) []any {
	var out []any
	for _, op := range ops {
		if op.Path == path && op.Op != "remove" {
			out = append(out, op.Value)
		}
	}
	return out
}

// applyPatch is apply_jsonpatch on a document built from the object.
func applyPatch(doc map[string]any, ops []patchOp) (map[string]any, error) {
	for _, op := range ops {
		if op.Op == "add" && strings.Count(op.Path, "/") == 1 {
			if _, ok := doc[strings.TrimPrefix(op.Path, "/")]; !ok {
				return nil, ironic.Errorf(ironic.ClientSideError,
					"Adding a new attribute (%s) to the root of the resource is not allowed", op.Path)
			}
		}
	}
	var root any = doc
	for _, op := range ops {
		var err error
		root, err = applyOne(root, op)
		if err != nil {
			return nil, ironic.Errorf(ironic.PatchError, "Couldn't apply patch '%s'. Reason: %s",
				pyschema.Repr(op.raw), err.Error())
		}
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil, ironic.Errorf(ironic.ClientSideError, "Patch replaced the whole resource")
	}
	return m, nil
}

type patchErr string

func (e patchErr) Error() string { return string(e) }

var arrayIndex = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// container is a step in a walk: the parent holding the current value.
type slot struct {
	get func() any
	set func(any)
}

// applyOne applies a single operation the way jsonpatch 1.32 does.
func applyOne(root any, op patchOp) (any, error) {
	if (op.Op == "add" || op.Op == "replace") && !op.HasValue {
		return root, patchErr("The operation does not contain a 'value' member")
	}
	parts := strings.Split(op.Path, "/")[1:]
	// Walk to the parent of the last part, keeping a setter so that list
	// appends (which reallocate) write back into their container.
	cur := slot{get: func() any { return root }, set: func(v any) { root = v }}
	for _, part := range parts[:len(parts)-1] {
		next, err := walk(cur, part)
		if err != nil {
			return root, err
		}
		cur = next
	}
	last := parts[len(parts)-1]
	parent := cur.get()
	switch p := parent.(type) {
	case map[string]any:
		switch op.Op {
		case "remove":
			if _, ok := p[last]; !ok {
				return root, patchErr(fmt.Sprintf("can't remove a non-existent object '%s'", last))
			}
			delete(p, last)
		case "add":
			p[last] = op.Value
		case "replace":
			if _, ok := p[last]; !ok {
				return root, patchErr(fmt.Sprintf("can't replace a non-existent object '%s'", last))
			}
			p[last] = op.Value
		}
		return root, nil
	case []any:
		if last == "-" {
			switch op.Op {
			case "add":
				cur.set(append(p, op.Value))
				return root, nil
			case "replace":
				return root, patchErr("'path' with '-' can't be applied to 'replace' operation")
			default:
				return root, patchErr("can't remove a non-existent object '-'")
			}
		}
		if !arrayIndex.MatchString(last) {
			return root, patchErr(fmt.Sprintf("'%s' is not a valid sequence index", last))
		}
		i, _ := strconv.Atoi(last)
		switch op.Op {
		case "remove":
			if i >= len(p) {
				return root, patchErr(fmt.Sprintf("can't remove a non-existent object '%d'", i))
			}
			cur.set(append(p[:i:i], p[i+1:]...))
		case "add":
			if i > len(p) {
				return root, patchErr("can't insert outside of list")
			}
			n := make([]any, 0, len(p)+1)
			n = append(n, p[:i]...)
			n = append(n, op.Value)
			n = append(n, p[i:]...)
			cur.set(n)
		case "replace":
			if i >= len(p) {
				return root, patchErr("can't replace outside of list")
			}
			p[i] = op.Value
		}
		return root, nil
	case string:
		// Python strings are sequences: indexing works, mutation doesn't.
		if last != "-" && !arrayIndex.MatchString(last) {
			return root, patchErr(fmt.Sprintf("'%s' is not a valid sequence index", last))
		}
		return root, patchErr(fmt.Sprintf("unable to fully resolve json pointer %s, part %s", op.Path, last))
	default:
		return root, patchErr(fmt.Sprintf("Document '%s' does not support indexing, must be mapping/sequence or support __getitem__", pyType(parent)))
	}
}

// walk is jsonpointer's walk for one intermediate part.
func walk(cur slot, part string) (slot, error) {
	doc := cur.get()
	switch d := doc.(type) {
	case map[string]any:
		v, ok := d[part]
		if !ok {
			return slot{}, patchErr(fmt.Sprintf("member '%s' not found in %s", part, pyschema.Repr(d)))
		}
		_ = v
		return slot{get: func() any { return d[part] }, set: func(x any) { d[part] = x }}, nil
	case []any:
		if part == "-" {
			return slot{}, patchErr("can't walk past the end of a list")
		}
		if !arrayIndex.MatchString(part) {
			return slot{}, patchErr(fmt.Sprintf("'%s' is not a valid sequence index", part))
		}
		i, _ := strconv.Atoi(part)
		if i >= len(d) {
			return slot{}, patchErr(fmt.Sprintf("index '%d' is out of bounds", i))
		}
		return slot{get: func() any { return d[i] }, set: func(x any) { d[i] = x }}, nil
	case string:
		if !arrayIndex.MatchString(part) {
			return slot{}, patchErr(fmt.Sprintf("'%s' is not a valid sequence index", part))
		}
		i, _ := strconv.Atoi(part)
		r := []rune(d)
		if i >= len(r) {
			return slot{}, patchErr(fmt.Sprintf("index '%d' is out of bounds", i))
		}
		c := string(r[i])
		return slot{get: func() any { return c }, set: func(any) {}}, nil
	default:
		return slot{}, patchErr(fmt.Sprintf("Document '%s' does not support indexing, must be mapping/sequence or support __getitem__", pyType(doc)))
	}
}

// pyType is Python's type repr for a decoded JSON value.
func pyType(v any) string {
	switch v.(type) {
	case nil:
		return "<class 'NoneType'>"
	case bool:
		return "<class 'bool'>"
	case string:
		return "<class 'str'>"
	case map[string]any:
		return "<class 'dict'>"
	case []any:
		return "<class 'list'>"
	}
	if n, ok := v.(interface{ String() string }); ok && strings.ContainsAny(n.String(), ".eE") {
		return "<class 'float'>"
	}
	return "<class 'int'>"
}
