package conductor

import (
	"context"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// FailInspection implements drivers.InspectionFlow: last_error, then
// task.process_event('fail'), as the inspector interface's
// _inspection_error_handler ends.
func (t *task) FailInspection(ctx context.Context, msg string) error {
	t.node.LastError = models.Ptr(msg)
	return t.processEvent(ctx, event{Name: states.EventFail})
}

// StoreInventory implements drivers.InspectionFlow: the node's inventory
// row is replaced.
func (t *task) StoreInventory(ctx context.Context, inventory, pluginData *pyjson.Dict) error {
	id := t.node.ID
	_, err := t.m.store.ReplaceNodeInventory(ctx, &models.NodeInventory{NodeID: &id,
		InventoryData: models.JSONDict{Dict: inventory}, PluginData: models.JSONDict{Dict: pluginData}})
	return err
}

// AfterRelease implements drivers.InspectionFlow: fn runs on its own
// goroutine once the task is released (counted among the workers, so
// Wait and shutdown wait for it).
func (t *task) AfterRelease(fn func(ctx context.Context, withNode drivers.WithNode)) {
	t.after = append(t.after, fn)
}

// runAfter starts the functions AfterRelease queued.
func (t *task) runAfter(ctx context.Context) {
	after := t.after
	t.after = nil
	if len(after) == 0 {
		return
	}
	m, uuid := t.m, t.node.UUID
	ctx = context.WithoutCancel(ctx)
	withNode := func(ctx context.Context, f func(ctx context.Context, t drivers.Task) error) error {
		nt, err := m.acquire(ctx, uuid, exclusiveLock)
		if err != nil {
			return err
		}
		defer nt.release(ctx)
		return f(ctx, nt)
	}
	for _, fn := range after {
		m.workers.wg.Add(1)
		go func() {
			defer m.workers.wg.Done()
			fn(ctx, withNode)
		}()
	}
}
