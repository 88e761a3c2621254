// Package roothints is ironic_lib's root device hints (ironic_lib.utils
// 5.3: VALID_ROOT_DEVICE_HINTS, _extract_hint_operator_and_values,
// parse_root_device_hints, find_devices_by_hints) over oslo.utils'
// specs_matcher grammar. The service validates hints with it
// (drivers/internal/deployutil) and the agent ramdisk matches disks with
// it (agent/disk); it imports nothing of the project.
package roothints

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is a hint's value type in VALID_ROOT_DEVICE_HINTS.
type Kind int

// The hint value types.
const (
	Str Kind = iota
	Int
	Bool
)

// Hint is one valid hint name and its type.
type Hint struct {
	Name string
	Kind Kind
}

// Hints are ironic_lib's VALID_ROOT_DEVICE_HINTS, in its order.
func Hints() []Hint {
	return []Hint{
		{"size", Int}, {"model", Str}, {"wwn", Str}, {"serial", Str}, {"vendor", Str},
		{"wwn_with_extension", Str}, {"wwn_vendor_extension", Str}, {"name", Str},
		{"rotational", Bool}, {"hctl", Str}, {"by_path", Str},
	}
}

func kindOf(name string) (Kind, bool) {
	for _, h := range Hints() {
		if h.Name == name {
			return h.Kind, true
		}
	}
	return 0, false
}

// unaryOps are specs_matcher's unary operators in the grammar's
// MatchFirst order (a literal matches as a prefix, so "==" precedes "=").
func unaryOps() []string {
	return []string{"==", "=", "!=", "<in>", ">=", "<=", ">", "<", "s==", "s!=", "s<=", "s<", "s>=", "s>"}
}

// startsWithKeyword reports whether s begins with any operator of the
// grammar (the negative lookahead of its atom).
func startsWithKeyword(s string) bool {
	if strings.HasPrefix(s, "<all-in>") || strings.HasPrefix(s, "<or>") {
		return true
	}
	for _, op := range unaryOps() {
		if strings.HasPrefix(s, op) {
			return true
		}
	}
	return false
}

// atom consumes one atom (whitespace skipped, then a run of non-space
// not starting with a keyword) from s.
func atom(s string) (string, string, bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	if s == "" || startsWithKeyword(s) {
		return "", s, false
	}
	end := strings.IndexAny(s, " \t\n\r")
	if end < 0 {
		end = len(s)
	}
	return s[:end], s[end:], true
}

// Parse is specs_matcher.make_grammar().parseString: the tokens of the
// longest prefix of s the grammar matches (disjunction | nary | unary |
// atom), an operator first when there is one. ok is false where
// pyparsing raises ParseException.
func Parse(s string) (tokens []string, ok bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	// disjunction: OneOrMore("<or>" atom), the "<or>"s dropped after the first.
	if rest, found := strings.CutPrefix(s, "<or>"); found {
		var vals []string
		for {
			a, r, ok := atom(rest)
			if !ok {
				break
			}
			vals = append(vals, a)
			r = strings.TrimLeft(r, " \t\n\r")
			next, more := strings.CutPrefix(r, "<or>")
			if !more {
				break
			}
			if _, _, ok := atom(next); !ok {
				break
			}
			rest = next
		}
		if len(vals) > 0 {
			return append([]string{"<or>"}, vals...), true
		}
	}
	if rest, found := strings.CutPrefix(s, "<all-in>"); found {
		var vals []string
		for {
			a, r, ok := atom(rest)
			if !ok {
				break
			}
			vals = append(vals, a)
			rest = r
		}
		if len(vals) > 0 {
			return append([]string{"<all-in>"}, vals...), true
		}
	}
	for _, op := range unaryOps() {
		if rest, found := strings.CutPrefix(s, op); found {
			if a, _, ok := atom(rest); ok {
				return []string{op, a}, true
			}
			break
		}
	}
	if a, _, ok := atom(s); ok {
		return []string{a}, true
	}
	return nil, false
}

