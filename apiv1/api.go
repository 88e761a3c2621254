// Package apiv1 serves Ironic's v1 REST API: one route table on gorilla/mux
// (routes.go), arguments bound as pecan and args.validate bind them
// (args.go), paging (collection.go), one file per resource, per-version
// views, Ironic's JSON-Patch rules, and the single place where faults
// become HTTP.
//
// apiv1 never imports the conductor or a driver: node changes go through the
// Conductor interface (an RPC client), reads go straight to the Store.
package apiv1

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/strutils"
	"github.com/goironic/ironic/microversions"
)

// Config holds the API's settings (Ironic's [api] and a few [DEFAULT] options).
type Config struct {
	// EnforceNewDefaults is [oslo_policy] enforce_new_defaults, which
	// Ironic's API also reads itself (allocation owners).
	EnforceNewDefaults bool
	// PublicEndpoint is [api]public_endpoint; empty means the request's
	// scheme://host.
	PublicEndpoint string
	// MaxLimit is [api]max_limit, the default and maximum page size.
	MaxLimit int
	// Versions is the served microversion range (zero: all of this
	// build's).
	Versions microversions.Range
	// PinReleaseVersion is [DEFAULT]pin_release_version: when set (e.g.
	// "21.1"), the maximum of Versions is that release's.
	PinReleaseVersion string
	// DefaultResourceClass is [DEFAULT]default_resource_class.
	DefaultResourceClass string
	// HeartbeatTimeout is [conductor]heartbeat_timeout in seconds, used to
	// decide whether a conductor is alive.
	HeartbeatTimeout int
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64
	// ProjectAdminCanManageOwnNodes is [api]project_admin_can_manage_own_nodes.
	ProjectAdminCanManageOwnNodes bool
	// Ramdisk holds what lookup and heartbeat answer the agent with.
	Ramdisk RamdiskConfig
}

// Deps are the API's collaborators.
type Deps struct {
	Store     Store
	Conductor Conductor
	Policy    Policy
	Clock     ironic.Clock
	UUIDs     ironic.UUIDSource
	Log       *slog.Logger
}

// API is the v1 HTTP handler.
type API struct {
	cfg     Config
	d       Deps
	router  *mux.Router
	bufs    sync.Pool
	schemas *schemas
	masker  *strutils.Masker
	// patches serializes the read-modify-write of PATCHes to one node in
	// this process (see lockNode).
	patches [64]sync.Mutex
	// ipxeTopics remembers the conductor ipxe_config calls go to.
	ipxeTopics ipxeTopicCache
}

// lockNode serializes PATCHes of the node with this UUID: a PATCH reads
// the node, applies the patch and sends the whole changed fields to the
// conductor, so two concurrent PATCHes of one dict field (extra, say)
// would otherwise both start from the same value and the later one
// would drop the earlier one's change. The caller re-reads the node
// after locking.
func (a *API) lockNode(uuid string) (unlock func()) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(uuid))
	mu := &a.patches[h.Sum32()%uint32(len(a.patches))]
	mu.Lock()
	return mu.Unlock
}

