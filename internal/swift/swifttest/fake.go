// Package swifttest is an in-memory Swift proxy for tests: one account,
// serving the request and response shapes of Swift's proxy server for the
// calls Ironic makes (account HEAD/POST with the temp URL key, container
// PUT/HEAD/POST, object PUT/GET/HEAD/DELETE, X-Delete-After, and GETs
// authorised by a temp URL signed with the account's or the container's key
// using sha1, sha256 or sha512).
package swifttest

import (
	"crypto/hmac"
	"crypto/md5"  //nolint:gosec // Swift's ETag is an MD5
	"crypto/sha1" //nolint:gosec // a temp URL digest Swift accepts
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Account is the account the fake serves, under /v1/AUTH_<Account>.
const Account = "test"

// Object is a stored object.
type Object struct {
	Data    []byte
	Headers http.Header
	// DeleteAt is the X-Delete-At time (zero: never).
	DeleteAt time.Time
}

type container struct {
	meta    http.Header
	objects map[string]*Object
}

// Swift is the fake proxy.
type Swift struct {
	// Token, when set, is the X-Auth-Token every non-temp-URL request
	// must carry.
	Token string
	// Now is the fake's clock (time.Now when nil).
	Now func() time.Time

	srv *httptest.Server

	mu         sync.Mutex
	accountKey string
	containers map[string]*container
	// Log lists the requests served, "METHOD path".
	log []string
}

// New starts a fake Swift; it stops with Close.
func New() *Swift {
	s := &Swift{containers: map[string]*container{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the server.
func (s *Swift) Close() { s.srv.Close() }

// AccountURL is the account's storage URL (what the catalog lists).
func (s *Swift) AccountURL() string { return s.srv.URL + "/v1/AUTH_" + Account }

// SetAccountKey sets X-Account-Meta-Temp-URL-Key ("" removes it).
func (s *Swift) SetAccountKey(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accountKey = k
}

// Object returns a stored object, nil when absent (or expired).
func (s *Swift) Object(c, o string) *Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.object(c, o)
}

// Requests returns the "METHOD path" of every request served so far.
func (s *Swift) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *Swift) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Swift) object(c, o string) *Object {
	ct := s.containers[c]
	if ct == nil {
		return nil
	}
	obj := ct.objects[o]
	if obj == nil || (!obj.DeleteAt.IsZero() && !s.now().Before(obj.DeleteAt)) {
		return nil
	}
	return obj
}

func txHeaders(w http.ResponseWriter) {
	id := fmt.Sprintf("tx%021x-%010x", time.Now().UnixNano(), time.Now().Unix())
	w.Header().Set("X-Trans-Id", id)
	w.Header().Set("X-Openstack-Request-Id", id)
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
}

// status writes Swift's plain HTML answer for an error status.
func status(w http.ResponseWriter, r *http.Request, code int) {
	bodies := map[int]string{
		http.StatusNotFound:     "<html><h1>Not Found</h1><p>The resource could not be found.</p></html>",
		http.StatusUnauthorized: "<html><h1>Unauthorized</h1><p>This server could not verify that you are authorized to access the document you requested.</p></html>",
		http.StatusBadRequest:   "<html><h1>Bad Request</h1><p>The server could not comply with the request since it is either malformed or otherwise incorrect.</p></html>",
	}
	b := bodies[code]
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, b)
	}
}

func empty(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(code)
}

func (s *Swift) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, r.Method+" "+r.URL.Path)
	txHeaders(w)
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/AUTH_"+Account)
	if !ok {
		status(w, r, http.StatusNotFound)
		return
	}
	parts := strings.SplitN(strings.TrimPrefix(rest, "/"), "/", 2)
	var cName, oName string
	if len(parts) > 0 {
		cName = parts[0]
	}
	if len(parts) > 1 {
		oName = parts[1]
	}
	tempURL := r.URL.Query().Get("temp_url_sig") != ""
	switch {
	case tempURL && oName != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		if !s.validTempURL(r, cName) {
			status(w, r, http.StatusUnauthorized)
			return
		}
	case s.Token != "" && r.Header.Get("X-Auth-Token") != s.Token:
		status(w, r, http.StatusUnauthorized)
		return
	}
	switch {
	case cName == "":
		s.account(w, r)
	case oName == "":
		s.container(w, r, cName)
	default:
		s.objectOp(w, r, cName, oName)
	}
}

func (s *Swift) account(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodHead, http.MethodGet:
		h := w.Header()
		var count, bytes int
		for _, c := range s.containers {
			for _, o := range c.objects {
				count++
				bytes += len(o.Data)
			}
		}
		h.Set("X-Account-Container-Count", strconv.Itoa(len(s.containers)))
		h.Set("X-Account-Object-Count", strconv.Itoa(count))
		h.Set("X-Account-Bytes-Used", strconv.Itoa(bytes))
		h.Set("X-Timestamp", "1700000000.00000")
		h.Set("X-Put-Timestamp", "1700000000.00000")
		if s.accountKey != "" {
			h.Set("X-Account-Meta-Temp-Url-Key", s.accountKey)
		}
		h.Set("Accept-Ranges", "bytes")
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		var names []string
		for n := range s.containers {
			names = append(names, n)
		}
		body := strings.Join(names, "\n")
		if body != "" {
			body += "\n"
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if body == "" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = io.WriteString(w, body)
	case http.MethodPost:
		if v, ok := r.Header["X-Account-Meta-Temp-Url-Key"]; ok {
			s.accountKey = v[0]
		}
		if _, ok := r.Header["X-Remove-Account-Meta-Temp-Url-Key"]; ok {
			s.accountKey = ""
		}
		empty(w, http.StatusNoContent)
	default:
		w.Header().Set("Allow", "HEAD, GET, POST")
		empty(w, http.StatusMethodNotAllowed)
	}
}

