package conductor

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// driverJobs are the periodic jobs the enabled implementations declare
// (Ironic's node_periodic methods of interfaces), each on its own
// interval.
func (m *Manager) driverJobs() []job {
	var out []job
	for _, p := range m.reg.NodePeriodics() {
		p := p
		out = append(out, job{name: fmt.Sprintf("%s/%s %s", p.Kind, p.Impl, p.Name), interval: p.Interval,
			run: func(ctx context.Context) error { return m.RunNodePeriodic(ctx, p) }})
	}
	return out
}

// RunNodePeriodic is one pass of a driver's periodic job: the unreserved
// nodes mapped here in its provision states (and maintenance, when it
// says) whose interface is the declaring implementation and whose
// driver_internal_info satisfies its predicate are each handed to it with
// a shared task. A node taken meanwhile, or gone, is skipped.
func (m *Manager) RunNodePeriodic(ctx context.Context, p drivers.KindPeriodic) error {
	f := db.NodeFilter{Reserved: models.Ptr(false), ProvisionStateIn: p.ProvisionStates, Maintenance: p.Maintenance}
	nodes, err := m.mappedNodes(ctx, []string{"driver_internal_info"}, f, db.ListOpts{})
	if err != nil {
		return err
	}
	for _, n := range nodes {
		dii := n.DriverInternalInfo.Dict
		if dii == nil {
			dii = pyjson.NewDict(0)
		}
		if p.Predicate != nil && !p.Predicate(dii) {
			continue
		}
		t, err := m.acquire(ctx, n.UUID, sharedLock)
		if ironic.IsClass(err, ironic.NodeNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if t.InterfaceName(p.Kind) != p.Impl {
			continue
		}
		err = p.Run(ctx, t)
		t.release(ctx)
		if err != nil && !ironic.IsClass(err, ironic.NodeLocked) && !ironic.IsClass(err, ironic.NodeNotFound) {
			m.log.WarnContext(ctx, "periodic job failed for a node", "job", p.Name, "node", n.UUID, "error", err)
		}
	}
	return nil
}
