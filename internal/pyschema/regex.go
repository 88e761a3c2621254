package pyschema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compilePython compiles a Python `re` pattern (a str pattern with default
// flags) into a Go regexp that finds a match in the same strings as
// re.search does. Constructs RE2 cannot express (lookaround, backreferences,
// Unicode \b, verbose mode, possessive quantifiers) are reported as errors.
func compilePython(pattern string) (*regexp.Regexp, error) {
	t := translator{src: pattern}
	out, err := t.translate()
	if err != nil {
		return nil, fmt.Errorf("pyschema: pattern %s: %w", pyStrRepr(pattern), err)
	}
	re, err := regexp.Compile(out)
	if err != nil {
		return nil, fmt.Errorf("pyschema: pattern %s: %w", pyStrRepr(pattern), err)
	}
	return re, nil
}

type translator struct {
	src       string
	pos       int
	ascii     bool // re.ASCII: \w, \d, \s and \b are ASCII-only
	multiline bool
	out       strings.Builder
}

func (t *translator) eof() bool { return t.pos >= len(t.src) }

func (t *translator) peek() rune {
	r, _ := utf8.DecodeRuneInString(t.src[t.pos:])
	return r
}

func (t *translator) next() rune {
	r, size := utf8.DecodeRuneInString(t.src[t.pos:])
	t.pos += size
	return r
}

func (t *translator) translate() (string, error) {
	// Global flags may only open the pattern (Python 3.11).
	var flags strings.Builder
	for strings.HasPrefix(t.src[t.pos:], "(?") {
		end := t.pos + 2
		for end < len(t.src) && strings.IndexByte("aiLmsux", t.src[end]) >= 0 {
			end++
		}
		if end == t.pos+2 || end >= len(t.src) || t.src[end] != ')' {
			break
		}
		for _, f := range t.src[t.pos+2 : end] {
			switch f {
			case 'i', 's':
				flags.WriteRune(f)
			case 'm':
				flags.WriteRune(f)
				t.multiline = true
			case 'a':
				t.ascii = true
			case 'u':
			default:
				return "", fmt.Errorf("flag %q is not supported", f)
			}
		}
		t.pos = end + 1
	}
	if flags.Len() > 0 {
		t.out.WriteString("(?" + flags.String() + ")")
	}
	for !t.eof() {
		if err := t.item(); err != nil {
			return "", err
		}
	}
	return t.out.String(), nil
}

func (t *translator) item() error {
	r := t.next()
	switch r {
	case '\\':
		return t.escape()
	case '[':
		return t.class()
	case '(':
		return t.group()
	case '$':
		if t.multiline {
			t.out.WriteString("$")
		} else {
			// End of string, or before a newline that ends it.
			t.out.WriteString(`(?:\n?\z)`)
		}
		return nil
	case '{':
		return t.brace()
	case '}':
		t.out.WriteString(`\}`)
		return nil
	case ']':
		t.out.WriteString(`\]`)
		return nil
	case '*', '+', '?':
		t.out.WriteRune(r)
		return t.afterQuantifier()
	default:
		t.out.WriteRune(r)
		return nil
	}
}

// afterQuantifier copies a lazy '?' and rejects possessive '+'.
func (t *translator) afterQuantifier() error {
	if t.eof() {
		return nil
	}
	switch t.peek() {
	case '?':
		t.out.WriteRune(t.next())
	case '+':
		return fmt.Errorf("possessive quantifiers are not supported")
	}
	return nil
}

// brace handles '{', a repeat count when it reads as one to Python and a
// literal otherwise.
func (t *translator) brace() error {
	rest := t.src[t.pos:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	lo := rest[:i]
	hi := lo
	comma := false
	if i < len(rest) && rest[i] == ',' {
		comma = true
		j := i + 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		hi = rest[i+1 : j]
		i = j
	}
	if i >= len(rest) || rest[i] != '}' || (!comma && lo == "") {
		t.out.WriteString(`\{`)
		return nil
	}
	t.pos += i + 1
	if lo == "" {
		lo = "0"
	}
	switch {
	case !comma:
		fmt.Fprintf(&t.out, "{%s}", lo)
	case hi == "":
		fmt.Fprintf(&t.out, "{%s,}", lo)
	default:
		fmt.Fprintf(&t.out, "{%s,%s}", lo, hi)
	}
	return t.afterQuantifier()
}

func (t *translator) group() error {
	if t.eof() || t.peek() != '?' {
		t.out.WriteByte('(')
		return nil
	}
	t.next()
	rest := t.src[t.pos:]
	switch {
	case strings.HasPrefix(rest, ":"):
		t.pos++
		t.out.WriteString("(?:")
		return nil
	case strings.HasPrefix(rest, "P<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return fmt.Errorf("unterminated group name")
		}
		t.out.WriteString("(?" + rest[:end+1])
		t.pos += end + 1
		return nil
	case strings.HasPrefix(rest, "#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return fmt.Errorf("missing ), unterminated comment")
		}
		t.pos += end + 1
		return nil
	}
	// Scoped flags: (?i:...), (?-i:...), (?i-s:...).
	i := 0
	for i < len(rest) && strings.IndexByte("imsx-aLu", rest[i]) >= 0 {
		i++
	}
	if i > 0 && i < len(rest) && rest[i] == ':' {
		spec := rest[:i]
		if strings.ContainsAny(spec, "xaLum") {
			return fmt.Errorf("scoped flags %q are not supported", spec)
		}
		t.out.WriteString("(?" + spec + ":")
		t.pos += i + 1
		return nil
	}
	if i > 0 && i < len(rest) && rest[i] == ')' {
		return fmt.Errorf("global flags not at the start of the expression")
	}
	return fmt.Errorf("group construct (?%s is not supported", firstRune(rest))
}

func firstRune(s string) string {
	if s == "" {
		return ""
	}
	_, size := utf8.DecodeRuneInString(s)
	return s[:size]
}

// escape translates the escape after a backslash outside a class.
func (t *translator) escape() error {
	if t.eof() {
		return fmt.Errorf("bad escape (end of pattern)")
	}
	r := t.next()
	switch r {
	case 'd', 'D', 'w', 'W', 's', 'S':
		set := t.categorySet(unicode.ToLower(r))
		if unicode.IsUpper(r) {
			t.out.WriteString("[^" + set + "]")
		} else {
			t.out.WriteString("[" + set + "]")
		}
		return nil
	case 'b', 'B':
		if !t.ascii {
			return fmt.Errorf(`\%c on Unicode word characters is not supported`, r)
		}
		t.out.WriteString(`\` + string(r))
		return nil
	case 'A':
		t.out.WriteString(`\A`)
		return nil
	case 'Z':
		t.out.WriteString(`\z`)
		return nil
	}
	c, ok, err := t.charEscape(r)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf(`bad escape \%c`, r)
	}
	t.out.WriteString(literal(c))
	return nil
}

// charEscape decodes an escape that stands for one character.
func (t *translator) charEscape(r rune) (rune, bool, error) {
	switch r {
	case 'n':
		return '\n', true, nil
	case 't':
		return '\t', true, nil
	case 'r':
		return '\r', true, nil
	case 'f':
		return '\f', true, nil
	case 'v':
		return '\v', true, nil
	case 'a':
		return '\a', true, nil
	case 'x':
		return t.hexEscape(2)
	case 'u':
		return t.hexEscape(4)
	case 'U':
		return t.hexEscape(8)
	case '0':
		v := 0
		for i := 0; i < 2 && !t.eof() && t.peek() >= '0' && t.peek() <= '7'; i++ {
			v = v*8 + int(t.next()-'0')
		}
		return rune(v), true, nil
	}
	if r >= '1' && r <= '9' {
		// Three octal digits are a character; anything else is a
		// backreference.
		rest := t.src[t.pos:]
		if r <= '7' && len(rest) >= 2 && isOctal(rest[0]) && isOctal(rest[1]) {
			v := int(r-'0')*64 + int(rest[0]-'0')*8 + int(rest[1]-'0')
			if v > 0o377 {
				return 0, false, fmt.Errorf("octal escape value outside of range")
			}
			t.pos += 2
			return rune(v), true, nil
		}
		return 0, false, fmt.Errorf("backreferences are not supported")
	}
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return 0, false, nil
	}
	return r, true, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func (t *translator) hexEscape(n int) (rune, bool, error) {
	if len(t.src)-t.pos < n {
		return 0, false, fmt.Errorf("incomplete escape")
	}
	v, err := strconv.ParseUint(t.src[t.pos:t.pos+n], 16, 32)
	if err != nil || v > unicode.MaxRune {
		return 0, false, fmt.Errorf("bad escape %s", t.src[t.pos-2:t.pos+n])
	}
	t.pos += n
	return rune(v), true, nil
}

// literal writes one character so that RE2 reads it literally.
func literal(r rune) string {
	return fmt.Sprintf(`\x{%x}`, r)
}

// classItem is one member of a bracket expression: a character or a set
// written as RE2 class content.
type classItem struct {
	char  rune
	set   string
	isSet bool
}

func (t *translator) class() error {
	negate := false
	if !t.eof() && t.peek() == '^' {
		t.next()
		negate = true
	}
	var items []classItem
	first := true
	for {
		if t.eof() {
			return fmt.Errorf("unterminated character set")
		}
		r := t.next()
		if r == ']' && !first {
			break
		}
		first = false
		if r != '\\' {
			items = append(items, classItem{char: r})
			continue
		}
		if t.eof() {
			return fmt.Errorf("bad escape (end of pattern)")
		}
		e := t.next()
		switch e {
		case 'd', 'w', 's':
			items = append(items, classItem{set: t.categorySet(e), isSet: true})
			continue
		case 'D', 'W', 'S':
			return fmt.Errorf(`\%c inside a character set is not supported`, e)
		case 'b':
			items = append(items, classItem{char: '\b'})
			continue
		}
		c, ok, err := t.charEscape(e)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf(`bad escape \%c`, e)
		}
		items = append(items, classItem{char: c})
	}
	var b strings.Builder
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	for i := 0; i < len(items); i++ {
		it := items[i]
		isRange := i+2 < len(items) && !items[i+1].isSet && items[i+1].char == '-'
		if it.isSet {
			if isRange {
				return fmt.Errorf("bad character range")
			}
			b.WriteString(it.set)
			continue
		}
		if isRange {
			hi := items[i+2]
			if hi.isSet || hi.char < it.char {
				return fmt.Errorf("bad character range")
			}
			b.WriteString(literal(it.char) + "-" + literal(hi.char))
			i += 2
			continue
		}
		b.WriteString(literal(it.char))
	}
	b.WriteByte(']')
	t.out.WriteString(b.String())
	return nil
}

// categorySet is the RE2 class content of Python's \d, \w or \s.
func (t *translator) categorySet(c rune) string {
	if t.ascii {
		switch c {
		case 'd':
			return `0-9`
		case 'w':
			return `0-9A-Za-z_`
		default:
			return `\t\n\v\f\r `
		}
	}
	switch c {
	case 'd':
		return rangesClass(pyRanges(unicode.Nd))
	case 'w':
		rs := pyRanges(unicode.L, unicode.N)
		rs = mergeRanges(append(rs, [2]rune{'_', '_'}))
		return rangesClass(rs)
	default:
		// str.isspace(): bidirectional classes WS, B, S and category Zs.
		return `\t\n\v\f\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
	}
}

// pyRanges returns the union of the tables without the characters Python
// 3.11 does not know, as sorted, merged ranges.
func pyRanges(tables ...*unicode.RangeTable) [][2]rune {
	var rs [][2]rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			rs = append(rs, [2]rune{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			rs = append(rs, [2]rune{c, c})
		}
	}
	for _, tab := range tables {
		for _, r := range tab.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range tab.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	rs = mergeRanges(rs)
	var exclude [][2]rune
	newer := newerThanPython()
	for _, r := range newer.R16 {
		exclude = append(exclude, [2]rune{rune(r.Lo), rune(r.Hi)})
	}
	for _, r := range newer.R32 {
		exclude = append(exclude, [2]rune{rune(r.Lo), rune(r.Hi)})
	}
	var out [][2]rune
	for _, r := range rs {
		lo := r[0]
		for _, x := range exclude {
			if x[1] < lo || x[0] > r[1] {
				continue
			}
			if x[0] > lo {
				out = append(out, [2]rune{lo, x[0] - 1})
			}
			lo = x[1] + 1
		}
		if lo <= r[1] {
			out = append(out, [2]rune{lo, r[1]})
		}
	}
	return out
}

func mergeRanges(rs [][2]rune) [][2]rune {
	slices.SortFunc(rs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	var out [][2]rune
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			if r[1] > out[n-1][1] {
				out[n-1][1] = r[1]
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

func rangesClass(rs [][2]rune) string {
	var b strings.Builder
	for _, r := range rs {
		if r[0] == r[1] {
			fmt.Fprintf(&b, `\x{%x}`, r[0])
		} else {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r[0], r[1])
		}
	}
	return b.String()
}
