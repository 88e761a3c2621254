package redfishbmc

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BMC is one emulated baseboard management controller: its credentials,
// sessions, systems (each with its Manager and Chassis of the same Id),
// event subscriptions and tasks. Its methods are safe for concurrent use.
type BMC struct {
	srv  *Server
	name string
	uuid string

	// mu guards everything below and the state of the BMC's systems.
	mu         sync.Mutex
	username   string
	password   string
	fault      Fault
	latency    time.Duration
	systems    map[string]*System
	sysOrder   []string
	sessions   map[string]*session // by token
	subs       map[string]*subscription
	subOrder   []string
	deliveries []Delivery
	tasks      map[string]*task
	taskOrder  []string
	taskSeq    int
}

type session struct {
	id, token, user string
	created         time.Time
}

func newBMC(s *Server, name string, spec BMCSpec) *BMC {
	if spec.Username == "" && spec.Password == "" {
		spec.Username, spec.Password = s.opts.Username, s.opts.Password
	}
	return &BMC{
		srv: s, name: name, uuid: s.opts.NewID(), username: spec.Username, password: spec.Password,
		systems: map[string]*System{}, sessions: map[string]*session{},
		subs: map[string]*subscription{}, tasks: map[string]*task{},
	}
}

// Name is the BMC's name ("" for the default BMC).
func (b *BMC) Name() string { return b.name }

// Root is the path of the BMC's service root on the Server's shared
// listener: "/redfish/v1" or "/bmc/<name>/redfish/v1". On a listener of
// its own (Handler) it is "/redfish/v1".
func (b *BMC) Root() string {
	if b.name == DefaultBMC {
		return "/redfish/v1"
	}
	return "/bmc/" + b.name + "/redfish/v1"
}

// SetFault makes the BMC misbehave (the zero Fault heals it).
func (b *BMC) SetFault(f Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fault = f
}

// SetLatency adds d before every answer of this BMC.
func (b *BMC) SetLatency(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.latency = d
}

// SetCredentials changes the BMC's credentials and ends its sessions.
func (b *BMC) SetCredentials(username, password string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.username, b.password = username, password
	clear(b.sessions)
}

// Sessions returns the number of open sessions.
func (b *BMC) Sessions() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sessions)
}

// Handler serves this BMC alone at /redfish/v1, for a listener of its
// own (requests are still logged on the Server).
func (b *BMC) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ControlPath {
			b.srv.serveRequestLog(w, r)
			return
		}
		b.serve(w, r, "")
	})
}

// maxBody bounds a request body.
const maxBody = 1 << 20

// serve answers one request whose path is prefix + "/redfish/v1...".
func (b *BMC) serve(w http.ResponseWriter, r *http.Request, prefix string) {
	s := b.srv
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rec := Request{BMC: b.name, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	if len(bytes.TrimSpace(body)) > 0 {
		rec.Body = maskPasswords(body)
	}
	defer func() {
		s.logRequest(rec)
		s.opts.Log.InfoContext(r.Context(), "redfish request", "bmc", b.name, "method", r.Method,
			"path", r.URL.RequestURI(), "status", rec.Status)
	}()
	if err != nil {
		rec.Status = http.StatusBadRequest
		writeJSON(w, rec.Status, nil, errMalformedJSON().body())
		return
	}

	b.mu.Lock()
	fault, latency := b.fault, b.latency+s.opts.Latency
	b.mu.Unlock()
	if latency > 0 {
		if s.opts.Sleep(r.Context(), latency) != nil {
			return // the client went away
		}
	}
	if fault.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	}
	if fault.Status != 0 {
		e := errInternal()
		if fault.Status == http.StatusUnauthorized {
			e = errNoValidSession()
		}
		e.status = fault.Status
		rec.Status = fault.Status
		writeJSON(w, rec.Status, nil, e.body())
		return
	}

	c := &call{s: s, b: b, r: r, body: body, now: s.opts.Now(), prefix: prefix, fault: fault}
	rep := c.dispatch(&rec)
	rec.Status = rep.status
	writeJSON(w, rep.status, rep.header, rep.body)
}

// call is one request being answered.
type call struct {
	s      *Server
	b      *BMC
	r      *http.Request
	body   []byte
	now    time.Time
	prefix string
	fault  Fault
	// root is prefix + "/redfish/v1"; args are the {} segments matched.
	root string
	args []string
	// route is the matched route.
	route *route
}

// reply is a handler's answer.
type reply struct {
	status int
	header http.Header
	body   any
}

func okReply(body any) *reply { return &reply{status: http.StatusOK, body: body} }

func noContent() *reply { return &reply{status: http.StatusNoContent} }

// handler answers a request; an *rfError becomes an error answer.
type handler func(c *call) (*reply, error)

