package pyschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goironic/ironic/internal/pyjson"
)

// Validate validates a decoded JSON instance and returns the error that
// jsonschema.validate would raise (best_match over all errors), or nil.
//
// instance is decoded JSON: pyjson.Object or *pyjson.Dict (ordered) or
// map[string]any (taken in sorted key order), []any, string, json.Number,
// bool, nil. Go numbers are accepted too (float64 is a Python float, integer
// types a Python int); other types are converted through encoding/json.
func (s *Schema) Validate(instance any) *ValidationError {
	return bestMatch(s.Errors(instance))
}

// Errors returns every error, in the order jsonschema's iter_errors yields
// them.
func (s *Schema) Errors(instance any) []*ValidationError {
	inst, err := canonical(instance)
	if err != nil {
		return []*ValidationError{{
			Message:   fmt.Sprintf("cannot validate %T: %v", instance, err),
			Validator: "instance",
			Instance:  instance,
			Schema:    s.root,
		}}
	}
	return s.iterErrors(inst, s.root, dialectFor(s.root, draft202012))
}

// IsValid reports whether the instance is valid.
func (s *Schema) IsValid(instance any) bool {
	return len(s.Errors(instance)) == 0
}

func newError(format string, args ...any) *ValidationError {
	return &ValidationError{Message: fmt.Sprintf(format, args...)}
}

// iterErrors is Validator.iter_errors.
func (s *Schema) iterErrors(inst, schema any, d draft) []*ValidationError {
	switch sc := schema.(type) {
	case bool:
		if sc {
			return nil
		}
		return []*ValidationError{{
			Message:      "False schema does not allow " + Repr(inst),
			Instance:     inst,
			Schema:       false,
			filled:       true,
			fixedKeyword: true,
		}}
	case pyjson.Object:
		members := sc
		if d.ignoresRefSiblings() {
			if ref, ok := sc.Get("$ref"); ok && ref != nil {
				members = pyjson.Object{{Key: "$ref", Value: ref}}
			}
		}
		var out []*ValidationError
		for _, m := range members {
			if !d.has(m.Key) {
				continue
			}
			for _, e := range s.keyword(m.Key, m.Value, inst, sc, d) {
				if !e.fixedKeyword {
					e.Validator = m.Key
					e.ValidatorValue = m.Value
					e.fixedKeyword = true
				}
				if !e.filled {
					e.Instance = inst
					e.Schema = sc
					e.draft = d
					e.filled = true
				}
				if m.Key != "if" && m.Key != "$ref" {
					e.SchemaPath = append([]any{m.Key}, e.SchemaPath...)
				}
				out = append(out, e)
			}
		}
		return out
	}
	return nil
}

// descend is Validator.descend: validate inst against a subschema (which
// may switch draft with its own $schema) and prefix the error paths.
func (s *Schema) descend(inst, schema any, d draft, path, schemaPath any) []*ValidationError {
	errs := s.iterErrors(inst, schema, dialectFor(schema, d))
	for _, e := range errs {
		if path != nil {
			e.Path = append([]any{path}, e.Path...)
		}
		if schemaPath != nil {
			e.SchemaPath = append([]any{schemaPath}, e.SchemaPath...)
		}
	}
	return errs
}

func (s *Schema) isValid(inst, schema any, d draft) bool {
	return len(s.iterErrors(inst, schema, dialectFor(schema, d))) == 0
}

