package jsonrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/oslo"
)

// ClientConfig is what a json-rpc client needs: ironic_lib's client
// options under [json_rpc].
type ClientConfig struct {
	// Port is [json_rpc]port, used when the conductor's host name carries
	// none.
	Port int
	// Timeout bounds each call ([DEFAULT]rpc_response_timeout); zero
	// leaves only the caller's deadline (and Session.Timeout).
	Timeout time.Duration
	// AuthStrategy is [json_rpc]auth_strategy; unset, DefaultAuthStrategy
	// ([DEFAULT]auth_strategy) applies.
	AuthStrategy, DefaultAuthStrategy string
	// UseSSL is [json_rpc]use_ssl: calls go to https://, verified with
	// Session.CAFile (the system's roots without it) unless
	// Session.Insecure.
	UseSSL bool
	// Username and Password are [json_rpc]http_basic_username/password
	// (deprecated): under http_basic they take precedence over
	// Session.Username/Password.
	Username, Password string
	// Session is [json_rpc]'s keystoneauth options: the password or
	// application credential plugin's (keystone: a token sent as
	// X-Auth-Token; http_basic: username and password), and the session's TLS (cafile, certfile,
	// keyfile, insecure) and timeout, used under every strategy.
	Session keystoneauth.Options
	// DefaultDomainID and DefaultDomainName are [json_rpc]
	// default_domain_id/name: the user's and the project's domain when
	// those are not set.
	DefaultDomainID, DefaultDomainName string
	// TrustID is [json_rpc]trust_id, which this client cannot use: set,
	// it stops start-up.
	TrustID string
}

// Strategy is the strategy in effect, as ironic_lib's auth_strategy().
func (c ClientConfig) Strategy() string {
	return effectiveStrategy(c.AuthStrategy, c.DefaultAuthStrategy)
}

// Transport sends oslo requests as json-rpc POSTs (oslo.Transport).
type Transport struct {
	cfg    ClientConfig
	scheme string
	user   string // http_basic's user; "" sends no Authorization
	pass   string
	tokens *tokenSource // keystone; nil otherwise
	http   *http.Client
	ids    ironic.UUIDSource
	log    *slog.Logger
	err    error // NewTransport's configuration error
}

var _ oslo.Transport = (*Transport)(nil)

// NewTransport is New for callers that have no options to check (a
// Config built by hand: noauth or http_basic over hc); a configuration
// New refuses makes every call fail with New's error. Wiring that binds
// the options calls New, whose error stops start-up.
func NewTransport(cfg ClientConfig, hc *http.Client, ids ironic.UUIDSource, log *slog.Logger) *Transport {
	t, err := New(cfg, hc, ids, log)
	if err != nil {
		return &Transport{err: err}
	}
	return t
}

