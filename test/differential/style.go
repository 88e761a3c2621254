package differential

import (
	"fmt"
	"strconv"
)

// CheckPythonStyle reports the first place where raw, a JSON text, differs
// from what Python's json.dumps writes with its defaults, as Ironic does:
// separators ", " and ": " and no other whitespace outside strings; inside
// strings ensure_ascii escaping (every character outside ' '..'~' escaped,
// with the short forms \" \\ \n \r \t \b \f where they exist, otherwise
// \u with four lower-case hex digits) and nothing else escaped (so no \/ and
// no \u003c as Go's HTML-safe encoder writes). The value is not otherwise
// validated.
func CheckPythonStyle(raw []byte) error {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case c == '"':
				inString = false
			case c == '\\':
				if i+1 >= len(raw) {
					return styleErr(raw, i, "truncated escape")
				}
				i++
				switch raw[i] {
				case '"', '\\', 'n', 'r', 't', 'b', 'f':
				case 'u':
					if i+4 >= len(raw) {
						return styleErr(raw, i, "truncated \\u escape")
					}
					hexDigits := string(raw[i+1 : i+5])
					cp, err := strconv.ParseUint(hexDigits, 16, 32)
					if err != nil {
						return styleErr(raw, i, "bad \\u escape")
					}
					for _, h := range hexDigits {
						if h >= 'A' && h <= 'F' {
							return styleErr(raw, i, "upper-case hex in \\u escape (Python writes lower case)")
						}
					}
					switch cp {
					case '\b', '\t', '\n', '\f', '\r', '"', '\\':
						return styleErr(raw, i, fmt.Sprintf("\\u%s where Python writes a short escape", hexDigits))
					}
					if cp >= 0x20 && cp <= 0x7e {
						return styleErr(raw, i, fmt.Sprintf("printable ASCII escaped as \\u%s (Python writes it as is)", hexDigits))
					}
					i += 4
				default:
					return styleErr(raw, i, fmt.Sprintf("escape \\%c that Python never writes", raw[i]))
				}
			case c < 0x20 || c > 0x7e:
				return styleErr(raw, i, fmt.Sprintf("raw byte 0x%02x in a string (Python's ensure_ascii escapes it)", c))
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',', ':':
			if i+1 >= len(raw) || raw[i+1] != ' ' {
				return styleErr(raw, i, fmt.Sprintf("%q not followed by one space", c))
			}
			i++
		case ' ', '\t', '\n', '\r':
			return styleErr(raw, i, "whitespace where Python writes none")
		}
	}
	return nil
}

func styleErr(raw []byte, at int, msg string) error {
	from, to := max(at-30, 0), min(at+30, len(raw))
	return fmt.Errorf("offset %d: %s, near %q", at, msg, raw[from:to])
}