// keyword runs one keyword's validator function.
func (s *Schema) keyword(kw string, value, inst any, schema pyjson.Object, d draft) []*ValidationError {
	switch kw {
	case "$ref":
		ref, _ := value.(string)
		resolved, err := s.resolveRef(ref)
		if err != nil {
			return nil
		}
		return s.descend(inst, resolved, d, nil, nil)
	case "$recursiveRef":
		return nil
	case "type":
		return kwType(value, inst, d)
	case "properties":
		return s.kwProperties(value, inst, d)
	case "patternProperties":
		return s.kwPatternProperties(value, inst, d)
	case "propertyNames":
		o, ok := inst.(pyjson.Object)
		if !ok {
			return nil
		}
		var out []*ValidationError
		for _, m := range o {
			out = append(out, s.descend(m.Key, value, d, nil, nil)...)
		}
		return out
	case "additionalProperties":
		return s.kwAdditionalProperties(value, inst, schema, d)
	case "items":
		return s.kwItems(value, inst, schema, d)
	case "prefixItems":
		arr, ok := inst.([]any)
		subs, ok2 := value.([]any)
		if !ok || !ok2 {
			return nil
		}
		var out []*ValidationError
		for i := 0; i < len(arr) && i < len(subs); i++ {
			out = append(out, s.descend(arr[i], subs[i], d, i, i)...)
		}
		return out
	case "additionalItems":
		return s.kwAdditionalItems(value, inst, schema, d)
	case "const":
		if !jsEqual(inst, value) {
			return []*ValidationError{newError("%s was expected", Repr(value))}
		}
	case "contains":
		return s.kwContains(value, inst, schema, d)
	case "exclusiveMinimum":
		if c, ok := compareNum(inst, value); ok && c <= 0 {
			return []*ValidationError{newError("%s is less than or equal to the minimum of %s", Repr(inst), Repr(value))}
		}
	case "exclusiveMaximum":
		if c, ok := compareNum(inst, value); ok && c >= 0 {
			return []*ValidationError{newError("%s is greater than or equal to the maximum of %s", Repr(inst), Repr(value))}
		}
	case "minimum":
		if d == draft4 {
			ex, _ := schema.Get("exclusiveMinimum")
			c, ok := compareNum(inst, value)
			switch {
			case !ok:
			case pyTruthy(ex) && c <= 0:
				return []*ValidationError{newError("%s is less than or equal to the minimum of %s", Repr(inst), Repr(value))}
			case !pyTruthy(ex) && c < 0:
				return []*ValidationError{newError("%s is less than the minimum of %s", Repr(inst), Repr(value))}
			}
			return nil
		}
		if c, ok := compareNum(inst, value); ok && c < 0 {
			return []*ValidationError{newError("%s is less than the minimum of %s", Repr(inst), Repr(value))}
		}
	case "maximum":
		if d == draft4 {
			ex, _ := schema.Get("exclusiveMaximum")
			c, ok := compareNum(inst, value)
			switch {
			case !ok:
			case pyTruthy(ex) && c >= 0:
				return []*ValidationError{newError("%s is greater than or equal to the maximum of %s", Repr(inst), Repr(value))}
			case !pyTruthy(ex) && c > 0:
				return []*ValidationError{newError("%s is greater than the maximum of %s", Repr(inst), Repr(value))}
			}
			return nil
		}
		if c, ok := compareNum(inst, value); ok && c > 0 {
			return []*ValidationError{newError("%s is greater than the maximum of %s", Repr(inst), Repr(value))}
		}
	case "multipleOf":
		return kwMultipleOf(value, inst)
	case "minItems", "maxItems":
		arr, ok := inst.([]any)
		if !ok {
			return nil
		}
		if failsLength(len(arr), value, kw == "minItems") {
			return []*ValidationError{newError("%s is too %s", Repr(inst), shortLong(kw))}
		}
	case "minLength", "maxLength":
		str, ok := inst.(string)
		if !ok {
			return nil
		}
		if failsLength(utf8.RuneCountInString(str), value, kw == "minLength") {
			return []*ValidationError{newError("%s is too %s", Repr(inst), shortLong(kw))}
		}
	case "minProperties":
		if o, ok := inst.(pyjson.Object); ok && failsLength(len(o), value, true) {
			return []*ValidationError{newError("%s does not have enough properties", Repr(inst))}
		}
	case "maxProperties":
		if o, ok := inst.(pyjson.Object); ok && failsLength(len(o), value, false) {
			return []*ValidationError{newError("%s has too many properties", Repr(inst))}
		}
	case "uniqueItems":
		if arr, ok := inst.([]any); ok && pyTruthy(value) && !uniq(arr) {
			return []*ValidationError{newError("%s has non-unique elements", Repr(inst))}
		}
	case "pattern":
		str, ok := inst.(string)
		p, ok2 := value.(string)
		if ok && ok2 && !s.search(p, str) {
			return []*ValidationError{newError("%s does not match %s", Repr(inst), pyStrRepr(p))}
		}
	case "format":
		// jsonschema.validate passes no format checker.
	case "dependencies":
		return s.kwDependencies(value, inst, d, true)
	case "dependentRequired":
		return s.kwDependencies(value, inst, d, false)
	case "dependentSchemas":
		o, ok := inst.(pyjson.Object)
		deps, ok2 := value.(pyjson.Object)
		if !ok || !ok2 {
			return nil
		}
		var out []*ValidationError
		for _, m := range deps {
			if objectHas(o, m.Key) {
				out = append(out, s.descend(inst, m.Value, d, nil, m.Key)...)
			}
		}
		return out
	case "enum":
		return kwEnum(value, inst)
	case "required":
		o, ok := inst.(pyjson.Object)
		req, ok2 := value.([]any)
		if !ok || !ok2 {
			return nil
		}
		var out []*ValidationError
		for _, p := range req {
			if !pyIn(p, o) {
				out = append(out, newError("%s is a required property", Repr(p)))
			}
		}
		return out
	case "allOf":
		subs, _ := value.([]any)
		var out []*ValidationError
		for i, sub := range subs {
			out = append(out, s.descend(inst, sub, d, nil, i)...)
		}
		return out
	case "anyOf":
		subs, _ := value.([]any)
		var all []*ValidationError
		for i, sub := range subs {
			errs := s.descend(inst, sub, d, nil, i)
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		return []*ValidationError{withContext(newError("%s is not valid under any of the given schemas", Repr(inst)), all)}
	case "oneOf":
		return s.kwOneOf(value, inst, d)
	case "not":
		if s.isValid(inst, value, d) {
			return []*ValidationError{newError("%s should not be valid under %s", Repr(inst), Repr(value))}
		}
	case "if":
		if s.isValid(inst, value, d) {
			if then, ok := schema.Get("then"); ok {
				return s.descend(inst, then, d, nil, "then")
			}
		} else if els, ok := schema.Get("else"); ok {
			return s.descend(inst, els, d, nil, "else")
		}
	}
	return nil
}

func withContext(e *ValidationError, ctx []*ValidationError) *ValidationError {
	e.Context = ctx
	for _, c := range ctx {
		c.Parent = e
	}
	return e
}

func shortLong(kw string) string {
	if strings.HasPrefix(kw, "min") {
		return "short"
	}
	return "long"
}

// failsLength is len(x) < limit (min) or len(x) > limit (max).
func failsLength(n int, limit any, isMin bool) bool {
	lim, ok := toNumber(limit)
	if !ok {
		return false
	}
	c, ok := cmpNumbers(number{i: big.NewInt(int64(n))}, lim)
	if !ok {
		return false
	}
	if isMin {
		return c < 0
	}
	return c > 0
}

// compareNum compares a number instance with a numeric schema value;
// ok is false when the instance is not a number (bools are not) or either
// is NaN.
func compareNum(inst, limit any) (int, bool) {
	if !isPyNumber(inst) || !isPyNumeric(limit) {
		return 0, false
	}
	a, ok1 := toNumber(inst)
	b, ok2 := toNumber(limit)
	if !ok1 || !ok2 {
		return 0, false
	}
	return cmpNumbers(a, b)
}

func isIntegral(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
}

func kwType(value, inst any, d draft) []*ValidationError {
	var types []any
	switch t := value.(type) {
	case string:
		types = []any{t}
	case []any:
		types = t
	default:
		return nil
	}
	reprs := make([]string, len(types))
	for i, t := range types {
		name, _ := t.(string)
		if isType(inst, name, d) {
			return nil
		}
		reprs[i] = Repr(t)
	}
	return []*ValidationError{newError("%s is not of type %s", Repr(inst), strings.Join(reprs, ", "))}
}

func (s *Schema) kwProperties(value, inst any, d draft) []*ValidationError {
	o, ok := inst.(pyjson.Object)
	props, ok2 := value.(pyjson.Object)
	if !ok || !ok2 {
		return nil
	}
	var out []*ValidationError
	for _, p := range props {
		if v, found := o.Get(p.Key); found {
			out = append(out, s.descend(v, p.Value, d, p.Key, p.Key)...)
		}
	}
	return out
}

func (s *Schema) kwPatternProperties(value, inst any, d draft) []*ValidationError {
	o, ok := inst.(pyjson.Object)
	pats, ok2 := value.(pyjson.Object)
	if !ok || !ok2 {
		return nil
	}
	var out []*ValidationError
	for _, p := range pats {
		for _, m := range o {
			if s.search(p.Key, m.Key) {
				out = append(out, s.descend(m.Value, p.Value, d, m.Key, p.Key)...)
			}
		}
	}
	return out
}

// additionalKeys is find_additional_properties, in instance order.
func (s *Schema) additionalKeys(o pyjson.Object, schema pyjson.Object) []string {
	props, _ := schema.Get("properties")
	var joined string
	if pp, ok := schema.Get("patternProperties"); ok {
		if po, ok := pp.(pyjson.Object); ok {
			joined = joinedPatterns(po)
		}
	}
	var extras []string
	for _, m := range o {
		if props != nil && pyIn(m.Key, props) {
			continue
		}
		if joined != "" && s.search(joined, m.Key) {
			continue
		}
		extras = append(extras, m.Key)
	}
	return extras
}

func (s *Schema) kwAdditionalProperties(value, inst any, schema pyjson.Object, d draft) []*ValidationError {
	o, ok := inst.(pyjson.Object)
	if !ok {
		return nil
	}
	extras := s.additionalKeys(o, schema)
	if _, isObj := value.(pyjson.Object); isObj {
		// jsonschema iterates a set here, whose order Python does not
		// define; instance order is used.
		var out []*ValidationError
		for _, k := range extras {
			v, _ := o.Get(k)
			out = append(out, s.descend(v, value, d, k, nil)...)
		}
		return out
	}
	if pyTruthy(value) || len(extras) == 0 {
		return nil
	}
	items := make([]any, len(extras))
	for i, k := range extras {
		items[i] = k
	}
	if pp, ok := schema.Get("patternProperties"); ok {
		verb := "do"
		if len(extras) == 1 {
			verb = "does"
		}
		var patterns []any
		if po, ok := pp.(pyjson.Object); ok {
			for _, m := range po {
				patterns = append(patterns, m.Key)
			}
		}
		return []*ValidationError{newError("%s %s not match any of the regexes: %s",
			joinReprs(sortedOrAsIs(items)), verb, joinReprs(sortedOrAsIs(patterns)))}
	}
	list, verb := extrasMsg(items)
	return []*ValidationError{newError("Additional properties are not allowed (%s %s unexpected)", list, verb)}
}

// extrasMsg is jsonschema's _utils.extras_msg.
func extrasMsg(extras []any) (string, string) {
	verb := "were"
	if len(extras) == 1 {
		verb = "was"
	}
	return joinReprs(sortedOrAsIs(extras)), verb
}

// sortedOrAsIs is sorted(items); where Python would raise TypeError on
// unorderable items the original order is kept.
func sortedOrAsIs(items []any) []any {
	sorted, err := pySort(items)
	if err != nil {
		return items
	}
	return sorted
}

func joinReprs(items []any) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = Repr(it)
	}
	return strings.Join(parts, ", ")
}

