package apiv1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/microversions"
)

// Request is what a handler sees: the HTTP request with its negotiated
// version, path variables and parsed query.
type Request struct {
	HTTP *http.Request
	Ver  microversions.Version
	Vars map[string]string

	api        *API
	jsonSuffix bool
	query      url.Values
	// argVars are the route's path variables that are positional
	// arguments, in path order.
	argVars []string
	// gateVars and below are a gate's path variables and the path below
	// its path; gateFault its answer.
	gateVars  gateVars
	below     string
	gateFault *ironic.Fault
}

// Ctx is the request's context (carrying the ironic.RequestContext).
func (rq *Request) Ctx() context.Context { return rq.HTTP.Context() }

// Var is a path variable (while a gate runs, one of the gate's path).
func (rq *Request) Var(name string) string {
	if rq.Vars == nil {
		for _, v := range rq.gateVars.v[:rq.gateVars.n] {
			if v[0] == name {
				return v[1]
			}
		}
	}
	return rq.Vars[name]
}

// Query returns the parsed query string.
func (rq *Request) Query() url.Values {
	if rq.query == nil && rq.HTTP.URL.RawQuery != "" {
		rq.query = rq.HTTP.URL.Query()
	}
	return rq.query
}

// ReadBody reads the raw body, bounded by the configured maximum.
func (rq *Request) ReadBody() ([]byte, error) {
	lr := io.LimitReader(rq.HTTP.Body, rq.api.cfg.MaxBodyBytes+1)
	b, err := io.ReadAll(lr)
	if err != nil {
		return nil, ironic.Errorf(ironic.ClientSideError, "Could not read the request body: %v", err)
	}
	if int64(len(b)) > rq.api.cfg.MaxBodyBytes {
		return nil, &ironic.Fault{Class: ironic.RequestEntityTooLarge, Shape: ironic.ShapeWebob,
			Message: "Request is too large."}
	}
	return b, nil
}

// JSONBody decodes the body as JSON (numbers kept as json.Number).
func (rq *Request) JSONBody() (any, error) {
	b, err := rq.ReadBody()
	if err != nil {
		return nil, err
	}
	var v any
	if err := pyjson.Unmarshal(b, &v); err != nil {
		return nil, malformedJSON(b)
	}
	return v, nil
}

// malformedJSON answers a body that isn't JSON with the message Python's
// decoder gives for it. Ironic answers these with a 500; we answer 400 in
// its error format (a listed deviation). Bytes that aren't UTF-8 are
// rejected by webob before JSON decoding: a plain 400.
func malformedJSON(b []byte) error {
	derr := pyjson.DecodeError(b)
	var pe *pyjson.Error
	if errors.As(derr, &pe) {
		if pe.Exception == pyjson.UnicodeDecodeError {
			return ironic.Webob(ironic.HTTPBadRequest, "")
		}
		return ironic.Errorf(ironic.ClientSideError, "%s", pe.Msg)
	}
	// Go's decoder and Python's disagree (for example a value Python
	// accepts, such as NaN): name the problem plainly.
	return ironic.Errorf(ironic.ClientSideError, "Malformed JSON in the request body")
}

// Response is what a handler returns on success.
type Response struct {
	Status   int
	Body     any // written with pyjson; nil means no body
	Location string
	// Text, when set, is written as text/plain instead of Body.
	Text        string
	ContentType string
}

// OK returns a 200 answer with body.
func OK(body any) *Response { return &Response{Status: http.StatusOK, Body: body} }

// handlerFunc is a route handler.
type handlerFunc func(rq *Request) (*Response, error)

// wrap adapts a handler to net/http: it finds the Request set up by
// ServeHTTP, runs the handler and renders its answer or fault.
func (a *API) wrap(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rq, _ := r.Context().Value(requestKey{}).(*Request)
		if rq == nil {
			a.writeFault(w, r, ironic.Webob(ironic.NotFound, ""))
			return
		}
		rq.Vars = mux.Vars(r)
		resp, err := h(rq)
		if err != nil {
			f := a.logFault(r.Context(), err)
			if f.Shape == ironic.ShapeWebob {
				// webob/pecan aborts bypass Ironic's hooks: no version
				// headers, no request id.
				a.writePlainFault(w, r, f)
				return
			}
			a.writeFault(w, r, f)
			return
		}
		a.writeResponse(w, rq, resp)
	}
}

