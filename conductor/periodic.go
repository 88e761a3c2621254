package conductor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyschema"
	"github.com/goironic/ironic/states"
)

// The periodic jobs are each split in two: a discovery that lists the
// work items with one query, and a process step that handles one item
// under the node's lock. Run drives them on their intervals; tests step
// them directly.

// syncCounter counts failed power syncs per node (power_state_sync_count).
type syncCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func newSyncCounter() *syncCounter { return &syncCounter{n: map[string]int{}} }

func (c *syncCounter) get(uuid string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[uuid]
}

func (c *syncCounter) set(uuid string, v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v == 0 {
		delete(c.n, uuid)
	} else {
		c.n[uuid] = v
	}
}

// mapped reports whether the hash ring gives n to this conductor
// (_mapped_to_this_conductor).
func (m *Manager) mapped(ctx context.Context, n *models.Node) bool {
	host, err := m.router.ConductorFor(ctx, n)
	return err == nil && host == m.cfg.Host
}

// mappedNodes lists the nodes matching f that are mapped here, reading
// only cols (uuid, driver and conductor_group are always read), as
// iter_nodes does.
func (m *Manager) mappedNodes(ctx context.Context, cols []string, f db.NodeFilter, o db.ListOpts) ([]models.Node, error) {
	all := append([]string{"uuid", "driver", "conductor_group"}, cols...)
	nodes, err := m.store.ListNodeColumns(ctx, all, f, o)
	if err != nil {
		return nil, err
	}
	out := nodes[:0]
	for i := range nodes {
		if m.mapped(ctx, &nodes[i]) {
			out = append(out, nodes[i])
		}
	}
	return out, nil
}

// failStuckOnStart is the start-up sweep (_fail_transient_state for
// STUCK_STATES_TREATED_AS_FAIL): unreserved nodes mapped here in a state
// no conductor can resume are failed.
func (m *Manager) failStuckOnStart(ctx context.Context) error {
	for _, s := range states.All() {
		if !states.StuckOnRestart(s) {
			continue
		}
		state := s
		msg := fmt.Sprintf("The %s state can't be resumed by conductor %s. Moving to fail state.", state, m.cfg.Host)
		if err := m.failIfInState(ctx, db.NodeFilter{Reserved: models.Ptr(false), ProvisionState: &state},
			"provision_updated_at", failSpec{states: []string{state}, lastError: msg}); err != nil {
			return err
		}
	}
	return nil
}

// failSpec says how failIfInState fails a node.
type failSpec struct {
	states []string
	// maintenance, when set, must equal the node's.
	maintenance *bool
	// keepTarget keeps the node's target_provision_state.
	keepTarget bool
	// callback, when set, runs in a worker after the fail event;
	// otherwise lastError is recorded (event type "transition").
	callback  func(ctx context.Context, t *task)
	lastError string
}

// failIfInState is _fail_if_in_state: discovery of the nodes, then
// failOne for each, up to [conductor]periodic_max_workers of them.
func (m *Manager) failIfInState(ctx context.Context, f db.NodeFilter, sortKey string, spec failSpec) error {
	nodes, err := m.mappedNodes(ctx, nil, f, db.ListOpts{SortKey: sortKey, SortDir: "asc"})
	if err != nil {
		return err
	}
	count := 0
	for _, n := range nodes {
		done, err := m.failOne(ctx, n.UUID, spec)
		if ironic.IsClass(err, ironic.NoFreeConductorWorker) {
			break
		}
		if err != nil && !ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			m.log.WarnContext(ctx, "failing node", "node", n.UUID, "error", err)
		}
		if err != nil || !done {
			continue
		}
		count++
		if count >= m.cfg.PeriodicMaxWorkers {
			break
		}
	}
	return nil
}

// failOne fails one node if it is (still) in one of spec's states; done
// says whether it was.
func (m *Manager) failOne(ctx context.Context, uuid string, spec failSpec) (bool, error) {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return false, err
	}
	n := t.node
	in := false
	for _, s := range spec.states {
		in = in || t.ProvisionState() == s
	}
	if !in || (spec.maintenance != nil && *spec.maintenance != n.Maintenance) {
		t.release(ctx)
		return false, nil
	}
	target := ""
	if spec.keepTarget {
		target = models.Deref(n.TargetProvisionState)
	}
	if spec.callback != nil {
		return true, m.startTransition(ctx, t, event{Name: states.EventFail, Target: target, LastError: n.LastError}, spec.callback)
	}
	defer t.release(ctx)
	t.record(ctx, spec.lastError, historyTransition, true)
	return true, t.processEvent(ctx, event{Name: states.EventFail, Target: target})
}