func (s *Schema) kwItems(value, inst any, schema pyjson.Object, d draft) []*ValidationError {
	arr, ok := inst.([]any)
	if !ok {
		return nil
	}
	var out []*ValidationError
	subs, isList := value.([]any)
	switch {
	case d == draft202012:
		prefix := 0
		if p, ok := schema.Get("prefixItems"); ok {
			if pl, ok := p.([]any); ok {
				prefix = len(pl)
			}
		}
		if b, ok := value.(bool); ok && !b && len(arr) > prefix {
			return []*ValidationError{newError("Expected at most %d items, but found %d", prefix, len(arr))}
		}
		for i := prefix; i < len(arr); i++ {
			out = append(out, s.descend(arr[i], value, d, i, nil)...)
		}
	case isList:
		for i := 0; i < len(arr) && i < len(subs); i++ {
			out = append(out, s.descend(arr[i], subs[i], d, i, i)...)
		}
	default:
		if _, isBool := value.(bool); isBool && d == draft4 {
			return nil
		}
		for i, item := range arr {
			out = append(out, s.descend(item, value, d, i, nil)...)
		}
	}
	return out
}

func (s *Schema) kwAdditionalItems(value, inst any, schema pyjson.Object, d draft) []*ValidationError {
	arr, ok := inst.([]any)
	if !ok {
		return nil
	}
	items, hasItems := schema.Get("items")
	if !hasItems {
		items = pyjson.Object{}
	}
	if _, isObj := items.(pyjson.Object); isObj {
		return nil
	}
	n := 0
	if l, ok := items.([]any); ok {
		n = len(l)
	}
	if _, isObj := value.(pyjson.Object); isObj {
		var out []*ValidationError
		for i := n; i < len(arr); i++ {
			out = append(out, s.descend(arr[i], value, d, i, nil)...)
		}
		return out
	}
	if !pyTruthy(value) && len(arr) > n {
		list, verb := extrasMsg(arr[n:])
		return []*ValidationError{newError("Additional items are not allowed (%s %s unexpected)", list, verb)}
	}
	return nil
}

