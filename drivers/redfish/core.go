package redfish

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
)

// defaultRequestTimeout bounds one request to a BMC when Config sets none.
const defaultRequestTimeout = 60 * time.Second

// core is what the redfish interfaces share: the configuration and the
// connection cache (Ironic's SessionCache is process-wide, so one BMC's
// session serves every interface).
type core struct {
	cfg        Config
	pool       *pool
	transports *transports
	log        *slog.Logger
	sleep      func(context.Context, time.Duration) error
	rand       func() float64
	now        func() time.Time
}

func newCore(cfg Config) *core {
	c := &core{cfg: cfg, log: cfg.Log, sleep: cfg.Sleep, rand: cfg.Rand}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	c.now = cfg.Now
	if c.now == nil {
		c.now = time.Now
	}
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = defaultRequestTimeout
	}
	c.transports = newTransports(cfg.IdleConnTimeout)
	c.pool = newPool(cfg.ConnectionCacheSize, timeout, c.log, func(ctx context.Context, info *Info) (*bmc, error) {
		hc, err := c.transports.client(info.VerifyCA)
		if err != nil {
			return nil, connectionError(info.Address, err)
		}
		return dial(ctx, bmcParams{info: info, http: hc, timeout: timeout, sleep: c.sleep, log: c.log})
	})
	return c
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// conn is a connection in use by one operation.
type conn struct {
	b       *bmc
	release func()
}

// withConnection is Ironic's redfish_utils._get_connection: fn runs on the
// node's cached (or a new) connection; a connection error is retried
// [redfish]connection_attempts times, [redfish]connection_retry_interval
// apart, and becomes RedfishConnectionError; an access error
// RedfishError. Both drop the cached connection. Other errors are
// returned as they are.
func (c *core) withConnection(ctx context.Context, task drivers.Task, info *Info, fn func(b *bmc) error) (*conn, error) {
	attempts := max(c.cfg.ConnectionAttempts, 1)
	if drivers.IsSingleAttempt(ctx) {
		attempts = 1
	}
	var err error
	for i := range attempts {
		if i > 0 {
			if serr := c.sleep(ctx, c.cfg.ConnectionRetryInterval); serr != nil {
				return nil, err
			}
		}
		var cn *conn
		cn, err = c.attempt(ctx, task, info, fn)
		if err == nil {
			return cn, nil
		}
		if !ironic.IsClass(err, ironic.RedfishConnectionError) {
			return nil, err
		}
	}
	c.log.ErrorContext(ctx, "Failed to connect to Redfish", "address", info.Address, "node", task.NodeUUID(), "error", err)
	return nil, err
}

func (c *core) attempt(ctx context.Context, task drivers.Task, info *Info, fn func(b *bmc) error) (*conn, error) {
	b, release, err := c.pool.get(ctx, info)
	if err == nil {
		if err = fn(b); err != nil {
			if isKind(err, kindConnection) || isKind(err, kindAccess) {
				c.pool.drop(info, b)
			}
			release()
		}
	}
	switch {
	case err == nil:
		return &conn{b: b, release: release}, nil
	case isKind(err, kindConnection):
		c.log.WarnContext(ctx, "got a connection error from Redfish", "node", task.NodeUUID(), "address", info.Address,
			"auth_type", info.AuthType, "error", err)
		return nil, ironic.Errorf(ironic.RedfishConnectionError, "Redfish connection failed for node %s: %s", task.NodeUUID(), err)
	case isKind(err, kindAccess):
		c.log.WarnContext(ctx, "received an authentication access error from Redfish; the client will not be re-used",
			"node", task.NodeUUID(), "address", info.Address, "auth_type", info.AuthType, "error", err)
		return nil, redfishError("%s", err)
	}
	return nil, err
}

// redfishError is Ironic's RedfishError.
func redfishError(format string, args ...any) error {
	return ironic.Errorf(ironic.RedfishError, "Redfish exception occurred. Error: "+format, args...)
}

// getSystem is Ironic's redfish_utils.get_system: the node's system, read
// through its connection; a system that isn't there is RedfishError.
// done must be called when the operation is over.
func (c *core) getSystem(ctx context.Context, task drivers.Task) (sys *system, done func(), err error) {
	info, err := ParseDriverInfo(task, c.cfg)
	if err != nil {
		return nil, nil, err
	}
	cn, err := c.withConnection(ctx, task, info, func(b *bmc) error {
		s, err := b.getSystem(ctx, info.SystemID)
		sys = s
		return err
	})
	if err != nil {
		if isKind(err, kindNotFound) {
			id := info.SystemID
			if id == "" {
				id = "<default>"
			}
			c.log.ErrorContext(ctx, "The Redfish System was not found", "system", id, "node", task.NodeUUID(), "error", err)
			return nil, nil, redfishError("%s", err)
		}
		return nil, nil, asFault(err)
	}
	return sys, cn.release, nil
}

// asFault makes an error that Ironic lets through unwrapped (a sushy
// exception) a fault carrying its message.
func asFault(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := asSushy(err); ok {
		return ironic.Errorf(ironic.IronicException, "%s", s.msg)
	}
	return err
}

// Close ends every cached session and waits for the closing to finish.
func (c *core) Close() { c.pool.Close() }

// CloseImplementations ends the sessions the redfish interfaces of d keep
// with BMCs and waits for that to finish: for tests and shutdown.
func CloseImplementations(d *drivers.Driver) {
	if p, ok := d.Power.(*Power); ok {
		p.c.Close()
	}
}

// pyDatetime is Python's str() of a naive datetime.
func pyDatetime(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04:05.000000")
}
