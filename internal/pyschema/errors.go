package pyschema

import (
	"github.com/goironic/ironic/internal/pyjson"
)

// ValidationError is jsonschema's ValidationError.
type ValidationError struct {
	// Message is the error's message, exactly as jsonschema words it.
	Message string
	// Validator is the failing keyword ("required", "anyOf", ...); it is
	// empty when a false schema rejected the instance (None in Python).
	Validator string
	// ValidatorValue is the keyword's value in the schema.
	ValidatorValue any
	// Path leads from the instance the error's parent validated (the root
	// instance for a top-level error) to the failing value: string keys
	// and int indexes. It is Python's relative_path.
	Path []any
	// SchemaPath is the keyword path within the schema, relative like
	// Path.
	SchemaPath []any
	// Instance is the failing value and Schema the (sub)schema holding the
	// keyword, both as canonical decoded JSON.
	Instance any
	Schema   any
	// Context holds the errors of the subschemas of an anyOf or oneOf that
	// matched none of them.
	Context []*ValidationError
	// Parent is the error whose Context holds this one.
	Parent *ValidationError

	draft        draft // the draft whose type checker applies
	filled       bool  // instance, schema and draft are set
	fixedKeyword bool  // Validator and ValidatorValue are set
}

// Error returns the message, as str() of a jsonschema error whose details
// are unset would; use Verbose for the long form.
func (e *ValidationError) Error() string { return e.Message }

// relevance is the key of jsonschema.exceptions.relevance:
// (-len(path), validator not in WEAK_MATCHES, validator in STRONG_MATCHES,
// not error._matches_type()).
type relevance struct {
	negPathLen     int
	notWeak        bool
	strong         bool
	notMatchesType bool
}

func relevanceOf(e *ValidationError) relevance {
	return relevance{
		negPathLen:     -len(e.Path),
		notWeak:        e.Validator != "anyOf" && e.Validator != "oneOf",
		strong:         false,
		notMatchesType: !e.matchesType(),
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func (r relevance) cmp(o relevance) int {
	switch {
	case r.negPathLen != o.negPathLen:
		if r.negPathLen < o.negPathLen {
			return -1
		}
		return 1
	case r.notWeak != o.notWeak:
		return cmpBool(r.notWeak, o.notWeak)
	case r.strong != o.strong:
		return cmpBool(r.strong, o.strong)
	}
	return cmpBool(r.notMatchesType, o.notMatchesType)
}

// matchesType is _Error._matches_type: whether the instance has one of the
// types the error's schema declares.
func (e *ValidationError) matchesType() bool {
	o, ok := e.Schema.(pyjson.Object)
	if !ok {
		return false
	}
	t, ok := o.Get("type")
	if !ok {
		return false
	}
	switch x := t.(type) {
	case string:
		return isType(e.Instance, x, e.draft)
	case []any:
		for _, name := range x {
			if s, ok := name.(string); ok && isType(e.Instance, s, e.draft) {
				return true
			}
		}
	}
	return false
}

// BestMatch is jsonschema.exceptions.best_match: the most relevant error
// (shallowest, not anyOf/oneOf, first of equals), then, while it has a
// context, the least relevant error of that context unless two tie.
func BestMatch(errs []*ValidationError) *ValidationError {
	return bestMatch(errs)
}

func bestMatch(errs []*ValidationError) *ValidationError {
	if len(errs) == 0 {
		return nil
	}
	best := errs[0]
	bestRel := relevanceOf(best)
	for _, e := range errs[1:] {
		if r := relevanceOf(e); r.cmp(bestRel) > 0 {
			best, bestRel = e, r
		}
	}
	for len(best.Context) > 0 {
		// heapq.nsmallest(2, context, key): the first error of least
		// relevance, and whether another one ties with it.
		var smallest *ValidationError
		var smallRel relevance
		tie := false
		for _, e := range best.Context {
			r := relevanceOf(e)
			switch {
			case smallest == nil:
				smallest, smallRel = e, r
			case r.cmp(smallRel) < 0:
				smallest, smallRel, tie = e, r, false
			case r.cmp(smallRel) == 0:
				tie = true
			}
		}
		if tie {
			return best
		}
		best = smallest
	}
	return best
}

// RootCause follows Ironic's ironic.common.args._validate_schema: while
// the error has a context, move to best_match of that context. It returns
// the message reached, or "" when the error has no context.
func (e *ValidationError) RootCause() string {
	cur := e
	cause := ""
	for len(cur.Context) > 0 {
		cur = bestMatch(cur.Context)
		cause = cur.Message
	}
	return cause
}

// IronicMessage formats the error as Ironic's args.schema validators do:
// "Schema error for <name>: <message>", followed by
// ". Possible root cause: <cause>" when the error has a context.
func (e *ValidationError) IronicMessage(name string) string {
	msg := "Schema error for " + name + ": " + e.Message
	if len(e.Context) > 0 {
		msg += ". Possible root cause: " + e.RootCause()
	}
	return msg
}
