package microversions

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/goironic/ironic"
)

// Header names. Go canonicalises inbound names; responses use these spellings.
const (
	HeaderVersion = "X-OpenStack-Ironic-API-Version"
	HeaderMin     = "X-OpenStack-Ironic-API-Minimum-Version"
	HeaderMax     = "X-OpenStack-Ironic-API-Maximum-Version"
)

// String renders "1.N".
func (v Version) String() string { return "1." + strconv.Itoa(int(v)) }

// AtLeast reports whether v is w or newer: the one gate predicate.
func (v Version) AtLeast(w Version) bool { return v >= w }

// Range is the window of versions a server answers; Max can be lowered by
// [DEFAULT]pin_release_version.
type Range struct {
	Min, Max Version
}

// Default is the full range this build supports.
func Default() Range { return Range{Min: Min, Max: Latest} }

// Negotiation is the outcome of reading a request's version header.
type Negotiation struct {
	Version Version
	// Fault is set when the request must be answered 406.
	Fault *ironic.Fault
	// RangeHeaders says whether the 406 answer still carries the min/max
	// headers (Ironic omits them only when the header can't be parsed).
	RangeHeaders bool
}

// Negotiate reads the value of X-OpenStack-Ironic-API-Version (present says
// whether the header was sent at all) as Ironic 21.4 does: no header means
// the minimum, "latest" (any case) means the maximum, anything that is not
// two integers separated by a dot is 406 without range headers, and a major
// other than 1 or a minor outside the range is 406 with them.
func (r Range) Negotiate(value string, present bool) Negotiation {
	if !present {
		return Negotiation{Version: r.Min}
	}
	if strings.EqualFold(value, "latest") {
		return Negotiation{Version: r.Max}
	}
	parts := strings.Split(value, ".")
	if len(parts) != 2 {
		return badHeader()
	}
	major, ok1 := pyInt(parts[0])
	minor, ok2 := pyInt(parts[1])
	if !ok1 || !ok2 {
		return badHeader()
	}
	requested := fmt.Sprintf("%d.%d", major, minor)
	if major != 1 {
		return Negotiation{RangeHeaders: true, Fault: ironic.Webob(ironic.NotAcceptable, fmt.Sprintf(
			"Mutually exclusive versions requested. Version %s requested but not supported by this service. The supported version range is: [%s, %s].",
			requested, r.Min, r.Max))}
	}
	if minor < int64(r.Min) || minor > int64(r.Max) {
		return Negotiation{RangeHeaders: true, Fault: ironic.Webob(ironic.NotAcceptable, fmt.Sprintf(
			"Version %s was requested but the minor version is not supported by this service. The supported version range is: [%s, %s].",
			requested, r.Min, r.Max))}
	}
	return Negotiation{Version: Version(minor)}
}

func badHeader() Negotiation {
	return Negotiation{Fault: ironic.Webob(ironic.NotAcceptable,
		"Invalid value for "+HeaderVersion+" header")}
}

// pyInt parses an integer the way Python's int(str) does: surrounding
// whitespace, an optional sign, decimal digits with single underscores
// between them.
func pyInt(s string) (int64, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	var n int64
	for _, r := range s {
		if r == '_' {
			continue
		}
		d := digitValue(r)
		if d < 0 {
			return 0, false
		}
		if n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}

// digitValue accepts ASCII digits only: the header reaches Python as
// latin-1 text, so a UTF-8 encoded Unicode digit never parses there either.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	return -1
}

// ReleaseMax is the API maximum of an Ironic release, for
// [DEFAULT]pin_release_version (ironic/common/release_mappings.py).
func ReleaseMax(release string) (Version, bool) {
	switch release {
	case "9.2":
		return 35, true
	case "10.0":
		return 36, true
	case "10.1":
		return 38, true
	case "11.0":
		return 43, true
	case "11.1":
		return 46, true
	case "12.0":
		return 49, true
	case "12.1":
		return 56, true
	case "12.2", "13.0":
		return 58, true
	case "14.0":
		return 61, true
	case "15.0":
		return 65, true
	case "15.1":
		return 67, true
	case "16.0", "16.1":
		return 68, true
	case "16.2":
		return 69, true
	case "17.0":
		return 72, true
	case "18.0":
		return 74, true
	case "18.1":
		return 75, true
	case "18.2", "19.0", "20.0", "20.1", "20.2", "yoga":
		return 78, true
	case "21.0":
		return 79, true
	case "21.1", "21.2", "zed":
		return 80, true
	case "21.3":
		return 81, true
	case "21.4", "antelope", "2023.1":
		return 82, true
	}
	return 0, false
}
