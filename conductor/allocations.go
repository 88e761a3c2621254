package conductor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// unexpectedAllocationError is the reason an allocation fails with when
// something else than an AllocationFailed went wrong.
const unexpectedAllocationError = "Unexpected exception during allocation: %s"

func allocationFailed(a *models.Allocation, format string, args ...any) error {
	return ironic.Errorf(ironic.AllocationFailed, "Failed to process allocation %s: %s.", a.UUID, fmt.Sprintf(format, args...))
}

// CreateAllocation is create_allocation: the allocation is stored
// ("allocating", owned by this conductor) and returned. Without a node it
// is processed by a worker (do_allocate), which reserves a matching node
// or fails the allocation; with a node (backfilling an allocation for an
// active node) it is processed before the call returns, and its failures
// are returned too.
func (m *Manager) CreateAllocation(ctx context.Context, _ string, a *models.Allocation) (*models.Allocation, error) {
	al := *a
	id := m.id
	al.ConductorAffinity = &id
	var nodeID int64
	if al.NodeID != nil {
		nodeID = *al.NodeID
	}
	al.NodeID = nil
	created, err := m.store.CreateAllocation(ctx, &al)
	if err != nil {
		return nil, err
	}
	if nodeID != 0 {
		return m.backfillAllocation(ctx, created, nodeID)
	}
	work := *created
	if err := m.spawnUnlocked(ctx, func(ctx context.Context) { m.doAllocate(ctx, &work) }); err != nil {
		return nil, err
	}
	return created, nil
}

// DestroyAllocation is destroy_allocation: an allocation with a node is
// deleted under the node's lock, and only when the node may lose it
// (verify_node_for_deallocation); the store clears the node's
// allocation_id and instance_uuid with it.
func (m *Manager) DestroyAllocation(ctx context.Context, _ string, a *models.Allocation) error {
	if a.NodeID == nil || *a.NodeID == 0 {
		return m.store.DestroyAllocation(ctx, allocationRef(a))
	}
	n, err := m.store.GetNodeByID(ctx, *a.NodeID)
	if err != nil {
		return err
	}
	t, err := m.acquire(ctx, n.UUID, exclusiveLock)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	if err := verifyNodeForDeallocation(t.node, a); err != nil {
		return err
	}
	if err := m.store.DestroyAllocation(ctx, allocationRef(a)); err != nil {
		return err
	}
	m.log.InfoContext(ctx, "deleted allocation", "allocation", a.UUID)
	return nil
}

func allocationRef(a *models.Allocation) db.Ref {
	if a.ID != 0 {
		return db.ByID(a.ID)
	}
	return db.ByUUID(a.UUID)
}

// verifyNodeForDeallocation is allocations.verify_node_for_deallocation.
func verifyNodeForDeallocation(n *models.Node, a *models.Allocation) error {
	if n.Maintenance {
		return nil
	}
	ps := models.Deref(n.ProvisionState)
	if models.Deref(n.TargetProvisionState) != "" && !states.UpdateAllowed(ps) {
		return ironic.Errorf(ironic.InvalidState,
			"Cannot remove allocation %s for node %s, because the node is in state %s where updates are not allowed (and maintenance mode is off)",
			a.UUID, n.UUID, ps)
	}
	if ps == states.Active {
		return ironic.Errorf(ironic.InvalidState,
			"Cannot remove allocation %s for node %s, because the node is active (and maintenance mode is off)", a.UUID, n.UUID)
	}
	return nil
}

// doAllocate is allocations.do_allocate: find the candidate nodes and
// reserve one, or record why not in the allocation. It returns nothing:
// the outcome is the allocation's state.
func (m *Manager) doAllocate(ctx context.Context, a *models.Allocation) {
	nodes, err := m.allocationCandidates(ctx, a)
	if err == nil {
		err = m.allocateNode(ctx, a, nodes)
	}
	if err == nil {
		return
	}
	reason := err.Error()
	if ironic.IsClass(err, ironic.AllocationFailed) {
		m.log.ErrorContext(ctx, reason, "allocation", a.UUID)
	} else {
		m.log.ErrorContext(ctx, "unexpected error while processing an allocation", "allocation", a.UUID, "error", err)
		reason = fmt.Sprintf(unexpectedAllocationError, err)
	}
	m.failAllocation(ctx, a, reason)
}

