// Package fakecinder is an in-memory Cinder: the part of the Block Storage
// v3 API that Ironic's cinder storage interface uses (GET of a volume, the
// legacy attach actions os-reserve, os-initialize_connection, os-attach,
// os-begin_detaching, os-terminate_connection, os-detach, os-unreserve,
// os-roll_detaching, and volume metadata), with Cinder's JSON bodies,
// status codes, volume status rules and error answers ({"badRequest":
// {"message", "code"}}, {"itemNotFound": ...}). Paths are under /v3 (a
// client's endpoint is http://host:port/v3), with or without a project ID
// after it. Nothing is authenticated. Every request
// is logged, so tests can assert what a client sent.
package fakecinder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Volumes are created at start. Each needs an "id"; "status"
	// defaults to "available", "size" to 1. The pseudo-key
	// "connection_type" ("iscsi", the default, or "fibre_channel")
	// chooses what os-initialize_connection answers and is not shown.
	Volumes []map[string]any
	// Portal is the iSCSI portal ("host:port") of connection data;
	// default "192.0.2.10:3260".
	Portal string
	// NewID returns attachment and request IDs; default random UUIDs.
	NewID func() string
	// Now is the clock of timestamps; default time.Now.
	Now func() time.Time
	// Log receives one line per request; nil discards.
	Log *slog.Logger
}

// Request is one request the server answered.
type Request struct {
	Method string
	// Path is the URL path without the project ID segment.
	Path string
	// Action is the action name of a POST .../action ("os-reserve", ...).
	Action string
	// Body is the request body (nil when empty).
	Body   json.RawMessage
	Status int
	// Headers are the request headers.
	Headers http.Header
}

// Server is the fake Cinder; it is an http.Handler.
type Server struct {
	opts Options

	mu    sync.Mutex
	vols  map[string]*volume
	order []string
	reqs  []Request
	fails map[string][]int
}

type volume struct {
	attrs    map[string]any
	connType string
	attach   []map[string]any
	meta     map[string]string
	// connections counts os-initialize_connection minus
	// os-terminate_connection calls.
	connections int
}

