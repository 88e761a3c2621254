package auth

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultPublicRoutes are Ironic 21.4's acl_public_routes
// (ironic/api/config.py): the routes served without authentication, as
// the Python regular expressions Ironic compiles them from. A route
// matches the request path (trailing "/" removed) from its start to its
// end, optionally followed by ".json" or ".xml".
//
// Later releases add /v1/continue_inspection (2023.2); ours adds the
// iPXE configuration of the ipxe_config driver vendor method.
func DefaultPublicRoutes() []string {
	return []string{
		`/`,
		`/v1`,
		// IPA ramdisk methods
		`/v1/lookup`,
		`/v1/heartbeat/[a-z0-9\-]+`,
		// iPXE fetching its script (the ipxe_config driver vendor method;
		// spec bug 1526275): iPXE cannot authenticate.
		`/v1/drivers/[^/]+/vendor_passthru/ipxe_config`,
	}
}

// publicRoutes decides whether a request path is public, as Ironic's
// JsonExtensionMiddleware and AuthPublicRoutes do together.
type publicRoutes []*regexp.Regexp

// compilePublicRoutes compiles Ironic's templates: each becomes
// re.match('%s(\.json|\.xml)?$' % template). Python's "$" also matches
// before a final newline, hence the "\n?". The templates must be
// expressions RE2 understands (no look-around, no back-references).
func compilePublicRoutes(templates []string) (publicRoutes, error) {
	out := make(publicRoutes, 0, len(templates))
	for _, t := range templates {
		re, err := regexp.Compile(`^(?:` + t + `(\.json|\.xml)?\n?$)`)
		if err != nil {
			return nil, fmt.Errorf("Invalid configuration file. Cannot compile public API routes: %w", err) //nolint:staticcheck // ST1005: Ironic's start-up message
		}
		out = append(out, re)
	}
	return out, nil
}

// match reports whether path (the request's decoded path, WSGI's
// PATH_INFO) is public.
func (p publicRoutes) match(path string) bool {
	// AuthPublicRoutes, after JsonExtensionMiddleware.
	path = safeRStripSlash(jsonExtPath(path))
	for _, re := range p {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}

// safeRStripSlash is ironic.common.utils.safe_rstrip(value, '/'): trailing
// slashes removed unless that leaves nothing.
func safeRStripSlash(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		return s
	}
	return t
}

// jsonExtPath is the path after Ironic's JsonExtensionMiddleware, which
// sits in front of authentication: a ".json" suffix (after trailing
// slashes, which go with it) is dropped.
func jsonExtPath(path string) string {
	if s := safeRStripSlash(path); strings.HasSuffix(s, ".json") {
		return s[:len(s)-len(".json")]
	}
	return path
}