// New returns a transport for cfg. hc, if not nil, replaces the HTTP
// client built from cfg.Session's TLS options and timeout (tests). ids
// mints the ids of calls without a request id; may be nil. Its errors are
// configuration errors (an unknown strategy, an unreadable cafile or
// client certificate, an option it cannot honour). Under keystone, the
// first call gets the token.
func New(cfg ClientConfig, hc *http.Client, ids ironic.UUIDSource, log *slog.Logger) (*Transport, error) {
	if ids == nil {
		ids = ironic.RandomUUIDs{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Transport{cfg: cfg, scheme: "http", ids: ids, log: log}
	if cfg.UseSSL {
		t.scheme = "https"
	}
	cfg.Session.Section = "json_rpc"
	switch st := cfg.Strategy(); st {
	case NoAuth:
	case HTTPBasic:
		t.user, t.pass = cfg.Session.Username, cfg.Session.Password
		if cfg.Username != "" {
			t.user = cfg.Username
		}
		if cfg.Password != "" {
			t.pass = cfg.Password
		}
	case Keystone:
		if cfg.TrustID != "" {
			return nil, errors.New("[json_rpc]trust_id: trust-scoped tokens are not supported by this service; remove the option")
		}
		o := cfg.Session
		if o.UserDomainID == "" && o.UserDomainName == "" {
			o.UserDomainID, o.UserDomainName = cfg.DefaultDomainID, cfg.DefaultDomainName
		}
		if o.ProjectDomainID == "" && o.ProjectDomainName == "" {
			o.ProjectDomainID, o.ProjectDomainName = cfg.DefaultDomainID, cfg.DefaultDomainName
		}
		if err := keystoneauth.CheckPlugin(o); err != nil {
			return nil, err
		}
		t.tokens = &tokenSource{opts: o, log: log}
	default:
		return nil, fmt.Errorf("[json_rpc]auth_strategy: %q is not one of noauth, keystone, http_basic", st)
	}
	if hc == nil {
		var err error
		if hc, err = keystoneauth.HTTPClient(cfg.Session); err != nil {
			return nil, err
		}
	}
	t.http = hc
	return t, nil
}

// Close closes the transport's idle connections.
func (t *Transport) Close() error {
	if t.http != nil {
		t.http.CloseIdleConnections()
	}
	return nil
}

// NewClient is rpc.ConductorAPI over json-rpc. nodes may be nil.
func NewClient(t *Transport, nodes oslo.NodeIDLookup) *oslo.Client { return oslo.NewClient(t, nodes) }

// url is the conductor's endpoint: the host the hash ring names (the
// topic's suffix, after "ironic.conductor_manager." or "."), with [json_rpc]port unless the host carries a port.
func (t *Transport) url(topic string) (string, error) {
	// 21.4's API, on json-rpc, names topics ".host" (an empty prefix).
	host, ok := strings.CutPrefix(topic, rpc.Topic+".")
	if !ok {
		host, ok = strings.CutPrefix(topic, ".")
	}
	if !ok || host == "" {
		return "", fmt.Errorf("jsonrpc: topic %q names no conductor host", topic)
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(t.cfg.Port))
	}
	return t.scheme + "://" + host, nil
}

// appendBody writes the request as ironic_lib's client builds it: the
// kwargs, then context and rpc.version in params; id for a call.
func appendBody(dst []byte, req *oslo.Request, id string) ([]byte, error) {
	dst = append(dst, `{"jsonrpc": "2.0", "method": `...)
	dst = pyjson.AppendString(dst, req.Method)
	dst = append(dst, `, "params": {`...)
	var err error
	for _, a := range req.Args {
		dst = pyjson.AppendString(dst, a.Name)
		dst = append(dst, ": "...)
		if dst, err = pyjson.Append(dst, a.Value); err != nil {
			return dst, fmt.Errorf("jsonrpc: %s(%s): %w", req.Method, a.Name, err)
		}
		dst = append(dst, ", "...)
	}
	dst = append(dst, `"context": `...)
	dst = oslo.AppendContextDict(dst, req.Context)
	dst = append(dst, `, "rpc.version": `...)
	dst = pyjson.AppendString(dst, req.Version)
	dst = append(dst, '}')
	if id != "" {
		dst = append(dst, `, "id": `...)
		dst = pyjson.AppendString(dst, id)
	}
	return append(dst, '}'), nil
}

// Call sends req and returns the reply's result (nil for null).
func (t *Transport) Call(ctx context.Context, topic string, req *oslo.Request) ([]byte, error) {
	if t.err != nil {
		return nil, t.err
	}
	id := t.ids.NewUUID()
	if req.Context != nil && req.Context.RequestID != "" {
		id = req.Context.RequestID
	}
	return t.post(ctx, topic, req, id)
}

// Cast sends req as a notification: the server answers 204 at once.
func (t *Transport) Cast(ctx context.Context, topic string, req *oslo.Request) error {
	if t.err != nil {
		return t.err
	}
	_, err := t.post(ctx, topic, req, "")
	return err
}

var errCallDeadline = errors.New("rpc_response_timeout")

func (t *Transport) post(ctx context.Context, topic string, req *oslo.Request, id string) ([]byte, error) {
	url, err := t.url(topic)
	if err != nil {
		return nil, err
	}
	body, err := appendBody(nil, req, id)
	if err != nil {
		return nil, err
	}
	if t.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.cfg.Timeout, errCallDeadline)
		defer cancel()
	}
	resp, err := t.send(ctx, url, body)
	if err != nil {
		t.log.DebugContext(ctx, "RPC failed", "method", req.Method, "url", url, "error", err)
		var f *ironic.Fault
		switch {
		case errors.As(err, &f):
			return nil, err
		case errors.Is(context.Cause(ctx), errCallDeadline):
			return nil, ironic.Errorf(ironic.TemporaryFailure,
				"Timed out waiting for a reply to %s from the conductor at %s; please retry.", req.Method, url)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		return nil, ironic.Errorf(ironic.TemporaryFailure,
			"Could not reach the conductor at %s to call %s; please retry.", url, req.Method)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, ironic.Errorf(ironic.TemporaryFailure,
			"Lost the connection to the conductor at %s while calling %s; please retry.", url, req.Method)
	}
	if resp.StatusCode >= http.StatusBadRequest {
		// keystoneauth's session raises on these; the API answers 500.
		t.log.WarnContext(ctx, "RPC refused by the conductor", "method", req.Method, "url", url,
			"status", resp.StatusCode, "body", string(data))
		return nil, ironic.Errorf(ironic.IronicException, "Unexpected error raised by RPC")
	}
	if id == "" {
		return nil, nil
	}
	return decodeReply(data)
}