// CheckProvisionTimeouts runs the four callback timeout checks once
// (_check_deploy_timeouts, _check_cleanwait_timeouts,
// _check_inspect_wait_timeouts, _check_rescuewait_timeouts).
func (m *Manager) CheckProvisionTimeouts(ctx context.Context) error {
	notMaint := models.Ptr(false)
	unreserved := models.Ptr(false)
	var errs []error
	if d := m.cfg.DeployCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.DeployWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []string{states.DeployWait}, callback: m.cleanupAfterTimeout}))
	}
	if d := m.cfg.CleanCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.CleanWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []string{states.CleanWait}, keepTarget: true, callback: m.cleanupCleanWaitTimeout}))
	}
	if d := m.cfg.InspectWaitTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.InspectWait), InspectionStartedBefore: &d}, "inspection_started_at",
			failSpec{states: []string{states.InspectWait}, maintenance: notMaint, lastError: "timeout reached while inspecting the node"}))
	}
	if d := m.cfg.RescueCallbackTimeout; d > 0 {
		errs = append(errs, m.failIfInState(ctx, db.NodeFilter{Reserved: unreserved, Maintenance: notMaint,
			ProvisionState: models.Ptr(states.RescueWait), ProvisionedBefore: &d}, "provision_updated_at",
			failSpec{states: []string{states.RescueWait}, keepTarget: true, callback: m.cleanupRescueWaitTimeout}))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanupAfterTimeout is utils.cleanup_after_timeout.
func (m *Manager) cleanupAfterTimeout(ctx context.Context, t *task) {
	msg := "Timeout reached while waiting for callback for node " + t.node.UUID
	m.deployingError(ctx, t, msg, true)
}

// cleanupCleanWaitTimeout is utils.cleanup_cleanwait_timeout.
func (m *Manager) cleanupCleanWaitTimeout(ctx context.Context, t *task) {
	step := "{}"
	if len(t.node.CleanStep) > 0 {
		step = reprDict(t.node.CleanStep)
	}
	msg := "Timeout reached while cleaning the node. Please check if the ramdisk responsible for the cleaning is running on the node. Failed on step " + step + "."
	m.cleaningError(ctx, t, msg, cleanErrOpts{keepState: true})
}

// cleanupRescueWaitTimeout is utils.cleanup_rescuewait_timeout.
func (m *Manager) cleanupRescueWaitTimeout(ctx context.Context, t *task) {
	m.rescuingError(ctx, t, "Timeout reached while waiting for rescue ramdisk callback for node", false)
}

// rescuingError is utils.rescuing_error_handler.
func (m *Manager) rescuingError(ctx context.Context, t *task, msg string, setFail bool) {
	err := func() error {
		power, err := iface[drivers.PowerInterface](t, drivers.Power, "power")
		if err != nil {
			return err
		}
		if err := m.nodePowerAction(ctx, t, power, states.PowerOff, 0); err != nil {
			return err
		}
		r, err := iface[drivers.RescueInterface](t, drivers.Rescue, "rescue")
		if err != nil {
			return err
		}
		return r.CleanUp(ctx, t)
	}()
	if err != nil {
		msg = "Rescue operation was unsuccessful, clean up failed for node: " + err.Error()
	}
	t.record(ctx, msg, historyRescue, true)
	t.delInternal("agent_url")
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving node", "node", t.node.UUID, "error", err)
	}
	if setFail {
		if err := t.processEvent(ctx, event{Name: states.EventFail}); err != nil {
			m.log.ErrorContext(ctx, "failing rescue", "node", t.node.UUID, "error", err)
		}
	}
}

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
	_, err = m.failOne(ctx, n.UUID, failSpec{states: []string{states.Deploying, states.Cleaning}, callback: m.abortOnTakeOver})
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