// New builds the API handler.
func New(cfg Config, d Deps) (*API, error) {
	if cfg.Versions == (microversions.Range{}) {
		cfg.Versions = microversions.Default()
	}
	if cfg.PinReleaseVersion != "" {
		max, ok := microversions.ReleaseMax(cfg.PinReleaseVersion)
		if !ok {
			return nil, fmt.Errorf("[DEFAULT]pin_release_version %q is not a known release", cfg.PinReleaseVersion)
		}
		cfg.Versions.Max = max
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20 * 100
	}
	if d.Clock == nil {
		d.Clock = ironic.SystemClock{}
	}
	if d.UUIDs == nil {
		d.UUIDs = ironic.RandomUUIDs{}
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Policy == nil {
		d.Policy = AllowAll{}
	}
	sch, err := compileSchemas()
	if err != nil {
		return nil, fmt.Errorf("compiling request schemas: %w", err)
	}
	a := &API{cfg: cfg, d: d, schemas: sch, masker: strutils.NewMasker()}
	a.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	a.router = a.routes()
	return a, nil
}

// ServeHTTP normalises the path the way Ironic's pecan root does and
// dispatches: "/" is the version document for any method; "/v1" the v1
// document; "/v1/<res>…" and "/<res>…" are the same resource; a trailing
// "/" and a ".json" suffix are dropped.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A bug must cost one request, answered in Ironic's format, not
		// the connection.
		if p := recover(); p != nil {
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p)
			}
			a.d.Log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", r.URL.Path,
				"panic", p, "stack", string(debug.Stack()))
			a.writeFault(w, r, &ironic.Fault{Class: ironic.IronicException, Message: "An unknown exception occurred."})
		}
	}()
	if accept := r.Header.Get("Accept"); !acceptsJSON(accept) {
		a.writeNotAcceptable(w, accept)
		return
	}
	path := r.URL.Path
	if path == "" || path == "/" || path == "/.json" {
		a.serveRoot(w, r)
		return
	}
	rest := strings.TrimPrefix(path, "/")
	jsonSuffix := false
	if strings.HasSuffix(rest, ".json") {
		rest = strings.TrimSuffix(rest, ".json")
		jsonSuffix = true
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "v1" || rest == "" {
		a.serveV1Root(w, r)
		return
	}
	rest = strings.TrimPrefix(rest, "v1/")
	rq := &Request{
		HTTP:       r,
		api:        a,
		jsonSuffix: jsonSuffix,
	}
	neg := a.cfg.Versions.Negotiate(r.Header.Get(microversions.HeaderVersion), len(r.Header.Values(microversions.HeaderVersion)) > 0)
	if neg.Fault != nil {
		if neg.RangeHeaders {
			a.setRangeHeaders(w)
		}
		a.writeFault(w, r, neg.Fault)
		return
	}
	rq.Ver = neg.Version
	r2 := r.Clone(a.requestContext(r))
	r2.URL.Path = "/" + rest
	r2.URL.RawPath = ""
	rq.HTTP = r2
	w = &versionedWriter{ResponseWriter: w, api: a, rq: rq}
	a.router.ServeHTTP(w, r2.WithContext(context.WithValue(r2.Context(), requestKey{}, rq)))
}

type requestKey struct{}

// requestContext builds the caller's RequestContext: a copy of the
// identity the authentication middleware (apiv1/auth) attached, with this
// request's ids.
func (a *API) requestContext(r *http.Request) context.Context {
	rc := new(ironic.RequestContext)
	*rc = *ironic.FromContext(r.Context())
	rc.RequestID = "req-" + a.d.UUIDs.NewUUID()
	rc.GlobalRequest = ""
	if g := r.Header.Get("X-Openstack-Request-Id"); isGlobalRequestID(g) {
		rc.GlobalRequest = g
	}
	return ironic.WithRequestContext(r.Context(), rc)
}

func isGlobalRequestID(s string) bool {
	return len(s) == 40 && strings.HasPrefix(s, "req-") && isUUID(s[4:])
}

func (a *API) setRangeHeaders(w http.ResponseWriter) {
	h := w.Header()
	h[microversions.HeaderMin] = []string{a.cfg.Versions.Min.String()}
	h[microversions.HeaderMax] = []string{a.cfg.Versions.Max.String()}
}

// versionedWriter adds the version headers and the request id to every
// answer a handler writes (but not to routing errors, as in Ironic).
type versionedWriter struct {
	http.ResponseWriter
	api     *API
	rq      *Request
	written bool
	plain   bool
}

func (vw *versionedWriter) WriteHeader(code int) {
	if !vw.written {
		vw.written = true
		if !vw.plain {
			h := vw.Header()
			vw.api.setRangeHeaders(vw.ResponseWriter)
			h[microversions.HeaderVersion] = []string{vw.rq.Ver.String()}
			h["Openstack-Request-Id"] = []string{ironic.FromContext(vw.rq.HTTP.Context()).RequestID}
		}
	}
	vw.ResponseWriter.WriteHeader(code)
}

func (vw *versionedWriter) Write(b []byte) (int, error) {
	if !vw.written {
		vw.WriteHeader(http.StatusOK)
	}
	return vw.ResponseWriter.Write(b)
}