// send POSTs body to url with the strategy's credentials. Under
// keystone, a 401 gets a new token and one retry, as keystoneauth's
// session does.
func (t *Transport) send(ctx context.Context, url string, body []byte) (*http.Response, error) {
	var token string
	for attempt := 0; ; attempt++ {
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		hreq.Header.Set("Content-Type", "application/json")
		switch {
		case t.tokens != nil:
			if token, err = t.tokens.token(ctx, token); err != nil {
				return nil, err
			}
			hreq.Header.Set("X-Auth-Token", token)
		case t.user != "":
			hreq.SetBasicAuth(t.user, t.pass)
		}
		resp, err := t.http.Do(hreq)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || t.tokens == nil || attempt > 0 {
			return resp, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	}
}

// decodeReply reads a reply as ironic_lib's client does: an error whose
// data.class names one of Ironic's exceptions is raised as that class
// with its code; any other error is "Unexpected error raised by RPC".
func decodeReply(data []byte) ([]byte, error) {
	unexpected := ironic.Errorf(ironic.IronicException, "Unexpected error raised by RPC")
	o, err := rawjson.SplitObject(data)
	if err != nil {
		return nil, unexpected
	}
	var result, rerr []byte
	for _, m := range o {
		switch m.Key {
		case "result":
			result = m.Raw
		case "error":
			rerr = m.Raw
		}
	}
	if rerr != nil && !rawjson.IsNull(rerr) {
		return nil, decodeError(rerr)
	}
	if result == nil || rawjson.IsNull(result) {
		return nil, nil
	}
	return result, nil
}

func decodeError(raw []byte) error {
	unexpected := ironic.Errorf(ironic.IronicException, "Unexpected error raised by RPC")
	o, err := rawjson.SplitObject(raw)
	if err != nil {
		return unexpected
	}
	var message, class string
	code := int64(http.StatusInternalServerError)
	for _, m := range o {
		switch m.Key {
		case "message":
			message, _ = rawjson.DecodeString(m.Raw)
		case "code":
			if c, err := rawjson.DecodeInt(m.Raw); err == nil {
				code = c
			}
		case "data":
			if d, err := rawjson.SplitObject(m.Raw); err == nil {
				for _, dm := range d {
					if dm.Key == "class" {
						class, _ = rawjson.DecodeString(dm.Raw)
					}
				}
			}
		}
	}
	name, ok := strings.CutPrefix(class, oslo.IronicExceptionModule+".")
	if !ok || name == "" || strings.Contains(name, ".") {
		return unexpected
	}
	f := &ironic.Fault{Class: ironic.Class(name), Message: message}
	if int(code) != f.Class.Code() {
		f.Status = int(code)
	}
	return f
}