// powerSyncColumns are what one power sync needs of a node: the state
// checks, everything a power driver reads, and the cached boot mode.
var powerSyncColumns = []string{"id", "power_state", "target_power_state", "provision_state", "maintenance",
	"reservation", "driver_info", "driver_internal_info", "instance_info", "bios_interface", "boot_interface",
	"console_interface", "deploy_interface", "inspect_interface", "management_interface", "network_interface",
	"power_interface", "raid_interface", "rescue_interface", "storage_interface", "vendor_interface",
	"boot_mode", "secure_boot"}

// syncExcluded are the states the power sync leaves alone
// (SYNC_EXCLUDED_STATES).
func syncExcluded(s string) bool {
	return s == states.DeployWait || s == states.CleanWait || s == states.Enroll || s == states.AdoptFailed
}

// SyncPowerStates is one pass of _sync_power_states: discovery, then the
// nodes processed by [conductor]sync_power_state_workers goroutines.
func (m *Manager) SyncPowerStates(ctx context.Context) error {
	items, err := m.DiscoverPowerSync(ctx)
	if err != nil {
		return err
	}
	workers := min(m.cfg.SyncPowerStateWorkers, m.cfg.PeriodicMaxWorkers, len(items))
	next := make(chan *models.Node)
	var wg sync.WaitGroup
	drv := newDriverCache(m.reg)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				m.syncPowerState(ctx, n, drv)
			}
		}()
	}
	for i := range items {
		select {
		case next <- &items[i]:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}

// DiscoverPowerSync lists, with one query of the needed columns, the
// nodes out of maintenance mapped here, those that failed to sync before
// first.
func (m *Manager) DiscoverPowerSync(ctx context.Context) ([]models.Node, error) {
	nodes, err := m.mappedNodes(ctx, powerSyncColumns, db.NodeFilter{Maintenance: models.Ptr(false)}, db.ListOpts{})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		return m.syncFailures.get(nodes[i].UUID) > m.syncFailures.get(nodes[j].UUID)
	})
	return nodes, nil
}

// ProcessPowerSync syncs one discovered node's power state.
func (m *Manager) ProcessPowerSync(ctx context.Context, n *models.Node) {
	m.syncPowerState(ctx, n, newDriverCache(m.reg))
}

// driverCache shares built drivers between nodes with the same
// interfaces during one pass.
type driverCache struct {
	reg *drivers.Registry
	mu  sync.Mutex
	m   map[string]*drivers.Driver
}

func newDriverCache(reg *drivers.Registry) *driverCache {
	return &driverCache{reg: reg, m: map[string]*drivers.Driver{}}
}

func (c *driverCache) get(n *models.Node) (*drivers.Driver, error) {
	ni := nodeInterfaces(n)
	var key strings.Builder
	key.WriteString(n.Driver)
	for _, k := range drivers.Kinds() {
		key.WriteByte('|')
		key.WriteString(ni.Fields[k])
		if v, ok := n.InstanceInfo[k.Field()]; ok {
			fmt.Fprintf(&key, "=%v", v)
		}
	}
	c.mu.Lock()
	d, ok := c.m[key.String()]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := c.reg.BuildDriver(ni)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[key.String()] = d
	c.mu.Unlock()
	return d, nil
}

// syncPowerState is _sync_power_state_nodes_task for one node followed by
// do_sync_power_state. The node starts as a shared task over the
// discovered columns; the lock is taken only to change something.
func (m *Manager) syncPowerState(ctx context.Context, n *models.Node, drv *driverCache) {
	if syncExcluded(models.Deref(n.ProvisionState)) || n.Maintenance || n.TargetPowerState != nil || n.Reservation != nil {
		return
	}
	d, err := drv.get(n)
	if err != nil {
		m.log.WarnContext(ctx, "power sync: building driver", "node", n.UUID, "error", err)
		return
	}
	t := m.sharedTask(n, d)
	count, err := m.doSyncPowerState(ctx, t, m.syncFailures.get(n.UUID))
	t.release(ctx)
	if ironic.IsClass(err, ironic.NodeLocked) || ironic.IsClass(err, ironic.NodeNotFound) {
		return
	}
	if err != nil {
		m.log.WarnContext(ctx, "power sync", "node", n.UUID, "error", err)
	}
	m.syncFailures.set(n.UUID, count)
}

