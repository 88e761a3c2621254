package pyjson

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file explains why a request body is not JSON in the words the
// reference uses. Ironic reads bodies with webob's Request.json, which is
// simplejson.loads(body.decode(charset)) — webob prefers simplejson over the
// standard json module, and Debian's Ironic has simplejson 3.18 with its C
// scanner. Its messages differ from the standard library's: "Expecting ','
// delimiter or '}'", "Expecting value or ']'", "Extra data: line 1 column 5 -
// line 1 column 9 (char 4 - 8)", "Invalid \X escape sequence '\\'", and its
// positions for bad escapes and control characters are its own. The parser
// below follows that C scanner step by step, without recursion.

// MaxNesting is how many arrays and objects the reference's decoder nests
// before it raises RecursionError. The C scanner spends one level of
// Python's recursion limit (1000) per array or object, and the API call stack
// already holds the rest: measured against Ironic 21.4 under
// ironic.cmd.singleprocess, 869 levels decode and the 870th fails, on every
// endpoint tried.
const MaxNesting = 869

// maxIntDigits is Python's default sys.get_int_max_str_digits(): int() of a
// longer decimal string raises ValueError.
const maxIntDigits = 4300

// Exception names the Python exception class the reference raises for a body.
type Exception int

// The exceptions webob's Request.json raises for a bad body.
const (
	// JSONDecodeError is simplejson's syntax error. The reference answers 500
	// with the message as faultstring.
	JSONDecodeError Exception = iota + 1
	// UnicodeDecodeError is raised when the body is not UTF-8. pecan turns it
	// into abort(400): a 400 whose description is empty.
	UnicodeDecodeError
	// ValueError is raised by int() for an integer of more than 4300 digits.
	// The reference answers 500 with the message as faultstring.
	ValueError
	// RecursionError is raised for arrays and objects nested deeper than
	// MaxNesting. The reference answers 500 with the message as faultstring
	// just past the limit, and a 500 with an empty text/plain body from about
	// MaxNesting+3 on, when formatting the error overflows as well.
	RecursionError
)

// String returns the Python class name.
func (e Exception) String() string {
	switch e {
	case JSONDecodeError:
		return "JSONDecodeError"
	case UnicodeDecodeError:
		return "UnicodeDecodeError"
	case ValueError:
		return "ValueError"
	case RecursionError:
		return "RecursionError"
	}
	return fmt.Sprintf("Exception(%d)", int(e))
}

// Error is what DecodeError returns: the exception the reference raises and
// its str().
type Error struct {
	Exception Exception
	// Msg is str(exception), e.g. "Expecting value: line 1 column 12 (char 11)".
	Msg string
	// Pos is where decoding stopped: a byte offset for UnicodeDecodeError, a
	// code point offset into the decoded text otherwise.
	Pos int
}

// Error returns the message exactly as Python prints it.
func (e *Error) Error() string { return e.Msg }

// DecodeError returns nil when the reference Ironic reads data as a JSON
// document, and otherwise an *Error whose message is the one the reference
// puts in its answer. data is decoded as UTF-8, the charset of
// application/json bodies. It runs in linear time and constant stack.
func DecodeError(data []byte) error {
	s, uerr := decodeUTF8(data)
	if uerr != nil {
		return uerr
	}
	p := scanner{s: s}
	if err := p.document(); err != nil {
		return err
	}
	return nil
}

// decodeUTF8 is bytes.decode('utf-8') with errors='strict'. The error names
// the first bad sequence the way CPython's decoder delimits it.
func decodeUTF8(data []byte) ([]rune, *Error) {
	s := make([]rune, 0, utf8.RuneCount(data))
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			s = append(s, rune(data[i]))
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return nil, utf8Error(data, i)
		}
		s = append(s, r)
		i += size
	}
	return s, nil
}

