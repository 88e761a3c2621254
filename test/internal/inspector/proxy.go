package inspector

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Request is one request a Proxy passed on.
type Request struct {
	Method string
	// Path is the path and query.
	Path string
	// Body is the request's body.
	Body string
	// Header holds the headers the comparison looks at (version and
	// auth headers, present or not).
	Header http.Header
	// Status is the answer's status.
	Status int
}

// Proxy is a recording reverse proxy in front of a service: tests point
// a client at URL and read what it sent with Requests. SetDown makes it
// refuse (close connections) or hang, to play a service down or slow.
type Proxy struct {
	// URL is the proxy's address (127.0.0.1, a free port).
	URL string

	mu     sync.Mutex
	reqs   []*Request
	target *url.URL
	mode   string
	delay  time.Duration
	status int
}

// NewProxy starts a proxy to target; it stops when t ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u}
	rp := httputil.NewSingleHostReverseProxy(u)
	// A service stopped before its peer is no test failure.
	rp.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.mu.Lock()
		mode, delay, status := p.mode, p.delay, p.status
		p.mu.Unlock()
		rec := &Request{Method: r.Method, Path: r.URL.RequestURI(), Body: string(body), Header: http.Header{}}
		for _, h := range []string{"X-Openstack-Ironic-Api-Version", "X-Openstack-Ironic-Inspector-Api-Version", "Openstack-Api-Version", "X-Auth-Token"} {
			if v := r.Header.Values(h); len(v) > 0 {
				rec.Header[h] = v
			}
		}
		// Recorded as it arrives (the order the peer sent in); the
		// status is filled in when the answer is known.
		p.mu.Lock()
		p.reqs = append(p.reqs, rec)
		p.mu.Unlock()
		setStatus := func(s int) {
			p.mu.Lock()
			rec.Status = s
			p.mu.Unlock()
		}
		switch mode {
		case "down":
			setStatus(-1)
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					_ = c.Close()
					return
				}
			}
			return
		case "slow":
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				setStatus(-2)
				return
			}
		case "status":
			setStatus(status)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"error": {"message": "injected failure"}}`)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: 200}
		rp.ServeHTTP(sw, r)
		setStatus(sw.status)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Requests returns what the proxy has seen so far.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, len(p.reqs))
	for i, r := range p.reqs {
		out[i] = *r
	}
	return out
}

// Reset forgets the requests seen.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.reqs = nil
	p.mu.Unlock()
}

// SetDown closes every connection (a service that is down).
func (p *Proxy) SetDown() { p.set("down", 0, 0) }

// SetSlow delays every answer by d.
func (p *Proxy) SetSlow(d time.Duration) { p.set("slow", d, 0) }

// SetStatus answers every request with status and an inspector-shaped
// error body.
func (p *Proxy) SetStatus(status int) { p.set("status", 0, status) }

// SetUp passes requests on again.
func (p *Proxy) SetUp() { p.set("", 0, 0) }

func (p *Proxy) set(mode string, d time.Duration, status int) {
	p.mu.Lock()
	p.mode, p.delay, p.status = mode, d, status
	p.mu.Unlock()
}

// Line is the request as the comparisons write it: "METHOD path", the
// Ironic and inspector API versions asked for ("[1.76]", "[inspector
// 1.12]") and the body, JSON re-encoded with sorted keys.
func (r Request) Line() string {
	line := r.Method + " " + r.Path
	if v := r.Header.Get("X-Openstack-Ironic-Api-Version"); v != "" {
		line += " [" + v + "]"
	}
	if v := r.Header.Get("X-Openstack-Ironic-Inspector-Api-Version"); v != "" {
		line += " [inspector " + v + "]"
	}
	if r.Body != "" {
		line += " " + CanonicalJSON(r.Body)
	}
	return line
}

// CanonicalJSON re-encodes a JSON body with sorted keys (bodies that are
// not JSON stay as they are).
func CanonicalJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