// doSyncPowerState is manager.do_sync_power_state: it returns the new
// count of failed syncs.
func (m *Manager) doSyncPowerState(ctx context.Context, t *task, count int) (int, error) {
	n := t.node
	count++
	maxRetries := m.cfg.PowerStateSyncMaxRetries
	power, ok := t.driver.Interface(drivers.Power).(drivers.PowerInterface)
	if !ok {
		return 0, nil
	}
	if n.PowerState == nil {
		if err := power.Validate(ctx, t); isInvalidParameter(err) {
			return 0, nil
		}
	}
	actual, err := power.GetPowerState(ctx, t)
	if err == nil && actual == states.PowerError {
		err = ironic.Errorf(ironic.PowerStateFailure, "Power driver returned ERROR state while trying to sync power state.")
	}
	if err != nil {
		if count > maxRetries {
			if err := t.upgradeLock(ctx); err != nil {
				return count, err
			}
			return count, m.powerSyncMaxRetries(ctx, t, "", err)
		}
		m.log.WarnContext(ctx, fmt.Sprintf("During sync_power_state, could not get power state for node %s, attempt %d of %d. Error: %s.",
			n.UUID, count, maxRetries, err), "node", n.UUID)
		return count, nil
	}
	m.cacheBootMode(ctx, t)
	n = t.node
	if models.Deref(n.PowerState) == actual {
		return 0, nil
	}
	if err := t.upgradeLock(ctx); err != nil {
		return count, err
	}
	n = t.node
	switch {
	case models.Deref(n.PowerState) == actual:
		return 0, nil
	case syncExcluded(t.ProvisionState()) || n.Maintenance:
		return 0, nil
	case n.PowerState == nil:
		n.PowerState = models.Ptr(actual)
		return 0, t.Save(ctx)
	}
	if count > maxRetries {
		return count, m.powerSyncMaxRetries(ctx, t, actual, nil)
	}
	supports := true
	if ps, ok := power.(drivers.PowerSyncer); ok {
		supports = ps.SupportsPowerSync(ctx, t)
	}
	if m.cfg.ForcePowerStateDuringSync && supports {
		m.log.WarnContext(ctx, fmt.Sprintf("During sync_power_state, node %s state '%s' does not match expected state. Changing hardware state to '%s'.",
			n.UUID, actual, models.Deref(n.PowerState)), "node", n.UUID)
		if err := m.nodePowerAction(ctx, t, power, models.Deref(n.PowerState), 0); err != nil {
			m.log.ErrorContext(ctx, fmt.Sprintf("Failed to change power state of node %s to '%s', attempt %d of %d.",
				n.UUID, models.Deref(n.PowerState), count, maxRetries), "node", n.UUID)
		}
		return count, nil
	}
	m.log.WarnContext(ctx, fmt.Sprintf("During sync_power_state, node %s state does not match expected state '%s'. Updating recorded state to '%s'.",
		n.UUID, models.Deref(n.PowerState), actual), "node", n.UUID)
	n.PowerState = models.Ptr(actual)
	return count, t.Save(ctx)
}

// powerSyncMaxRetries is handle_sync_power_state_max_retries_exceeded.
func (m *Manager) powerSyncMaxRetries(ctx context.Context, t *task, actual string, cause error) error {
	n := t.node
	msg := fmt.Sprintf("During sync_power_state, max retries exceeded for node %s, node state %s does not match expected state '%s'. "+
		"Updating DB state to '%s' Switching node to maintenance mode.", n.UUID, pyOptStr(actual), pyOptStr(models.Deref(n.PowerState)), pyOptStr(actual))
	if cause != nil {
		msg += " Error: " + cause.Error()
	}
	n.PowerState = nil
	if actual != "" {
		n.PowerState = models.Ptr(actual)
	}
	t.record(ctx, msg, historyMonitoring, true)
	n.Maintenance = true
	n.MaintenanceReason = models.Ptr(msg)
	n.Fault = models.Ptr(faultPowerFailure)
	m.log.ErrorContext(ctx, msg, "node", n.UUID)
	return t.Save(ctx)
}

// PowerFailureRecovery is _power_failure_recovery: nodes in maintenance
// for a power failure leave it once their power state reads again.
func (m *Manager) PowerFailureRecovery(ctx context.Context) error {
	nodes, err := m.mappedNodes(ctx, powerSyncColumns, db.NodeFilter{Maintenance: models.Ptr(true),
		Fault: models.Ptr(faultPowerFailure)}, db.ListOpts{})
	if err != nil {
		return err
	}
	drv := newDriverCache(m.reg)
	for i := range nodes {
		m.recoverPower(ctx, &nodes[i], drv)
	}
	return nil
}