// dispatch authenticates and routes c; rec.Auth is filled in.
func (c *call) dispatch(rec *Request) *reply {
	p := strings.TrimPrefix(c.r.URL.Path, c.prefix)
	c.root = c.prefix + "/redfish/v1"
	if p == "/redfish" || p == "/redfish/" {
		if c.r.Method != http.MethodGet {
			return errReply(errMethodNotAllowed())
		}
		return okReply(map[string]any{"v1": "/redfish/v1/"})
	}
	rest, ok := strings.CutPrefix(p, "/redfish/v1")
	if !ok || (rest != "" && rest[0] != '/') {
		return errReply(errNotFound(c.r.URL.Path))
	}
	rest = strings.Trim(rest, "/")
	var segs []string
	if rest != "" {
		segs = strings.Split(rest, "/")
	}
	rt, args := match(c.s.routes, segs)
	if rt == nil {
		return errReply(errNotFound(c.r.URL.Path))
	}
	c.route, c.args = rt, args
	method := c.r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	h, ok := rt.methods[method]
	if !rt.public[method] {
		auth, ok := c.authenticate()
		if !ok {
			rep := errReply(errNoValidSession())
			rep.header = http.Header{"Www-Authenticate": {`Basic realm="redfishbmc"`}}
			return rep
		}
		rec.Auth = auth
	}
	if !ok {
		rep := errReply(errMethodNotAllowed())
		rep.header = http.Header{"Allow": {rt.allow()}}
		return rep
	}
	if !rt.unlocked {
		c.b.mu.Lock()
		defer c.b.mu.Unlock()
	}
	rep, err := h(c)
	if err != nil {
		var re *rfError
		if !errors.As(err, &re) {
			c.s.opts.Log.ErrorContext(c.r.Context(), "redfish handler failed", "path", c.r.URL.Path, "error", err)
			re = errInternal()
		}
		rep = errReply(re)
	}
	if rep.header == nil {
		rep.header = http.Header{}
	}
	rep.header.Set("Allow", rt.allow())
	if rt.etag && method == http.MethodGet && rep.status == http.StatusOK {
		rep.header.Set("ETag", etagOf(rep.body))
	}
	if c.r.Method == http.MethodHead {
		rep.body = nil
	}
	return rep
}

func errReply(e *rfError) *reply { return &reply{status: e.status, body: e.body()} }

// authenticate checks X-Auth-Token, then HTTP basic credentials.
func (c *call) authenticate() (string, bool) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if tok := c.r.Header.Get("X-Auth-Token"); tok != "" {
		if _, ok := b.sessions[tok]; ok {
			return "session", true
		}
		return "", false
	}
	if u, p, ok := c.r.BasicAuth(); ok && b.credentialsMatch(u, p) {
		return "basic", true
	}
	return "", false
}

func (b *BMC) credentialsMatch(user, pass string) bool {
	return subtle.ConstantTimeCompare([]byte(user), []byte(b.username)) == 1 &&
		subtle.ConstantTimeCompare([]byte(pass), []byte(b.password)) == 1
}

// etagOf is a weak ETag of a resource's JSON representation.
func etagOf(body any) string {
	raw, _ := json.Marshal(body)
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return `W/"` + strconv.FormatUint(h.Sum64(), 16) + `"`
}

// checkIfMatch answers 412 when the request's If-Match names none of
// current's ETag (compared weakly, so a weak ETag sent back strong
// matches too).
func (c *call) checkIfMatch(current any) error {
	im := c.r.Header.Get("If-Match")
	if im == "" || im == "*" {
		return nil
	}
	want := strings.TrimPrefix(etagOf(current), "W/")
	for _, t := range strings.Split(im, ",") {
		if strings.TrimPrefix(strings.TrimSpace(t), "W/") == want {
			return nil
		}
	}
	return errPreconditionFailed()
}

// object decodes the request body as a JSON object; an empty body is an
// empty object.
func (c *call) object() (map[string]any, error) {
	if len(bytes.TrimSpace(c.body)) == 0 {
		return map[string]any{}, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(c.body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errMalformedJSON()
	}
	return m, nil
}

// withBody is the resource a request is for (or the error finding it)
// and the request's JSON object: s, body, err := c.withBody(c.system()).
func (c *call) withBody(s *System, err error) (*System, map[string]any, error) {
	if err != nil {
		return nil, nil, err
	}
	body, err := c.object()
	if err != nil {
		return nil, nil, err
	}
	return s, body, nil
}

// patchBody is the system a PATCH is for, checked against If-Match as
// render shows it (once its pending transitions are over when settle
// says), and the request's JSON object.
func (c *call) patchBody(settle bool, render func(*System) map[string]any) (*System, map[string]any, error) {
	s, err := c.system()
	if err != nil {
		return nil, nil, err
	}
	if settle {
		s.settle(c.now)
	}
	if err := c.checkIfMatch(render(s)); err != nil {
		return nil, nil, err
	}
	return c.withBody(s, nil)
}

// uri joins segments below the service root.
func (c *call) uri(segs ...string) string {
	if len(segs) == 0 {
		return c.root
	}
	return c.root + "/" + strings.Join(segs, "/")
}

func (c *call) ref(segs ...string) map[string]any { return map[string]any{"@odata.id": c.uri(segs...)} }

// route is a resource path below the service root ("Systems/{}/Bios").
type route struct {
	segs    []string
	methods map[string]handler
	// public lists the methods answered without credentials.
	public map[string]bool
	// etag: GET answers carry an ETag.
	etag bool
	// unlocked: the handlers take the BMC's lock themselves.
	unlocked bool
}

func (rt *route) allow() string {
	ms := make([]string, 0, len(rt.methods))
	for m := range rt.methods {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	if rt.methods[http.MethodGet] != nil {
		ms = append([]string{"HEAD"}, ms...)
	}
	return strings.Join(ms, ", ")
}

func match(routes []*route, segs []string) (*route, []string) {
	for _, rt := range routes {
		if len(rt.segs) != len(segs) {
			continue
		}
		var args []string
		ok := true
		for i, s := range rt.segs {
			if s == "{}" {
				if segs[i] == "" {
					ok = false
					break
				}
				args = append(args, segs[i])
				continue
			}
			if s != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return rt, args
		}
	}
	return nil, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