func (s *Schema) kwContains(value, inst any, schema pyjson.Object, d draft) []*ValidationError {
	arr, ok := inst.([]any)
	if !ok {
		return nil
	}
	if d <= draft7 {
		for _, e := range arr {
			if s.isValid(e, value, d) {
				return nil
			}
		}
		return []*ValidationError{newError("None of %s are valid under the given schema", Repr(inst))}
	}
	minContains, ok := schema.Get("minContains")
	if !ok {
		minContains = json.Number("1")
	}
	maxContains, ok := schema.Get("maxContains")
	if !ok {
		maxContains = json.Number(strconv.Itoa(len(arr)))
	}
	maxN, _ := toNumber(maxContains)
	minN, _ := toNumber(minContains)
	matches := 0
	for _, e := range arr {
		if !s.isValid(e, value, d) {
			continue
		}
		matches++
		if c, ok := cmpNumbers(number{i: big.NewInt(int64(matches))}, maxN); ok && c > 0 {
			e := newError("Too many items match the given schema (expected at most %s)", pyStr(maxContains))
			e.Validator, e.ValidatorValue, e.fixedKeyword = "maxContains", maxContains, true
			return []*ValidationError{e}
		}
	}
	if c, ok := cmpNumbers(number{i: big.NewInt(int64(matches))}, minN); ok && c < 0 {
		if matches == 0 {
			return []*ValidationError{newError("%s does not contain items matching the given schema", Repr(inst))}
		}
		e := newError("Too few items match the given schema (expected at least %s but only %d matched)", pyStr(minContains), matches)
		e.Validator, e.ValidatorValue, e.fixedKeyword = "minContains", minContains, true
		return []*ValidationError{e}
	}
	return nil
}

