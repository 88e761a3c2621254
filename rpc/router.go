package rpc

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/option"
)

// ConductorSource lists live conductors by hardware type, as the
// conductor_hardware_interfaces table records them.
type ConductorSource interface {
	// GetActiveHardwareTypeDict maps a hardware type (or, with useGroups,
	// "<group>:<hardware type>") to the live hosts that run it.
	GetActiveHardwareTypeDict(ctx context.Context, useGroups bool, heartbeatTimeout time.Duration) (map[string][]string, error)
}

// RouterConfig holds Ironic's ring options.
type RouterConfig struct {
	// PartitionExponent is [DEFAULT]hash_partition_exponent (5).
	PartitionExponent int
	// ResetInterval is [DEFAULT]hash_ring_reset_interval (15 s).
	ResetInterval time.Duration
	// HeartbeatTimeout is [conductor]heartbeat_timeout (60 s).
	HeartbeatTimeout time.Duration
	// Pick chooses an index in [0, n) where Ironic picks a conductor at
	// random; nil is math/rand's IntN. Tests make it deterministic.
	Pick func(n int) int
}

// Router decides which conductor handles a node or a driver, as Ironic's
// rpcapi get_conductor_for / get_topic_for / get_topic_for_driver do, with
// the rings cached for ResetInterval.
type Router struct {
	cfg   RouterConfig
	src   ConductorSource
	clock ironic.Clock

	mu      sync.RWMutex
	rings   map[string]*HashRing
	builtAt time.Time
}

// NewRouter builds a router over src; zero fields of cfg take the
// options' defaults (see RouterConfig.Bind).
func NewRouter(cfg RouterConfig, src ConductorSource, clock ironic.Clock) *Router {
	def := option.Default[RouterConfig]()
	if cfg.PartitionExponent <= 0 {
		cfg.PartitionExponent = def.PartitionExponent
	}
	if cfg.ResetInterval <= 0 {
		cfg.ResetInterval = def.ResetInterval
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = def.HeartbeatTimeout
	}
	if clock == nil {
		clock = ironic.SystemClock{}
	}
	if cfg.Pick == nil {
		cfg.Pick = rand.IntN
	}
	return &Router{cfg: cfg, src: src, clock: clock}
}

// Reset drops the cached rings.
func (r *Router) Reset() {
	r.mu.Lock()
	r.rings = nil
	r.mu.Unlock()
}

func (r *Router) loadRings(ctx context.Context) (map[string]*HashRing, error) {
	now := r.clock.Now()
	r.mu.RLock()
	rings, built := r.rings, r.builtAt
	r.mu.RUnlock()
	if rings != nil && now.Sub(built) < r.cfg.ResetInterval {
		return rings, nil
	}
	d, err := r.src.GetActiveHardwareTypeDict(ctx, true, r.cfg.HeartbeatTimeout)
	if err != nil {
		return nil, err
	}
	rings = make(map[string]*HashRing, len(d))
	for k, hosts := range d {
		rings[k] = NewHashRing(hosts, r.cfg.PartitionExponent)
	}
	r.mu.Lock()
	r.rings, r.builtAt = rings, now
	r.mu.Unlock()
	return rings, nil
}

// ConductorFor returns the host that owns node: the ring of the node's
// (conductor group, driver) decides. No live conductor at all is
// TemporaryFailure; none for that key (after one rebuild) is NoValidHost.
func (r *Router) ConductorFor(ctx context.Context, n *models.Node) (string, error) {
	key := n.ConductorGroup + ":" + n.Driver
	for attempt := 0; attempt < 2; attempt++ {
		rings, err := r.loadRings(ctx)
		if err != nil {
			return "", err
		}
		if len(rings) > 0 {
			if ring, ok := rings[key]; ok {
				return ring.Get(n.UUID), nil
			}
		}
		if attempt == 0 {
			r.Reset()
			continue
		}
		if len(rings) == 0 {
			return "", ironic.Errorf(ironic.TemporaryFailure, "Resource temporarily unavailable, please retry.")
		}
	}
	return "", ironic.Errorf(ironic.NoValidHost,
		"No valid host was found. Reason: No conductor service registered which supports driver %s for conductor group \"%s\".",
		n.Driver, n.ConductorGroup)
}

// TopicFor is the RPC topic of the conductor owning n.
func (r *Router) TopicFor(ctx context.Context, n *models.Node) (string, error) {
	host, err := r.ConductorFor(ctx, n)
	if err != nil {
		return "", err
	}
	return Topic + "." + host, nil
}

// TopicForDriver picks a random live conductor running driver, ignoring
// groups; none is DriverNotFound.
func (r *Router) TopicForDriver(ctx context.Context, driver string) (string, error) {
	d, err := r.src.GetActiveHardwareTypeDict(ctx, false, r.cfg.HeartbeatTimeout)
	if err != nil {
		return "", err
	}
	if len(d) == 0 {
		return "", ironic.Errorf(ironic.DriverNotFound, "No conductors registered.")
	}
	hosts := d[driver]
	if len(hosts) == 0 {
		return "", ironic.Errorf(ironic.DriverNotFound,
			"Could not find the following driver(s) or hardware type(s): %s.", driver)
	}
	return Topic + "." + r.PickHost(hosts), nil
}

// PickHost returns one of hosts at random (rpcapi get_random_topic picks
// the conductor of a call that no node ties to one); hosts is not empty.
func (r *Router) PickHost(hosts []string) string {
	return hosts[r.cfg.Pick(len(hosts))]
}
