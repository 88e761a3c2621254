// Package fakenova is a stand-in for the part of Nova's compute API that
// Ironic calls: server external events (POST
// /v2.1/os-server-external-events), with Nova's request validation for
// microversion 2.76 (the power-update event) and Nova's answers (nova
// 27's server_external_events.create): each event echoed with its status
// and code (404 for an unknown server, 400 for a missing tag where one is
// required), 200 when every event was accepted, else 207. It records the
// requests it gets.
package fakenova

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Options configure a Server.
type Options struct {
	// Servers are the instance UUIDs Nova knows.
	Servers []string
	// Token, when set, is the only X-Auth-Token accepted (401 otherwise).
	Token string
}

// Request is one request the server got.
type Request struct {
	Method, Path string
	// Headers are the microversion, request ID and content type headers.
	Headers map[string]string
	Body    json.RawMessage
	Status  int
}

// Server is the fake Nova; it is an http.Handler.
type Server struct {
	opts Options

	mu   sync.Mutex
	reqs []Request
	down bool
}

// New returns a server.
func New(opts Options) *Server { return &Server{opts: opts} }

// Requests returns the requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// SetDown makes the server answer 503 (true) or serve again (false).
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// eventNames are the external events Nova 2.76 accepts.
var eventNames = []string{"network-changed", "network-vif-plugged", "network-vif-unplugged", "network-vif-deleted",
	"volume-extended", "power-update"}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rec := Request{Method: r.Method, Path: r.URL.Path, Headers: map[string]string{}}
	for _, h := range []string{"OpenStack-API-Version", "X-OpenStack-Nova-API-Version", "X-OpenStack-Request-ID", "Content-Type"} {
		if v := r.Header.Get(h); v != "" {
			rec.Headers[h] = v
		}
	}
	if json.Valid(body) {
		rec.Body = body
	}
	status, answer := s.answer(r, body)
	rec.Status = status
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(answer)
}

func fault(code int, kind, msg string) (int, any) {
	return code, map[string]any{kind: map[string]any{"code": code, "message": msg}}
}

func (s *Server) answer(r *http.Request, body []byte) (int, any) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		return fault(http.StatusServiceUnavailable, "serviceUnavailable", "Nova is down (fakenova)")
	}
	if s.opts.Token != "" && r.Header.Get("X-Auth-Token") != s.opts.Token {
		return fault(http.StatusUnauthorized, "unauthorized", "The request you have made requires authentication.")
	}
	if r.URL.Path != "/v2.1/os-server-external-events" {
		return fault(http.StatusNotFound, "itemNotFound", "The resource could not be found.")
	}
	if r.Method != http.MethodPost {
		return fault(http.StatusMethodNotAllowed, "badMethod", "The method specified is not allowed for this resource.")
	}
	if !microversionAtLeast(r, 2, 76) {
		// Below 2.76 the schema's name enum lacks power-update.
		return s.validate(body, false)
	}
	return s.validate(body, true)
}

// microversionAtLeast reads the compute microversion headers.
func microversionAtLeast(r *http.Request, major, minor int) bool {
	v := r.Header.Get("X-OpenStack-Nova-API-Version")
	if h := r.Header.Get("OpenStack-API-Version"); strings.HasPrefix(h, "compute ") {
		v = strings.TrimPrefix(h, "compute ")
	}
	if v == "" {
		return false
	}
	a, b, ok := strings.Cut(v, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func (s *Server) validate(body []byte, powerUpdate bool) (int, any) {
	bad := func(msg string) (int, any) {
		return fault(http.StatusBadRequest, "badRequest", "Invalid input for field/attribute events. "+msg)
	}
	var req struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return fault(http.StatusBadRequest, "badRequest", "Malformed request body")
	}
	if len(req.Events) == 0 {
		return bad("[] is too short")
	}
	result := http.StatusOK
	out := make([]map[string]any, 0, len(req.Events))
	for _, ev := range req.Events {
		for k := range ev {
			if k != "name" && k != "server_uuid" && k != "status" && k != "tag" {
				return bad(fmt.Sprintf("Additional properties are not allowed ('%s' was unexpected)", k))
			}
		}
		name, _ := ev["name"].(string)
		names := eventNames
		if !powerUpdate {
			names = names[:len(names)-1]
		}
		if !slices.Contains(names, name) {
			return bad(fmt.Sprintf("'%v' is not one of %q", ev["name"], names))
		}
		server, _ := ev["server_uuid"].(string)
		if !uuidRE.MatchString(server) {
			return bad(fmt.Sprintf("'%v' is not a 'uuid'", ev["server_uuid"]))
		}
		if st, ok := ev["status"]; ok && st != "failed" && st != "completed" && st != "in-progress" {
			return bad(fmt.Sprintf("'%v' is not one of ['failed', 'completed', 'in-progress']", st))
		}
		if tag, ok := ev["tag"]; ok {
			if ts, isStr := tag.(string); !isStr || len(ts) > 255 {
				return bad(fmt.Sprintf("%v is not a string of at most 255 characters", tag))
			}
		}
		// Nova echoes the event with its status and code.
		res := map[string]any{}
		for k, v := range ev {
			res[k] = v
		}
		_, hasTag := ev["tag"]
		switch {
		case !s.known(server):
			res["status"], res["code"] = "failed", 404
			result = http.StatusMultiStatus
		case (name == "power-update" || name == "volume-extended") && !hasTag:
			res["status"], res["code"] = "failed", 400
			result = http.StatusMultiStatus
		default:
			res["status"], res["code"] = "completed", 200
		}
		out = append(out, res)
	}
	return result, map[string]any{"events": out}
}

func (s *Server) known(server string) bool {
	for _, k := range s.opts.Servers {
		if strings.EqualFold(k, server) {
			return true
		}
	}
	return false
}