// New returns a server holding opts.Volumes.
func New(opts Options) *Server {
	if opts.NewID == nil {
		opts.NewID = func() string { return uuid.NewString() }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Portal == "" {
		opts.Portal = "192.0.2.10:3260"
	}
	s := &Server{opts: opts, vols: map[string]*volume{}, fails: map[string][]int{}}
	for _, v := range opts.Volumes {
		s.AddVolume(v)
	}
	return s
}

// AddVolume creates a volume (see Options.Volumes).
func (s *Server) AddVolume(v map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	attrs := map[string]any{}
	for k, x := range v {
		attrs[k] = x
	}
	id, _ := attrs["id"].(string)
	vol := &volume{attrs: attrs, connType: "iscsi", meta: map[string]string{}}
	if ct, ok := attrs["connection_type"].(string); ok {
		vol.connType = ct
		delete(attrs, "connection_type")
	}
	ts := s.opts.Now().UTC().Format("2006-01-02T15:04:05.000000")
	defaults := map[string]any{
		"status": "available", "size": 1, "name": "volume-" + id, "description": nil,
		"availability_zone": "nova", "bootable": "false", "encrypted": false, "multiattach": false,
		"volume_type": "lvmdriver-1", "snapshot_id": nil, "source_volid": nil, "replication_status": nil,
		"consistencygroup_id": nil, "user_id": "fake-user", "created_at": ts, "updated_at": nil,
	}
	for k, d := range defaults {
		if _, ok := attrs[k]; !ok {
			attrs[k] = d
		}
	}
	if md, ok := attrs["metadata"].(map[string]any); ok {
		for k, x := range md {
			vol.meta[k] = fmt.Sprint(x)
		}
	}
	delete(attrs, "metadata")
	if _, ok := s.vols[id]; !ok {
		s.order = append(s.order, id)
	}
	s.vols[id] = vol
}

// Volume returns the volume as GET would show it, or nil.
func (s *Server) Volume(id string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vols[id]
	if v == nil {
		return nil
	}
	return s.view(id, v)
}

// Metadata returns a volume's metadata.
func (s *Server) Metadata(id string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	if v := s.vols[id]; v != nil {
		for k, x := range v.meta {
			out[k] = x
		}
	}
	return out
}

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Actions returns "<action> <volume id>" for every action request so far,
// and "GET <id>" / "metadata <id>" for volume reads and metadata updates.
func (s *Server) Actions() []string {
	var out []string
	for _, r := range s.Requests() {
		parts := strings.Split(strings.Trim(r.Path, "/"), "/")
		id := ""
		if len(parts) >= 3 {
			id = parts[2]
		}
		switch {
		case r.Action != "":
			out = append(out, r.Action+" "+id)
		case r.Method == http.MethodGet && len(parts) == 3:
			out = append(out, "GET "+id)
		case r.Method == http.MethodPost && len(parts) == 4 && parts[3] == "metadata":
			out = append(out, "metadata "+id)
		}
	}
	return out
}

// FailNext makes the next calls of action ("os-reserve", ..., "GET" for
// a volume read, "metadata" for a metadata update) answer the given
// statuses, one per call, before it works again.
func (s *Server) FailNext(action string, statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[action] = append(s.fails[action], statuses...)
}

func (s *Server) failure(action string) int {
	if f := s.fails[action]; len(f) > 0 {
		s.fails[action] = f[1:]
		return f[0]
	}
	return 0
}

func (s *Server) view(id string, v *volume) map[string]any {
	out := map[string]any{}
	for k, x := range v.attrs {
		out[k] = x
	}
	atts := make([]any, len(v.attach))
	for i, a := range v.attach {
		atts[i] = a
	}
	out["attachments"] = atts
	md := map[string]any{}
	for k, x := range v.meta {
		md[k] = x
	}
	out["metadata"] = md
	out["id"] = id
	out["links"] = []any{map[string]any{"rel": "self", "href": "http://cinder/v3/volumes/" + id}}
	return out
}

type apiError struct {
	status int
	kind   string
	msg    string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "badRequest", fmt.Sprintf(format, args...)}
}

func notFound(id string) *apiError {
	return &apiError{http.StatusNotFound, "itemNotFound", fmt.Sprintf("Volume %s could not be found.", id)}
}

func errorFor(status int) *apiError {
	switch status {
	case 400:
		return badRequest("Invalid input received: injected failure.")
	case 404:
		return &apiError{404, "itemNotFound", "Injected: item not found."}
	case 409:
		return &apiError{409, "conflictingRequest", "Injected conflict."}
	}
	return &apiError{status, "computeFault", "The server has either erred or is incapable of performing the requested operation."}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// Drop a project ID: /v3/{project}/volumes/... → /v3/volumes/...
	if len(parts) >= 3 && parts[0] == "v3" && parts[1] != "volumes" && parts[2] == "volumes" {
		parts = append([]string{"v3"}, parts[2:]...)
	}
	req := Request{Method: r.Method, Path: "/" + strings.Join(parts, "/"), Headers: r.Header.Clone()}
	if len(bytes.TrimSpace(body)) > 0 {
		req.Body = json.RawMessage(body)
	}
	status, out := s.route(r.Method, parts, body, &req)
	s.mu.Lock()
	req.Status = status
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	s.opts.Log.Info("fake-cinder", "method", r.Method, "path", path, "action", req.Action, "status", status)
	s.opts.Log.Debug("fake-cinder body", "body", string(body))
	w.Header().Set("X-Openstack-Request-Id", "req-"+s.opts.NewID())
	w.Header().Set("OpenStack-API-Version", "volume 3.0")
	w.Header().Set("Vary", "OpenStack-API-Version")
	if out == nil {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(status)
		return
	}
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) route(method string, parts []string, body []byte, req *Request) (int, any) {
	if len(parts) == 0 || parts[0] == "" {
		return http.StatusMultipleChoices, map[string]any{"versions": []any{map[string]any{
			"id": "v3.0", "status": "CURRENT", "version": "3.70", "min_version": "3.0",
			"links": []any{map[string]any{"rel": "self", "href": "/v3/"}}}}}
	}
	if len(parts) < 3 || parts[0] != "v3" || parts[1] != "volumes" {
		return http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"message": "The resource could not be found.", "code": 404}}
	}
	id := parts[2]
	s.mu.Lock()
	defer s.mu.Unlock()
	var e *apiError
	var status int
	var out any
	switch {
	case len(parts) == 3 && method == http.MethodGet:
		if f := s.failure("GET"); f != 0 {
			e = errorFor(f)
			break
		}
		v := s.vols[id]
		if v == nil {
			e = notFound(id)
			break
		}
		status, out = http.StatusOK, map[string]any{"volume": s.view(id, v)}
	case len(parts) == 4 && parts[3] == "metadata" && method == http.MethodGet:
		v := s.vols[id]
		if v == nil {
			e = notFound(id)
			break
		}
		status, out = http.StatusOK, map[string]any{"metadata": s.view(id, v)["metadata"]}
	case len(parts) == 4 && parts[3] == "metadata" && method == http.MethodPost:
		if f := s.failure("metadata"); f != 0 {
			e = errorFor(f)
			break
		}
		status, out, e = s.setMetadata(id, body)
	case len(parts) == 4 && parts[3] == "action" && method == http.MethodPost:
		status, out, e = s.action(id, body, req)
	default:
		return http.StatusMethodNotAllowed, map[string]any{"computeFault": map[string]any{"message": "Method not allowed.", "code": 405}}
	}
	if e != nil {
		return e.status, map[string]any{e.kind: map[string]any{"message": e.msg, "code": e.status}}
	}
	return status, out
}