// failAllocation is allocations._allocation_failed: the allocation goes
// to "error" with reason as last_error. It is not an error if the
// allocation is gone meanwhile.
func (m *Manager) failAllocation(ctx context.Context, a *models.Allocation, reason string) {
	a.NodeID, a.State, a.LastError = nil, states.AllocationError, &reason
	_, err := m.store.UpdateAllocation(context.WithoutCancel(ctx), db.ByID(a.ID),
		db.Values{"node_id": nil, "state": states.AllocationError, "last_error": reason}, true)
	switch {
	case ironic.IsClass(err, ironic.AllocationNotFound):
		m.log.DebugContext(ctx, "not saving a failed allocation", "allocation", a.UUID, "error", err)
	case err != nil:
		m.log.ErrorContext(ctx, "could not save the failed allocation", "allocation", a.UUID, "error", err)
	}
}

// allocationCandidates is allocations._candidate_nodes: the available
// nodes of the allocation's resource class that are powered (a known
// power state), not in maintenance, not associated with an instance,
// among the candidate nodes if given, owned or leased by the owner if
// given, and with all the requested traits; shuffled, with a node named
// as the allocation first.
func (m *Manager) allocationCandidates(ctx context.Context, a *models.Allocation) ([]models.Node, error) {
	no, yes, available := false, true, states.Available
	f := db.NodeFilter{
		ResourceClass: a.ResourceClass, ProvisionState: &available,
		Associated: &no, WithPowerState: &yes, Maintenance: &no,
	}
	if len(a.CandidateNodes) > 0 {
		f.UUIDIn = stringList(a.CandidateNodes)
	}
	if models.Deref(a.Owner) != "" {
		f.Project = a.Owner
	}
	nodes, err := m.store.ListNodes(ctx, f, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		if len(a.CandidateNodes) > 0 {
			return nil, allocationFailed(a, "none of the requested nodes are available and match the resource class %s", pyStrPtr(a.ResourceClass))
		}
		return nil, allocationFailed(a, "no available nodes match the resource class %s", pyStrPtr(a.ResourceClass))
	}
	if len(a.Traits) > 0 {
		want := uniqueStrings(stringList(a.Traits))
		nodes = slices.DeleteFunc(nodes, func(n models.Node) bool { return !hasAllTraits(&n, want) })
		if len(nodes) == 0 {
			return nil, allocationFailed(a, "no suitable nodes have the requested traits %s", strings.Join(want, ", "))
		}
	}
	m.shuffleNodes(nodes)
	if name := models.Deref(a.Name); name != "" {
		if i := slices.IndexFunc(nodes, func(n models.Node) bool { return models.Deref(n.Name) == name }); i > 0 {
			first := nodes[i]
			copy(nodes[1:i+1], nodes[:i])
			nodes[0] = first
		}
	}
	m.log.DebugContext(ctx, "candidate nodes for an allocation", "allocation", a.UUID, "count", len(nodes))
	return nodes, nil
}

// shuffleNodes puts the candidates in random order, so that parallel
// allocations try the nodes in different orders.
func (m *Manager) shuffleNodes(nodes []models.Node) {
	shuffle := m.shuffle
	if shuffle == nil {
		shuffle = rand.Shuffle
	}
	shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
}

// allocateNode is allocations._allocate_node: the nodes are tried in
// order; the first one that can be locked and still suits the allocation
// gets it. Nodes locked by someone else are tried again, up to
// [conductor]node_locked_retry_attempts rounds.
func (m *Manager) allocateNode(ctx context.Context, a *models.Allocation, nodes []models.Node) error {
	for attempt := 1; ; attempt++ {
		retry, err := m.tryAllocateNodes(ctx, a, nodes)
		if err == nil || !ironic.IsClass(err, ironic.AllocationFailed) || attempt >= m.cfg.NodeLockedRetryAttempts || len(retry) == 0 {
			// Ironic goes on retrying an empty list; the outcome is the same.
			return err
		}
		nodes = retry
		tm := time.NewTimer(m.cfg.NodeLockedRetryInterval)
		select {
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-tm.C:
		}
	}
}

// tryAllocateNodes is one round of allocateNode; it returns the nodes
// worth another try (the locked ones) with the AllocationFailed error.
func (m *Manager) tryAllocateNodes(ctx context.Context, a *models.Allocation, nodes []models.Node) ([]models.Node, error) {
	var retry []models.Node
	for _, cand := range nodes {
		n, err := m.locks.tryReserve(ctx, db.ByUUID(cand.UUID))
		if ironic.IsClass(err, ironic.NodeLocked) {
			m.log.DebugContext(ctx, "node is locked, moving to the next one", "node", cand.UUID)
			retry = append(retry, cand)
			continue
		}
		if err != nil {
			return nil, err
		}
		done, err := m.reserveForAllocation(ctx, a, n)
		m.locks.release(ctx, n.ID, n.UUID)
		if ironic.IsClass(err, ironic.NodeAssociated) {
			m.log.DebugContext(ctx, "node is already associated, moving to the next one", "node", n.UUID)
			continue
		}
		if err != nil {
			return nil, err
		}
		if done {
			return nil, nil
		}
	}
	if len(retry) > 0 {
		return retry, allocationFailed(a, "could not reserve any of %d suitable nodes", len(retry))
	}
	return nil, allocationFailed(a, "all nodes were filtered out during reservation")
}

