package conductor

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
)

// task is Ironic's TaskManager: a node held under a shared or exclusive
// lock (nodeLocks), with its driver built and its ports loaded. Every
// conductor operation on a node runs in a task it acquires, and releases
// the task when done (or hands it to a worker, which releases it). Drivers
// see the task as a drivers.Task (task_drivers.go).
type task struct {
	m      *Manager
	node   *models.Node
	orig   models.Node
	mode   lockMode
	driver *drivers.Driver
	ports  []models.Port
	pgs    []models.Portgroup
	// after are the functions to run once the lock is released
	// (InspectionFlow.AfterRelease).
	after []func(ctx context.Context, withNode drivers.WithNode)
	// unsaved says the last Save failed for a database outage; worker
	// says the task runs in a worker (nobody waits for its release). The
	// release of a worker's task that is unsaved saves it again, until the
	// database answers, before it drops the lock.
	unsaved, worker bool
}

// acquire starts a task on the node, holding it as mode says (an
// exclusive lock waits for a busy one as Ironic's node_locked_retry_*
// options say), and loads its driver and ports.
func (m *Manager) acquire(ctx context.Context, uuid string, mode lockMode) (*task, error) {
	var n *models.Node
	var err error
	if mode == sharedLock {
		n, err = m.store.GetNodeByUUID(ctx, uuid)
	} else {
		n, err = m.locks.reserve(ctx, db.ByUUID(uuid))
	}
	if err != nil {
		return nil, err
	}
	t := &task{m: m, node: n, orig: snapshot(n), mode: mode}
	if err := t.load(ctx); err != nil {
		t.release(ctx)
		return nil, err
	}
	return t, nil
}

// sharedTask is a shared task over a node already read (with the
// columns the caller needs) and its driver, with no ports loaded: the
// periodic jobs' view of the nodes they discover.
func (m *Manager) sharedTask(n *models.Node, d *drivers.Driver) *task {
	return &task{m: m, node: n, orig: snapshot(n), mode: sharedLock, driver: d}
}

func (t *task) load(ctx context.Context) error {
	drv, err := t.m.reg.BuildDriver(nodeInterfaces(t.node))
	if err != nil {
		return err
	}
	t.driver = drv
	id := t.node.ID
	if t.ports, err = t.m.store.ListPorts(ctx, db.PortFilter{NodeID: &id}, db.ListOpts{}); err != nil {
		return err
	}
	t.pgs, err = t.m.store.ListPortgroups(ctx, db.PortgroupFilter{NodeID: &id}, db.ListOpts{})
	return err
}

// release ends the task: an exclusive lock is dropped.
func (t *task) release(ctx context.Context) {
	if t.mode != sharedLock {
		if t.unsaved && t.worker {
			// The node's last state (a failure transition, most often)
			// reaches the database before the lock is dropped: released
			// first, the node would stay in its transient state with no
			// task and no reservation to reconcile.
			if err := t.m.locks.untilAvailable(ctx, "saving node", t.node.UUID, t.Save); err != nil {
				t.m.log.WarnContext(ctx, "saving node before releasing its lock", "node", t.node.UUID, "error", err)
			}
		}
		t.m.locks.release(ctx, t.node.ID, t.node.UUID)
	}
	t.runAfter(ctx)
}

// upgradeLock turns a shared task into an exclusive one (Ironic's
// upgrade_lock): the reservation is claimed, with the usual retries, and
// the node reloaded. An exclusive task is left as it is.
func (t *task) upgradeLock(ctx context.Context) error {
	return t.upgrade(ctx, t.m.locks.reserve)
}

// UpgradeLock implements drivers.NodeLock: task.upgrade_lock(retry=False),
// as agent_base calls it; a heartbeat that finds the node locked is
// skipped (NodeLocked) and the next one tries again.
func (t *task) UpgradeLock(ctx context.Context) error {
	return t.upgrade(ctx, t.m.locks.tryReserve)
}

func (t *task) upgrade(ctx context.Context, reserve func(context.Context, db.Ref) (*models.Node, error)) error {
	if t.mode == exclusiveLock {
		return nil
	}
	n, err := reserve(ctx, db.ByID(t.node.ID))
	if err != nil {
		return err
	}
	*t.node = *n
	t.orig, t.mode = snapshot(t.node), exclusiveLock
	return nil
}

// Save writes the node fields changed through the task.
func (t *task) Save(ctx context.Context) error {
	cols := t.m.store.ChangedNodeColumns(&t.orig, t.node)
	if len(cols) == 0 {
		return nil
	}
	vals, err := t.m.store.NodeValues(t.node, cols)
	if err != nil {
		return err
	}
	n, err := t.m.store.UpdateNode(ctx, db.ByID(t.node.ID), vals)
	t.unsaved = ironic.Unavailable(err)
	if err != nil {
		return err
	}
	// The node is updated in place: callers keep pointers to it.
	*t.node = *n
	t.orig = snapshot(t.node)
	return nil
}
