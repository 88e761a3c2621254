package conductor

import (
	"context"
	"sync"
	"time"

	"github.com/goironic/ironic"
)

// workers is the conductor's bounded worker pool ([conductor]
// workers_pool_size): a call that starts long work hands its locked task
// to a worker and returns; when every worker is busy the call fails with
// NoFreeConductorWorker (503) instead of queueing.
type workers struct {
	slots chan struct{}
	wg    runGroup
}

// runGroup counts running workers. Unlike sync.WaitGroup it may gain
// workers while someone waits for it to drain (a worker spawned during a
// test's or shutdown's Wait is simply waited for too).
type runGroup struct {
	mu   sync.Mutex
	n    int
	idle sync.Cond
}

func (g *runGroup) Add(d int) {
	g.mu.Lock()
	g.n += d
	if g.n == 0 {
		g.idle.Broadcast()
	}
	g.mu.Unlock()
}

func (g *runGroup) Done() { g.Add(-1) }

// Wait blocks until no worker runs.
func (g *runGroup) Wait() {
	g.mu.Lock()
	for g.n > 0 {
		g.idle.Wait()
	}
	g.mu.Unlock()
}

func newWorkers(size int) *workers {
	if size <= 0 {
		size = 100
	}
	w := &workers{slots: make(chan struct{}, size)}
	w.wg.idle.L = &w.wg.mu
	return w
}

// spawn runs fn on a worker with the task, whose lock it now owns: the
// lock is released when fn returns. fn's context outlives the RPC call
// that started it (it keeps the call's values, not its cancellation). If
// no worker is free, the task is released and NoFreeConductorWorker
// returned.
func (m *Manager) spawn(ctx context.Context, t *task, fn func(ctx context.Context, t *task)) error {
	if !m.tryWorker() {
		t.release(ctx)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	m.runReserved(ctx, t, fn)
	return nil
}

// Wait blocks until every running worker has finished, and then every
// lock release retried in the background (tests and shutdown use it).
func (m *Manager) Wait() {
	m.workers.wg.Wait()
	m.locks.waitRetries()
}

// tryWorker takes a free worker slot, or reports that there is none.
func (m *Manager) tryWorker() bool {
	select {
	case m.workers.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// runReserved runs fn on the worker slot tryWorker took, with the task,
// whose lock it releases when fn returns. It returns when fn has
// finished or after [Config.ReplyLinger], whichever comes first.
func (m *Manager) runReserved(ctx context.Context, t *task, fn func(ctx context.Context, t *task)) {
	m.workers.wg.Add(1)
	wctx := context.WithoutCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer m.workers.wg.Done()
		defer func() { <-m.workers.slots }()
		defer close(done)
		defer t.release(wctx)
		t.worker = true
		fn(wctx, t)
	}()
	if m.cfg.ReplyLinger <= 0 {
		return
	}
	linger := time.NewTimer(m.cfg.ReplyLinger)
	defer linger.Stop()
	select {
	case <-done:
	case <-linger.C:
	case <-ctx.Done():
	}
}

// startTransition is process_event with a callback: the event is applied
// and saved (last_error set to e.LastError, normally cleared), then fn
// carries on in a worker holding the lock, and the call returns. When no
// worker is free nothing moves: the node records "No free conductor
// workers available" (as Ironic's provisioning_error_handler, which puts
// the states back) and the call fails with NoFreeConductorWorker. The
// task is released in every case once this returns an error.
func (m *Manager) startTransition(ctx context.Context, t *task, e event, fn func(ctx context.Context, t *task)) error {
	e.Spawning = true
	if !m.fsm.Actionable(t.ProvisionState(), e.Name) {
		t.release(ctx)
		return invalidState(t.ProvisionState(), e.Name)
	}
	if !m.tryWorker() {
		t.record(ctx, "No free conductor workers available", historyProvisioning, true)
		if err := t.Save(ctx); err != nil {
			m.log.WarnContext(ctx, "saving node", "node", t.node.UUID, "error", err)
		}
		t.release(ctx)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	prev := t.ProvisionState()
	if err := t.applyEvent(e); err != nil {
		<-m.workers.slots
		t.release(ctx)
		return err
	}
	if err := t.Save(ctx); err != nil {
		<-m.workers.slots
		t.release(ctx)
		return err
	}
	t.logTransition(ctx, prev)
	m.runReserved(ctx, t, fn)
	return nil
}