// reserveForAllocation binds the locked node n to the allocation if it
// still suits it (allocations._verify_node); the store sets the node's
// allocation_id, instance_uuid and instance_info traits in the same
// transaction, failing with NodeAssociated when someone was faster.
func (m *Manager) reserveForAllocation(ctx context.Context, a *models.Allocation, n *models.Node) (bool, error) {
	switch {
	case n.Maintenance:
		m.log.DebugContext(ctx, "node is now in maintenance, skipping", "node", n.UUID)
		return false, nil
	case models.Deref(n.InstanceUUID) != "":
		m.log.DebugContext(ctx, "node is already associated with an instance, skipping", "node", n.UUID)
		return false, nil
	case models.Deref(n.ProvisionState) != states.Available:
		m.log.DebugContext(ctx, "node is no longer available, skipping", "node", n.UUID)
		return false, nil
	case models.Deref(n.ResourceClass) != models.Deref(a.ResourceClass) || (n.ResourceClass == nil) != (a.ResourceClass == nil):
		m.log.DebugContext(ctx, "node's resource class no longer matches, skipping", "node", n.UUID, "allocation", a.UUID)
		return false, nil
	case len(a.Traits) > 0 && !hasAllTraits(n, stringList(a.Traits)):
		m.log.DebugContext(ctx, "node's traits no longer match, skipping", "node", n.UUID, "allocation", a.UUID)
		return false, nil
	}
	updated, err := m.store.UpdateAllocation(ctx, db.ByID(a.ID), db.Values{"node_id": n.ID, "state": states.AllocationActive}, true)
	if err != nil {
		return false, err
	}
	*a = *updated
	m.log.InfoContext(ctx, "node has been reserved for an allocation", "node", n.UUID, "allocation", a.UUID)
	return true, nil
}

// backfillAllocation is allocations.backfill_allocation: the allocation
// is bound to a node that was deployed without one. Failures are recorded
// in the allocation and returned.
func (m *Manager) backfillAllocation(ctx context.Context, a *models.Allocation, nodeID int64) (*models.Allocation, error) {
	out, err := m.doBackfillAllocation(ctx, a, nodeID)
	if err == nil {
		return out, nil
	}
	reason := err.Error()
	switch ironic.AsFault(err).Class {
	case ironic.AllocationFailed, ironic.InstanceAssociated, ironic.NodeAssociated, ironic.NodeNotFound:
		m.log.ErrorContext(ctx, reason, "allocation", a.UUID)
	default:
		m.log.ErrorContext(ctx, "unexpected error while backfilling an allocation", "allocation", a.UUID, "error", err)
		reason = fmt.Sprintf(unexpectedAllocationError, err)
	}
	m.failAllocation(ctx, a, reason)
	return nil, err
}