// utf8Error describes the invalid sequence starting at data[i].
func utf8Error(data []byte, i int) *Error {
	const (
		endOfData    = "unexpected end of data"
		invalidStart = "invalid start byte"
		invalidCont  = "invalid continuation byte"
	)
	cont := func(b byte) bool { return b&0xc0 == 0x80 }
	left := len(data) - i
	lead := data[i]
	reason, n := invalidStart, 1
	switch {
	case lead < 0xc2: // continuation byte or overlong 2-byte lead
	case lead < 0xe0:
		reason, n = invalidCont, 1
		if left < 2 {
			reason, n = endOfData, left
		}
	case lead < 0xf0:
		c2Bad := func(b byte) bool {
			return !cont(b) || (lead == 0xe0 && b < 0xa0) || (lead == 0xed && b >= 0xa0)
		}
		switch {
		case left < 2:
			reason, n = endOfData, left
		case c2Bad(data[i+1]):
			reason, n = invalidCont, 1
		case left < 3:
			reason, n = endOfData, left
		default:
			reason, n = invalidCont, 2
		}
	case lead < 0xf5:
		c2Bad := func(b byte) bool {
			return !cont(b) || (lead == 0xf0 && b < 0x90) || (lead == 0xf4 && b >= 0x90)
		}
		switch {
		case left < 2:
			reason, n = endOfData, left
		case c2Bad(data[i+1]):
			reason, n = invalidCont, 1
		case left < 3:
			reason, n = endOfData, left
		case !cont(data[i+2]):
			reason, n = invalidCont, 2
		case left < 4:
			reason, n = endOfData, left
		default:
			reason, n = invalidCont, 3
		}
	}
	var msg string
	if n == 1 {
		msg = fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", lead, i, reason)
	} else {
		msg = fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", i, i+n-1, reason)
	}
	return &Error{Exception: UnicodeDecodeError, Msg: msg, Pos: i}
}

// simplejson's messages.
const (
	errExpectingValue   = "Expecting value"
	errArrayDelimiter   = "Expecting ',' delimiter or ']'"
	errArrayValueFirst  = "Expecting value or ']'"
	errObjectDelimiter  = "Expecting ',' delimiter or '}'"
	errProperty         = "Expecting property name enclosed in double quotes"
	errPropertyFirst    = "Expecting property name enclosed in double quotes or '}'"
	errColon            = "Expecting ':' delimiter"
	errUnterminated     = "Unterminated string starting at"
	errControlCharacter = "Invalid control character %r at"
	errEscape           = "Invalid \\X escape sequence %r"
	errUnicodeEscape    = "Invalid \\uXXXX escape sequence"
	errExtraData        = "Extra data"
)

// scanner checks one decoded document.
type scanner struct {
	s []rune
}

// container is an array or object being read.
type container struct {
	object bool
	filled bool // a value has been read into it
}

func (c container) closer() rune {
	if c.object {
		return '}'
	}
	return ']'
}

// What the scanner expects next.
type step int

const (
	stepValue step = iota // any value
	stepKey               // an object key, its ':' and then a value
	stepAfter             // ',' or the closer of the innermost container, or the end
	stepClose             // the closer of the innermost container
)

// document is JSONDecoder.decode: an optional BOM, whitespace, one value,
// whitespace, and nothing else.
func (p *scanner) document() *Error {
	s := p.s
	idx := 0
	switch {
	case len(s) > 0 && s[0] == 0xfeff:
		idx = 1
	case len(s) >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf:
		// A UTF-8 BOM that was decoded as Latin-1; raw_decode skips it too.
		idx = 3
	}
	end, err := p.value(p.skipSpace(idx))
	if err != nil {
		return err
	}
	if end = p.skipSpace(end); end != len(s) {
		return p.syntaxRange(errExtraData, end, len(s))
	}
	return nil
}

