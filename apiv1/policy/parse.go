package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// op is the kind of a check node.
type op uint8

const (
	opTrue    op = iota // "@" (and the empty rule)
	opFalse             // "!" (and every rule oslo.policy fails to parse)
	opAnd               // a and b and ...
	opOr                // a or b or ...
	opNot               // not a
	opRule              // rule:NAME
	opRole              // role:MATCH
	opGeneric           // KIND:MATCH (attribute of the caller, or a Python literal)
	opHTTP              // http:/https: (remote check; never allowed here)
)

// node is one check of a parsed rule, as oslo.policy's _checks classes.
// Nodes are built once, when the enforcer is made, and are read-only
// afterwards.
type node struct {
	op   op
	kids []*node // opAnd, opOr, opNot

	kind  string   // the text before the first ':' (opRule, opRole, opGeneric, opHTTP)
	match template // the text after it, a Python %-format over the target

	// opRule: the rule referenced, bound after loading (nil: undefined,
	// which fails closed).
	ref *node
	// opGeneric: the kind is a Python literal (True, 'x', 1), compared
	// with the match as str(literal); otherwise path is the kind split on
	// "." and looked up in the caller's credentials.
	isLiteral bool
	literal   string
	path      []string
}

// newNode returns a node without operands (opTrue, opFalse).
func newNode(o op) *node { return &node{op: o} }

// String renders the node as oslo.policy's checks print themselves.
func (n *node) String() string {
	switch n.op {
	case opTrue:
		return "@"
	case opFalse:
		return "!"
	case opNot:
		return "not " + n.kids[0].String()
	case opAnd, opOr:
		sep := " and "
		if n.op == opOr {
			sep = " or "
		}
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			parts[i] = k.String()
		}
		return "(" + strings.Join(parts, sep) + ")"
	}
	return n.kind + ":" + n.match.src
}

// parseRule parses a rule in the policy language with oslo.policy's
// grammar and its quirks (_parser.parse_rule for a string): the empty
// rule allows everything; a rule that does not reduce to one check is
// logged by the caller (problem is set) and fails closed.
func parseRule(rule string) (n *node, problem string) {
	if rule == "" {
		return newNode(opTrue), ""
	}
	var st parseState
	for _, tok := range tokenize(rule) {
		st.shift(tok)
	}
	if len(st.toks) != 1 || st.toks[0].kind == tokString || isPunct(st.toks[0].kind) {
		return newNode(opFalse), "Failed to understand rule " + rule
	}
	return st.toks[0].check, ""
}

// parseListRule is _parse_list_rule: the old list-of-lists syntax, an
// "or" of "and"s. An empty list allows everything.
func parseListRule(rule [][]string) *node {
	if len(rule) == 0 {
		return newNode(opTrue)
	}
	var ors []*node
	for _, inner := range rule {
		if len(inner) == 0 {
			continue
		}
		ands := make([]*node, len(inner))
		for i, r := range inner {
			ands[i] = parseCheck(r)
		}
		if len(ands) == 1 {
			ors = append(ors, ands[0])
		} else {
			ors = append(ors, &node{op: opAnd, kids: ands})
		}
	}
	switch len(ors) {
	case 0:
		return newNode(opFalse)
	case 1:
		return ors[0]
	}
	return &node{op: opOr, kids: ors}
}

type tokKind uint8

const (
	tokLParen tokKind = iota
	tokRParen
	tokAnd
	tokOr
	tokNot
	tokString
	tokCheck
	tokAndExpr
	tokOrExpr
)

func isPunct(k tokKind) bool { return k <= tokNot }

type token struct {
	kind  tokKind
	check *node // tokCheck, tokAndExpr, tokOrExpr
}

