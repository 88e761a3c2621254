package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// sushy's Connector retries a GET that a BMC answers with a server-side
// error (5xx) ten times, three seconds apart.
const (
	serverSideRetries    = 10
	serverSideRetryDelay = 3 * time.Second
	// maxBody bounds what is read of one answer.
	maxBody = 16 << 20
)

// response is one HTTP answer of a BMC.
type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the answer's body as an ordered document.
func (r *response) dict() *pyjson.Dict {
	d, err := pyjson.DecodeDict(r.body)
	if err != nil || d == nil {
		return pyjson.NewDict(0)
	}
	return d
}

// bmc is one connection to a Redfish service, as a sushy.Sushy object with
// its Connector and authentication is: the service root read when it is
// made, then authenticated by session (X-Auth-Token) or HTTP basic auth.
// It is safe for concurrent use.
type bmc struct {
	address    string // scheme://authority
	rootPrefix string // the service root's path
	username   string
	password   string
	authType   string // "basic", "session" or "auto"
	http       *http.Client
	timeout    time.Duration
	sleep      func(context.Context, time.Duration) error
	log        *slog.Logger

	mu sync.Mutex
	// token and sessionURI are the session's X-Auth-Token and Location.
	token, sessionURI string
	// basic says requests carry HTTP basic authentication.
	basic bool
	// previouslyOK says a session was established once (sushy's
	// _session_auth_previously_successful).
	previouslyOK bool
	// sessionsURI is the session service's collection, once known.
	sessionsURI string
	// authenticating says an authentication is configured (sushy's
	// connector._auth): until then an AccessError is not retried.
	authenticating bool

	root *pyjson.Dict

	// regs are the registries the BMC publishes, read once (regOrder is
	// their keys in the order read).
	regMu    sync.Mutex
	regs     map[string]*registry
	regOrder []string
}

// bmcParams is what a bmc is made of.
type bmcParams struct {
	info    *Info
	http    *http.Client
	timeout time.Duration
	sleep   func(context.Context, time.Duration) error
	log     *slog.Logger
}