func (m *Manager) doBackfillAllocation(ctx context.Context, a *models.Allocation, nodeID int64) (*models.Allocation, error) {
	n, err := m.store.GetNodeByID(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	t, err := m.acquire(ctx, n.UUID, exclusiveLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	n = t.node
	var errs []string
	if ps := models.Deref(n.ProvisionState); ps != states.Active {
		errs = append(errs, fmt.Sprintf(`Node must be in the "active" state, but the current state is "%s"`, ps))
	}
	if models.Deref(a.ResourceClass) != "" && (n.ResourceClass == nil || *n.ResourceClass != *a.ResourceClass) {
		errs = append(errs, fmt.Sprintf("Resource class %s does not match the requested resource class %s",
			pyStrPtr(n.ResourceClass), *a.ResourceClass))
	}
	if len(a.Traits) > 0 && !hasAllTraits(n, stringList(a.Traits)) {
		errs = append(errs, fmt.Sprintf("List of traits %s does not match the requested traits %s",
			traitListRepr(n), pyschema.Repr([]any(a.Traits))))
	}
	if len(a.CandidateNodes) > 0 && !slices.Contains(stringList(a.CandidateNodes), n.UUID) {
		errs = append(errs, fmt.Sprintf("Candidate nodes must be empty or contain the target node, but got %s",
			pyschema.Repr([]any(a.CandidateNodes))))
	}
	if len(errs) > 0 {
		return nil, allocationFailed(a, "Cannot backfill an allocation for node %s: %s", n.UUID, strings.Join(errs, "; "))
	}
	updated, err := m.store.UpdateAllocation(ctx, db.ByID(a.ID), db.Values{"node_id": n.ID, "state": states.AllocationActive}, true)
	if err != nil {
		return nil, err
	}
	m.log.InfoContext(ctx, "node has been reserved for an allocation", "node", n.UUID, "allocation", a.UUID)
	return updated, nil
}

// ResumeAllocations processes the allocations this conductor left in
// "allocating" when it stopped (base_manager._resume_allocations). Ironic
// runs it on a worker once the conductor has started.
func (m *Manager) ResumeAllocations(ctx context.Context) error {
	id := m.id
	state := states.Allocating
	list, err := m.store.ListAllocations(ctx, db.AllocationFilter{State: &state, ConductorID: &id}, db.ListOpts{})
	if err != nil {
		return err
	}
	for i := range list {
		m.log.DebugContext(ctx, "resuming unfinished allocation", "allocation", list[i].UUID)
		m.doAllocate(ctx, &list[i])
	}
	return nil
}

// StartResumingAllocations runs ResumeAllocations on a worker, as
// Ironic's conductor does once it has started (a full pool is logged, not
// fatal).
func (m *Manager) StartResumingAllocations(ctx context.Context) {
	err := m.spawnUnlocked(ctx, func(ctx context.Context) {
		if err := m.ResumeAllocations(ctx); err != nil {
			m.log.ErrorContext(ctx, "resuming allocations", "error", err)
		}
	})
	if err != nil {
		m.log.WarnContext(ctx, "Failed to start worker for resuming allocations.", "error", err)
	}
}

// OrphanAllocation is an allocation left in "allocating" by a conductor
// that is gone.
type OrphanAllocation struct {
	Allocation models.Allocation
	// ConductorID is the dead conductor that owned it.
	ConductorID int64
}

// DiscoverOrphanAllocations lists the allocations still "allocating" on
// conductors whose heartbeat is older than [conductor]heartbeat_timeout,
// this one excepted (the discover half of _check_orphan_allocations).
func (m *Manager) DiscoverOrphanAllocations(ctx context.Context) ([]OrphanAllocation, error) {
	offline, err := m.store.GetOfflineConductors(ctx, m.cfg.HeartbeatTimeout)
	if err != nil {
		return nil, err
	}
	var out []OrphanAllocation
	state := states.Allocating
	for _, c := range offline {
		if c.ID == m.id {
			m.log.WarnContext(ctx, "this conductor's heartbeat is late: excluded from the offline conductors", "conductor", c.Hostname)
			continue
		}
		id := c.ID
		list, err := m.store.ListAllocations(ctx, db.AllocationFilter{State: &state, ConductorID: &id}, db.ListOpts{})
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			out = append(out, OrphanAllocation{Allocation: a, ConductorID: c.ID})
		}
	}
	return out, nil
}

// ProcessOrphanAllocation takes an orphan allocation over and processes
// it; when another conductor took it first, nothing happens.
func (m *Manager) ProcessOrphanAllocation(ctx context.Context, o OrphanAllocation) error {
	taken, err := m.store.TakeOverAllocation(ctx, o.Allocation.ID, o.ConductorID, m.id)
	if err != nil || !taken {
		return err
	}
	a := o.Allocation
	id := m.id
	a.ConductorAffinity = &id
	m.log.DebugContext(ctx, "taking over allocation", "allocation", a.UUID)
	m.doAllocate(ctx, &a)
	return nil
}

// CheckOrphanAllocations is the periodic _check_orphan_allocations
// ([conductor]check_allocations_interval, 60 s): discover, then process
// each; one allocation's failure doesn't stop the others.
func (m *Manager) CheckOrphanAllocations(ctx context.Context) error {
	orphans, err := m.DiscoverOrphanAllocations(ctx)
	if err != nil {
		return err
	}
	for _, o := range orphans {
		if err := m.ProcessOrphanAllocation(ctx, o); err != nil {
			m.log.ErrorContext(ctx, "unexpected error when taking over an allocation", "allocation", o.Allocation.UUID, "error", err)
		}
	}
	return nil
}

func stringList(l models.JSONList) []string {
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func uniqueStrings(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func hasAllTraits(n *models.Node, want []string) bool {
	have := n.TraitNames()
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// traitListRepr is str() of a node's TraitList object, as Ironic's
// backfill message shows it.
func traitListRepr(n *models.Node) string {
	objs := make([]string, len(n.Traits))
	for i := range objs {
		objs[i] = "Trait"
	}
	return "TraitList(created_at=<?>,objects=[" + strings.Join(objs, ",") + "],updated_at=<?>)"
}

// pyStrPtr is Python's str() of an optional string.
func pyStrPtr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}
