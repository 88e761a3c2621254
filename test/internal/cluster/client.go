package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// VersionHeader carries the microversion of a request.
const VersionHeader = "X-OpenStack-Ironic-API-Version"

// Client sends REST requests to one API.
type Client struct {
	// URL is the endpoint, without a slash.
	URL string
	// Version, when set, is sent as the microversion.
	Version string
	// Header is sent with every request (after the microversion).
	Header http.Header
	HTTP   *http.Client
}

// NewClient returns a client of the API at url asking for version, with
// a 30 s bound on each request.
func NewClient(url, version string) *Client {
	return &Client{URL: url, Version: version, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Response is one REST answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r Response) String() string { return fmt.Sprintf("%d %s", r.Status, Tail(r.Body, 2000)) }

// Do sends one request; body, if not nil, is sent as JSON. The error is
// for a request that got no answer.
func (c *Client) Do(ctx context.Context, method, path string, body any) (Response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return Response{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return Response{}, err
	}
	if c.Version != "" {
		req.Header.Set(VersionHeader, c.Version)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, err
}

// Must sends a request and fails t unless it is answered with status
// want.
func (c *Client) Must(ctx context.Context, t testing.TB, want int, method, path string, body any) Response {
	t.Helper()
	r, err := c.Do(ctx, method, path, body)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, c.URL, path, err)
	}
	if r.Status != want {
		t.Fatalf("%s %s%s: got %s, want status %d", method, c.URL, path, r, want)
	}
	return r
}

// JSON is Must that decodes the body into out.
func (c *Client) JSON(ctx context.Context, t testing.TB, want int, method, path string, body, out any) {
	t.Helper()
	r := c.Must(ctx, t, want, method, path, body)
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatalf("%s %s%s: %v\n%s", method, c.URL, path, err, Tail(r.Body, 2000))
	}
}

// Object sends a request, fails t unless it succeeds (2xx), and returns
// the body decoded as a JSON object (nil when it is not one).
func (c *Client) Object(ctx context.Context, t testing.TB, method, path string, body any) map[string]any {
	t.Helper()
	r, err := c.Do(ctx, method, path, body)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, c.URL, path, err)
	}
	if r.Status < 200 || r.Status >= 300 {
		t.Fatalf("%s %s%s: got %s, want success", method, c.URL, path, r)
	}
	var out map[string]any
	_ = json.Unmarshal(r.Body, &out)
	return out
}

// DiscoverHosts returns the conductor host names the endpoint lists at
// GET /v1/conductors (API 1.49 or later).
func DiscoverHosts(ctx context.Context, url string) ([]string, error) {
	c := NewClient(url, "1.82")
	c.HTTP.Timeout = 10 * time.Second
	r, err := c.Do(ctx, http.MethodGet, "/v1/conductors", nil)
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/conductors: status %d", r.Status)
	}
	var doc struct {
		Conductors []struct {
			Hostname string `json:"hostname"`
		} `json:"conductors"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		return nil, fmt.Errorf("GET /v1/conductors: %w", err)
	}
	var hosts []string
	for _, c := range doc.Conductors {
		hosts = append(hosts, c.Hostname)
	}
	if len(hosts) == 0 {
		return nil, errors.New("GET /v1/conductors: no conductors")
	}
	return hosts, nil
}

// CheckNodeLocked requires r to be Ironic's 409 for node uuid locked by
// host (NodeLocked), with Ironic's error body.
func CheckNodeLocked(t testing.TB, r Response, uuid, host string) {
	t.Helper()
	var body struct {
		ErrorMessage string `json:"error_message"`
	}
	var fault struct {
		Faultstring string  `json:"faultstring"`
		Faultcode   string  `json:"faultcode"`
		Debuginfo   *string `json:"debuginfo"`
	}
	if r.Status != http.StatusConflict || json.Unmarshal(r.Body, &body) != nil || json.Unmarshal([]byte(body.ErrorMessage), &fault) != nil {
		t.Fatalf("a call on a locked node: %s, want 409 with Ironic's error body", r)
	}
	want := fmt.Sprintf("Node %s is locked by host %s, please retry after the current operation is completed.", uuid, host)
	if !strings.HasPrefix(fault.Faultstring, want) || fault.Faultcode != "Client" || fault.Debuginfo != nil {
		t.Errorf("409 body %+v, want faultstring %q, faultcode Client", fault, want)
	}
}