func kwMultipleOf(value, inst any) []*ValidationError {
	if !isPyNumber(inst) || !isPyNumeric(value) {
		return nil
	}
	x, ok1 := toNumber(inst)
	db, ok2 := toNumber(value)
	if !ok1 || !ok2 {
		return nil
	}
	failed := false
	if db.isFloat {
		q := float64Of(x) / db.f
		switch {
		case math.IsNaN(q):
			failed = true
		case math.IsInf(q, 0):
			// int(inf) overflows; jsonschema falls back to exact fractions.
			rx, rd := new(big.Rat), new(big.Rat)
			if x.isFloat {
				rx.SetFloat64(x.f)
			} else {
				rx.SetInt(x.i)
			}
			if rd.SetFloat64(db.f) == nil || rd.Sign() == 0 || (x.isFloat && math.IsInf(x.f, 0)) {
				failed = true
				break
			}
			failed = !new(big.Rat).Quo(rx, rd).IsInt()
		default:
			failed = q != math.Trunc(q)
		}
	} else {
		if db.i.Sign() == 0 {
			return nil
		}
		if x.isFloat {
			failed = math.Mod(x.f, float64Of(db)) != 0
		} else {
			failed = new(big.Int).Rem(x.i, db.i).Sign() != 0
		}
	}
	if failed {
		return []*ValidationError{newError("%s is not a multiple of %s", Repr(inst), pyStr(value))}
	}
	return nil
}