func (m *Manager) recoverPower(ctx context.Context, n *models.Node, drv *driverCache) {
	if models.Deref(n.ProvisionState) == states.Enroll || !n.Maintenance || n.TargetPowerState != nil || n.Reservation != nil {
		return
	}
	d, err := drv.get(n)
	if err != nil {
		return
	}
	t := m.sharedTask(n, d)
	defer func() { t.release(ctx) }()
	power, ok := d.Interface(drivers.Power).(drivers.PowerInterface)
	if !ok {
		return
	}
	if err := power.Validate(ctx, t); err != nil {
		return
	}
	actual, err := power.GetPowerState(ctx, t)
	if err != nil || actual == states.PowerError {
		return
	}
	if err := t.upgradeLock(ctx); err != nil {
		return
	}
	t.node.PowerState = models.Ptr(actual)
	t.node.Maintenance = false
	t.node.MaintenanceReason = nil
	t.node.Fault = nil
	if err := t.Save(ctx); err != nil {
		m.log.WarnContext(ctx, "power failure recovery", "node", n.UUID, "error", err)
		return
	}
	m.log.InfoContext(ctx, fmt.Sprintf("Node %s is recovered from power failure with actual power state '%s'.", n.UUID, actual), "node", n.UUID)
}

// job is one periodic job of Run.
type job struct {
	name     string
	interval time.Duration
	run      func(ctx context.Context) error
}

func (m *Manager) jobs() []job {
	return []job{
		{"heartbeat", m.cfg.HeartbeatInterval, func(ctx context.Context) error { return m.store.TouchConductor(ctx, m.cfg.Host) }},
		{"sync_power_states", m.cfg.SyncPowerStateInterval, m.SyncPowerStates},
		{"power_failure_recovery", m.cfg.PowerFailureRecoveryInterval, m.PowerFailureRecovery},
		{"check_provision_timeouts", m.cfg.CheckProvisionStateInterval, m.CheckProvisionTimeouts},
		{"check_orphan_nodes", m.cfg.CheckProvisionStateInterval, m.CheckOrphanNodes},
		{"sync_local_state", m.cfg.SyncLocalStateInterval, m.SyncLocalState},
		{"check_orphan_allocations", m.cfg.CheckAllocationsInterval, m.CheckOrphanAllocations},
	}
}

// Run heartbeats and runs the periodic jobs on their intervals until ctx
// ends, then waits for the workers, releases this conductor's locks and
// marks it offline. A job whose interval is negative is disabled; a job
// still running when it comes due again is skipped that time.
func (m *Manager) Run(ctx context.Context) error {
	jobs := m.jobs()
	due := make([]time.Time, len(jobs))
	running := make([]bool, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	now := m.clock.Now()
	for i, j := range jobs {
		due[i] = now.Add(j.interval)
	}
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	for {
		now := m.clock.Now()
		wait := time.Minute
		for i, j := range jobs {
			if j.interval <= 0 {
				continue
			}
			if !now.Before(due[i]) {
				due[i] = now.Add(j.interval)
				mu.Lock()
				busy := running[i]
				running[i] = true
				mu.Unlock()
				if !busy {
					wg.Add(1)
					go func(i int, j job) {
						defer wg.Done()
						if err := j.run(ctx); err != nil && ctx.Err() == nil {
							m.log.WarnContext(ctx, "periodic job failed", "job", j.name, "error", err)
						}
						mu.Lock()
						running[i] = false
						mu.Unlock()
					}(i, j)
				}
			}
			wait = min(wait, due[i].Sub(now))
		}
		timer.Reset(max(wait, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			wg.Wait()
			m.Wait()
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = m.store.ClearNodeReservationsForConductor(stopCtx, m.cfg.Host)
			return m.store.UnregisterConductor(stopCtx, m.cfg.Host)
		case <-timer.C:
		}
	}
}

// reprDict is Python's repr of a dict.
func reprDict(d models.JSONDict) string {
	return pyschema.Repr(map[string]any(d))
}
