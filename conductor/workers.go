package conductor

import (
	"context"
	"sync"

	"github.com/goironic/ironic"
)

// workers is the conductor's bounded worker pool ([conductor]
// workers_pool_size): a call that starts long work hands its locked task
// to a worker and returns; when every worker is busy the call fails with
// NoFreeConductorWorker (503) instead of queueing.
type workers struct {
	slots chan struct{}
	wg    sync.WaitGroup
}

func newWorkers(size int) *workers {
	if size <= 0 {
		size = 100
	}
	return &workers{slots: make(chan struct{}, size)}
}

// spawn runs fn on a worker with the task, whose lock it now owns: the
// lock is released when fn returns. fn's context outlives the RPC call
// that started it (it keeps the call's values, not its cancellation). If
// no worker is free, the task is released and NoFreeConductorWorker
// returned.
func (m *Manager) spawn(ctx context.Context, t *task, fn func(ctx context.Context, t *task)) error {
	select {
	case m.workers.slots <- struct{}{}:
	default:
		t.release(ctx)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	m.workers.wg.Add(1)
	wctx := context.WithoutCancel(ctx)
	go func() {
		defer m.workers.wg.Done()
		defer func() { <-m.workers.slots }()
		defer t.release(wctx)
		fn(wctx, t)
	}()
	return nil
}

// Wait blocks until every running worker has finished (tests and
// shutdown use it).
func (m *Manager) Wait() { m.workers.wg.Wait() }
