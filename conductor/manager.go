// Package conductor implements the conductor side of the RPC API: it owns
// node changes, runs the drivers under a node lock, and keeps its own
// registration (and heartbeat) in the conductors table.
package conductor

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/rpc"
)

// Config holds the conductor's options ([DEFAULT] host and [conductor]).
type Config struct {
	// Host is [DEFAULT]host, this conductor's name.
	Host string
	// Group is [conductor]conductor_group.
	Group string
	// HeartbeatInterval is [conductor]heartbeat_interval (10 s).
	HeartbeatInterval time.Duration
	// NodeLockedRetryAttempts and NodeLockedRetryInterval are how long a
	// busy node lock is retried before NodeLocked (3 × 1 s).
	NodeLockedRetryAttempts int
	NodeLockedRetryInterval time.Duration
	// AllowDeletingAvailableNodes is [conductor]allow_deleting_available_nodes.
	AllowDeletingAvailableNodes bool
	// SoftPowerOffTimeout is [conductor]soft_power_off_timeout (600 s).
	SoftPowerOffTimeout time.Duration
	// WorkersPoolSize is [conductor]workers_pool_size (100).
	WorkersPoolSize int
}

// Store is the database as the conductor uses it.
type Store interface {
	RegisterConductor(ctx context.Context, c *models.Conductor, updateExisting bool) (*models.Conductor, error)
	UnregisterConductor(ctx context.Context, hostname string) error
	TouchConductor(ctx context.Context, hostname string) error
	RegisterConductorHardwareInterfaces(ctx context.Context, conductorID int64, ifaces []models.ConductorHardwareInterface) error
	UnregisterConductorHardwareInterfaces(ctx context.Context, conductorID int64) error
	ClearNodeReservationsForConductor(ctx context.Context, hostname string) error

	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
	GetNodeByID(ctx context.Context, id int64) (*models.Node, error)
	CreateNode(ctx context.Context, n *models.Node) (*models.Node, error)
	UpdateNode(ctx context.Context, ref db.Ref, values db.Values) (*models.Node, error)
	DestroyNode(ctx context.Context, ref db.Ref) error
	ReserveNode(ctx context.Context, tag string, ref db.Ref) (*models.Node, error)
	ReleaseNode(ctx context.Context, tag string, ref db.Ref) error
	NodeValues(n *models.Node, cols []string) (db.Values, error)

	SetNodeTraits(ctx context.Context, nodeID int64, traits []string) ([]models.NodeTrait, error)
	UnsetNodeTraits(ctx context.Context, nodeID int64) error
	AddNodeTrait(ctx context.Context, nodeID int64, trait string) (*models.NodeTrait, error)
	DeleteNodeTrait(ctx context.Context, nodeID int64, trait string) error

	ListPorts(ctx context.Context, f db.PortFilter, o db.ListOpts) ([]models.Port, error)
	ListPortgroups(ctx context.Context, f db.PortgroupFilter, o db.ListOpts) ([]models.Portgroup, error)
	GetPortByUUID(ctx context.Context, uuid string) (*models.Port, error)
	CreatePort(ctx context.Context, p *models.Port) (*models.Port, error)
	UpdatePort(ctx context.Context, ref db.Ref, values db.Values) (*models.Port, error)
	DestroyPort(ctx context.Context, ref db.Ref) error
	PortValues(p *models.Port, cols []string) (db.Values, error)
	GetPortgroupByUUID(ctx context.Context, uuid string) (*models.Portgroup, error)
	UpdatePortgroup(ctx context.Context, ref db.Ref, values db.Values) (*models.Portgroup, error)
	DestroyPortgroup(ctx context.Context, ref db.Ref) error
	PortgroupValues(p *models.Portgroup, cols []string) (db.Values, error)

	GetVolumeConnector(ctx context.Context, ref db.Ref) (*models.VolumeConnector, error)
	UpdateVolumeConnector(ctx context.Context, ref db.Ref, values db.Values) (*models.VolumeConnector, error)
	DestroyVolumeConnector(ctx context.Context, ref db.Ref) error
	VolumeConnectorValues(c *models.VolumeConnector, cols []string) (db.Values, error)
	GetVolumeTarget(ctx context.Context, ref db.Ref) (*models.VolumeTarget, error)
	UpdateVolumeTarget(ctx context.Context, ref db.Ref, values db.Values) (*models.VolumeTarget, error)
	DestroyVolumeTarget(ctx context.Context, ref db.Ref) error
	VolumeTargetValues(t *models.VolumeTarget, cols []string) (db.Values, error)

	ListBIOSSettings(ctx context.Context, nodeID int64) ([]models.BIOSSetting, error)
	CreateBIOSSettings(ctx context.Context, nodeID int64, settings []models.BIOSSetting) ([]models.BIOSSetting, error)
	UpdateBIOSSettings(ctx context.Context, nodeID int64, settings []models.BIOSSetting) ([]models.BIOSSetting, error)
	DeleteBIOSSettings(ctx context.Context, nodeID int64, names []string) error
}

