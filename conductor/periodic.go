package conductor

import (
	"context"
	"sync"
	"time"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
)

// The periodic jobs (periodic_power.go, periodic_timeouts.go,
// periodic_takeover.go, and the allocations') are each split in two: a
// discovery that lists the work items of this conductor with one query
// (mappedNodes), and a process step that handles one item under the
// node's lock. Run drives them on their schedule, which reads the time
// from the conductor's clock; tests step the schedule, or the discovery
// and processing of one job, directly.

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

// job is one periodic job of Run: a pass of discovery and processing.
type job struct {
	name     string
	interval time.Duration
	run      func(ctx context.Context) error
}

// jobs are the conductor's periodic jobs, Ironic's @periodic methods of
// the manager, each on its [conductor] interval.
func (m *Manager) jobs() []job {
	return append([]job{
		{"heartbeat", m.cfg.HeartbeatInterval, func(ctx context.Context) error { return m.store.TouchConductor(ctx, m.cfg.Host) }},
		{"sync_power_states", m.cfg.SyncPowerStateInterval, m.SyncPowerStates},
		{"power_failure_recovery", m.cfg.PowerFailureRecoveryInterval, m.PowerFailureRecovery},
		{"check_provision_timeouts", m.cfg.CheckProvisionStateInterval, m.CheckProvisionTimeouts},
		{"check_orphan_nodes", m.cfg.CheckProvisionStateInterval, m.CheckOrphanNodes},
		{"sync_local_state", m.cfg.SyncLocalStateInterval, m.SyncLocalState},
		{"check_orphan_allocations", m.cfg.CheckAllocationsInterval, m.CheckOrphanAllocations},
		{"manage_node_history", m.historyCleanupInterval(), m.ManageNodeHistory},
		{"reconcile_reservations", m.cfg.HeartbeatInterval, m.ReconcileReservations},
	}, m.driverJobs()...)
}

// schedule says when the periodic jobs run: each comes due one interval
// after the schedule starts and every interval after it ran; a job whose
// interval is not positive is disabled; a job still running when it comes
// due again is skipped that time. It reads no clock: its caller gives the
// time (Run the conductor's clock, tests a fake one).
type schedule struct {
	jobs    []job
	due     []time.Time
	mu      sync.Mutex
	running []bool
	wg      sync.WaitGroup
	// failed is told about a job that returned an error.
	failed func(ctx context.Context, j job, err error)
}

func newSchedule(jobs []job, now time.Time, failed func(ctx context.Context, j job, err error)) *schedule {
	s := &schedule{jobs: jobs, due: make([]time.Time, len(jobs)), running: make([]bool, len(jobs)), failed: failed}
	for i, j := range jobs {
		s.due[i] = now.Add(j.interval)
	}
	return s
}

// step starts (each in its own goroutine) the jobs due at now that are
// not running, and returns how long until the next job comes due (at
// most a minute).
func (s *schedule) step(ctx context.Context, now time.Time) time.Duration {
	wait := time.Minute
	for i, j := range s.jobs {
		if j.interval <= 0 {
			continue
		}
		if !now.Before(s.due[i]) {
			s.due[i] = now.Add(j.interval)
			s.mu.Lock()
			busy := s.running[i]
			s.running[i] = true
			s.mu.Unlock()
			if !busy {
				s.wg.Add(1)
				go s.run(ctx, i)
			}
		}
		wait = min(wait, s.due[i].Sub(now))
	}
	return wait
}

func (s *schedule) run(ctx context.Context, i int) {
	defer s.wg.Done()
	j := s.jobs[i]
	if err := j.run(ctx); err != nil && ctx.Err() == nil {
		s.failed(ctx, j, err)
	}
	s.mu.Lock()
	s.running[i] = false
	s.mu.Unlock()
}

// wait blocks until no job runs.
func (s *schedule) wait() { s.wg.Wait() }

// Run heartbeats and runs the periodic jobs on their schedule until ctx
// ends, then waits for the jobs and workers, releases this conductor's
// locks and marks it offline.
func (m *Manager) Run(ctx context.Context) error {
	s := newSchedule(m.jobs(), m.clock.Now(), func(ctx context.Context, j job, err error) {
		m.log.WarnContext(ctx, "periodic job failed", "job", j.name, "error", err)
	})
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	for {
		timer.Reset(max(s.step(ctx, m.clock.Now()), 10*time.Millisecond))
		select {
		case <-ctx.Done():
			s.wait()
			m.locks.stopRetries()
			m.Wait()
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = m.store.ClearNodeReservationsForConductor(stopCtx, m.cfg.Host)
			return m.store.UnregisterConductor(stopCtx, m.cfg.Host)
		case <-timer.C:
		}
	}
}
