package apiv1

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

// acceptsJSON mirrors pecan's content negotiation for Ironic's only
// content type: a header naming application/json, a malformed header or a
// range covering application/json with a non-zero quality is fine.
func acceptsJSON(accept string) bool {
	if accept == "" || strings.Contains(accept, "application/json") {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(strings.TrimSpace(part), ";")
		typ, sub, ok := strings.Cut(strings.ToLower(strings.TrimSpace(fields[0])), "/")
		if !ok {
			return true
		}
		q := 1.0
		for _, p := range fields[1:] {
			if v, found := strings.CutPrefix(strings.TrimSpace(p), "q="); found {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		if q > 0 && (typ == "*" || (typ == "application" && (sub == "*" || sub == "json"))) {
			return true
		}
	}
	return false
}

// writeNotAcceptable answers an Accept header that rules out JSON as
// webob does, its text wrapped in Ironic's envelope.
func (a *API) writeNotAcceptable(w http.ResponseWriter, accept string) {
	var text string
	if strings.Contains(accept, "html") {
		text = "<html>\n <head>\n  <title>406 Not Acceptable</title>\n </head>\n <body>\n  <h1>406 Not Acceptable</h1>\n" +
			"  The resource could not be generated that was acceptable to your browser\n(content of type " + accept +
			". <br /><br />\n\n </body>\n</html>"
	} else {
		text = "406 Not Acceptable\n\nThe resource could not be generated that was acceptable to your browser (content of type " +
			accept + ". \n\n "
	}
	a.writeJSON(w, http.StatusNotAcceptable, pyjson.Object{{Key: "error_message", Value: text}})
}