// Manager is a conductor: Ironic's ConductorManager.
type Manager struct {
	cfg   Config
	store Store
	reg   *drivers.Registry
	clock ironic.Clock
	log   *slog.Logger
	id    int64

	workers *workers
}

var _ rpc.ConductorAPI = (*Manager)(nil)

// New builds a conductor over store with the drivers of reg.
func New(cfg Config, store Store, reg *drivers.Registry, clock ironic.Clock, log *slog.Logger) *Manager {
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 10 * time.Second
	}
	if cfg.NodeLockedRetryAttempts <= 0 {
		cfg.NodeLockedRetryAttempts = 3
	}
	if cfg.SoftPowerOffTimeout <= 0 {
		cfg.SoftPowerOffTimeout = 600 * time.Second
	}
	if cfg.NodeLockedRetryInterval <= 0 {
		cfg.NodeLockedRetryInterval = time.Second
	}
	if clock == nil {
		clock = ironic.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{cfg: cfg, store: store, reg: reg, clock: clock, log: log, workers: newWorkers(cfg.WorkersPoolSize)}
}

// Host is this conductor's name.
func (m *Manager) Host() string { return m.cfg.Host }

// Register records this conductor and what it can run, as Ironic's
// conductor does at start-up, and releases reservations a previous run
// of this host left behind.
func (m *Manager) Register(ctx context.Context) error {
	c, err := m.store.RegisterConductor(ctx, &models.Conductor{
		Hostname: m.cfg.Host, ConductorGroup: m.cfg.Group,
		Drivers: toList(m.reg.HardwareTypes()),
	}, true)
	if err != nil {
		return fmt.Errorf("registering conductor %s: %w", m.cfg.Host, err)
	}
	m.id = c.ID
	if err := m.store.UnregisterConductorHardwareInterfaces(ctx, c.ID); err != nil {
		return err
	}
	var rows []models.ConductorHardwareInterface
	for _, r := range m.reg.InterfaceRows() {
		rows = append(rows, models.ConductorHardwareInterface{
			ConductorID: c.ID, HardwareType: r.HardwareType, InterfaceType: string(r.Kind),
			InterfaceName: r.Name, Default: r.Default,
		})
	}
	if err := m.store.RegisterConductorHardwareInterfaces(ctx, c.ID, rows); err != nil {
		return err
	}
	return m.store.ClearNodeReservationsForConductor(ctx, m.cfg.Host)
}

// Run heartbeats until ctx ends, then marks the conductor offline.
func (m *Manager) Run(ctx context.Context) error {
	t := time.NewTicker(m.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = m.store.ClearNodeReservationsForConductor(stopCtx, m.cfg.Host)
			return m.store.UnregisterConductor(stopCtx, m.cfg.Host)
		case <-t.C:
			if err := m.store.TouchConductor(ctx, m.cfg.Host); err != nil && ctx.Err() == nil {
				m.log.WarnContext(ctx, "conductor heartbeat failed", "error", err)
			}
		}
	}
}

func toList(s []string) models.JSONList {
	out := make(models.JSONList, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