// logFault turns err into a fault; server-side errors are logged, client
// errors are not.
func (a *API) logFault(ctx context.Context, err error) *ironic.Fault {
	f := ironic.AsFault(err)
	if f.HTTPStatus() >= 500 {
		a.d.Log.ErrorContext(ctx, "request failed", "error", err,
			"request_id", ironic.FromContext(ctx).RequestID)
	}
	return f
}

func (a *API) writeResponse(w http.ResponseWriter, rq *Request, resp *Response) {
	h := w.Header()
	if resp.Location != "" {
		h.Set("Location", resp.Location)
	}
	switch {
	case resp.Text != "":
		ct := resp.ContentType
		if ct == "" {
			ct = "text/plain; charset=UTF-8"
		}
		h.Set("Content-Type", ct)
		h.Set("Content-Length", strconv.Itoa(len(resp.Text)))
		w.WriteHeader(resp.Status)
		_, _ = io.WriteString(w, resp.Text)
	case resp.Body == nil:
		if resp.Status == http.StatusNoContent {
			w.WriteHeader(resp.Status)
			return
		}
		h.Set("Content-Length", "0")
		w.WriteHeader(resp.Status)
	default:
		a.writeJSON(w, resp.Status, resp.Body)
	}
}

// writeJSON writes body in Python's json.dumps format.
func (a *API) writeJSON(w http.ResponseWriter, status int, body any) {
	bp := a.bufs.Get().(*[]byte)
	buf, err := pyjson.Append((*bp)[:0], body)
	if err != nil {
		a.d.Log.Error("encoding response", "error", err)
		buf = append(buf[:0], `{"error_message": "{\"faultcode\": \"Server\", \"faultstring\": \"An unknown exception occurred.\", \"debuginfo\": null}"}`...)
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(status)
	_, _ = w.Write(buf)
	if cap(buf) <= 1<<22 {
		*bp = buf
		a.bufs.Put(bp)
	}
}

// writeFault renders a fault in Ironic's envelope: {"error_message": "<json>"}.
func (a *API) writeFault(w http.ResponseWriter, r *http.Request, f *ironic.Fault) {
	status := f.HTTPStatus()
	var inner pyjson.Object
	if f.Shape == ironic.ShapeWebob {
		inner = pyjson.Object{
			{Key: "code", Value: status},
			{Key: "title", Value: webobTitle(status)},
			{Key: "description", Value: f.Message},
		}
	} else {
		code := "Client"
		if status >= 500 {
			code = "Server"
		}
		inner = pyjson.Object{
			{Key: "faultcode", Value: code},
			{Key: "faultstring", Value: f.Message},
			{Key: "debuginfo", Value: nil},
		}
	}
	innerJSON, _ := pyjson.Marshal(inner)
	if status == http.StatusMethodNotAllowed && f.Shape == ironic.ShapeWebob {
		if allow, ok := allowedMethodsFor(r); ok {
			// Set even when empty: pecan sends "Allow: " for a
			// controller without verbs.
			w.Header().Set("Allow", allow)
		}
	}
	a.writeJSON(w, status, pyjson.Object{{Key: "error_message", Value: string(innerJSON)}})
}

type allowKey struct{}

func allowedMethodsFor(r *http.Request) (string, bool) {
	s, ok := r.Context().Value(allowKey{}).(string)
	return s, ok
}

// webobTitle is webob's title for a status.
func webobTitle(code int) string {
	switch code {
	case 413:
		return "Request Entity Too Large"
	}
	return http.StatusText(code)
}

// publicURL is [api]public_endpoint or the request's own scheme://host.
func (a *API) publicURL(r *http.Request) string {
	if a.cfg.PublicEndpoint != "" {
		return strings.TrimSuffix(a.cfg.PublicEndpoint, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("%s://%s", scheme, host)
}

// BaseURL is the public URL for links in this request's answers.
func (rq *Request) BaseURL() string { return rq.api.publicURL(rq.HTTP) }

// link is a {"href", "rel"} object.
func link(rel, href string) pyjson.Object {
	return pyjson.Object{{Key: "href", Value: href}, {Key: "rel", Value: rel}}
}

// selfLinks is the usual [self, bookmark] pair for <res>/<id>.
func selfLinks(base, res, id string) []pyjson.Object {
	return []pyjson.Object{
		link("self", base+"/v1/"+res+"/"+id),
		link("bookmark", base+"/"+res+"/"+id),
	}
}
