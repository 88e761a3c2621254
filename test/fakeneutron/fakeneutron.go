// Package fakeneutron is an in-memory Neutron: the part of the Networking
// v2.0 API that Ironic's network interfaces and ironic-tempest-plugin's VIF
// tests use (networks, subnets, ports with the binding extension, security
// groups, the version document and the extension list), with Neutron's
// JSON bodies, status codes and NeutronError answers. Nothing is
// authenticated. Every request is logged, so tests can assert what a
// client sent.
package fakeneutron

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Networks are created at start, in order. A network's "id" is kept
	// if given.
	Networks []map[string]any
	// NewID returns the ID of a new resource; default random UUIDs.
	NewID func() string
	// Now is the clock of created_at/updated_at; default time.Now.
	Now func() time.Time
	// Log receives one line per request (with its body at debug level);
	// nil discards.
	Log *slog.Logger
	// Agents are the agents GET /v2.0/agents lists (each with "id",
	// "host", "alive", ...); they can't be created through the API.
	Agents []map[string]any
	// Project is the project of resources created without tenant_id,
	// project_id or an X-Project-Id header; default "fake-project".
	Project string
}

// Request is one request the server answered.
type Request struct {
	Method string
	// Path is the URL path, Query its raw query string.
	Path  string
	Query string
	// Body is the request body (nil when empty).
	Body   json.RawMessage
	Status int
}

// Server is the fake Neutron; it is an http.Handler.
type Server struct {
	opts Options

	mu    sync.Mutex
	colls map[string]*collection
	macs  int
	reqs  []Request
}

// collection holds the objects of one resource kind in creation order.
type collection struct {
	kind  kind
	order []string
	items map[string]map[string]any
}

// kind describes one resource kind.
type kind struct {
	// path is the URL collection name ("security-groups"), plural the JSON
	// collection key ("security_groups"), singular the object key.
	path, plural, singular string
	// notFound is the NeutronError type and message format of a missing
	// object.
	notFoundType, notFoundFmt string
}

func kinds() []kind {
	return []kind{
		{"networks", "networks", "network", "NetworkNotFound", "Network %s could not be found."},
		{"subnets", "subnets", "subnet", "SubnetNotFound", "Subnet %s could not be found."},
		{"ports", "ports", "port", "PortNotFound", "Port %s could not be found."},
		{"security-groups", "security_groups", "security_group", "SecurityGroupNotFound", "Security group %s does not exist"},
		{"agents", "agents", "agent", "AgentNotFound", "Agent %s could not be found."},
	}
}

// New returns a server holding opts.Networks.
func New(opts Options) *Server {
	if opts.NewID == nil {
		opts.NewID = uuid.NewString
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Project == "" {
		opts.Project = "fake-project"
	}
	s := &Server{opts: opts, colls: map[string]*collection{}}
	for _, k := range kinds() {
		s.colls[k.path] = &collection{kind: k, items: map[string]map[string]any{}}
	}
	for _, a := range opts.Agents {
		a = clone(a)
		if _, ok := a["id"]; !ok {
			a["id"] = opts.NewID()
		}
		s.add("agents", a)
	}
	for _, n := range opts.Networks {
		if _, err := s.createNetwork(clone(n), opts.Project); err != nil {
			panic(fmt.Sprintf("fakeneutron: seed network %v: %v", n, err))
		}
	}
	return s
}

// Requests returns the requests answered so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// ResetRequests forgets the logged requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Port returns a copy of the port with the given ID.
func (s *Server) Port(id string) (map[string]any, bool) { return s.get("ports", id) }

// Network returns a copy of the network with the given ID.
func (s *Server) Network(id string) (map[string]any, bool) { return s.get("networks", id) }

func (s *Server) get(coll, id string) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.colls[coll].items[id]
	if !ok {
		return nil, false
	}
	return clone(o), true
}

// CreateNetwork adds a network as POST /v2.0/networks does and returns it.
func (s *Server) CreateNetwork(body map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.createNetwork(clone(body), s.opts.Project)
	if err != nil {
		return nil, err
	}
	return clone(n), nil
}

// CreatePort adds a port as POST /v2.0/ports does and returns it.
func (s *Server) CreatePort(body map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.createPort(clone(body), s.opts.Project)
	if err != nil {
		return nil, err
	}
	return clone(p), nil
}

