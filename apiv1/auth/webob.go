package auth

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The answers keystonemiddleware sends itself (they never reach Ironic's
// error formatting): its 401 is a fixed JSON document, its 503 is webob's
// HTTPServiceUnavailable, whose body webob renders as HTML, JSON or plain
// text by the Accept header.

const keystone401Body = `{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}`

// writeKeystone401 is AuthProtocol's rejection: webob.exc.HTTPUnauthorized
// with the body above and WWW-Authenticate naming the identity endpoint.
// HEAD gets the same headers and no body.
func writeKeystone401(w http.ResponseWriter, r *http.Request, wwwAuthenticate string) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(keystone401Body))}
	h["Www-Authenticate"] = []string{wwwAuthenticate}
	w.WriteHeader(http.StatusUnauthorized)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(keystone401Body))
	}
}

const (
	webob503Plain = "503 Service Unavailable\n\nThe server is currently unavailable. Please try again at a later time.\n\n The Keystone service is temporarily unavailable.  "
	webob503HTML  = "<html>\n <head>\n  <title>503 Service Unavailable</title>\n </head>\n <body>\n  <h1>503 Service Unavailable</h1>\n  The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n\n </body>\n</html>"
	webob503JSON  = `{"message": "The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n", "code": "503 Service Unavailable", "title": "Service Unavailable"}`
)

// writeKeystone503 is webob.exc.HTTPServiceUnavailable('The Keystone
// service is temporarily unavailable.'), which keystonemiddleware raises
// when Keystone cannot be reached or answers with an error.
func writeKeystone503(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.Method == http.MethodHead {
		// webob answers HEAD with the exception's own (empty) response.
		h["Content-Type"] = []string{"text/html; charset=UTF-8"}
		h["Content-Length"] = []string{"0"}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var ctype, body string
	switch webobPreferred(r.Header) {
	case "text/html":
		ctype, body = "text/html; charset=UTF-8", webob503HTML
	case "application/json":
		ctype, body = "application/json", webob503JSON
	default:
		ctype, body = "text/plain; charset=UTF-8", webob503Plain
	}
	h["Content-Type"] = []string{ctype}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(body))
}

// webob's Accept grammar (webob/acceptparse.py, RFC 7231 5.3.2), over the
// header decoded as Latin-1. Python's `(?![qQ]=)` before a media type
// parameter (a parameter may not be named q) is written as a name that
// is not exactly "q".
const (
	wsOWS        = `[ \t]*`
	wsTchar      = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]"
	wsToken      = wsTchar + `+`
	wsNotQToken  = "(?:[!#$%&'*+\\-.^_`|~0-9A-PR-Za-pr-z]" + wsTchar + `*|[qQ]` + wsTchar + `+)`
	wsQuoted     = `"(?:[\t \x21\x23-\x5b\x5d-\x7e\x{80}-\x{ff}]|\\[\t \x21-\x7e\x{80}-\x{ff}])*"`
	wsValue      = `(?:` + wsToken + `|` + wsQuoted + `)`
	wsParam      = wsNotQToken + `=` + wsValue
	wsQValue     = `(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)`
	wsWeight     = wsOWS + `;` + wsOWS + `[qQ]=(` + wsQValue + `)`
	wsMediaRange = `(` + wsToken + `/` + wsToken + `)((?:` + wsOWS + `;` + wsOWS + wsParam + `)*)`
	wsAcceptExt  = wsOWS + `;` + wsOWS + wsToken + `(?:=` + wsValue + `)?`
	wsElement    = wsMediaRange + `(?:` + wsWeight + `((?:` + wsAcceptExt + `)*))?`
)

var (
	// webobAcceptRe is _list_0_or_more__compiled_re(element): the whole
	// header must match for it to be valid.
	webobAcceptRe = regexp.MustCompile(`^(?:$|(?:,|` + wsElement + `)(?:` + wsOWS + `,(?:` + wsOWS + wsElement + `)?)*$)`)
	webobElemRe   = regexp.MustCompile(wsElement)
)

// webobPreferred is webob's choice between the two bodies it can render,
// create_accept_header(environ.get('HTTP_ACCEPT', ”)).acceptable_offers(
// ['text/html', 'application/json'])[0]: "" when neither is acceptable
// (plain text then). A missing header reads as "", a valid header that
// accepts nothing; an invalid header accepts everything.
func webobPreferred(h http.Header) string {
	v, _ := newEnviron(h).get("Accept")
	s := latin1(v)
	if !webobAcceptRe.MatchString(s) {
		return "text/html"
	}
	type best struct {
		q           float64
		specificity int
	}
	offers := [2]struct{ typ, sub string }{{"text", "html"}, {"application", "json"}}
	var found [2]*best
	for _, m := range webobElemRe.FindAllStringSubmatch(s, -1) {
		typ, sub, _ := strings.Cut(strings.ToLower(m[1]), "/")
		q := 1.0
		if m[3] != "" {
			q, _ = strconv.ParseFloat(m[3], 64)
		}
		hasParams := m[2] != ""
		for i, o := range offers {
			spec := 0
			switch {
			case typ == o.typ && sub == o.sub:
				if hasParams {
					// The offers have no parameters: a range with
					// parameters does not match them.
					continue
				}
				spec = 3
			case sub == "*" && typ == o.typ:
				spec = 2
			case typ == "*" && sub == "*":
				spec = 1
			default:
				continue
			}
			if found[i] != nil && spec <= found[i].specificity {
				continue
			}
			found[i] = &best{q: q, specificity: spec}
		}
	}
	// Sorted by q, descending; ties keep the offers' order.
	pick, pickQ := "", 0.0
	for i, f := range found {
		if f == nil || f.q == 0 {
			continue
		}
		if pick == "" || f.q > pickQ {
			pick, pickQ = offers[i].typ+"/"+offers[i].sub, f.q
		}
	}
	return pick
}

// latin1 decodes a header value's bytes as Latin-1, as WSGI does.
func latin1(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}
