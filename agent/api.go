package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

const (
	ipaMediaType = "application/vnd.openstack.ironic-python-agent.v1+json"
	ipaDocsURL   = "https://docs.openstack.org/ironic-python-agent"
)

// httpError is one of werkzeug's HTTP exceptions, rendered by IPA's
// handle_exception as {"faultcode", "faultstring": "<code> <name>:
// <description>"}.
type httpError struct {
	code        int
	description string
}

func (e httpError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.code, http.StatusText(e.code), e.description)
}

var (
	errURLNotFound   = httpError{404, "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again."}
	errMethodNotAllw = httpError{405, "The method is not allowed for the requested URL."}
)

// api is IPA's api/app.py Application.
type api struct{ a *Agent }

// route is the werkzeug rule map of IPA 9.x: the v1 routes and their
// versionless twins.
func route(path string) (endpoint, cmdID string, redirect string) {
	p := path
	if strings.HasPrefix(p, "/v1/") || p == "/v1" {
		if p == "/v1" {
			return "", "", "/v1/"
		}
		if p == "/v1/" {
			return "v1", "", ""
		}
		p = strings.TrimPrefix(p, "/v1")
	} else if p == "/" {
		return "root", "", ""
	}
	switch {
	case p == "/status":
		return "status", "", ""
	case p == "/commands/":
		return "commands", "", ""
	case p == "/commands":
		return "", "", path + "/"
	case strings.HasPrefix(p, "/commands/") && !strings.Contains(p[len("/commands/"):], "/"):
		return "command", p[len("/commands/"):], ""
	}
	return "", "", ""
}

func (h *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	endpoint, id, redirect := route(r.URL.Path)
	if redirect != "" {
		// werkzeug's strict slashes: a permanent redirect keeping the
		// method.
		u := *r.URL
		u.Path = redirect
		http.Redirect(w, r, u.String(), http.StatusPermanentRedirect)
		return
	}
	methods := map[string]string{"root": "GET", "v1": "GET", "status": "GET", "command": "GET", "commands": "GET POST"}
	allowed, ok := methods[endpoint]
	switch {
	case !ok:
		h.fail(w, r, errURLNotFound)
		return
	case !strings.Contains(allowed, r.Method) && !(r.Method == http.MethodHead && strings.Contains(allowed, "GET")):
		w.Header().Set("Allow", strings.ReplaceAll(allowed, " ", ", ")+", HEAD, OPTIONS")
		h.fail(w, r, errMethodNotAllw)
		return
	}
	var (
		body any
		err  error
	)
	switch endpoint {
	case "root":
		u := rootURL(r)
		body = pyjson.Object{
			{Key: "name", Value: "OpenStack Ironic Python Agent API"},
			{Key: "description", Value: "Ironic Python Agent is a provisioning agent for OpenStack Ironic"},
			{Key: "versions", Value: []any{version(u)}},
			{Key: "default_version", Value: version(u)},
		}
	case "v1":
		u := rootURL(r)
		body = append(pyjson.Object{
			{Key: "commands", Value: []any{link(u, "self", "commands"), link(u, "bookmark", "commands")}},
			{Key: "status", Value: []any{link(u, "self", "status"), link(u, "bookmark", "status")}},
			{Key: "media_types", Value: []any{pyjson.Object{{Key: "base", Value: "application/json"}, {Key: "type", Value: ipaMediaType}}}},
		}, version(u)...)
	case "status":
		body = pyjson.Object{{Key: "started_at", Value: float64(h.a.startedAt.UnixNano()) / 1e9}, {Key: "version", Value: Version}}
	case "command":
		var res *result
		if res, err = h.a.cmds.get(id); err == nil {
			if strings.EqualFold(r.URL.Query().Get("wait"), "true") {
				waitFor(r, res)
			}
			body = res
		}
	case "commands":
		if r.Method == http.MethodPost {
			body, err = h.run(r)
		} else {
			body = pyjson.Object{{Key: "commands", Value: h.a.cmds.list()}}
		}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// run is api_run_command.
func (h *api) run(r *http.Request) (any, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(nil, r.Body, 64<<20)); err != nil {
		return nil, httpError{400, "Failed to read the request body"}
	}
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, httpError{400, "Failed to decode JSON object: " + err.Error()}
	}
	obj, _ := raw.(map[string]any)
	name, nameOK := obj["name"].(string)
	params, paramsOK := obj["params"].(map[string]any)
	if !nameOK || !paramsOK {
		return nil, httpError{400, "Missing or invalid name or params"}
	}
	q := r.URL.Query()
	token, given := q["agent_token"]
	tok := ""
	if given {
		tok = token[0]
	}
	h.a.recordCommand(name, params, q.Get("wait"), tok, given)
	if !h.a.validToken(tok, given) {
		return nil, httpError{401, "Token invalid."}
	}
	res, err := h.a.cmds.execute(r.Context(), name, params)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(q.Get("wait"), "true") {
		waitFor(r, res)
	}
	return res, nil
}

func waitFor(r *http.Request, res *result) {
	select {
	case <-res.done:
	case <-r.Context().Done():
	}
}

// fail is handle_exception: werkzeug's exceptions with their status, the
// agent's RESTErrors with their status_code, as
// {"faultcode": "Client"|"Server", "faultstring": str(exc)}.
func (h *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusInternalServerError
	var he httpError
	var re *restError
	switch {
	case errors.As(err, &he):
		code = he.code
	case errors.As(err, &re):
		code = re.Code
	}
	fc := "Client"
	if code >= 500 {
		fc = "Server"
		h.a.log.ErrorContext(r.Context(), "internal server error", "error", err)
	}
	writeJSON(w, code, pyjson.Object{{Key: "faultcode", Value: fc}, {Key: "faultstring", Value: err.Error()}})
}

// writeJSON answers v as IPA's jsonify does: Python's json.dumps
// spelling (", " and ": ", non-ASCII escaped), keys in IPA's order
// (pyjson.Object, structs) or sorted (maps).
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := pyjson.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = pyjson.Marshal(pyjson.Object{{Key: "faultcode", Value: "Server"}, {Key: "faultstring", Value: err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func rootURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// link is make_link.
func link(root, rel, resource string) pyjson.Object {
	var href string
	switch rel {
	case "describedby":
		href = ipaDocsURL + "/" + resource
	case "bookmark":
		href = root + "/" + resource
	default:
		href = root + "/v1/" + resource
	}
	out := pyjson.Object{{Key: "href", Value: href}, {Key: "rel", Value: rel}}
	if rel == "describedby" {
		out = append(out, pyjson.Member{Key: "type", Value: "text/html"})
	}
	return out
}

func version(root string) pyjson.Object {
	return pyjson.Object{{Key: "id", Value: "v1"}, {Key: "links", Value: []any{
		pyjson.Object{{Key: "href", Value: root + "/v1"}, {Key: "rel", Value: "self"}},
		link(root, "describedby", ""),
	}}}
}
