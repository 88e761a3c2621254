package network

import (
	"context"
	"log/slog"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// vifPortIDMixin is what the flat and neutron interfaces share (Ironic's
// NeutronVIFPortIDMixin and NeutronNetworkInterfaceMixin): VIFs recorded
// on the ports and port groups, the cleaning and inspection networks'
// removal, network_data from Neutron.
type vifPortIDMixin struct {
	drivers.NetworkBase
	ops neutronOps
}

// newMixin holds deps' Neutron client (its connection failures marked),
// logger (nil discards) and sleep (nil sleeps for real).
func newMixin(cfg Config, deps Deps) vifPortIDMixin {
	log := deps.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sleep := deps.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	return vifPortIDMixin{ops: neutronOps{api: marked{deps.Neutron}, cfg: cfg, log: log, sleep: sleep}}
}

// PortChanged updates the VIF of a port whose MAC address or client-id
// changed, and refuses what a port group without standalone ports forbids.
func (m *vifPortIDMixin) PortChanged(ctx context.Context, task drivers.Task, p drivers.Port) error {
	return done(m.ops.portChanged(ctx, task, p))
}

// PortgroupChanged is PortChanged for port groups.
func (m *vifPortIDMixin) PortgroupChanged(ctx context.Context, task drivers.Task, pg drivers.Portgroup) error {
	return done(m.ops.portgroupChanged(ctx, task, pg))
}

// VIFAttach records the VIF on a free port or port group (of a physical
// network the VIF's network has) and gives its Neutron port that MAC
// address; on an active node the port is bound too.
func (m *vifPortIDMixin) VIFAttach(ctx context.Context, task drivers.Task, vif drivers.VIF) error {
	return done(m.ops.vifAttach(ctx, task, vif))
}

// VIFDetach forgets the VIF; on an active (or deleting) node its Neutron
// port is unbound.
func (m *vifPortIDMixin) VIFDetach(ctx context.Context, task drivers.Task, vifID string) error {
	return done(m.ops.vifDetach(ctx, task, vifID))
}

// VIFList lists the VIFs recorded on the ports, then the port groups.
func (m *vifPortIDMixin) VIFList(_ context.Context, task drivers.Task) ([]drivers.VIF, error) {
	return vifList(task), nil
}

// GetCurrentVIF returns the VIF in use on a port or port group.
func (m *vifPortIDMixin) GetCurrentVIF(_ context.Context, task drivers.Task, uuid string) (string, error) {
	return currentVIF(task, uuid), nil
}

// RemoveCleaningNetwork deletes the node's ports on the cleaning network.
func (m *vifPortIDMixin) RemoveCleaningNetwork(ctx context.Context, task drivers.Task) error {
	id, err := m.ops.cleaningNetwork(ctx, task)
	if err != nil {
		return done(err)
	}
	return done(m.ops.removeServiceNetwork(ctx, task, id, "cleaning"))
}

// ValidateInspection checks the inspection network; without one the
// driver doesn't support managed inspection.
func (m *vifPortIDMixin) ValidateInspection(ctx context.Context, task drivers.Task) error {
	_, err := m.ops.inspectionNetwork(ctx, task)
	if isMissingParameter(err) {
		return drivers.Unsupported(task, "inspection")
	}
	return done(err)
}

// RemoveInspectionNetwork deletes the node's ports on the inspection
// network.
func (m *vifPortIDMixin) RemoveInspectionNetwork(ctx context.Context, task drivers.Task) error {
	id, err := m.ops.inspectionNetwork(ctx, task)
	if err != nil {
		return done(err)
	}
	return done(m.ops.removeServiceNetwork(ctx, task, id, "inspection"))
}

// GetNodeNetworkData returns the node's network_data, else the network
// configuration of its VIFs as Neutron has it (links and networks from
// the ports, their subnets and networks).
func (m *vifPortIDMixin) GetNodeNetworkData(ctx context.Context, task drivers.Task) (*pyjson.Dict, error) {
	nd, err := m.ops.nodeNetworkData(ctx, task)
	return nd, done(err)
}
