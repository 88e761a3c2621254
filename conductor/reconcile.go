package conductor

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// ReconcileReservations repairs what a database outage leaves behind:
// a node reserved by this conductor with no task of it behind the
// reservation (the task ended while the database refused its last save
// and its release). Such a node is released and, when it is in a state
// no task will move it out of (a transient state: deploying, cleaning,
// ...), failed as the start-up sweep fails it (_fail_transient_state).
// Ironic has no such job: its live conductor keeps those nodes locked
// until it restarts (docs/departures.md).
func (m *Manager) ReconcileReservations(ctx context.Context) error {
	nodes, err := m.store.ListNodeColumns(ctx, []string{"id", "uuid", "reservation", "provision_state"},
		db.NodeFilter{Reserved: models.Ptr(true)}, db.ListOpts{})
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if models.Deref(n.Reservation) != m.cfg.Host || m.locks.holds(n.ID, n.UUID) {
			continue
		}
		state := models.Deref(n.ProvisionState)
		m.log.WarnContext(ctx, fmt.Sprintf("Node %s is reserved by this conductor but no task of it holds the lock (its release failed); releasing it.", n.UUID),
			"node", n.UUID, "provision_state", state)
		if err := m.store.ReleaseNode(ctx, m.cfg.Host, db.ByID(n.ID)); err != nil &&
			!ironic.IsClass(err, ironic.NodeNotLocked) && !ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			return err
		}
		m.locks.waits.released(n.UUID)
		if !states.StuckOnRestart(state) {
			continue
		}
		msg := fmt.Sprintf("The %s state can't be resumed by conductor %s. Moving to fail state.", state, m.cfg.Host)
		if _, err := m.failOne(ctx, n.UUID, failSpec{states: []states.Provision{state}, lastError: msg}); err != nil &&
			!ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			m.log.WarnContext(ctx, "failing an orphaned node", "node", n.UUID, "error", err)
		}
	}
	return nil
}
