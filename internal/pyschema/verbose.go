package pyschema

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goironic/ironic/internal/pyjson"
)

// Verbose is str() of the jsonschema error: the message, then the failing
// keyword with its schema and the instance, both pretty-printed by
// pprint.pformat(width=72). Ironic shows this form for clean/deploy steps
// ("Invalid clean_steps: <Verbose>") and config drives.
func (e *ValidationError) Verbose() string {
	if !e.filled || !e.fixedKeyword {
		return e.Message
	}
	validator := "None"
	if e.Validator != "" {
		validator = pyStrRepr(e.Validator)
	}
	schemaPath := e.SchemaPath
	if len(schemaPath) > 0 {
		schemaPath = schemaPath[:len(schemaPath)-1]
	}
	var b strings.Builder
	b.WriteString(e.Message)
	b.WriteString("\n\nFailed validating ")
	b.WriteString(validator)
	b.WriteString(" in ")
	b.WriteString(formatAsIndex("schema", schemaPath))
	b.WriteString(":\n    ")
	b.WriteString(indentLines(pformat(e.Schema, 72), "    "))
	b.WriteString("\n\nOn ")
	b.WriteString(formatAsIndex("instance", e.Path))
	b.WriteString(":\n    ")
	b.WriteString(indentLines(pformat(e.Instance, 72), "    "))
	return b.String()
}

// formatAsIndex is jsonschema's _utils.format_as_index.
func formatAsIndex(container string, indices []any) string {
	if len(indices) == 0 {
		return container
	}
	parts := make([]string, len(indices))
	for i, idx := range indices {
		parts[i] = pathRepr(idx)
	}
	return container + "[" + strings.Join(parts, "][") + "]"
}

func pathRepr(p any) string {
	switch x := p.(type) {
	case int:
		return Repr(x)
	case string:
		return pyStrRepr(x)
	}
	return Repr(p)
}

// indentLines prefixes every line but the first.
func indentLines(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// pformat is pprint.pformat(v, width=width) with the default indent=1 and
// sort_dicts=True, for decoded JSON values.
func pformat(v any, width int) string {
	c, err := canonical(v)
	if err != nil {
		return Repr(v)
	}
	p := &pprinter{width: width}
	p.format(c, 0, 0, 0)
	return p.b.String()
}

type pprinter struct {
	width int
	b     strings.Builder
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// sortedRepr is PrettyPrinter._safe_repr: repr with dict keys sorted.
func sortedRepr(v any) string {
	var b strings.Builder
	writeSortedRepr(&b, v)
	return b.String()
}

func writeSortedRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case pyjson.Object:
		b.WriteByte('{')
		for i, m := range sortedMembers(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyStrRepr(m.Key))
			b.WriteString(": ")
			writeSortedRepr(b, m.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSortedRepr(b, e)
		}
		b.WriteByte(']')
	default:
		writeRepr(b, v)
	}
}

func sortedMembers(o pyjson.Object) pyjson.Object {
	s := slices.Clone(o)
	slices.SortStableFunc(s, func(a, b pyjson.Member) int { return strings.Compare(a.Key, b.Key) })
	return s
}

// format is PrettyPrinter._format.
func (p *pprinter) format(v any, indent, allowance, level int) {
	rep := sortedRepr(v)
	if runeLen(rep) > p.width-indent-allowance {
		switch x := v.(type) {
		case pyjson.Object:
			p.dict(x, indent, allowance, level+1)
			return
		case []any:
			p.list(x, indent, allowance, level+1)
			return
		case string:
			p.str(x, indent, allowance, level+1)
			return
		}
	}
	p.b.WriteString(rep)
}

func (p *pprinter) dict(o pyjson.Object, indent, allowance, level int) {
	p.b.WriteByte('{')
	if len(o) > 0 {
		items := sortedMembers(o)
		allowance++
		indent++
		delim := ",\n" + strings.Repeat(" ", indent)
		for i, m := range items {
			last := i == len(items)-1
			rep := pyStrRepr(m.Key)
			p.b.WriteString(rep)
			p.b.WriteString(": ")
			a := 1
			if last {
				a = allowance
			}
			p.format(m.Value, indent+runeLen(rep)+2, a, level)
			if !last {
				p.b.WriteString(delim)
			}
		}
	}
	p.b.WriteByte('}')
}

func (p *pprinter) list(l []any, indent, allowance, level int) {
	p.b.WriteByte('[')
	allowance++
	indent++
	delim := ",\n" + strings.Repeat(" ", indent)
	for i, e := range l {
		if i > 0 {
			p.b.WriteString(delim)
		}
		a := 1
		if i == len(l)-1 {
			a = allowance
		}
		p.format(e, indent, a, level)
	}
	p.b.WriteByte(']')
}

// str is PrettyPrinter._pprint_str: a long string becomes adjacent string
// literals split at line ends and after runs of whitespace.
func (p *pprinter) str(s string, indent, allowance, level int) {
	if s == "" {
		p.b.WriteString(pyStrRepr(s))
		return
	}
	var chunks []string
	lines := pySplitLines(s)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := p.width - indent
	maxWidth1 := maxWidth
	rep := ""
	for i, line := range lines {
		rep = pyStrRepr(line)
		lastLine := i == len(lines)-1
		if lastLine {
			maxWidth1 -= allowance
		}
		if runeLen(rep) <= maxWidth1 {
			chunks = append(chunks, rep)
			continue
		}
		parts := spaceParts(line)
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && lastLine {
				maxWidth2 -= allowance
			}
			if runeLen(pyStrRepr(candidate)) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, pyStrRepr(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, pyStrRepr(current))
		}
	}
	if len(chunks) == 1 {
		p.b.WriteString(rep)
		return
	}
	if level == 1 {
		p.b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			p.b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		p.b.WriteString(c)
	}
	if level == 1 {
		p.b.WriteByte(')')
	}
}

// pySplitLines is str.splitlines(keepends=True).
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		switch r {
		case '\r':
			if end < len(s) && s[end] == '\n' {
				end++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			i = end
			continue
		}
		lines = append(lines, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// pyIsSpace is str.isspace() for one character, which is also what \s
// matches in a str pattern.
func pyIsSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= ' ', r == 0x85, r == 0xa0,
		r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// spaceParts is re.findall(r'\S*\s*', line) without the final empty match.
func spaceParts(line string) []string {
	var parts []string
	i := 0
	for i < len(line) {
		start := i
		for i < len(line) {
			r, size := utf8.DecodeRuneInString(line[i:])
			if pyIsSpace(r) {
				break
			}
			i += size
		}
		for i < len(line) {
			r, size := utf8.DecodeRuneInString(line[i:])
			if !pyIsSpace(r) {
				break
			}
			i += size
		}
		parts = append(parts, line[start:i])
	}
	return parts
}