// tokenize is _parse_tokenize: split on whitespace, peel parentheses off
// both ends of each word, recognise and/or/not in any case and quoted
// strings; everything else is a check.
func tokenize(rule string) []token {
	var out []token
	for _, tok := range strings.FieldsFunc(rule, isPySpace) {
		clean := strings.TrimLeft(tok, "(")
		for i := 0; i < len(tok)-len(clean); i++ {
			out = append(out, token{kind: tokLParen})
		}
		if clean == "" {
			continue
		}
		tok = clean
		clean = strings.TrimRight(tok, ")")
		trail := len(tok) - len(clean)
		switch strings.ToLower(clean) {
		case "and":
			out = append(out, token{kind: tokAnd})
		case "or":
			out = append(out, token{kind: tokOr})
		case "not":
			out = append(out, token{kind: tokNot})
		default:
			if clean != "" {
				if len(tok) >= 2 && (tok[0] == '"' && tok[len(tok)-1] == '"' || tok[0] == '\'' && tok[len(tok)-1] == '\'') {
					out = append(out, token{kind: tokString})
				} else {
					out = append(out, token{kind: tokCheck, check: parseCheck(clean)})
				}
			}
		}
		for i := 0; i < trail; i++ {
			out = append(out, token{kind: tokRParen})
		}
	}
	return out
}

// isPySpace is the set re's \s matches in a str pattern (ASCII plus the
// Unicode spaces Python's str.isspace knows).
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// parseState is oslo.policy's ParseState: a greedy shift-reduce over the
// token stream, reducing after every shift.
type parseState struct{ toks []token }

func (s *parseState) shift(t token) {
	s.toks = append(s.toks, t)
	s.reduce()
}

func (s *parseState) ends(kinds ...tokKind) bool {
	if len(s.toks) < len(kinds) {
		return false
	}
	tail := s.toks[len(s.toks)-len(kinds):]
	for i, k := range kinds {
		if tail[i].kind != k {
			return false
		}
	}
	return true
}

func (s *parseState) replace(n int, t token) {
	s.toks = append(s.toks[:len(s.toks)-n], t)
}

func (s *parseState) reduce() {
	for {
		t := s.toks
		l := len(t)
		switch {
		case s.ends(tokLParen, tokCheck, tokRParen), s.ends(tokLParen, tokAndExpr, tokRParen), s.ends(tokLParen, tokOrExpr, tokRParen):
			s.replace(3, token{kind: tokCheck, check: t[l-2].check})
		case s.ends(tokCheck, tokAnd, tokCheck):
			s.replace(3, token{kind: tokAndExpr, check: &node{op: opAnd, kids: []*node{t[l-3].check, t[l-1].check}}})
		case s.ends(tokOrExpr, tokAnd, tokCheck):
			// "a or b and c": the and takes the last operand of the or.
			or := t[l-3].check
			last := or.kids[len(or.kids)-1]
			var and *node
			if last.op == opAnd {
				and = &node{op: opAnd, kids: append(append([]*node{}, last.kids...), t[l-1].check)}
			} else {
				and = &node{op: opAnd, kids: []*node{last, t[l-1].check}}
			}
			kids := append(append([]*node{}, or.kids[:len(or.kids)-1]...), and)
			s.replace(3, token{kind: tokOrExpr, check: &node{op: opOr, kids: kids}})
		case s.ends(tokAndExpr, tokAnd, tokCheck):
			and := t[l-3].check
			s.replace(3, token{kind: tokAndExpr, check: &node{op: opAnd, kids: append(append([]*node{}, and.kids...), t[l-1].check)}})
		case s.ends(tokCheck, tokOr, tokCheck), s.ends(tokAndExpr, tokOr, tokCheck):
			s.replace(3, token{kind: tokOrExpr, check: &node{op: opOr, kids: []*node{t[l-3].check, t[l-1].check}}})
		case s.ends(tokOrExpr, tokOr, tokCheck):
			or := t[l-3].check
			s.replace(3, token{kind: tokOrExpr, check: &node{op: opOr, kids: append(append([]*node{}, or.kids...), t[l-1].check)}})
		case s.ends(tokNot, tokCheck):
			s.replace(2, token{kind: tokCheck, check: &node{op: opNot, kids: []*node{t[l-1].check}}})
		default:
			return
		}
	}
}

// parseCheck is _parse_check: one KIND:MATCH check. "!" and "@" are the
// constant checks; a check without ":" fails closed; http and https are
// oslo.policy's remote checks; rule and role are built in; any other
// kind is a generic check.
func parseCheck(rule string) *node {
	switch rule {
	case "!":
		return newNode(opFalse)
	case "@":
		return newNode(opTrue)
	}
	kind, match, ok := strings.Cut(rule, ":")
	if !ok {
		return newNode(opFalse)
	}
	n := &node{kind: kind, match: parseTemplate(match)}
	switch kind {
	case "http", "https":
		n.op = opHTTP
	case "rule":
		n.op = opRule
	case "role":
		n.op = opRole
	default:
		n.op = opGeneric
		n.literal, n.isLiteral = pyLiteral(kind)
		if !n.isLiteral {
			n.path = strings.Split(kind, ".")
		}
	}
	return n
}