func (s *Server) setMetadata(id string, body []byte) (int, any, *apiError) {
	v := s.vols[id]
	if v == nil {
		return 0, nil, notFound(id)
	}
	var in struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Metadata == nil {
		return 0, nil, badRequest("Malformed request body")
	}
	for k, x := range in.Metadata {
		str, ok := x.(string)
		if !ok {
			return 0, nil, badRequest("Invalid input for field/attribute %s. Value: %v. %v is not of type 'string'", k, x, x)
		}
		if len(str) > 255 {
			return 0, nil, badRequest("Invalid input for field/attribute %s. Value: %s. '%s' is too long", k, str, str)
		}
		v.meta[k] = str
	}
	return http.StatusOK, map[string]any{"metadata": s.view(id, v)["metadata"]}, nil
}

func (s *Server) action(id string, body []byte, req *Request) (int, any, *apiError) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(body, &in); err != nil || len(in) != 1 {
		return 0, nil, badRequest("Malformed request body")
	}
	var name string
	var arg json.RawMessage
	for k, x := range in {
		name, arg = k, x
	}
	req.Action = name
	if f := s.failure(name); f != 0 {
		return 0, nil, errorFor(f)
	}
	v := s.vols[id]
	if v == nil {
		return 0, nil, notFound(id)
	}
	var args map[string]any
	_ = json.Unmarshal(arg, &args)
	status := func() string { st, _ := v.attrs["status"].(string); return st }
	multi, _ := v.attrs["multiattach"].(bool)
	switch name {
	case "os-reserve":
		if st := status(); st != "available" && !(st == "in-use" && multi) {
			return 0, nil, badRequest("Invalid volume: Volume status must be available to reserve, but the status is %s.", st)
		}
		v.attrs["status"] = "attaching"
		return http.StatusAccepted, nil, nil
	case "os-unreserve":
		if status() == "attaching" {
			v.attrs["status"] = "available"
			if len(v.attach) > 0 {
				v.attrs["status"] = "in-use"
			}
		}
		return http.StatusAccepted, nil, nil
	case "os-initialize_connection":
		conn, _ := args["connector"].(map[string]any)
		if conn == nil {
			return 0, nil, badRequest("Malformed request body")
		}
		v.connections++
		return http.StatusOK, map[string]any{"connection_info": s.connectionInfo(id, v, conn)}, nil
	case "os-attach":
		inst, _ := args["instance_uuid"].(string)
		host, _ := args["host_name"].(string)
		if inst == "" && host == "" {
			return 0, nil, badRequest("Invalid request to attach volume to an invalid target")
		}
		if st := status(); st != "attaching" && st != "available" && !(st == "in-use" && multi) {
			return 0, nil, badRequest("Invalid volume: Volume status must be available or attaching, but current status is: %s.", st)
		}
		mount, _ := args["mountpoint"].(string)
		aid := s.opts.NewID()
		att := map[string]any{"id": id, "attachment_id": aid, "volume_id": id, "server_id": nil,
			"host_name": nil, "device": mount, "attached_at": s.opts.Now().UTC().Format("2006-01-02T15:04:05.000000")}
		if inst != "" {
			att["server_id"] = inst
		}
		if host != "" {
			att["host_name"] = host
		}
		v.attach = append(v.attach, att)
		v.attrs["status"] = "in-use"
		v.attrs["attach_status"] = "attached"
		return http.StatusAccepted, nil, nil
	case "os-begin_detaching":
		if status() != "in-use" || len(v.attach) == 0 {
			return 0, nil, badRequest("Invalid volume: Unable to detach volume. Volume status must be 'in-use' and attach_status must be 'attached' to detach.")
		}
		v.attrs["status"] = "detaching"
		return http.StatusAccepted, nil, nil
	case "os-roll_detaching":
		if status() == "detaching" {
			v.attrs["status"] = "in-use"
		}
		return http.StatusAccepted, nil, nil
	case "os-terminate_connection":
		if conn, _ := args["connector"].(map[string]any); conn == nil {
			return 0, nil, badRequest("Malformed request body")
		}
		if v.connections > 0 {
			v.connections--
		}
		return http.StatusAccepted, nil, nil
	case "os-detach":
		aid, _ := args["attachment_id"].(string)
		idx := -1
		for i, a := range v.attach {
			if aid == "" || a["attachment_id"] == aid {
				idx = i
				break
			}
		}
		if idx < 0 {
			if aid == "" {
				return 0, nil, badRequest("Invalid volume: Volume must be attached in order to detach.")
			}
			return 0, nil, &apiError{http.StatusNotFound, "itemNotFound", fmt.Sprintf("Volume attachment could not be found with filter: attachment_id = %s.", aid)}
		}
		v.attach = append(v.attach[:idx], v.attach[idx+1:]...)
		if len(v.attach) == 0 {
			v.attrs["status"] = "available"
			v.attrs["attach_status"] = "detached"
		} else {
			v.attrs["status"] = "in-use"
		}
		return http.StatusAccepted, nil, nil
	}
	return 0, nil, badRequest("There is no such action: %s", name)
}