func (s *Swift) container(w http.ResponseWriter, r *http.Request, name string) {
	c := s.containers[name]
	switch r.Method {
	case http.MethodPut:
		code := http.StatusAccepted
		if c == nil {
			c = &container{meta: http.Header{}, objects: map[string]*Object{}}
			s.containers[name] = c
			code = http.StatusCreated
		}
		copyMeta(c.meta, r.Header, "X-Container-Meta-")
		empty(w, code)
	case http.MethodPost:
		if c == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		copyMeta(c.meta, r.Header, "X-Container-Meta-")
		empty(w, http.StatusNoContent)
	case http.MethodHead, http.MethodGet:
		if c == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		for k, v := range c.meta {
			w.Header()[k] = v
		}
		w.Header().Set("X-Container-Object-Count", strconv.Itoa(len(c.objects)))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNoContent)
	case http.MethodDelete:
		if c == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		if len(c.objects) > 0 {
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, "<html><h1>Conflict</h1><p>There was a conflict when trying to complete your request.</p></html>")
			return
		}
		delete(s.containers, name)
		empty(w, http.StatusNoContent)
	}
}

func copyMeta(dst, src http.Header, prefix string) {
	for k, v := range src {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), http.CanonicalHeaderKey(prefix)) {
			dst[http.CanonicalHeaderKey(k)] = v
		}
	}
}

func (s *Swift) objectOp(w http.ResponseWriter, r *http.Request, cName, oName string) {
	c := s.containers[cName]
	switch r.Method {
	case http.MethodPut:
		if c == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		data, err := io.ReadAll(r.Body)
		if err != nil {
			status(w, r, http.StatusBadRequest)
			return
		}
		o := &Object{Data: data, Headers: http.Header{}}
		if v := r.Header.Get("Content-Type"); v != "" {
			o.Headers.Set("Content-Type", v)
		}
		if v := r.Header.Get("X-Delete-After"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, "Non-integer X-Delete-After")
				return
			}
			o.DeleteAt = s.now().Add(time.Duration(n) * time.Second)
		}
		sum := md5.Sum(data) //nolint:gosec // Swift's ETag
		o.Headers.Set("Etag", hex.EncodeToString(sum[:]))
		o.Headers.Set("Last-Modified", s.now().UTC().Format(http.TimeFormat))
		c.objects[oName] = o
		w.Header().Set("Etag", o.Headers.Get("Etag"))
		w.Header().Set("Last-Modified", o.Headers.Get("Last-Modified"))
		empty(w, http.StatusCreated)
	case http.MethodGet, http.MethodHead:
		o := s.object(cName, oName)
		if o == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		for k, v := range o.Headers {
			w.Header()[k] = v
		}
		if !o.DeleteAt.IsZero() {
			w.Header().Set("X-Delete-At", strconv.FormatInt(o.DeleteAt.Unix(), 10))
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(o.Data)))
		w.Header().Set("Accept-Ranges", "bytes")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(o.Data)
		}
	case http.MethodDelete:
		if s.object(cName, oName) == nil {
			status(w, r, http.StatusNotFound)
			return
		}
		delete(c.objects, oName)
		empty(w, http.StatusNoContent)
	default:
		w.Header().Set("Allow", "DELETE, GET, HEAD, PUT, POST")
		empty(w, http.StatusMethodNotAllowed)
	}
}

// validTempURL checks temp_url_sig and temp_url_expires as Swift's tempurl
// middleware does: HMAC of "METHOD\nexpires\npath" with the account's or the
// container's key; the digest is told by the signature's length (hex).
func (s *Swift) validTempURL(r *http.Request, cName string) bool {
	q := r.URL.Query()
	expires, err := strconv.ParseInt(q.Get("temp_url_expires"), 10, 64)
	if err != nil || s.now().Unix() >= expires {
		return false
	}
	sig := q.Get("temp_url_sig")
	var newHash func() hash.Hash
	switch len(sig) {
	case 40:
		newHash = sha1.New
	case 64:
		newHash = sha256.New
	case 128:
		newHash = sha512.New
	default:
		return false
	}
	keys := []string{s.accountKey}
	if c := s.containers[cName]; c != nil {
		keys = append(keys, c.meta.Get("X-Container-Meta-Temp-Url-Key"))
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // a GET temp URL allows HEAD too
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		m := hmac.New(newHash, []byte(k))
		fmt.Fprintf(m, "%s\n%d\n%s", method, expires, r.URL.Path)
		if hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(sig)) {
			return true
		}
	}
	return false
}
