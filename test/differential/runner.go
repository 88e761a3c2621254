package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxResponseBytes bounds how much of one response body is read.
const maxResponseBytes = 64 << 20

// Exchange is one request sent and the raw answer to it.
type Exchange struct {
	Entry  Entry
	Method string
	URL    string
	// Status is the HTTP status code; 0 when Err is set.
	Status int
	Header http.Header
	Body   []byte
	// Err is set when the request could not be built or sent (for example
	// an unresolved {{var}} after a failed capture, or a timeout).
	Err error
}

// Runner sends corpus entries to one endpoint, in order, remembering the
// captured variables between them. A Runner is not safe for concurrent use.
type Runner struct {
	// BaseURL is the endpoint, e.g. "http://127.0.0.1:6385", no trailing slash.
	BaseURL string
	// Client sends the requests; it should have a timeout.
	Client *http.Client
	// Vars holds captured values; nil is fine (it is created on first use).
	Vars map[string]string

	// waitTimedOut is set once a Wait gave up: the server is not moving
	// nodes along, and later waits are cut short (afterTimeoutWait) so that
	// one stuck action costs one timeout, not one per entry.
	waitTimedOut bool
}

// afterTimeoutWait bounds every Wait after one has timed out.
const afterTimeoutWait = 2 * time.Second

// NewRunner returns a Runner for baseURL with a client whose per-request
// timeout is timeout and which does not follow redirects.
func NewRunner(baseURL string, timeout time.Duration) *Runner {
	return &Runner{
		BaseURL: strings.TrimRight(baseURL, "/"),
		Client: &http.Client{
			Timeout: timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
	}
}

// Do sends one entry and applies its captures. Request-level failures are
// reported in Exchange.Err, never as a panic; a capture that finds nothing
// leaves the variable unset so that the entries using it fail visibly. An
// entry with a Wait is sent again until its answer matches (the last
// answer is returned, with Err set when the wait timed out).
func (r *Runner) Do(ctx context.Context, e Entry) Exchange {
	if e.Wait == nil {
		return r.do(ctx, e)
	}
	timeout := e.Wait.timeout()
	if r.waitTimedOut {
		timeout = min(timeout, afterTimeoutWait)
	}
	deadline := time.Now().Add(timeout)
	for {
		ex := r.do(ctx, e)
		if ex.Err != nil {
			return ex
		}
		ok, why := e.Wait.Matches(ex.Body)
		if ok {
			return ex
		}
		if !time.Now().Before(deadline) {
			r.waitTimedOut = true
			ex.Err = fmt.Errorf("wait: gave up after %s: %s", timeout, why)
			return ex
		}
		select {
		case <-ctx.Done():
			ex.Err = fmt.Errorf("wait: %w (%s)", ctx.Err(), why)
			return ex
		case <-time.After(waitInterval):
		}
	}
}

func (r *Runner) do(ctx context.Context, e Entry) Exchange {
	method := e.Method
	if method == "" {
		method = http.MethodGet
	}
	ex := Exchange{Entry: e, Method: method}
	path, err := r.expand(e.Path, e.Pad)
	if err != nil {
		ex.Err = err
		return ex
	}
	ex.URL = r.BaseURL + path

	var body []byte
	switch {
	case e.RawBody != nil:
		s, err := r.expand(*e.RawBody, e.Pad)
		if err != nil {
			ex.Err = err
			return ex
		}
		body = []byte(s)
	case len(e.Body) > 0:
		s, err := r.expand(string(e.Body), e.Pad)
		if err != nil {
			ex.Err = err
			return ex
		}
		body = []byte(s)
	}

	req, err := http.NewRequestWithContext(ctx, method, ex.URL, bytes.NewReader(body))
	if err != nil {
		ex.Err = err
		return ex
	}
	if body == nil {
		req.Body = nil
		req.ContentLength = 0
	}
	// Headers are set by key as written (not canonicalised) so that an
	// entry can send a lower-case name; a name given again replaces the
	// earlier one whatever its case.
	set := func(name, value string) {
		for k := range req.Header {
			if strings.EqualFold(k, name) {
				delete(req.Header, k)
			}
		}
		req.Header[name] = []string{value}
	}
	if body != nil {
		set("Content-Type", "application/json")
	}
	set("Accept", "application/json")
	version := DefaultVersion
	if e.Version != "" {
		version = e.Version
	}
	set(DefaultVersionHeader, version)
	names := make([]string, 0, len(e.Headers))
	for name := range e.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	// Removals first, so that {"X-Foo": null, "x-foo": "1"} sends x-foo.
	for _, name := range names {
		if e.Headers[name] == nil {
			set(name, "")
			delete(req.Header, name)
		}
	}
	for _, name := range names {
		value := e.Headers[name]
		if value == nil {
			continue
		}
		v, err := r.expand(*value, 0)
		if err != nil {
			ex.Err = err
			return ex
		}
		set(name, v)
	}
	resp, err := r.Client.Do(req)
	if err != nil {
		ex.Err = err
		return ex
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		ex.Err = fmt.Errorf("reading response: %w", err)
		return ex
	}
	ex.Status = resp.StatusCode
	ex.Header = resp.Header
	ex.Body = data
	r.capture(e, ex)
	return ex
}

// expand replaces {{var}} by captured values and {{pad}} by pad 'x's.
func (r *Runner) expand(s string, pad int) (string, error) {
	var missing []string
	out := varPattern.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-2]
		if name == "pad" && pad > 0 {
			return strings.Repeat("x", pad)
		}
		if v, ok := r.Vars[name]; ok {
			return v
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unresolved variables %v (their capture failed earlier)", missing)
	}
	return out, nil
}

func (r *Runner) capture(e Entry, ex Exchange) {
	if len(e.Capture) == 0 {
		return
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(ex.Body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		doc = nil
	}
	for name, path := range e.Capture {
		if r.Vars == nil {
			r.Vars = make(map[string]string)
		}
		delete(r.Vars, name)
		if h, ok := strings.CutPrefix(path, "header:"); ok {
			if v := ex.Header.Get(h); v != "" {
				r.Vars[name] = v
			}
			continue
		}
		if v, ok := lookupPath(doc, path); ok {
			r.Vars[name] = v
		}
	}
}

// lookupPath follows a dot-separated path of keys and indexes into a decoded
// JSON document and returns the string (or number) found there.
func lookupPath(doc any, path string) (string, bool) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return "", false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return "", false
			}
			cur = v[i]
		default:
			return "", false
		}
	}
	switch v := cur.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	default:
		return "", false
	}
}
