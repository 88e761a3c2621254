// Package redfishbmc is a Redfish BMC emulator for tests and development:
// the part of the DMTF Redfish contract that sushy 4.3 (Python Ironic's
// client) and gofish read and write, served from memory.
//
// A Server holds any number of BMCs, each with its own credentials,
// sessions, systems, faults and latency. One BMC is always there (the
// default BMC) and is served at /redfish/v1; a BMC added with AddBMC is
// served at /bmc/<name>/redfish/v1 on the same listener, and any BMC can
// also be served at /redfish/v1 on a listener of its own (BMC.Handler,
// TestServer.ListenBMC): that is the way to give each of many BMCs its
// own redfish_address authority, which Ironic's and sushy's per-address
// connection caching expects and gofish's endpoint handling requires.
//
// Every request is logged (Server.Requests) with its body (passwords
// masked), so tests can compare what a client sent with a golden.
package redfishbmc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Username and Password are the credentials of BMCs that are not
	// given their own; default "admin" and "password".
	Username, Password string
	// Now is the clock of power transitions, sessions and events; default
	// time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx ends (latency); default a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// NewID returns the IDs of sessions, tasks, subscriptions and the
	// UUIDs of systems given none; default random UUIDs.
	NewID func() string
	// NewToken returns session tokens; default 16 random bytes in hex.
	NewToken func() string
	// Log receives one line per request; nil discards.
	Log *slog.Logger
	// Latency is added before every answer of every BMC (BMC.SetLatency
	// adds per BMC).
	Latency time.Duration
	// HTTPClient downloads the images of VirtualMedia.InsertMedia;
	// default a client with ImageTimeout.
	HTTPClient *http.Client
	// MaxImageBytes bounds an inserted image (a larger one is refused);
	// default 1 GiB.
	MaxImageBytes int64
	// ImageTimeout bounds an image download; default 60 s.
	ImageTimeout time.Duration
	// RequestLogLimit, when positive, keeps only the newest requests in
	// the log (RequestCount still counts them all).
	RequestLogLimit int
}

// Fault makes a BMC misbehave. The zero value is a healthy BMC.
type Fault struct {
	// Status, when nonzero, answers every request with this HTTP status
	// (after the latency) and an InternalError body (NoValidSession for
	// 401).
	Status int
	// Hang holds every request without an answer until the client gives
	// up or the Server is closed.
	Hang bool
	// IgnoreReset accepts ComputerSystem.Reset (204) and changes nothing:
	// a reset that never takes effect.
	IgnoreReset bool
}

// Request is one request a BMC received.
type Request struct {
	// BMC is the name of the BMC ("" for the default BMC).
	BMC    string `json:"bmc"`
	Method string `json:"method"`
	// Path is the URL path as received, Query its raw query string.
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// Body is the request body with passwords masked (nil when empty or
	// not JSON).
	Body json.RawMessage `json:"body,omitempty"`
	// Auth is how the request authenticated: "session", "basic" or "".
	Auth string `json:"auth,omitempty"`
	// Status is the answer's status; 0 when the BMC never answered.
	Status int `json:"status"`
}

// Server is the emulator: an http.Handler serving all its BMCs.
type Server struct {
	opts   Options
	routes []*route
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex
	bmcs  map[string]*BMC
	order []string
	reqs  []Request
	nreqs int64
	macs  uint32
}

// DefaultBMC is the name of the BMC served at /redfish/v1.
const DefaultBMC = ""

