package policy

import (
	"bufio"
	"io"
	"strings"
	"unicode"
)

// WriteSample writes the sample policy file (etc/ironic/policy.yaml.sample)
// generated from Defaults(), byte for byte what
// `oslopolicy-sample-generator --namespace ironic.api` writes: every rule
// commented out, with its description, operations, intended scopes and
// deprecation notes.
func WriteSample(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, r := range Defaults() {
		bw.WriteString(sampleRule(&r))
	}
	return bw.Flush()
}

// sampleRule is oslo.policy's _format_rule_default_yaml for one rule.
func sampleRule(r *Rule) string {
	text := `"` + r.Name + `": "` + r.CheckStr + `"` + "\n"
	var op strings.Builder
	for _, o := range r.Operations {
		if o.Method != "" && o.Path != "" {
			op.WriteString("# " + o.Method + "  " + o.Path + "\n")
		}
	}
	scope := ""
	if r.ScopeTypes != nil {
		scope = "# Intended scope(s): " + strings.Join(r.ScopeTypes, ", ") + "\n"
	}
	text = op.String() + scope + "#" + text + "\n"
	if r.Description != "" {
		text = formatHelpText(r.Description) + "\n" + text
	}
	switch dep := r.Deprecated; {
	case r.DeprecatedForRemoval:
		text = "# DEPRECATED\n# \"" + r.Name + "\" has been deprecated since " + r.DeprecatedSince + ".\n" +
			formatHelpText(r.DeprecatedReason) + "\n" + text
	case dep != nil:
		reason := dep.DeprecatedReason
		if reason == "" {
			reason = r.DeprecatedReason
		}
		since := dep.DeprecatedSince
		if since == "" {
			since = r.DeprecatedSince
		}
		depText := `"` + dep.Name + `":"` + dep.CheckStr + `" has been deprecated since ` + since +
			` in favor of "` + r.Name + `":"` + r.CheckStr + `".`
		text += "# DEPRECATED\n" + formatHelpText(depText) + "\n" + formatHelpText(reason) + "\n"
		if r.Name != dep.Name {
			text += "# WARNING: A rule name change has been identified.\n" +
				"#          This may be an artifact of new rules being\n" +
				"#          included which require legacy fallback\n" +
				"#          rules to ensure proper policy behavior.\n" +
				"#          Alternatively, this may just be an alias.\n" +
				"#          Please evaluate on a case by case basis\n" +
				"#          keeping in mind the format for aliased\n" +
				"#          rules is:\n" +
				"#          \"old_rule_name\": \"new_rule_name\".\n" +
				"# \"" + dep.Name + "\": \"rule:" + r.Name + "\"\n"
		}
		text += "\n"
	}
	return text
}

// formatHelpText is oslo.policy's _format_help_text: paragraphs wrapped
// to 70 columns as "# " comments, blank lines kept as "#", indented
// lines kept as they are.
func formatHelpText(desc string) string {
	if desc == "" {
		return "#"
	}
	var lines, para []string
	flush := func() {
		if len(para) > 0 {
			lines = append(lines, textWrap(strings.Join(para, " "), 70, "# ")...)
		}
		para = nil
	}
	for _, line := range pySplitLines(strings.TrimFunc(desc, unicode.IsSpace)) {
		switch {
		case strings.TrimFunc(line, unicode.IsSpace) == "":
			flush()
			lines = append(lines, "#")
		case line == strings.TrimLeftFunc(line, unicode.IsSpace):
			para = append(para, strings.TrimRightFunc(line, unicode.IsSpace))
		default:
			if len(para) > 0 {
				flush()
				lines = append(lines, "#")
			}
			lines = append(lines, "# "+strings.TrimRightFunc(line, unicode.IsSpace))
		}
	}
	flush()
	return strings.Join(lines, "\n")
}