// Split is ironic_lib's _extract_hint_operator_and_values for a
// non-empty expression: the operator ("" for none) and the values,
// lower-cased and stripped.
func Split(expr string) (op string, values []string) {
	e := strings.ToLower(strings.TrimSpace(expr))
	tokens, ok := Parse(e)
	if !ok || len(tokens) <= 1 {
		return "", []string{e}
	}
	op = tokens[0]
	for v := range strings.SplitSeq(e, op) {
		if v != "" {
			values = append(values, strings.TrimSpace(v))
		}
	}
	return op, values
}

// quote is Python's urllib.parse.quote with its default safe "/".
func quote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// errEmpty marks an empty expression.
var errEmpty = errors.New("empty expression")

// normalize is _normalize_hint_expression: the values URL-quoted and
// joined by the operator.
func normalize(expr string) (string, error) {
	if strings.TrimSpace(expr) == "" {
		return "", errEmpty
	}
	op, values := Split(expr)
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = " " + quote(v) + " "
	}
	return strings.TrimSpace(op + strings.Join(parts, op)), nil
}

// ParseBool is oslo's strutils.bool_from_string(strict=True).
func ParseBool(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	s, ok := v.(string)
	if !ok {
		s = pyStr(v) // oslo takes str() of anything else: 1 is True
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "t", "true", "on", "y", "yes":
		return true, nil
	case "0", "f", "false", "off", "n", "no":
		return false, nil
	}
	return false, fmt.Errorf("Unrecognized value '%s', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'", s) //nolint:staticcheck // ST1005: oslo's message
}

// pyStr is Python's str() for the JSON values hints hold.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		// JSON does not tell 10 from 10.0; hints arrive as integers.
		if x == math.Trunc(x) && math.Abs(x) < 1e16 {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// pyInt is Python's int() of a hint value string.
func pyInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(s, "_", "")), 10, 64)
	return n, err == nil
}

// Spec is one parsed hint: its name, kind and the specs_matcher
// expression (or Boolean) it is matched with.
type Spec struct {
	Name string
	Kind Kind
	Expr string
	Bool bool
}

// Validate is parse_root_device_hints: the hints checked and normalised,
// each with the operator it is matched with ("s==" or "==" when none is
// given), in VALID_ROOT_DEVICE_HINTS order. The error is ironic_lib's
// ValueError text.
func Validate(hints map[string]any) ([]Spec, error) {
	var invalid []string
	for k := range hints {
		if _, ok := kindOf(k); !ok {
			invalid = append(invalid, k)
		}
	}
	if len(invalid) > 0 {
		var valid []string
		for _, h := range Hints() {
			valid = append(valid, h.Name)
		}
		return nil, fmt.Errorf("The hints \"%s\" are invalid. Valid hints are: \"%s\"", //nolint:staticcheck // ST1005: ironic_lib's message
			strings.Join(invalid, ", "), strings.Join(valid, ", "))
	}
	var specs []Spec
	for _, h := range Hints() {
		expr, ok := hints[h.Name]
		if !ok {
			continue
		}
		switch h.Kind {
		case Str:
			s, isStr := expr.(string)
			if !isStr {
				return nil, fmt.Errorf("Root device hint \"%s\" is not a string value. Hint expression: %s", h.Name, pyStr(expr)) //nolint:staticcheck // ST1005: ironic_lib's message
			}
			n, err := normalize(s)
			if err != nil {
				return nil, fmt.Errorf("Root device hint \"%s\" expression is empty", h.Name) //nolint:staticcheck // ST1005: ironic_lib's message
			}
			if tokens, _ := Parse(n); len(tokens) <= 1 {
				n = "s== " + n
			}
			specs = append(specs, Spec{Name: h.Name, Kind: Str, Expr: n})
		case Int:
			s := pyStr(expr)
			if strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("Root device hint \"%s\" expression is empty", h.Name) //nolint:staticcheck // ST1005: ironic_lib's message
			}
			_, values := Split(s)
			for _, v := range values {
				n, ok := pyInt(v)
				if !ok {
					return nil, fmt.Errorf("Root device hint \"%s\" is not an integer value. Current value: %s", h.Name, s) //nolint:staticcheck // ST1005: ironic_lib's message
				}
				if n <= 0 {
					return nil, fmt.Errorf("Root device hint \"%s\" should be a positive integer. Current value: %s", h.Name, s) //nolint:staticcheck // ST1005: ironic_lib's message
				}
			}
			if tokens, _ := Parse(s); len(tokens) <= 1 {
				s = "== " + s
			}
			specs = append(specs, Spec{Name: h.Name, Kind: Int, Expr: s})
		case Bool:
			b, err := ParseBool(expr)
			if err != nil {
				return nil, fmt.Errorf("Root device hint \"%s\" is not a Boolean value. Current value: %s", h.Name, pyStr(expr)) //nolint:staticcheck // ST1005: ironic_lib's message
			}
			specs = append(specs, Spec{Name: h.Name, Kind: Bool, Bool: b})
		}
	}
	return specs, nil
}