func (s *Schema) kwDependencies(value, inst any, d draft, schemas bool) []*ValidationError {
	o, ok := inst.(pyjson.Object)
	deps, ok2 := value.(pyjson.Object)
	if !ok || !ok2 {
		return nil
	}
	var out []*ValidationError
	for _, m := range deps {
		if !objectHas(o, m.Key) {
			continue
		}
		if list, isList := m.Value.([]any); isList || !schemas {
			for _, each := range list {
				if !pyIn(each, o) {
					out = append(out, newError("%s is a dependency of %s", Repr(each), pyStrRepr(m.Key)))
				}
			}
			continue
		}
		out = append(out, s.descend(inst, m.Value, d, nil, m.Key)...)
	}
	return out
}

func kwEnum(value, inst any) []*ValidationError {
	enums, ok := value.([]any)
	if !ok {
		if !pyIn(inst, value) {
			return []*ValidationError{newError("%s is not one of %s", Repr(inst), Repr(value))}
		}
		return nil
	}
	zeroOrOne := false
	if isPyNumeric(inst) {
		n, _ := toNumber(inst)
		zeroOrOne = numEqual(n, number{i: big.NewInt(0)}) || numEqual(n, number{i: big.NewInt(1)})
	}
	for _, e := range enums {
		if zeroOrOne {
			if unboolEqual(inst, e) {
				return nil
			}
		} else if pyEqual(inst, e) {
			return nil
		}
	}
	return []*ValidationError{newError("%s is not one of %s", Repr(inst), Repr(value))}
}

func (s *Schema) kwOneOf(value, inst any, d draft) []*ValidationError {
	subs, _ := value.([]any)
	var all []*ValidationError
	first := -1
	for i, sub := range subs {
		errs := s.descend(inst, sub, d, nil, i)
		if len(errs) == 0 {
			first = i
			break
		}
		all = append(all, errs...)
	}
	if first < 0 {
		return []*ValidationError{withContext(newError("%s is not valid under any of the given schemas", Repr(inst)), all)}
	}
	var more []any
	for _, sub := range subs[first+1:] {
		if s.isValid(inst, sub, d) {
			more = append(more, sub)
		}
	}
	if len(more) == 0 {
		return nil
	}
	more = append(more, subs[first])
	return []*ValidationError{newError("%s is valid under each of %s", Repr(inst), joinReprs(more))}
}
