// Package fakeglance is an in-memory Glance: the part of the Image v2 API
// that Ironic's GlanceImageService (python-glanceclient) and gophercloud's
// image service use, with Glance's shapes: the version document at "/"
// (300 Multiple Choices), GET /v2/images and /v2/images/{id} (the image
// record with self, file, schema, direct_url and locations, custom
// properties at the top level), HEAD/GET /v2/images/{id}/file (the data,
// Content-MD5; 204 when the image has none), GET /v2/schemas/image
// (glanceclient builds its model from it) and webob's 404 bodies (JSON
// when the client accepts it, else plain text). It also serves the
// images' data as a Swift proxy with the tempurl middleware would, at
// /v1/<account>/<container>/<image id>, for temp URLs signed with
// Options.TempURLKey. A token is required (X-Auth-Token) only when
// Options.Token or RequireToken is set. Every request is logged, so tests can assert what
// a client sent.
package fakeglance

import (
	"bytes"
	"crypto/md5" //nolint:gosec // Glance's checksum is MD5.
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic/internal/glance"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Token, when set, is the only X-Auth-Token the image API accepts
	// (401 otherwise).
	Token string
	// RequireToken makes the image API answer 401 to requests without an
	// X-Auth-Token (any token is accepted: the fake can't ask Keystone).
	RequireToken bool
	// TempURLKey signs the Swift temp URLs the store accepts; empty: the
	// store answers 401 to every request.
	TempURLKey string
	// Now is the clock of timestamps and temp URL expiry; default
	// time.Now.
	Now func() time.Time
	// Log receives one line per request; nil discards.
	Log *slog.Logger
}

// Image is one image to serve.
type Image struct {
	// ID is the image's UUID.
	ID string
	// Data is the image's content: size, checksum (MD5), os_hash_algo
	// (sha512) and os_hash_value are computed from it unless Fields
	// sets them (set them to nil to show null).
	Data []byte
	// Fields are the record's other fields (name, status, visibility,
	// owner, disk_format, container_format, direct_url, locations,
	// kernel_id, ...); they override the defaults (status "active",
	// visibility "public", disk_format "raw", container_format "bare").
	Fields map[string]any
}

// Request is one request the server answered.
type Request struct {
	Method, Path, Query string
	Status              int
	Headers             http.Header
}

// Server is the fake Glance (and Swift store); it is an http.Handler.
type Server struct {
	opts Options

	mu     sync.Mutex
	images map[string]*Image
	reqs   []Request
}

// New returns a server holding images.
func New(opts Options, images ...Image) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, images: map[string]*Image{}}
	for _, im := range images {
		s.AddImage(im)
	}
	return s
}

// AddImage adds (or replaces) an image.
func (s *Server) AddImage(im Image) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := im
	c.Fields = map[string]any{}
	for k, v := range im.Fields {
		c.Fields[k] = v
	}
	s.images[im.ID] = &c
}

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// record returns a copy of the image's record as Glance shows it.
func (s *Server) record(im *Image) map[string]any {
	md5sum := md5.Sum(im.Data) //nolint:gosec // Glance's checksum
	sha := sha512.Sum512(im.Data)
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	r := map[string]any{
		"id": im.ID, "name": "image-" + im.ID[:8], "status": "active", "visibility": "public",
		"protected": false, "os_hidden": false, "owner": "7bd5f9a6b3d24c5e9a8c1e2f3a4b5c6d",
		"checksum": hex.EncodeToString(md5sum[:]), "os_hash_algo": "sha512", "os_hash_value": hex.EncodeToString(sha[:]),
		"size": len(im.Data), "virtual_size": nil, "min_ram": 0, "min_disk": 0,
		"disk_format": "raw", "container_format": "bare", "tags": []any{},
		"created_at": ts, "updated_at": ts,
		"self": "/v2/images/" + im.ID, "file": "/v2/images/" + im.ID + "/file", "schema": "/v2/schemas/image",
	}
	for k, v := range im.Fields {
		r[k] = v
	}
	return r
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	s.serve(rec, r)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: rec.status, Headers: r.Header.Clone()})
	s.mu.Unlock()
	s.opts.Log.Info("fake glance", "method", r.Method, "path", r.URL.Path, "status", rec.status)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/" || path == "/versions":
		s.versions(w, r)
		return
	case strings.HasPrefix(path, "/v1/"):
		s.swift(w, r)
		return
	case !strings.HasPrefix(path, "/v2/"):
		notFound(w, r, "The resource could not be found.")
		return
	}
	if (s.opts.Token != "" && r.Header.Get("X-Auth-Token") != s.opts.Token) || (s.opts.RequireToken && r.Header.Get("X-Auth-Token") == "") {
		webobError(w, r, http.StatusUnauthorized, "Unauthorized", "This server could not verify that you are authorized to access the document you requested.")
		return
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(path, "/v2/"), "/"), "/")
	switch {
	case len(parts) == 2 && parts[0] == "schemas" && parts[1] == "image" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, imageSchema)
	case len(parts) == 1 && parts[0] == "images" && r.Method == http.MethodGet:
		s.list(w)
	case len(parts) == 2 && parts[0] == "images" && r.Method == http.MethodGet:
		s.mu.Lock()
		im, ok := s.images[parts[1]]
		var rec map[string]any
		if ok {
			rec = s.record(im)
		}
		s.mu.Unlock()
		if !ok {
			notFound(w, r, "No image found with ID "+parts[1])
			return
		}
		writeJSON(w, http.StatusOK, rec)
	case len(parts) == 3 && parts[0] == "images" && parts[2] == "file" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.mu.Lock()
		im, ok := s.images[parts[1]]
		s.mu.Unlock()
		if !ok {
			notFound(w, r, "No image found with ID "+parts[1])
			return
		}
		if len(im.Data) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		md5sum := md5.Sum(im.Data) //nolint:gosec // Glance's Content-MD5
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-MD5", hex.EncodeToString(md5sum[:]))
		w.Header().Set("Content-Length", fmt.Sprint(len(im.Data)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(im.Data)
		}
	case len(parts) >= 1 && (parts[0] == "images" || parts[0] == "schemas"):
		webobError(w, r, http.StatusMethodNotAllowed, "Method Not Allowed", "The method is not allowed for this resource.")
	default:
		notFound(w, r, "The resource could not be found.")
	}
}

