package conductor

import (
	"context"

	"github.com/goironic/ironic"
)

// spawnUnlocked runs fn on a worker of the pool without a node task, as
// Ironic's _spawn_worker does for driver vendor passthru and allocations;
// NoFreeConductorWorker when every worker is busy.
func (m *Manager) spawnUnlocked(ctx context.Context, fn func(ctx context.Context)) error {
	if !m.tryWorker() {
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	m.workers.wg.Add(1)
	wctx := context.WithoutCancel(ctx)
	go func() {
		defer m.workers.wg.Done()
		defer func() { <-m.workers.slots }()
		fn(wctx)
	}()
	return nil
}
