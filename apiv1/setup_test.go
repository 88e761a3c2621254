package apiv1_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goironic/ironic/apiv1"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/wire"
	"github.com/goironic/ironic/rpc"
)

// Setup is the one test harness of the API tree: the real router over a
// fresh SQLite database, with the in-process conductor behind the real
// RPC transport and the all-in-one driver configuration.
type Setup struct {
	T       testing.TB
	API     *apiv1.API
	Store   *db.Store
	Version string // sent as X-OpenStack-Ironic-API-Version unless a request says otherwise

	// settle waits for the conductor's workers: Do calls it after each
	// request, so that async actions (202) have finished when it returns.
	settle func()
}

// SetupOption adjusts the harness before the API is built.
type SetupOption func(*setupOptions)

type setupOptions struct {
	conf map[string]string
	wrap func(rpc.ConductorAPI) rpc.ConductorAPI
}

// WithConf sets an ironic.conf option ("section.name").
func WithConf(key, value string) SetupOption {
	return func(o *setupOptions) { o.conf[key] = value }
}

// WithConductor puts wrap around the conductor client the API calls (the
// real in-process conductor behind rpc.Local), so that a test can observe
// calls or answer some of them itself; see FakeConductor.
func WithConductor(wrap func(rpc.ConductorAPI) rpc.ConductorAPI) SetupOption {
	return func(o *setupOptions) { o.wrap = wrap }
}

// NewSetup builds the harness; everything is torn down with the test.
func NewSetup(t testing.TB, opts ...SetupOption) *Setup {
	t.Helper()
	dir := t.TempDir()
	so := &setupOptions{conf: map[string]string{
		"DEFAULT.host":        "test-host",
		"database.connection": "sqlite:///" + filepath.Join(dir, "ironic.sqlite"),
	}}
	for _, o := range opts {
		o(so)
	}
	over := so.conf
	var lopts []conf.LoadOption
	lopts = append(lopts, conf.AllInOne(), conf.WithDefaultConfigFiles(), conf.WithDefaultConfigDirs())
	for k, v := range over {
		sec, name, _ := strings.Cut(k, ".")
		lopts = append(lopts, conf.WithOverride(sec, name, v))
	}
	cfg, err := conf.Load(nil, lopts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	store, err := wire.OpenDB(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Upgrade(ctx); err != nil {
		t.Fatal(err)
	}
	reg, err := wire.Registry(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	cond := wire.Conductor(cfg, store, reg, log)
	if err := cond.Register(ctx); err != nil {
		t.Fatal(err)
	}
	calls := wire.InProcess(cond, store, log)
	if so.wrap != nil {
		calls = so.wrap(calls)
	}
	api, err := wire.API(cfg, store, calls, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	return &Setup{T: t, API: api, Store: store, Version: "1.82", settle: cond.Wait}
}

// Result is an answer with its body decoded.
type Result struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   any
}

// Do sends one request through the router. body may be nil, a string
// (sent as is) or a value encoded as JSON.
func (s *Setup) Do(method, path string, body any, headers ...string) Result {
	s.T.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := pyjson.Marshal(b)
		if err != nil {
			s.T.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.Version != "" {
		req.Header.Set("X-OpenStack-Ironic-API-Version", s.Version)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	s.API.ServeHTTP(w, req)
	if s.settle != nil {
		s.settle()
	}
	res := Result{Status: w.Code, Header: w.Header(), Raw: w.Body.Bytes()}
	if len(res.Raw) > 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		if err := pyjson.Unmarshal(res.Raw, &res.JSON); err != nil {
			s.T.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, res.Raw)
		}
	}
	return res
}

// Must is Do that fails the test unless the status is want.
func (s *Setup) Must(want int, method, path string, body any, headers ...string) Result {
	s.T.Helper()
	res := s.Do(method, path, body, headers...)
	if res.Status != want {
		s.T.Fatalf("%s %s: status %d, want %d\n%s", method, path, res.Status, want, res.Raw)
	}
	return res
}

// Field reads a top-level field of a JSON object answer.
func (r Result) Field(k string) any {
	m, _ := r.JSON.(map[string]any)
	return m[k]
}

// versionHeaders are the values of the X-OpenStack-Ironic-API-Version
// header under any spelling of its name (the API writes Ironic's
// spelling, which is not Go's canonical one).
func (r Result) versionHeaders() []string {
	var out []string
	for k, v := range r.Header {
		if strings.EqualFold(k, "X-OpenStack-Ironic-API-Version") {
			out = append(out, v...)
		}
	}
	return out
}