// pySplitLines is str.splitlines for the line breaks descriptions use.
func pySplitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// textWrap is Python's textwrap.wrap(text, width, initial_indent=indent,
// subsequent_indent=indent) with its defaults: whitespace turned into
// spaces, runs of spaces kept inside a line and dropped at line ends,
// words split after hyphens, words longer than a line broken.
func textWrap(text string, width int, indent string) []string {
	text = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' {
			return ' '
		}
		return r
	}, text)
	chunks := wrapChunks([]rune(text))
	var lines []string
	for len(chunks) > 0 {
		var cur []string
		curLen := 0
		w := width - len([]rune(indent))
		if strings.TrimSpace(chunks[0]) == "" && len(lines) > 0 {
			chunks = chunks[1:]
		}
		for len(chunks) > 0 {
			l := len([]rune(chunks[0]))
			if curLen+l > w {
				break
			}
			cur = append(cur, chunks[0])
			curLen += l
			chunks = chunks[1:]
		}
		if len(chunks) > 0 && len([]rune(chunks[0])) > w {
			// _handle_long_word: break it, at a hyphen if one fits.
			space := w - curLen
			if w < 1 {
				space = 1
			}
			chunk := []rune(chunks[0])
			end := space
			if len(chunk) > space {
				if h := lastIndexRune(chunk[:space], '-'); h > 0 && strings.Trim(string(chunk[:h]), "-") != "" {
					end = h + 1
				}
			}
			cur = append(cur, string(chunk[:end]))
			chunks[0] = string(chunk[end:])
		}
		if len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			lines = append(lines, indent+strings.Join(cur, ""))
		}
	}
	return lines
}

func lastIndexRune(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

// wrapChunks is TextWrapper._split with break_on_hyphens: runs of
// whitespace, and words cut after a hyphen that joins letters
// ("driver-" "specific"), as textwrap's wordsep_re does.
func wrapChunks(t []rune) []string {
	isLetter := func(i int) bool {
		return i >= 0 && i < len(t) && (t[i] == '_' || unicode.IsLetter(t[i]))
	}
	isWordPunct := func(i int) bool {
		return i >= 0 && i < len(t) && (unicode.IsLetter(t[i]) || unicode.IsDigit(t[i]) || t[i] == '_' ||
			strings.ContainsRune("!\"'&.,?", t[i]))
	}
	isWord := func(i int) bool {
		return i >= 0 && i < len(t) && (unicode.IsLetter(t[i]) || unicode.IsDigit(t[i]) || t[i] == '_')
	}
	isSpace := func(i int) bool { return i < len(t) && unicode.IsSpace(t[i]) }
	// dashesThenWord: t[i:] is "--"... followed by a word character.
	dashesThenWord := func(i int) bool {
		j := i
		for j < len(t) && t[j] == '-' {
			j++
		}
		return j-i >= 2 && isWord(j)
	}
	var chunks []string
	for s := 0; s < len(t); {
		if isSpace(s) {
			e := s
			for e < len(t) && isSpace(e) {
				e++
			}
			chunks = append(chunks, string(t[s:e]))
			s = e
			continue
		}
		if t[s] == '-' && isWordPunct(s-1) && dashesThenWord(s) {
			e := s
			for e < len(t) && t[e] == '-' {
				e++
			}
			chunks = append(chunks, string(t[s:e]))
			s = e
			continue
		}
		e := s + 1
		for e < len(t) && !isSpace(e) {
			if t[e] == '-' && (isLetter(e-2) && isLetter(e-1) || isLetter(e-3) && t[e-2] == '-' && isLetter(e-1)) &&
				isLetter(e+1) && (isLetter(e+2) || e+2 < len(t) && t[e+2] == '-' && isLetter(e+3)) {
				e++
				break
			}
			if isWordPunct(e-1) && dashesThenWord(e) {
				break
			}
			e++
		}
		chunks = append(chunks, string(t[s:e]))
		s = e
	}
	return chunks
}