// CreateSubnet adds a subnet as POST /v2.0/subnets does and returns it.
func (s *Server) CreateSubnet(body map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, err := s.createSubnet(clone(body), s.opts.Project)
	if err != nil {
		return nil, err
	}
	return clone(sn), nil
}

// CreateSecurityGroup adds a security group as POST
// /v2.0/security-groups does and returns it.
func (s *Server) CreateSecurityGroup(body map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.createSecurityGroup(clone(body), s.opts.Project)
	if err != nil {
		return nil, err
	}
	return clone(g), nil
}

// DeletePort removes a port as DELETE /v2.0/ports/{id} does.
func (s *Server) DeletePort(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.colls["ports"]
	o, ok := c.items[id]
	if !ok {
		return notFound(c.kind, id)
	}
	return s.delete(c, o)
}

// neutronError is a NeutronError answer.
type neutronError struct {
	status  int
	typ     string
	message string
}

func (e *neutronError) Error() string { return e.typ + ": " + e.message }

func errorf(status int, typ, format string, args ...any) *neutronError {
	return &neutronError{status: status, typ: typ, message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *neutronError {
	return errorf(http.StatusBadRequest, "HTTPBadRequest", format, args...)
}

func notFound(k kind, id string) *neutronError {
	return errorf(http.StatusNotFound, k.notFoundType, k.notFoundFmt, id)
}

// RequestsPath serves the request log to processes that run the fake
// (GET: the requests as a JSON list, oldest first; DELETE: forget them).
// It is not Neutron's and is not logged.
const RequestsPath = "/_fake/requests"

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == RequestsPath {
		s.serveRequests(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	status, out := s.handle(r, body)
	w.Header().Set("X-Openstack-Request-Id", "req-"+uuid.NewString())
	var raw []byte
	if out != nil {
		raw, _ = json.Marshal(out)
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(status)
	_, _ = w.Write(raw)

	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status}
	if len(bytes.TrimSpace(body)) > 0 {
		rec.Body = json.RawMessage(slices.Clone(body))
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	s.opts.Log.InfoContext(r.Context(), "request", "method", r.Method, "path", r.URL.RequestURI(), "status", status)
	if rec.Body != nil {
		s.opts.Log.DebugContext(r.Context(), "request body", "method", r.Method, "path", r.URL.Path, "body", string(rec.Body))
	}
}

func (s *Server) serveRequests(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		type entry struct {
			Method string          `json:"method"`
			Path   string          `json:"path"`
			Query  string          `json:"query,omitempty"`
			Body   json.RawMessage `json:"body,omitempty"`
			Status int             `json:"status"`
		}
		out := []entry{}
		for _, q := range s.Requests() {
			out = append(out, entry(q))
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	case http.MethodDelete:
		s.ResetRequests()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (s *Server) handle(r *http.Request, body []byte) (int, any) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch path {
	case "":
		if r.Method != http.MethodGet {
			return methodNotAllowed()
		}
		return http.StatusOK, map[string]any{"versions": []any{map[string]any{
			"id": "v2.0", "status": "CURRENT",
			"links": []any{map[string]any{"rel": "self", "href": baseURL(r) + "/v2.0/"}},
		}}}
	case "/v2.0":
		if r.Method != http.MethodGet {
			return methodNotAllowed()
		}
		var res []any
		for _, k := range kinds() {
			res = append(res, map[string]any{
				"name": k.singular, "collection": k.path,
				"links": []any{map[string]any{"rel": "self", "href": baseURL(r) + "/v2.0/" + k.path}},
			})
		}
		return http.StatusOK, map[string]any{"resources": res}
	case "/v2.0/extensions":
		if r.Method != http.MethodGet {
			return methodNotAllowed()
		}
		return http.StatusOK, map[string]any{"extensions": extensions()}
	}
	rest, ok := strings.CutPrefix(path, "/v2.0/")
	if !ok {
		return answerError(errorf(http.StatusNotFound, "HTTPNotFound", "The resource could not be found."))
	}
	collName, id, _ := strings.Cut(rest, "/")
	collName = strings.TrimSuffix(collName, ".json")
	id = strings.TrimSuffix(id, ".json")
	c, ok := s.colls[collName]
	if !ok || strings.Contains(id, "/") {
		return answerError(errorf(http.StatusNotFound, "HTTPNotFound", "The resource could not be found."))
	}
	project := r.Header.Get("X-Project-Id")

	if collName == "agents" && r.Method != http.MethodGet {
		return methodNotAllowed()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case id == "" && r.Method == http.MethodGet:
		return s.list(c, r.URL.Query(), project, baseURL(r)+r.URL.Path)
	case id == "" && r.Method == http.MethodPost:
		obj, err := decodeBody(c.kind, body)
		if err != nil {
			return answerError(err)
		}
		if project == "" {
			project = s.opts.Project
		}
		var created map[string]any
		switch collName {
		case "networks":
			created, err = s.createNetwork(obj, project)
		case "subnets":
			created, err = s.createSubnet(obj, project)
		case "ports":
			created, err = s.createPort(obj, project)
		case "security-groups":
			created, err = s.createSecurityGroup(obj, project)
		}
		if err != nil {
			return answerError(err)
		}
		return http.StatusCreated, map[string]any{c.kind.singular: clone(created)}
	case id == "":
		return methodNotAllowed()
	}
	obj, ok := c.items[id]
	if !ok {
		return answerError(notFound(c.kind, id))
	}
	switch r.Method {
	case http.MethodGet:
		return http.StatusOK, map[string]any{c.kind.singular: selectFields(obj, r.URL.Query()["fields"])}
	case http.MethodPut:
		changes, err := decodeBody(c.kind, body)
		if err != nil {
			return answerError(err)
		}
		switch collName {
		case "ports":
			err = s.updatePort(obj, changes)
		case "networks":
			err = s.updateSimple(obj, changes, networkUpdatable())
		case "subnets":
			err = s.updateSimple(obj, changes, []string{"name", "description", "gateway_ip", "enable_dhcp", "dns_nameservers", "host_routes", "allocation_pools"})
		case "security-groups":
			err = s.updateSimple(obj, changes, []string{"name", "description"})
		}
		if err != nil {
			return answerError(err)
		}
		return http.StatusOK, map[string]any{c.kind.singular: clone(obj)}
	case http.MethodDelete:
		if err := s.delete(c, obj); err != nil {
			return answerError(err)
		}
		return http.StatusNoContent, nil
	}
	return methodNotAllowed()
}

func methodNotAllowed() (int, any) {
	return answerError(errorf(http.StatusMethodNotAllowed, "HTTPMethodNotAllowed",
		"The server could not comply with the request since it is either malformed or otherwise incorrect."))
}

func answerError(err error) (int, any) {
	var ne *neutronError
	if !errors.As(err, &ne) {
		ne = errorf(http.StatusInternalServerError, "HTTPInternalServerError", "%v", err)
	}
	return ne.status, map[string]any{"NeutronError": map[string]any{"type": ne.typ, "message": ne.message, "detail": ""}}
}

func baseURL(r *http.Request) string { return "http://" + r.Host }

// decodeBody reads {"<singular>": {...}}.
func decodeBody(k kind, body []byte) (map[string]any, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, badRequest("Malformed request body")
	}
	obj, ok := doc[k.singular].(map[string]any)
	if !ok || len(doc) != 1 {
		return nil, badRequest("Resource body required")
	}
	return normalizeNumbers(obj).(map[string]any), nil
}

// normalizeNumbers turns json.Number into int64 or float64.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}

// list answers GET /v2.0/<coll> with Neutron's filters (field=value,
// repeated for "any of"), fields, limit and marker.
func (s *Server) list(c *collection, q url.Values, project, self string) (int, any) {
	if c.kind.path == "security-groups" {
		// Neutron creates a project's default group when it is first
		// looked at.
		for _, p := range []string{q.Get("project_id"), q.Get("tenant_id"), project} {
			if p != "" {
				s.ensureDefaultSecurityGroup(p)
			}
		}
	}
	paging := map[string]bool{"fields": true, "limit": true, "marker": true, "sort_key": true, "sort_dir": true, "page_reverse": true}
	known := map[string]bool{}
	for _, o := range c.items {
		for k := range o {
			known[k] = true
		}
	}
	for k := range q {
		if !paging[k] && !known[k] && len(c.items) > 0 {
			return answerError(badRequest("%s is invalid attribute for filtering", k))
		}
	}
	var out []any
	started := q.Get("marker") == ""
	limit := -1
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return answerError(badRequest("Invalid input for operation: '%s' should be non-negative integer.", v))
		}
		if n > 0 {
			limit = n
		}
	}
	more := false
	for _, id := range c.order {
		if !started {
			started = id == q.Get("marker")
			continue
		}
		o := c.items[id]
		if !matches(o, q, paging) {
			continue
		}
		if limit >= 0 && len(out) == limit {
			more = true
			break
		}
		out = append(out, selectFields(o, q["fields"]))
	}
	if out == nil {
		out = []any{}
	}
	res := map[string]any{c.kind.plural: out}
	if more {
		last := out[len(out)-1].(map[string]any)["id"]
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("marker", fmt.Sprint(last))
		res[c.kind.plural+"_links"] = []any{map[string]any{"rel": "next", "href": self + "?" + next.Encode()}}
	}
	return http.StatusOK, res
}

// matches applies Neutron's equality filters: every filtered attribute
// must equal one of its given values.
func matches(o map[string]any, q url.Values, skip map[string]bool) bool {
	for k, want := range q {
		if skip[k] {
			continue
		}
		v, ok := o[k]
		if !ok {
			return false
		}
		if !slices.ContainsFunc(want, func(w string) bool { return equalFilter(v, w) }) {
			return false
		}
	}
	return true
}

func equalFilter(v any, w string) bool {
	switch x := v.(type) {
	case nil:
		return w == "" || w == "None"
	case bool:
		b, err := strconv.ParseBool(w)
		return err == nil && b == x
	case string:
		return x == w
	case []any:
		// fixed_ips=ip_address=...; security_groups=<id>
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				k, val, found := strings.Cut(w, "=")
				if found && fmt.Sprint(m[k]) == val {
					return true
				}
				continue
			}
			if fmt.Sprint(e) == w {
				return true
			}
		}
		return false
	}
	return fmt.Sprint(v) == w
}

