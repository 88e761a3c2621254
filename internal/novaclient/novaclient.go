// Package novaclient tells Nova about power state changes it did not ask
// for, as Ironic's ironic.common.nova does: a "power-update" server
// external event (POST /os-server-external-events, compute microversion
// 2.76) for the node's instance, configured by [nova] (the keystoneauth
// options and send_power_notifications).
//
// Ironic sends the event from the conductor's task, holding the node's
// lock, and waits for Nova. This client queues it and returns: a worker
// delivers the queue in order and exits when it is empty, so a slow or
// unreachable Nova delays no power action (docs/departures.md).
package novaclient

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/states"
)

// Microversion is the compute API microversion of power-update events.
const Microversion = "2.76"

// maxQueue bounds the events waiting for Nova; beyond it new ones are
// dropped with a warning (Nova's own power sync catches up).
const maxQueue = 1000

// Config is [nova].
type Config struct {
	// Options are the section's keystoneauth options; ServiceType
	// defaults to "compute".
	keystoneauth.Options
	// SendPowerNotifications is send_power_notifications (True).
	SendPowerNotifications bool
}

// Bind reads [nova].
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "nova")
	b.Bool(&c.SendPowerNotifications, "nova", "send_power_notifications")
}

type event struct {
	ctx    context.Context
	server string
	tag    string
}

// Notifier sends power-update events.
type Notifier struct {
	cfg Config
	log *slog.Logger
	svc keystoneauth.Service
	// timeout bounds one delivery when [nova]timeout sets none.
	timeout time.Duration

	mu      sync.Mutex
	queue   []event
	running bool
	idle    *sync.Cond
}

// New returns a notifier; nothing is contacted before the first event.
func New(cfg Config, log *slog.Logger) *Notifier {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "nova"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "compute"
	}
	n := &Notifier{cfg: cfg, log: log, timeout: time.Minute}
	n.idle = sync.NewCond(&n.mu)
	return n
}

// PowerUpdate is nova.power_update: it queues the event for server (the
// node's instance) with tag POWER_ON or POWER_OFF; other states are
// logged and dropped, as Ironic does. It never blocks.
func (n *Notifier) PowerUpdate(ctx context.Context, server string, state states.Power) {
	if !n.cfg.SendPowerNotifications {
		return
	}
	var tag string
	switch state {
	case states.PowerOn:
		tag = "POWER_ON"
	case states.PowerOff:
		tag = "POWER_OFF"
	default:
		n.log.ErrorContext(ctx, fmt.Sprintf("Invalid Power State %s.", pyState(state)))
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.queue) >= maxQueue {
		n.log.WarnContext(ctx, "Nova power notifications are not being delivered fast enough: dropping one", "instance", server, "tag", tag)
		return
	}
	n.queue = append(n.queue, event{ctx: context.WithoutCancel(ctx), server: server, tag: tag})
	if !n.running {
		n.running = true
		go n.deliver()
	}
}

// Wait returns when the queue is empty (for tests and shutdown).
func (n *Notifier) Wait() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for n.running {
		n.idle.Wait()
	}
}

func (n *Notifier) deliver() {
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.running = false
			n.idle.Broadcast()
			n.mu.Unlock()
			return
		}
		e := n.queue[0]
		n.queue = n.queue[1:]
		n.mu.Unlock()
		n.send(e)
	}
}

// send is _send_event, with Ironic's log messages.
func (n *Notifier) send(e event) bool {
	ctx := e.ctx
	if n.cfg.Timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, n.timeout)
		defer cancel()
	}
	ev := map[string]any{"name": "power-update", "server_uuid": e.server, "tag": e.tag}
	sc, err := n.svc.Get(ctx, n.build)
	if err != nil {
		n.log.WarnContext(ctx, fmt.Sprintf("Could not connect to Nova to send a power notification, please check configuration. %s", err))
		return false
	}
	headers := map[string]string{
		"Accept": "application/json",
		// keystoneauth's microversion headers for the compute service.
		"OpenStack-API-Version":        "compute " + Microversion,
		"X-OpenStack-Nova-API-Version": Microversion,
	}
	if rc := ironic.FromContext(ctx); rc != nil {
		// oslo.context's global_id: the global request ID, else the
		// request's own.
		if id := cmp.Or(rc.GlobalRequest, rc.RequestID); id != "" {
			headers["X-OpenStack-Request-ID"] = id
		}
	}
	var codes []int
	for c := 100; c < 600; c++ {
		codes = append(codes, c)
	}
	resp, err := sc.ProviderClient.Request(ctx, http.MethodPost, strings.TrimRight(sc.Endpoint, "/")+"/os-server-external-events",
		&gophercloud.RequestOpts{JSONBody: map[string]any{"events": []any{ev}}, MoreHeaders: headers, OkCodes: codes, KeepResponseBody: true})
	if err != nil {
		n.log.WarnContext(ctx, fmt.Sprintf("Could not connect to Nova to send a power notification, please check configuration. %s", err))
		return false
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	evJSON, _ := json.Marshal(ev)
	if resp.StatusCode >= 400 {
		n.log.WarnContext(ctx, fmt.Sprintf("Failed to notify nova on event: %s. %s.", evJSON, text))
		return false
	}
	var out struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal(text, &out); err != nil || len(out.Events) == 0 {
		n.log.ErrorContext(ctx, fmt.Sprintf("Invalid response <Response [%d]> returned from nova for power-update event %s. %v.", resp.StatusCode, evJSON, err))
		return false
	}
	code, _ := out.Events[0]["code"].(float64)
	if code >= 400 {
		re, _ := json.Marshal(out.Events[0])
		n.log.WarnContext(ctx, fmt.Sprintf("Nova event: %s returned with failed status.", re))
		return false
	}
	n.log.DebugContext(ctx, "Nova event response", "event", out.Events[0])
	return true
}

func (n *Notifier) build(ctx context.Context) (*gophercloud.ServiceClient, error) {
	pc, u, _, err := keystoneauth.Connect(ctx, n.cfg.Options, nil)
	if err != nil {
		return nil, err
	}
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: gophercloud.NormalizeURL(u), Type: "compute"}, nil
}

func pyState(s states.Power) string {
	if s == "" {
		return "None"
	}
	return string(s)
}
