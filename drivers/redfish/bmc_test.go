package redfish_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/redfishbmc"
)

// rig is the redfish interfaces of one hardware type talking to an
// emulated BMC, with a node whose driver_info points at it.
type rig struct {
	t     *testing.T
	ts    *redfishbmc.TestServer
	sys   *redfishbmc.System
	task  *fake.Task
	drv   *drivers.Driver
	slept []time.Duration
}

func newRig(t *testing.T, spec redfishbmc.SystemSpec, opts ...func(*redfish.Config)) *rig {
	t.Helper()
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	r := &rig{t: t, ts: ts, sys: ts.AddSystem(spec)}
	cfg := redfish.DefaultConfig()
	cfg.Sleep = func(_ context.Context, d time.Duration) error {
		r.slept = append(r.slept, d)
		return nil
	}
	cfg.RequestTimeout = 5 * time.Second
	for _, o := range opts {
		o(&cfg)
	}
	r.drv = drivers.NewDriver("redfish", redfish.Implementations(cfg)...)
	t.Cleanup(func() { redfish.CloseImplementations(r.drv) })
	r.task = &fake.Task{Drv: r.drv, Node: &fake.Node{
		UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "redfish",
		DriverInfo: pyjson.DictOf("redfish_address", ts.URL, "redfish_username", "admin",
			"redfish_password", "password", "redfish_system_id", r.sys.Path()),
	}}
	return r
}

// requests returns the BMC's request log as "METHOD path body" lines and
// clears it.
func (r *rig) requests() []string {
	var out []string
	for _, q := range r.ts.Requests() {
		line := q.Method + " " + q.Path
		if len(q.Body) > 0 {
			var v any
			_ = json.Unmarshal(q.Body, &v)
			b, _ := json.Marshal(v)
			line += " " + string(b)
		}
		out = append(out, line)
	}
	r.ts.ResetRequests()
	return out
}

func (r *rig) wantRequests(want ...string) {
	r.t.Helper()
	got := r.requests()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		r.t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