// connectionInfo is what Cinder's LVM/iSCSI (or an FC) driver answers.
func (s *Server) connectionInfo(id string, v *volume, conn map[string]any) map[string]any {
	if v.connType == "fibre_channel" {
		return map[string]any{"driver_volume_type": "fibre_channel", "data": map[string]any{
			"target_discovered": false, "target_lun": 1, "target_wwn": []any{"500a098280feeba5", "500a098290feeba5"},
			"volume_id": id, "encrypted": false, "qos_specs": nil, "access_mode": "rw", "cacheable": false,
		}}
	}
	short := strings.ReplaceAll(id, "-", "")
	if len(short) > 12 {
		short = short[:12]
	}
	data := map[string]any{
		"target_discovered": false,
		"target_iqn":        "iqn.2010-10.org.openstack:volume-" + id,
		"target_portal":     s.opts.Portal,
		"target_lun":        0,
		"volume_id":         id,
		"auth_method":       "CHAP",
		"auth_username":     "chap-" + short,
		"auth_password":     "secret-" + short,
		"encrypted":         false,
		"qos_specs":         nil,
		"access_mode":       "rw",
		"cacheable":         false,
	}
	if mp, _ := conn["multipath"].(bool); mp {
		data["target_iqns"] = []any{data["target_iqn"]}
		data["target_portals"] = []any{s.opts.Portal}
		data["target_luns"] = []any{0}
	}
	return map[string]any{"driver_volume_type": "iscsi", "data": data}
}