// template is the match of a check: Python's "match % target" with a
// mapping, where %(key)s takes str(target[key]) and a missing key makes
// the check false.
type template struct {
	src string
	// single is the key when the whole match is "%(key)s".
	single string
	parts  []tpart // literal text and keys, in order (nil: src is literal)
	lit    string  // the text when there are no keys ("%%" unescaped)
	// bad is set when the match uses a formatting Python would reject or
	// that this implementation does not reproduce; the check then fails.
	bad bool
}

type tpart struct {
	text  string
	isKey bool
}

func parseTemplate(s string) template {
	t := template{src: s}
	if !strings.Contains(s, "%") {
		t.lit = s
		return t
	}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, tpart{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			lit.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			lit.WriteByte('%')
			i += 2
			continue
		}
		if i+1 >= len(s) || s[i+1] != '(' {
			t.bad = true
			return t
		}
		// The key runs to the matching ')', as Python counts nesting.
		depth, j := 1, i+2
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		if depth > 0 || j >= len(s) || s[j] != 's' {
			t.bad = true
			return t
		}
		flush()
		t.parts = append(t.parts, tpart{text: s[i+2 : j-1], isKey: true})
		i = j + 1
	}
	flush()
	switch {
	case len(t.parts) == 1 && t.parts[0].isKey:
		t.single = t.parts[0].text
	case len(t.parts) == 0:
		t.parts = nil
	case len(t.parts) == 1:
		t.lit, t.parts = t.parts[0].text, nil
	}
	return t
}

// pyLiteral reports whether kind is a Python literal that
// ast.literal_eval accepts, and returns str() of its value: True, False,
// None, a quoted string, an integer or a float. Other literals (lists,
// bytes, complex numbers) are not reproduced and are looked up as
// attribute names, which fails closed.
func pyLiteral(kind string) (string, bool) {
	switch kind {
	case "True", "False", "None":
		return kind, true
	}
	if len(kind) >= 2 && (kind[0] == '\'' || kind[0] == '"') && kind[len(kind)-1] == kind[0] {
		inner := kind[1 : len(kind)-1]
		if strings.ContainsAny(inner, "\\"+kind[:1]) {
			return "", false
		}
		return inner, true
	}
	if kind == "" || !strings.ContainsAny(kind[:1], "+-.0123456789") {
		return "", false
	}
	digits := strings.TrimLeft(kind, "+-")
	neg := strings.Count(kind[:len(kind)-len(digits)], "-")%2 == 1
	if digits == "" || strings.HasPrefix(digits, "_") || strings.HasSuffix(digits, "_") || strings.Contains(digits, "__") {
		return "", false
	}
	clean := strings.ReplaceAll(digits, "_", "")
	if i, err := strconv.ParseUint(clean, 10, 64); err == nil {
		if clean[0] == '0' && strings.Trim(clean, "0") != "" {
			return "", false // 007: a SyntaxError in Python 3
		}
		s := strconv.FormatUint(i, 10)
		if neg && i != 0 {
			s = "-" + s
		}
		return s, true
	}
	lower := strings.ToLower(clean)
	for prefix, base := range map[string]int{"0x": 16, "0o": 8, "0b": 2} {
		if strings.HasPrefix(lower, prefix) {
			i, err := strconv.ParseUint(lower[2:], base, 64)
			if err != nil {
				return "", false
			}
			s := strconv.FormatUint(i, 10)
			if neg && i != 0 {
				s = "-" + s
			}
			return s, true
		}
	}
	if strings.ContainsAny(lower, "xob_j") || strings.Contains(lower, "inf") || strings.Contains(lower, "nan") {
		return "", false
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", false
	}
	if neg {
		f = -f
	}
	return pyFloatRepr(f), true
}

// pyFloatRepr is Python's repr(float): the shortest round-tripping
// digits, positional between 1e-4 and 1e16, else scientific.
func pyFloatRepr(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	sign := ""
	if mant[0] == '-' {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := fmt.Sprintf("%+03d", exp)
		return sign + m + "e" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}