// value reads the value at idx and returns the index after it. Nesting is
// kept on an explicit stack; the checks and positions are those of the C
// scanner's scan_once, _parse_array and _parse_object.
func (p *scanner) value(idx int) (int, *Error) {
	s := p.s
	var stack []container
	next := stepValue
	for {
		switch next {
		case stepValue:
			if idx >= len(s) {
				return 0, p.syntax(errExpectingValue, idx)
			}
			var err *Error
			switch s[idx] {
			case '"':
				idx, err = p.str(idx + 1)
				next = stepAfter
			case '[', '{':
				c := container{object: s[idx] == '{'}
				if len(stack) >= MaxNesting {
					return 0, recursionError(c, idx)
				}
				stack = append(stack, c)
				idx = p.skipSpace(idx + 1)
				switch {
				case idx >= len(s) || s[idx] == c.closer():
					next = stepClose
				case c.object:
					next = stepKey
				}
			default:
				idx, err = p.scalar(idx)
				next = stepAfter
			}
			if err != nil {
				return 0, err
			}

		case stepKey:
			if idx >= len(s) || s[idx] != '"' {
				return 0, p.syntax(errProperty, idx)
			}
			var err *Error
			if idx, err = p.str(idx + 1); err != nil {
				return 0, err
			}
			idx = p.skipSpace(idx)
			if idx >= len(s) || s[idx] != ':' {
				return 0, p.syntax(errColon, idx)
			}
			idx = p.skipSpace(idx + 1)
			next = stepValue

		case stepAfter:
			if len(stack) == 0 {
				return idx, nil
			}
			top := &stack[len(stack)-1]
			top.filled = true
			idx = p.skipSpace(idx)
			switch {
			case idx >= len(s) || s[idx] == top.closer():
				next = stepClose
			case s[idx] != ',':
				if top.object {
					return 0, p.syntax(errObjectDelimiter, idx)
				}
				return 0, p.syntax(errArrayDelimiter, idx)
			default:
				// After a ',' the end of input is "Expecting value" in an
				// array and "Expecting property name" in an object, which
				// stepValue and stepKey report.
				idx = p.skipSpace(idx + 1)
				next = stepValue
				if top.object {
					next = stepKey
				}
			}

		case stepClose:
			top := stack[len(stack)-1]
			if idx >= len(s) || s[idx] != top.closer() {
				switch {
				case top.object && top.filled:
					return 0, p.syntax(errObjectDelimiter, idx)
				case top.object:
					return 0, p.syntax(errPropertyFirst, idx)
				case top.filled:
					return 0, p.syntax(errArrayDelimiter, idx)
				default:
					return 0, p.syntax(errArrayValueFirst, idx)
				}
			}
			idx++
			stack = stack[:len(stack)-1]
			next = stepAfter
		}
	}
}

// recursionError is the RecursionError of Py_EnterRecursiveCall in the C
// scanner when it meets container c at idx.
func recursionError(c container, idx int) *Error {
	kind := "array"
	if c.object {
		kind = "object"
	}
	return &Error{
		Exception: RecursionError,
		Msg:       "maximum recursion depth exceeded while decoding a JSON " + kind + " from a unicode string",
		Pos:       idx,
	}
}

// scalar reads a literal or a number at idx, which holds neither a quote nor
// a bracket.
func (p *scanner) scalar(idx int) (int, *Error) {
	for _, lit := range [...]string{"null", "true", "false", "NaN", "Infinity", "-Infinity"} {
		if p.hasPrefix(idx, lit) {
			return idx + len(lit), nil
		}
	}
	return p.number(idx)
}

