package conductor

import (
	"context"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// CheckOrphanNodes is _check_orphan_nodes: the reservations of dead
// conductors on nodes mapped here are cleared, and the nodes they left
// deploying or cleaning, or in a power transition, are cleaned up.
func (m *Manager) CheckOrphanNodes(ctx context.Context) error {
	items, err := m.DiscoverOrphanNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range items {
		if err := m.ProcessOrphanNode(ctx, n); err != nil {
			m.log.WarnContext(ctx, "taking over orphan node", "node", n.UUID, "error", err)
		}
	}
	return nil
}

// DiscoverOrphanNodes lists the nodes mapped here that are reserved by
// a conductor whose heartbeat is older than [conductor]heartbeat_timeout.
func (m *Manager) DiscoverOrphanNodes(ctx context.Context) ([]models.Node, error) {
	dead, err := m.store.GetOfflineConductors(ctx, m.cfg.HeartbeatTimeout)
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, c := range dead {
		if !strings.EqualFold(c.Hostname, m.cfg.Host) {
			hosts = append(hosts, c.Hostname)
		}
	}
	if len(hosts) == 0 {
		return nil, nil
	}
	return m.mappedNodes(ctx, []string{"id", "reservation", "maintenance", "provision_state", "target_power_state"},
		db.NodeFilter{ReservedByAnyOf: hosts}, db.ListOpts{})
}

// ProcessOrphanNode releases a dead conductor's lock on n and, unless in
// maintenance, aborts its pending power action and fails its deployment
// or cleaning.
func (m *Manager) ProcessOrphanNode(ctx context.Context, n models.Node) error {
	old := models.Deref(n.Reservation)
	err := m.store.ReleaseNode(ctx, old, db.ByID(n.ID))
	switch {
	case ironic.IsClass(err, ironic.NodeNotFound), ironic.IsClass(err, ironic.NodeLocked):
		return nil
	case err != nil && !ironic.IsClass(err, ironic.NodeNotLocked):
		return err
	case err == nil:
		m.log.WarnContext(ctx, fmt.Sprintf("Forcibly removed reservation of conductor %s on node %s as that conductor went offline", old, n.UUID),
			"node", n.UUID)
	}
	ps := models.Deref(n.ProvisionState)
	if n.Maintenance || (ps != states.Deploying && ps != states.Cleaning && n.TargetPowerState == nil) {
		return nil
	}
	t, err := m.acquire(ctx, n.UUID, exclusiveLock)
	if err != nil {
		return err
	}
	if !t.node.Maintenance && t.node.TargetPowerState != nil {
		t.node.TargetPowerState = nil
		t.record(ctx, "Pending power operation was aborted due to conductor take over", historyTakeover, true)
		if err := t.Save(ctx); err != nil {
			t.release(ctx)
			return err
		}
	}
	t.release(ctx)
	_, err = m.failOne(ctx, n.UUID, failSpec{states: []states.Provision{states.Deploying, states.Cleaning}, callback: m.abortOnTakeOver})
	return err
}

// abortOnTakeOver is utils.abort_on_conductor_take_over.
func (m *Manager) abortOnTakeOver(ctx context.Context, t *task) {
	const msg = "Operation was aborted due to conductor take over"
	if t.ProvisionState() == states.CleanFailed {
		m.cleaningError(ctx, t, msg, cleanErrOpts{keepState: true})
		return
	}
	t.record(ctx, msg, historyTakeover, true)
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node", "node", t.node.UUID, "error", err)
	}
}

// SyncLocalState is _sync_local_state: active nodes mapped here whose
// conductor_affinity is another conductor are taken over.
func (m *Manager) SyncLocalState(ctx context.Context) error {
	nodes, err := m.DiscoverTakeovers(ctx)
	if err != nil {
		return err
	}
	for i, n := range nodes {
		if i >= m.cfg.PeriodicMaxWorkers {
			break
		}
		err := m.ProcessTakeover(ctx, n.UUID)
		if ironic.IsClass(err, ironic.NoFreeConductorWorker) {
			break
		}
		if err != nil && !ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			m.log.WarnContext(ctx, "taking over node", "node", n.UUID, "error", err)
		}
	}
	return nil
}

// DiscoverTakeovers lists the active, unreserved, not-in-maintenance
// nodes mapped here whose affinity is not this conductor.
func (m *Manager) DiscoverTakeovers(ctx context.Context) ([]models.Node, error) {
	nodes, err := m.mappedNodes(ctx, []string{"conductor_affinity"}, db.NodeFilter{Reserved: models.Ptr(false),
		Maintenance: models.Ptr(false), ProvisionState: models.Ptr(states.Active)}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	out := nodes[:0]
	for _, n := range nodes {
		if n.ConductorAffinity == nil || *n.ConductorAffinity != m.id {
			out = append(out, n)
		}
	}
	return out, nil
}

// ProcessTakeover takes one node over in a worker (_do_takeover).
func (m *Manager) ProcessTakeover(ctx context.Context, uuid string) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	n := t.node
	if n.Maintenance || (n.ConductorAffinity != nil && *n.ConductorAffinity == m.id) || t.ProvisionState() != states.Active {
		t.release(ctx)
		return nil
	}
	return m.spawnOrFail(ctx, t, func(ctx context.Context, t *task) {
		if err := m.doTakeover(ctx, t); err != nil {
			m.log.ErrorContext(ctx, "take over failed", "node", t.node.UUID, "error", err)
		}
	})
}
