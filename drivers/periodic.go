package drivers

import (
	"context"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// NodePeriodic is a periodic job an implementation declares (Ironic's
// @periodics.node_periodic): every Interval (zero or less disables it),
// the conductor runs Run on each node it manages that matches the filters
// and whose interface of the declaring kind is the implementation, with a
// shared-lock task (Run upgrades it when it changes the node). A node
// that is reserved is skipped.
type NodePeriodic struct {
	// Name names the job in logs.
	Name     string
	Interval time.Duration
	// ProvisionStates are the states of the nodes it looks at.
	ProvisionStates []states.Provision
	// Maintenance, when set, requires the node's maintenance flag.
	Maintenance *bool
	// Predicate, when set, selects by driver_internal_info.
	Predicate func(driverInternalInfo *pyjson.Dict) bool
	// Run handles one node; an error is logged.
	Run func(ctx context.Context, task Task) error
}

// PeriodicDeclarer is implemented by implementations with periodic jobs.
type PeriodicDeclarer interface {
	NodePeriodics() []NodePeriodic
}

// KindPeriodic is a NodePeriodic with the implementation that declared it.
type KindPeriodic struct {
	Kind Kind
	// Impl is the implementation's name.
	Impl string
	NodePeriodic
}

// NodePeriodics lists the periodic jobs of the enabled implementations.
func (r *Registry) NodePeriodics() []KindPeriodic {
	var out []KindPeriodic
	for _, k := range Kinds() {
		for _, n := range r.enabled[k] {
			if d, ok := r.impls[k][n].(PeriodicDeclarer); ok {
				for _, p := range d.NodePeriodics() {
					out = append(out, KindPeriodic{Kind: k, Impl: n, NodePeriodic: p})
				}
			}
		}
	}
	return out
}