func (p *scanner) hasPrefix(idx int, lit string) bool {
	if len(p.s)-idx < len(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if p.s[idx+i] != rune(lit[i]) {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// number is _match_number_unicode: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
// with the fraction and exponent optional and backtracked when incomplete.
func (p *scanner) number(start int) (int, *Error) {
	s := p.s
	last := len(s) - 1
	idx := start
	if s[idx] == '-' {
		if idx >= last {
			return 0, p.syntax(errExpectingValue, idx)
		}
		idx++
	}
	switch c := s[idx]; {
	case c == '0':
		idx++
	case isDigit(c):
		for idx++; idx <= last && isDigit(s[idx]); idx++ {
		}
	default:
		return 0, p.syntax(errExpectingValue, idx)
	}
	intDigits := idx - start
	if s[start] == '-' {
		intDigits--
	}
	isFloat := false
	if idx < last && s[idx] == '.' && isDigit(s[idx+1]) {
		isFloat = true
		for idx += 2; idx <= last && isDigit(s[idx]); idx++ {
		}
	}
	if idx < last && (s[idx] == 'e' || s[idx] == 'E') {
		eStart := idx
		idx++
		if idx < last && (s[idx] == '-' || s[idx] == '+') {
			idx++
		}
		for idx <= last && isDigit(s[idx]) {
			idx++
		}
		if isDigit(s[idx-1]) {
			isFloat = true
		} else {
			idx = eStart
		}
	}
	if !isFloat && intDigits > maxIntDigits {
		return 0, &Error{
			Exception: ValueError,
			Msg: fmt.Sprintf("Exceeds the limit (%d digits) for integer string conversion: "+
				"value has %d digits; use sys.set_int_max_str_digits() to increase the limit",
				maxIntDigits, intDigits),
			Pos: start,
		}
	}
	return idx, nil
}

// str is scanstring_unicode in strict mode: end is the index after the
// opening quote; it returns the index after the closing quote.
func (p *scanner) str(end int) (int, *Error) {
	s := p.s
	begin := end - 1
	for {
		// Find the closing quote or the next backslash.
		next := end
		for next < len(s) && s[next] != '"' && s[next] != '\\' {
			if s[next] <= 0x1f {
				return 0, p.syntax(errControlCharacter, next)
			}
			next++
		}
		if next == len(s) {
			return 0, p.syntax(errUnterminated, begin)
		}
		if s[next] == '"' {
			return next + 1, nil
		}
		// A backslash at next.
		next++
		if next == len(s) {
			return 0, p.syntax(errUnterminated, begin)
		}
		if s[next] != 'u' {
			if !strings.ContainsRune(`"\/bfnrt`, s[next]) {
				return 0, p.syntax(errEscape, next-1)
			}
			end = next + 1
			continue
		}
		// \uXXXX: next is the 'u'. The C scanner wants at least one
		// character after the four digits, and reports the 'u'.
		end = next + 5
		if end >= len(s) {
			return 0, p.syntax(errUnicodeEscape, next)
		}
		c, ok := hex4(s[next+1 : end])
		if !ok {
			return 0, p.syntax(errUnicodeEscape, next)
		}
		// A high surrogate followed by a second \uXXXX (again with a
		// character after it): bad digits there are reported at its 'u';
		// anything but a low surrogate is left to be read on its own.
		if c&0xfc00 == 0xd800 && end+6 < len(s) && s[end] == '\\' && s[end+1] == 'u' {
			c2, ok := hex4(s[end+2 : end+6])
			if !ok {
				return 0, p.syntax(errUnicodeEscape, end+1)
			}
			if c2&0xfc00 == 0xdc00 {
				end += 6
			}
		}
	}
}

func hex4(digits []rune) (rune, bool) {
	var v rune
	for _, d := range digits {
		v <<= 4
		switch {
		case d >= '0' && d <= '9':
			v |= d - '0'
		case d >= 'a' && d <= 'f':
			v |= d - 'a' + 10
		case d >= 'A' && d <= 'F':
			v |= d - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

func (p *scanner) skipSpace(idx int) int {
	for idx < len(p.s) {
		switch p.s[idx] {
		case ' ', '\t', '\n', '\r':
			idx++
		default:
			return idx
		}
	}
	return idx
}

// syntax is simplejson's JSONDecodeError(msg, doc, pos).
func (p *scanner) syntax(msg string, pos int) *Error {
	line, col := p.lineCol(pos)
	return &Error{
		Exception: JSONDecodeError,
		Msg:       fmt.Sprintf("%s: line %d column %d (char %d)", p.withRepr(msg, pos), line, col, pos),
		Pos:       pos,
	}
}

// syntaxRange is JSONDecodeError(msg, doc, pos, end).
func (p *scanner) syntaxRange(msg string, pos, end int) *Error {
	line, col := p.lineCol(pos)
	endLine, endCol := p.lineCol(end)
	return &Error{
		Exception: JSONDecodeError,
		Msg: fmt.Sprintf("%s: line %d column %d - line %d column %d (char %d - %d)",
			p.withRepr(msg, pos), line, col, endLine, endCol, pos, end),
		Pos: pos,
	}
}

// withRepr replaces %r in msg by Python's repr of doc[pos:pos+1], as
// simplejson's errmsg does.
func (p *scanner) withRepr(msg string, pos int) string {
	if !strings.Contains(msg, "%r") {
		return msg
	}
	r := ""
	if pos < len(p.s) {
		r = string(p.s[pos])
	}
	return strings.ReplaceAll(msg, "%r", pyRepr(r))
}

// lineCol is simplejson's linecol: 1-based line and column of pos.
func (p *scanner) lineCol(pos int) (line, col int) {
	line, lastNL := 1, -1
	for i, r := range p.s[:pos] {
		if r == '\n' {
			line++
			lastNL = i
		}
	}
	return line, pos - lastNL
}

// pyRepr is Python's repr() of a str, for the ASCII text it is used on here
// (a control character or a backslash). Other characters are written as they
// are, which is what repr does for printable ones.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
