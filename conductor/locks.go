package conductor

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
)

// lockMode is how a task holds its node (Ironic's TaskManager
// shared=True/False).
type lockMode int

const (
	// sharedLock reads the node and writes nothing to it; any number of
	// tasks may hold it, whoever holds the exclusive lock.
	sharedLock lockMode = iota
	// exclusiveLock claims the node's reservation for this conductor,
	// waiting for a busy lock as [conductor]node_locked_retry_* say.
	exclusiveLock
)

// lockStore is the database as the node locks use it: the reservation
// column, claimed with a conditional UPDATE.
type lockStore interface {
	ReserveNode(ctx context.Context, tag string, ref db.Ref) (*models.Node, error)
	ReleaseNode(ctx context.Context, tag string, ref db.Ref) error
}

// nodeLocks claims and releases the exclusive node locks of this
// conductor (host). Every claim and release of the conductor goes
// through it, so that a caller waiting for a lock held here retries the
// moment it is released (waits).
type nodeLocks struct {
	store    lockStore
	host     string
	attempts int
	interval time.Duration
	log      *slog.Logger
	waits    lockWaits
	// pause waits between the tries of a write the database refused for
	// an outage (untilAvailable); nil is a real timer.
	pause func(ctx context.Context, d time.Duration) error
	// retries are the releases retried in the background; quit, closed
	// by stopRetries, ends them.
	retries  sync.WaitGroup
	quit     chan struct{}
	quitOnce sync.Once

	// mu guards held, the exclusive locks this conductor's tasks hold
	// (node id -> tasks), and claiming, the claims in flight (by the ref
	// they name): a node reserved by this host that is in neither has lost
	// its task (its release failed) and is reconciled
	// (Manager.ReconcileReservations).
	mu       sync.Mutex
	held     map[int64]int
	claiming map[db.Ref]int
}

// holds tells whether a task of this conductor holds the node's lock,
// or a claim naming the node is in flight.
func (l *nodeLocks) holds(id int64, uuid string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[id] > 0 || l.claiming[db.ByID(id)] > 0 || l.claiming[db.ByUUID(uuid)] > 0
}

// reserve claims a node's lock, retrying a busy lock: Ironic's attempts
// are a try now and one per interval after it, and the call fails with
// NodeLocked when the last of them finds the lock busy. In between, every
// release of the lock by this conductor brings an extra try (see
// lockWaits; only for a ref by UUID). An extra try that finds the lock
// taken again (another waiter was faster) is no attempt: it neither ends
// the wait nor moves the next tick, so a caller never gives up sooner
// than Ironic's would.
func (l *nodeLocks) reserve(ctx context.Context, ref db.Ref) (*models.Node, error) {
	var tick *time.Timer
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for attempt := 1; ; {
		var freed <-chan struct{}
		if ref.UUID != "" {
			freed = l.waits.watch(ref.UUID)
		}
		n, err := l.tryReserve(ctx, ref)
		if err == nil || !ironic.IsClass(err, ironic.NodeLocked) || attempt >= l.attempts {
			return n, err
		}
		if tick == nil {
			tick = time.NewTimer(l.interval)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-freed:
		case <-tick.C:
			attempt++
			tick.Reset(l.interval)
		}
	}
}

// tryReserve claims a node's lock once: NodeLocked when it is busy.
func (l *nodeLocks) tryReserve(ctx context.Context, ref db.Ref) (*models.Node, error) {
	l.mu.Lock()
	if l.claiming == nil {
		l.claiming = map[db.Ref]int{}
	}
	l.claiming[ref]++
	l.mu.Unlock()
	n, err := l.store.ReserveNode(ctx, l.host, ref)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claiming[ref]--; l.claiming[ref] <= 0 {
		delete(l.claiming, ref)
	}
	if err == nil {
		if l.held == nil {
			l.held = map[int64]int{}
		}
		l.held[n.ID]++
	}
	return n, err
}

