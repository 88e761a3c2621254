package apiv1

import (
	"regexp"
	"strings"

	"github.com/goironic/ironic/microversions"
)

// isUUID is oslo's uuidutils.is_uuid_like: after dropping "urn:", "uuid:",
// surrounding braces and dashes, 32 hex digits in any case.
func isUUID(s string) bool {
	s = strings.ReplaceAll(s, "urn:", "")
	s = strings.ReplaceAll(s, "uuid:", "")
	s = strings.Trim(s, "{}")
	s = strings.ReplaceAll(s, "-", "")
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Python's "$" also matches before a final newline; the patterns keep that.
var (
	logicalNameRe  = regexp.MustCompile(`(?i)^[A-Z0-9\-._~]+\n?$`)
	hostnameSafeRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?(\.[a-z0-9\-_]{0,62}[a-z0-9])*\.?\n?$`)
)

// isLogicalName is api_utils.is_valid_logical_name for the request version
// (hostname-safe names only before 1.10).
func isLogicalName(v microversions.Version, s string) bool {
	if len(s) > 255 {
		return false
	}
	if !v.AtLeast(microversions.UnrestrictedNodeName) {
		return hostnameSafeRe.MatchString(s)
	}
	return logicalNameRe.MatchString(s)
}

// isName is utils.is_valid_logical_name, which (unlike the API's variant,
// isLogicalName) does not depend on the request's version: args.name and
// args.uuid_or_name, and so every path argument, use it.
func isName(s string) bool { return isLogicalName(microversions.UnrestrictedNodeName, s) }

// isNodeName is is_valid_node_name: a logical name that isn't a UUID.
func isNodeName(v microversions.Version, s string) bool {
	return isLogicalName(v, s) && !isUUID(s)
}

// macRe is oslo's netutils.is_valid_mac: colon-separated octets only,
// matched from the start ("$" tolerating a final newline).
var macRe = regexp.MustCompile(`^[0-9a-f]{2}(:[0-9a-f]{2}){5}\n?$`)

// normalizeMAC validates a MAC address and lower-cases it.
func normalizeMAC(s string) (string, bool) {
	l := strings.ToLower(s)
	if !macRe.MatchString(l) {
		return "", false
	}
	return l, true
}