func (s *Server) list(w http.ResponseWriter) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.images))
	for id := range s.images {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.record(s.images[id]))
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"images": out, "first": "/v2/images", "schema": "/v2/schemas/images"})
}

// versions is Glance's version document: 300 Multiple Choices.
func (s *Server) versions(w http.ResponseWriter, r *http.Request) {
	base := "http://" + r.Host + "/v2/"
	var vs []any
	for i, id := range []string{"v2.9", "v2.7", "v2.6", "v2.5", "v2.4", "v2.3", "v2.2", "v2.1", "v2.0"} {
		status := "SUPPORTED"
		if i == 0 {
			status = "CURRENT"
		}
		vs = append(vs, map[string]any{"id": id, "status": status, "links": []any{map[string]any{"rel": "self", "href": base}}})
	}
	writeJSON(w, http.StatusMultipleChoices, map[string]any{"versions": vs})
}

// swift serves /v1/<account>/<container>/<image id> to GET and HEAD
// requests carrying a valid temp URL signature, as Swift's tempurl
// middleware does (401 "Temp URL invalid" otherwise).
func (s *Server) swift(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/"), "/")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		webobError(w, r, http.StatusMethodNotAllowed, "Method Not Allowed", "The method is not allowed for this resource.")
		return
	}
	if s.opts.TempURLKey == "" || !glance.ValidTempURL(r.URL, http.MethodGet, s.opts.TempURLKey, s.opts.Now()) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Www-Authenticate", `Swift realm="`+parts[0]+`"`)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("401 Unauthorized: Temp URL invalid\n"))
		return
	}
	s.mu.Lock()
	var im *Image
	if len(parts) == 3 {
		im = s.images[parts[2]]
	}
	s.mu.Unlock()
	if im == nil {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><h1>Not Found</h1><p>The resource could not be found.</p></html>"))
		return
	}
	md5sum := md5.Sum(im.Data) //nolint:gosec // Swift's ETag
	w.Header().Set("Etag", hex.EncodeToString(md5sum[:]))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(im.Data))
}

func notFound(w http.ResponseWriter, r *http.Request, detail string) {
	webobError(w, r, http.StatusNotFound, "Not Found", detail)
}

// webobError is webob's error page: JSON ({"message", "code", "title"})
// when the client accepts application/json and not text/html, else
// plain text "<code> <title>\n\n<detail>\n\n   ".
func webobError(w http.ResponseWriter, r *http.Request, code int, title, detail string) {
	accept := r.Header.Get("Accept")
	status := fmt.Sprintf("%d %s", code, title)
	if strings.Contains(accept, "application/json") && !strings.Contains(accept, "html") {
		writeJSON(w, code, map[string]any{"message": detail + "<br /><br />\n\n\n", "code": status, "title": title})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, "%s\n\n%s\n\n   ", status, detail)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