// Device is what a hint is matched against: the device's attributes by
// hint name (a string, nil for unknown, an int64 size in bytes, a bool
// for rotational).
type Device interface {
	Attr(name string) any
}

// Matches reports whether dev satisfies every spec, as
// find_devices_by_hints does (a device whose string attribute is empty
// is skipped).
func Matches(dev Device, specs []Spec) bool {
	for _, s := range specs {
		v := dev.Attr(s.Name)
		switch s.Kind {
		case Bool:
			b, err := ParseBool(v)
			if err != nil || b != s.Bool {
				return false
			}
		case Int:
			n, ok := v.(int64)
			if !ok {
				return false
			}
			if !match(float64(n)/(1<<30), "", true, s.Expr) {
				return false
			}
		case Str:
			n, err := normalize(pyStr(v))
			if err != nil {
				return false
			}
			if !match(0, n, false, s.Expr) {
				return false
			}
		}
	}
	return true
}

// match is specs_matcher.match(value, spec) for a float (numeric) or a
// string value.
func match(num float64, str string, numeric bool, spec string) bool {
	tree, ok := Parse(spec)
	if !ok {
		tree = []string{spec}
	}
	if len(tree) == 1 {
		return !numeric && tree[0] == str
	}
	op, args := tree[0], tree[1:]
	flt := func(s string) (float64, bool) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil
	}
	x := num
	if !numeric {
		var ok bool
		if x, ok = flt(str); !ok && !strings.HasPrefix(op, "s") && op != "<in>" && op != "<or>" && op != "<all-in>" {
			return false
		}
	}
	switch op {
	case "=", "!=", "<=", "<", "==", ">=", ">":
		y, ok := flt(args[0])
		if !ok {
			return false
		}
		switch op {
		case "=", ">=":
			return x >= y
		case "!=":
			return x != y
		case "<=":
			return x <= y
		case "<":
			return x < y
		case "==":
			return x == y
		default:
			return x > y
		}
	}
	if numeric {
		// string operators on a float compare a float with a str:
		// Python raises TypeError; ironic_lib does not catch it.
		return false
	}
	switch op {
	case "s==":
		return str == args[0]
	case "s!=":
		return str != args[0]
	case "s<":
		return str < args[0]
	case "s<=":
		return str <= args[0]
	case "s>":
		return str > args[0]
	case "s>=":
		return str >= args[0]
	case "<in>":
		return strings.Contains(str, args[0])
	case "<or>":
		for _, a := range args {
			if str == a {
				return true
			}
		}
	}
	// <all-in> needs a list literal, which a device attribute never is.
	return false
}
