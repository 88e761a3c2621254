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
	"github.com/goironic/ironic/states"
)

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

// powerSyncColumns are what one power sync needs of a node: the state
// checks, everything a power driver reads, and what the sync caches (the
// vendor in properties, the boot mode and secure boot state).
var powerSyncColumns = []string{"id", "power_state", "target_power_state", "provision_state", "maintenance",
	"reservation", "driver_info", "driver_internal_info", "instance_info", "properties", "bios_interface", "boot_interface",
	"console_interface", "deploy_interface", "inspect_interface", "management_interface", "network_interface",
	"power_interface", "raid_interface", "rescue_interface", "storage_interface", "vendor_interface",
	"boot_mode", "secure_boot"}

// powerSyncReadTimeout is Config.PowerSyncReadTimeout or its default.
func (m *Manager) powerSyncReadTimeout() time.Duration {
	switch {
	case m.cfg.PowerSyncReadTimeout > 0:
		return m.cfg.PowerSyncReadTimeout
	case m.cfg.SyncPowerStateInterval > 0:
		return m.cfg.SyncPowerStateInterval
	}
	return time.Minute
}

// syncExcluded are the states the power sync leaves alone
// (SYNC_EXCLUDED_STATES).
func syncExcluded(s states.Provision) bool {
	return s == states.DeployWait || s == states.CleanWait || s == states.Enroll || s == states.AdoptFailed
}

// SyncPowerStates is one pass of _sync_power_states: discovery, then the
// nodes processed by [conductor]sync_power_state_workers goroutines.
func (m *Manager) SyncPowerStates(ctx context.Context) error {
	start := m.clock.Now()
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
	m.log.InfoContext(ctx, "power sync pass", "nodes", len(items), "workers", workers,
		"seconds", m.clock.Now().Sub(start).Seconds())
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
		if v, ok := n.InstanceInfo.Lookup(k.Field()); ok {
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
	// The reads ask the BMC once (the next pass is the retry) and are
	// bounded in time; changes (a lock, a save, a power action) are not.
	rctx, cancel := context.WithTimeout(drivers.SingleAttempt(ctx), m.powerSyncReadTimeout())
	defer cancel()
	if n.PowerState == nil {
		if err := power.Validate(rctx, t); isInvalidParameter(err) {
			return 0, nil
		}
	}
	actual, err := power.GetPowerState(rctx, t)
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
	m.cacheVendor(rctx, t)
	m.cacheBootMode(rctx, t)
	cancel()
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
		if err := t.Save(ctx); err != nil {
			return 0, err
		}
		m.notifyNova(ctx, n, actual)
		return 0, nil
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
	if err := t.Save(ctx); err != nil {
		return count, err
	}
	m.notifyNova(ctx, n, actual)
	return count, nil
}

// powerSyncMaxRetries is handle_sync_power_state_max_retries_exceeded.
func (m *Manager) powerSyncMaxRetries(ctx context.Context, t *task, actual states.Power, cause error) error {
	n := t.node
	old := models.Deref(n.PowerState)
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
	n.Fault = models.Ptr(states.PowerFailure)
	if err := t.Save(ctx); err != nil {
		return err
	}
	if old != actual {
		m.notifyNova(ctx, n, actual)
	}
	m.log.ErrorContext(ctx, msg, "node", n.UUID)
	return nil
}

// PowerFailureRecovery is _power_failure_recovery: nodes in maintenance
// for a power failure leave it once their power state reads again.
func (m *Manager) PowerFailureRecovery(ctx context.Context) error {
	nodes, err := m.mappedNodes(ctx, powerSyncColumns, db.NodeFilter{Maintenance: models.Ptr(true),
		Fault: models.Ptr(states.PowerFailure)}, db.ListOpts{})
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
	old := models.Deref(t.node.PowerState)
	t.node.PowerState = models.Ptr(actual)
	t.node.Maintenance = false
	t.node.MaintenanceReason = nil
	t.node.Fault = nil
	if err := t.Save(ctx); err != nil {
		m.log.WarnContext(ctx, "power failure recovery", "node", n.UUID, "error", err)
		return
	}
	m.log.InfoContext(ctx, fmt.Sprintf("Node %s is recovered from power failure with actual power state '%s'.", n.UUID, actual), "node", n.UUID)
	if old != actual {
		m.notifyNova(ctx, t.node, actual)
	}
}
