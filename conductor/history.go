package conductor

import (
	"context"
	"slices"
	"time"
)

// ManageNodeHistory is Ironic's _manage_node_history periodic job: the
// history of the nodes this conductor owns (conductor_affinity) is cut to
// the newest [conductor]node_history_max_entries events, counting only
// events older than node_history_minimum_days, deleting at most about
// node_history_cleanup_batch_count events a run (a node's events are
// deleted together; Ironic's count, which may overshoot by one node's).
func (m *Manager) ManageNodeHistory(ctx context.Context) error {
	if m.id == 0 {
		return nil // not registered yet
	}
	entries, err := m.store.QueryNodeHistoryRecordsForPurge(ctx, m.id, m.cfg.NodeHistoryMinimumDays, m.cfg.NodeHistoryMaxEntries)
	if err != nil {
		return err
	}
	nodes := make([]int64, 0, len(entries))
	for n := range entries {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	count := 0
	for _, n := range nodes {
		if count >= m.cfg.NodeHistoryCleanupBatchCount {
			m.log.WarnContext(ctx, "While cleaning up node history records, we reached the maximum number of records permitted in a single batch. "+
				"If this error is repeated, consider tuning node history configuration options to be more aggressive by increasing frequency "+
				"and lowering the number of entries to be deleted to not negatively impact performance.")
			break
		}
		if ids := entries[n]; len(ids) > 0 {
			if err := m.store.BulkDeleteNodeHistoryRecords(ctx, ids); err != nil {
				return err
			}
		}
		count += len(entries[n])
	}
	return nil
}

// historyCleanupInterval is the job's interval: disabled (0) unless
// node_history_cleanup_batch_count > 0 and node_history_max_entries != 0,
// as Ironic enables it.
func (m *Manager) historyCleanupInterval() time.Duration {
	if m.cfg.NodeHistoryCleanupBatchCount <= 0 || m.cfg.NodeHistoryMaxEntries == 0 {
		return 0
	}
	return m.cfg.NodeHistoryCleanupInterval
}