// dial makes a connection as sushy.Sushy() does: GET the service root,
// then authenticate.
func dial(ctx context.Context, p bmcParams) (*bmc, error) {
	prefix := p.info.RootPrefix
	if prefix == "" {
		prefix = "/redfish/v1/"
	}
	b := &bmc{
		address: p.info.Address, rootPrefix: prefix,
		username: p.info.Username, password: p.info.Password, authType: p.info.AuthType,
		http: p.http, timeout: p.timeout, sleep: p.sleep, log: p.log,
	}
	r, err := b.do(ctx, http.MethodGet, prefix, nil, nil)
	if err != nil {
		return nil, err
	}
	b.root = rootLinks(r.dict())
	b.mu.Lock()
	b.authenticating = true
	b.mu.Unlock()
	if err := b.authenticate(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// url resolves a path against the BMC's address as urljoin does; an
// absolute URL is taken as is.
func (b *bmc) url(p string) string {
	if u, err := url.Parse(p); err == nil && u.Host != "" {
		return p
	}
	base, err := url.Parse(b.address + "/")
	if err != nil {
		return b.address + p
	}
	ref, err := url.Parse(p)
	if err != nil {
		return b.address + p
	}
	return base.ResolveReference(ref).String()
}

// do is sushy's Connector._op: one request, a session re-established once
// when the BMC answers 401/403 to a session-authenticated request, and a
// GET answered 5xx retried.
func (b *bmc) do(ctx context.Context, method, p string, body any, hdr map[string]string) (*response, error) {
	u := b.url(p)
	for retries := serverSideRetries; ; retries-- {
		r, err := b.send(ctx, method, u, body, hdr)
		if err != nil {
			return nil, err
		}
		if r.status < 400 {
			return r, nil
		}
		herr := httpError(method, u, r.status, r.body)
		switch {
		case r.status == http.StatusUnauthorized || r.status == http.StatusForbidden:
			return b.accessDenied(ctx, method, u, body, hdr, herr)
		case r.status >= 500 && method == http.MethodGet && retries > 0 && !drivers.IsSingleAttempt(ctx):
			b.log.WarnContext(ctx, "Got server side error in response to a GET request, retrying", "url", u, "error", herr,
				"after", serverSideRetryDelay)
			if err := b.sleep(ctx, serverSideRetryDelay); err != nil {
				return nil, connectionError(u, err)
			}
			continue
		}
		return nil, herr
	}
}

// accessDenied handles an AccessError as sushy's connector does: the
// session service's own refusal and basic authentication's are final; a
// session that was lost is established again and the request sent once
// more.
func (b *bmc) accessDenied(ctx context.Context, method, u string, body any, hdr map[string]string, herr error) (*response, error) {
	b.mu.Lock()
	sessions, basic, authenticating := b.sessionsURI, b.basic, b.authenticating
	b.mu.Unlock()
	if method == http.MethodPost && sessions != "" && strings.Contains(u, sessions) {
		b.log.ErrorContext(ctx, "Authentication to the session service failed. Please check credentials and try again.")
		return nil, herr
	}
	if !authenticating || basic {
		return nil, herr
	}
	b.log.WarnContext(ctx, "Session authentication appears to have been lost; re-authenticating", "error", herr)
	if err := b.authenticate(ctx); err != nil {
		return nil, err
	}
	r, err := b.send(ctx, method, u, body, hdr)
	if err != nil {
		return nil, err
	}
	if r.status >= 400 {
		return nil, httpError(method, u, r.status, r.body)
	}
	return r, nil
}

// send sends one request with sushy's headers and the connection's
// credentials.
func (b *bmc) send(ctx context.Context, method, u string, body any, hdr map[string]string) (*response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, connectionError(u, err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, connectionError(u, err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("Accept", "*/*")
	req.Header.Set("User-Agent", "goironic")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("OData-Version", "4.0")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	b.mu.Lock()
	switch {
	case b.token != "":
		req.Header.Set("X-Auth-Token", b.token)
	case b.basic:
		req.SetBasicAuth(b.username, b.password)
	}
	b.mu.Unlock()
	resp, err := b.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			err = fmt.Errorf("%s %s: %w", method, u, ctxErr)
		}
		return nil, connectionError(u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, connectionError(u, err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// authenticate is the auth class's authenticate(): basic credentials, a
// new session, or (auto) a session falling back to basic authentication.
func (b *bmc) authenticate(ctx context.Context) error {
	if b.authType == "basic" {
		b.setBasic()
		return nil
	}
	err := b.createSession(ctx)
	if err == nil || b.authType == "session" {
		return err
	}
	b.mu.Lock()
	canRefresh := b.token != "" && b.sessionURI != ""
	prev := b.previouslyOK
	b.mu.Unlock()
	switch {
	case isKind(err, kindAccess):
		if canRefresh || prev {
			return err
		}
	case isKind(err, kindConnection):
		return err
	case !isSushy(err):
		return err
	}
	b.log.WarnContext(ctx, "Falling back to \"Basic\" authentication as we have been unable to authenticate to the BMC", "error", err)
	b.setBasic()
	return nil
}

func isSushy(err error) bool { _, ok := asSushy(err); return ok }

func (b *bmc) setBasic() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.token, b.sessionURI = "", ""
	b.basic = true
}

// createSession is Sushy.create_session and SessionAuth._do_authenticate:
// POST the credentials to the session service named by the service root
// (or the standard path) and keep the X-Auth-Token it answers.
func (b *bmc) createSession(ctx context.Context) error {
	b.mu.Lock()
	b.token, b.sessionURI, b.basic = "", "", false
	b.mu.Unlock()
	var sessions string
	if links, ok := pyjson.AsDict(b.root.Get("Links")); ok {
		if s, ok := pyjson.AsDict(links.Get("Sessions")); ok {
			if id, ok := s.Get("@odata.id").(string); ok {
				sessions = id
			}
		}
	}
	sessionsURI := sessions
	if sessions == "" {
		sessions = path.Join(b.rootPrefix, "SessionService/Sessions")
		sessionsURI = b.rootPrefix + "SessionService/Sessions"
		b.log.WarnContext(ctx, "Could not discover the Session service path, falling back", "path", sessions)
	}
	b.mu.Lock()
	b.sessionsURI = sessionsURI
	b.mu.Unlock()
	body := pyjson.DictOf("UserName", nilIfEmpty(b.username), "Password", nilIfEmpty(b.password))
	r, err := b.do(ctx, http.MethodPost, sessions, body, nil)
	if err != nil {
		return err
	}
	token := r.header.Get("X-Auth-Token")
	if token == "" {
		return newHTTPError(kindMissingXAuth, http.MethodPost, b.url(sessions), r.status, r.body)
	}
	loc := r.header.Get("Location")
	if loc == "" {
		b.log.WarnContext(ctx, "Received X-Auth-Token but NO session uri.")
	}
	b.mu.Lock()
	b.token, b.sessionURI, b.previouslyOK = token, loc, true
	b.mu.Unlock()
	return nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// close ends the connection's session on the BMC (sushy's
// SessionAuth.close), if it has one. Its idle HTTP connections belong to
// the shared transport, which closes them after its idle timeout.
func (b *bmc) close(ctx context.Context) {
	b.mu.Lock()
	uri := b.sessionURI
	b.mu.Unlock()
	if uri != "" {
		if _, err := b.do(ctx, http.MethodDelete, uri, nil, nil); err != nil {
			b.log.WarnContext(ctx, "Ignoring error while closing Redfish session", "session", uri, "error", err)
		}
		b.mu.Lock()
		b.token, b.sessionURI = "", ""
		b.mu.Unlock()
	}
}

// rootLinks keeps of the service root only what a connection reads later
// (Systems, EventService, Registries, and of Links only Sessions), so
// that a cached connection doesn't hold the whole document.
func rootLinks(root *pyjson.Dict) *pyjson.Dict {
	rootKeys := [...]string{"Systems", "EventService", "Registries", "Links"}
	out := pyjson.NewDict(len(rootKeys))
	for _, k := range rootKeys {
		v, ok := root.Lookup(k)
		if !ok {
			continue
		}
		if links, isDict := pyjson.AsDict(v); k == "Links" && isDict {
			trimmed := pyjson.NewDict(1)
			if s, ok := links.Lookup("Sessions"); ok {
				trimmed.Set("Sessions", s)
			}
			v = trimmed
		}
		out.Set(k, v)
	}
	return out
}

// get, post, patch and delete are the Connector's verbs.
func (b *bmc) get(ctx context.Context, p string) (*response, error) {
	return b.do(ctx, http.MethodGet, p, nil, nil)
}

func (b *bmc) post(ctx context.Context, p string, body any) (*response, error) {
	return b.do(ctx, http.MethodPost, p, body, nil)
}

func (b *bmc) delete(ctx context.Context, p string, body any) (*response, error) {
	return b.do(ctx, http.MethodDelete, p, body, nil)
}

// patch is the Connector's _etag_handler: PATCH with If-Match when an ETag
// is known; a 412 answer to a weak ETag is retried with the strong one,
// then without any.
func (b *bmc) patch(ctx context.Context, p string, body any, etag string) (*response, error) {
	var hdr map[string]string
	if etag != "" {
		hdr = map[string]string{"If-Match": etag}
	}
	r, err := b.do(ctx, http.MethodPatch, p, body, hdr)
	if err == nil || etag == "" {
		return r, err
	}
	if s, ok := asSushy(err); !ok || s.status != http.StatusPreconditionFailed {
		return nil, err
	}
	b.log.WarnContext(ctx, "Initial request with eTag failed", "error", err)
	if strong, ok := strongETag(etag); ok {
		r, err := b.do(ctx, http.MethodPatch, p, body, map[string]string{"If-Match": strong})
		if err == nil {
			return r, nil
		}
	}
	return b.do(ctx, http.MethodPatch, p, body, nil)
}

// strongETag turns W/"x" into "x" (sushy's ^(W\/)("\w*")$).
func strongETag(etag string) (string, bool) {
	rest, ok := strings.CutPrefix(etag, "W/")
	if !ok || len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", false
	}
	for _, c := range rest[1 : len(rest)-1] {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", false
		}
	}
	return rest, true
}

// blockingTimeout bounds the wait for an asynchronous operation sushy
// waits for (its timeout=500 of volume operations).
const blockingTimeout = 500 * time.Second

// blocking is the Connector's _op with blocking=True when block is set:
// an answer 202 is followed through its task monitor (read until it
// answers something else, Retry-After or a second apart), whose last
// answer is the result.
func (b *bmc) blocking(ctx context.Context, method, p string, body any, block bool) (*response, error) {
	r, err := b.do(ctx, method, p, body, nil)
	if err != nil || !block || r.status != http.StatusAccepted {
		return r, err
	}
	u := b.url(p)
	loc := r.header.Get("Location")
	if loc == "" {
		return nil, connectionError(u, fmt.Errorf("HTTP response for %s request to %s returned status 202, but no Location header", method, u))
	}
	monitor, err := taskMonitorURI(r, p)
	if err != nil {
		return nil, err
	}
	waited := time.Duration(0)
	for {
		r, err = b.get(ctx, monitor)
		if err != nil {
			return nil, err
		}
		if r.status != http.StatusAccepted {
			return r, nil
		}
		d := time.Second
		if ra := r.header.Get("Retry-After"); ra != "" {
			if n, err := strconv.Atoi(ra); err == nil {
				d = time.Duration(n) * time.Second
			}
		}
		if err := b.sleep(ctx, d); err != nil {
			return nil, connectionError(monitor, err)
		}
		waited += d
		if waited >= blockingTimeout {
			r, err = b.get(ctx, monitor)
			if err != nil {
				return nil, err
			}
			if r.status == http.StatusAccepted {
				return nil, connectionError(monitor, fmt.Errorf("Timeout waiting for task monitor %s (timeout = 500)", monitor)) //nolint:staticcheck // sushy's message
			}
			return r, nil
		}
	}
}

// urlJoin is urllib.parse.urljoin.
func urlJoin(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}