func selectFields(o map[string]any, fields []string) map[string]any {
	if len(fields) == 0 {
		return clone(o)
	}
	out := map[string]any{}
	for _, f := range fields {
		if v, ok := o[f]; ok {
			out[f] = cloneValue(v)
		}
	}
	return out
}

func clone(o map[string]any) map[string]any {
	if o == nil {
		return nil
	}
	return cloneValue(o).(map[string]any)
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = cloneValue(e)
		}
		return l
	case []string:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = e
		}
		return l
	}
	return v
}

func extensions() []any {
	exts := []struct{ alias, name, desc string }{
		{"binding", "Port Binding", "Expose port bindings of a virtual port to external application"},
		{"binding-extended", "Port Bindings Extended", "Expose port bindings of a virtual port to external application"},
		{"extra_dhcp_opt", "Neutron Extra DHCP options", "Extra options configuration for DHCP. For example PXE boot options to DHCP clients can be specified (e.g. tftp-server, server-ip-address, bootfile-name)"},
		{"external-net", "Neutron external network", "Adds external network attribute to network resource."},
		{"mac-learning", "MAC learning", "Provides MAC learning capabilities."},
		{"multi-provider", "Multi Provider Network", "Expose mapping of virtual networks to multiple physical networks"},
		{"network_availability_zone", "Network Availability Zone", "Availability zone support for network."},
		{"port-security", "Port Security", "Provides port security"},
		{"provider", "Provider Network", "Expose mapping of virtual networks to physical networks"},
		{"security-group", "security-group", "The security groups extension."},
		{"standard-attr-description", "standard-attr-description", "Extension to add descriptions to standard attributes"},
		{"standard-attr-revisions", "Resource revision numbers", "This extension will display the revision number of neutron resources."},
		{"standard-attr-timestamp", "Resource timestamps", "Adds created_at and updated_at fields to all Neutron resources that have Neutron standard attributes."},
	}
	out := make([]any, len(exts))
	for i, e := range exts {
		out[i] = map[string]any{"alias": e.alias, "name": e.name, "description": e.desc, "links": []any{}, "updated": "2013-01-20T00:00:00-00:00"}
	}
	return out
}