// release drops this conductor's lock on the node and wakes the callers
// waiting for it. It outlives ctx's cancellation. A release the database
// refuses for an outage is tried again in the background until the
// database answers (or the conductor stops, see stopRetries), without
// keeping the caller (an RPC reply) waiting: the node stays counted as
// held meanwhile, so neither another task of this conductor nor
// ReconcileReservations takes it. A release given up on leaves the node
// reserved by this host with no task behind it, which
// ReconcileReservations (or the next start's sweep) repairs. Ironic's
// release_node retries only on deadlocks and strands the node while its
// conductor lives (docs/departures.md).
func (l *nodeLocks) release(ctx context.Context, id int64, uuid string) {
	err := l.store.ReleaseNode(context.WithoutCancel(ctx), l.host, db.ByID(id))
	if ironic.Unavailable(err) {
		l.retries.Add(1)
		go func() {
			defer l.retries.Done()
			ctx := context.WithoutCancel(ctx)
			if err := l.untilAvailable(ctx, "releasing node lock", uuid, func(ctx context.Context) error {
				return l.store.ReleaseNode(ctx, l.host, db.ByID(id))
			}); err != nil {
				l.log.WarnContext(ctx, "releasing node lock", "node", uuid, "error", err)
			}
			l.drop(id, uuid)
		}()
		return
	}
	if err != nil {
		l.log.WarnContext(ctx, "releasing node lock", "node", uuid, "error", err)
	}
	l.drop(id, uuid)
}

// drop forgets a task's hold of the node and wakes its waiters.
func (l *nodeLocks) drop(id int64, uuid string) {
	l.mu.Lock()
	if l.held[id]--; l.held[id] <= 0 {
		delete(l.held, id)
	}
	l.mu.Unlock()
	l.waits.released(uuid)
}

// stopRetries ends the retries of untilAvailable: the conductor stops,
// and what they leave is the next start's sweep's.
func (l *nodeLocks) stopRetries() {
	l.quitOnce.Do(func() { close(l.quitCh()) })
}

// waitRetries waits for the releases retried in the background (after
// stopRetries and the workers' end, none starts any more).
func (l *nodeLocks) waitRetries() { l.retries.Wait() }

// quitCh is the channel stopRetries closes.
func (l *nodeLocks) quitCh() chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.quit == nil {
		l.quit = make(chan struct{})
	}
	return l.quit
}

// Bounds of the wait between the tries of untilAvailable: it doubles from
// outageRetryMin to outageRetryMax.
const (
	outageRetryMin = 500 * time.Millisecond
	outageRetryMax = 5 * time.Second
)

// untilAvailable runs write (with ctx's values, not its cancellation)
// until it succeeds or fails for another reason than an unavailable
// database (ironic.Unavailable), pausing between tries; it gives up with
// the last error when ctx ends or stopRetries is called.
func (l *nodeLocks) untilAvailable(ctx context.Context, what, uuid string, write func(context.Context) error) error {
	quit := l.quitCh()
	delay := outageRetryMin
	for {
		err := write(context.WithoutCancel(ctx))
		if !ironic.Unavailable(err) {
			return err
		}
		l.log.WarnContext(ctx, what+": the database is unavailable, trying again", "node", uuid, "error", err, "retry_in", delay)
		if l.pause != nil {
			if l.pause(ctx, delay) != nil {
				return err
			}
		} else {
			tm := time.NewTimer(delay)
			select {
			case <-tm.C:
			case <-ctx.Done():
				tm.Stop()
				return err
			case <-quit:
				tm.Stop()
				return err
			}
		}
		select {
		case <-quit:
			return err
		default:
		}
		delay = min(2*delay, outageRetryMax)
	}
}

// lockWaits lets a call waiting for a node lock that this conductor
// holds retry the moment the lock is released, instead of at the next
// [conductor]node_locked_retry_interval tick. Such a retry comes in
// addition to Ironic's attempts (see nodeLocks.reserve): it can end a
// wait sooner, never make a caller give up sooner.
type lockWaits struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

// watch returns a channel closed at the next release of the node's lock
// by this conductor. Take it before trying the lock, so that a release
// between the try and the wait is not missed.
func (w *lockWaits) watch(uuid string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = map[string]chan struct{}{}
	}
	c, ok := w.ch[uuid]
	if !ok {
		c = make(chan struct{})
		w.ch[uuid] = c
	}
	return c
}

// released wakes the callers watching the node.
func (w *lockWaits) released(uuid string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.ch[uuid]; ok {
		close(c)
		delete(w.ch, uuid)
	}
}