// New returns a Server with an empty default BMC.
func New(opts Options) *Server {
	if opts.Username == "" && opts.Password == "" {
		opts.Username, opts.Password = "admin", "password"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	if opts.NewID == nil {
		opts.NewID = uuid.NewString
	}
	if opts.NewToken == nil {
		opts.NewToken = randomToken
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxImageBytes == 0 {
		opts.MaxImageBytes = 1 << 30
	}
	if opts.ImageTimeout == 0 {
		opts.ImageTimeout = time.Minute
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: opts.ImageTimeout}
	}
	s := &Server{opts: opts, routes: routeTable(), closed: make(chan struct{}), bmcs: map[string]*BMC{}}
	s.bmcs[DefaultBMC] = newBMC(s, DefaultBMC, BMCSpec{})
	s.order = append(s.order, DefaultBMC)
	return s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close releases the requests of hanging BMCs; the Server keeps
// answering the others.
func (s *Server) Close() { s.once.Do(func() { close(s.closed) }) }

// BMCSpec describes a BMC added with AddBMC.
type BMCSpec struct {
	// Username and Password default to the Server's.
	Username, Password string
}

var bmcName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// AddBMC adds a BMC served at /bmc/<name>/redfish/v1 (and by its
// Handler). The name is a path segment: letters, digits, '.', '_', '-'.
func (s *Server) AddBMC(name string, spec BMCSpec) (*BMC, error) {
	if !bmcName.MatchString(name) {
		return nil, fmt.Errorf("redfishbmc: BMC name %q is not a plain path segment", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.bmcs[name]; ok {
		return nil, fmt.Errorf("redfishbmc: BMC %q exists", name)
	}
	b := newBMC(s, name, spec)
	s.bmcs[name] = b
	s.order = append(s.order, name)
	return b, nil
}

// Default returns the BMC served at /redfish/v1.
func (s *Server) Default() *BMC { return s.BMC(DefaultBMC) }

// BMC returns the named BMC, or nil.
func (s *Server) BMC(name string) *BMC {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bmcs[name]
}

// BMCs returns every BMC in the order they were added, the default first.
func (s *Server) BMCs() []*BMC {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*BMC, len(s.order))
	for i, n := range s.order {
		out[i] = s.bmcs[n]
	}
	return out
}

// AddSystem adds a system to the default BMC.
func (s *Server) AddSystem(spec SystemSpec) *System { return s.Default().AddSystem(spec) }

// Requests returns the requests received so far, oldest first.
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

// RequestCount is the number of requests received since the Server
// started, whether or not the log still holds them.
func (s *Server) RequestCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nreqs
}

func (s *Server) logRequest(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nreqs++
	if lim := s.opts.RequestLogLimit; lim > 0 && len(s.reqs) >= lim {
		n := copy(s.reqs, s.reqs[len(s.reqs)-lim+1:])
		s.reqs = s.reqs[:n]
	}
	s.reqs = append(s.reqs, rec)
}

// nextMAC returns a locally administered MAC address unique in s.
func (s *Server) nextMAC() string {
	s.mu.Lock()
	s.macs++
	n := s.macs
	s.mu.Unlock()
	return fmt.Sprintf("52:54:00:%02x:%02x:%02x", byte(n>>16), byte(n>>8), byte(n))
}

// ControlPath serves the request log to processes that run the emulator
// (GET: the requests as a JSON list, oldest first; DELETE: forget them).
// It is not Redfish and is neither authenticated nor logged.
const ControlPath = "/_redfishbmc/requests"

// ServeHTTP answers one request for any of the Server's BMCs.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == ControlPath {
		s.serveRequestLog(w, r)
		return
	}
	name, prefix := DefaultBMC, ""
	if rest, ok := strings.CutPrefix(p, "/bmc/"); ok {
		name, _, _ = strings.Cut(rest, "/")
		prefix = "/bmc/" + name
	}
	b := s.BMC(name)
	if b == nil || (name == DefaultBMC && prefix != "") {
		writeJSON(w, http.StatusNotFound, nil, errNotFound(p).body())
		return
	}
	b.serve(w, r, prefix)
}

func (s *Server) serveRequestLog(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, nil, nonNilRequests(s.Requests()))
	case http.MethodDelete:
		s.ResetRequests()
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusMethodNotAllowed, nil, errMethodNotAllowed().body())
	}
}

func nonNilRequests(r []Request) []Request {
	if r == nil {
		return []Request{}
	}
	return r
}

func writeJSON(w http.ResponseWriter, status int, header http.Header, body any) {
	for k, v := range header {
		w.Header()[k] = v
	}
	if body == nil {
		w.WriteHeader(status)
		return
	}
	raw, err := json.Marshal(body)
	if err != nil {
		raw, _ = json.Marshal(errInternal().body())
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("OData-Version", "4.0")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

// maskPasswords replaces the value of every "Password" key of a JSON
// body with "***", for the request log.
func maskPasswords(body []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if strings.Contains(strings.ToLower(k), "password") {
					t[k] = "***"
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}
