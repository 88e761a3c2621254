// Package conductor implements the conductor side of the RPC API: it owns
// node changes, runs the drivers under a node lock, and keeps its own
// registration (and heartbeat) in the conductors table.
package conductor

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
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
	// MaxConcurrentDeploy is [conductor]max_concurrent_deploy (250): a
	// deploy is refused (ConcurrentActionLimit) while this many nodes,
	// across all conductors, are deploying or waiting for a deploy
	// call-back. MaxConcurrentClean is [conductor]max_concurrent_clean
	// (50), the same for cleaning, clean wait and deleting nodes, checked
	// by manual cleaning and tear down.
	MaxConcurrentDeploy int
	MaxConcurrentClean  int
	// ReplyLinger is how long a call that handed work to a worker waits
	// for that work to finish before it replies (5 ms when 0; negative
	// replies at once). Work that finishes within it, as fake hardware's does, is
	// already in its end state when the client first looks, so a client
	// polling for that state (the CLI's --wait) is answered at once
	// instead of one poll interval later; longer work costs the call at
	// most this much. Ours, not an Ironic option.
	ReplyLinger time.Duration

	// HeartbeatTimeout is [conductor]heartbeat_timeout (60 s): a conductor
	// whose last heartbeat is older is dead, its nodes are taken over.
	HeartbeatTimeout time.Duration
	// HashPartitionExponent is [DEFAULT]hash_partition_exponent (5) and
	// HashRingResetInterval [DEFAULT]hash_ring_reset_interval (15 s).
	HashPartitionExponent int
	HashRingResetInterval time.Duration

	// AutomatedClean is [conductor]automated_clean (True): cleaning runs
	// on provide and tear down unless the node's automated_clean is False.
	AutomatedClean bool
	// FastTrack is [deploy]fast_track (False), the default of a node's
	// driver_info["fast_track"]: a fast-track-able node keeps its agent's
	// token and URL when a deployment or cleaning ends.
	FastTrack bool
	// AllowProvisioningInMaintenance is
	// [conductor]allow_provisioning_in_maintenance (True).
	AllowProvisioningInMaintenance bool
	// NodeHistory is [conductor]node_history (True): errors are recorded
	// in the node_history table.
	NodeHistory bool
	// Nova is told about power state changes of nodes with an instance
	// (internal/novaclient; nil tells nobody).
	Nova PowerNotifier
	// NodeHistoryCleanupInterval (1 day; 0 disables),
	// NodeHistoryMaxEntries (300), NodeHistoryCleanupBatchCount (1000)
	// and NodeHistoryMinimumDays (0) are [conductor]'s node_history_*
	// options of the history clean-up job (ManageNodeHistory).
	NodeHistoryCleanupInterval   time.Duration
	NodeHistoryMaxEntries        int
	NodeHistoryCleanupBatchCount int
	NodeHistoryMinimumDays       int

	// SyncPowerStateInterval is [conductor]sync_power_state_interval
	// (60 s; 0 or negative disables the power sync).
	SyncPowerStateInterval time.Duration
	// ForcePowerStateDuringSync is [conductor]force_power_state_during_sync
	// (True): a node whose actual power differs is driven back to the
	// recorded state rather than the record corrected.
	ForcePowerStateDuringSync bool
	// PowerStateSyncMaxRetries is [conductor]power_state_sync_max_retries
	// (3): after that many failed syncs the node goes to maintenance
	// with fault "power failure".
	PowerStateSyncMaxRetries int
	// PowerFailureRecoveryInterval is
	// [conductor]power_failure_recovery_interval (300 s; 0 or
	// negative disables).
	PowerFailureRecoveryInterval time.Duration
	// SyncPowerStateWorkers is [conductor]sync_power_state_workers (8)
	// and PeriodicMaxWorkers [conductor]periodic_max_workers (8).
	SyncPowerStateWorkers int
	PeriodicMaxWorkers    int
	// PowerSyncReadTimeout bounds the reads of one node's hardware in a
	// power sync pass (the power state, then the vendor, boot mode and
	// secure boot state); a node whose reads take longer fails this pass
	// as a BMC that answered with an error does. When 0, one
	// SyncPowerStateInterval (a read that outlasts the interval between
	// passes is of no use), or 60 s if that is disabled. Ours, not an
	// Ironic option: Ironic sets no bound, and a BMC that accepts the
	// connection but never answers holds one of its sync workers forever.
	PowerSyncReadTimeout time.Duration

	// CheckProvisionStateInterval is
	// [conductor]check_provision_state_interval (60 s): how often the
	// callback timeouts below are checked.
	CheckProvisionStateInterval time.Duration
	// DeployCallbackTimeout, CleanCallbackTimeout, InspectWaitTimeout and
	// RescueCallbackTimeout are the [conductor] *_timeout options (all
	// 1800 s; 0 or negative disables the check).
	DeployCallbackTimeout time.Duration
	CleanCallbackTimeout  time.Duration
	InspectWaitTimeout    time.Duration
	RescueCallbackTimeout time.Duration
	// SyncLocalStateInterval is [conductor]sync_local_state_interval
	// (180 s): how often active nodes mapped here are taken over.
	SyncLocalStateInterval time.Duration
	// CheckAllocationsInterval is [conductor]check_allocations_interval
	// (60 s): how often allocations of dead conductors are taken over.
	CheckAllocationsInterval time.Duration

	// ConfigdriveUseObjectStore is [deploy]configdrive_use_object_store:
	// config drives are uploaded to ObjectStore, in the container
	// ConfigdriveSwiftContainer ([conductor]configdrive_swift_container),
	// and instance_info keeps a temp URL valid for
	// ConfigdriveSwiftTempURLDuration (else DeployCallbackTimeout, else
	// 1800 s).
	ConfigdriveUseObjectStore bool
	// AgentRequireTLS is [agent]require_tls: heartbeats must give an
	// https callback URL.
	AgentRequireTLS bool
	// AgentCertificatesPath is [agent]certificates_path, where the
	// agents' TLS certificates (agent_verify_ca) are stored.
	AgentCertificatesPath           string
	ConfigdriveSwiftContainer       string
	ConfigdriveSwiftTempURLDuration time.Duration
	ObjectStore                     ObjectStore
	// Configdrive builds the config drives given as dicts
	// (drivers/configdrive.Builder); nil fails their deployments.
	Configdrive ConfigdriveBuilder

	// Images reads Glance images' properties for update_image_type
	// (internal/glance.Client); nil: Glance images' type is not recorded.
	Images ImageProperties

	// ImageHTTP sends the HEAD requests of update_image_type (nil:
	// ImageHTTPClient with WebserverVerifyCA and
	// WebserverConnectionTimeout, [DEFAULT]webserver_verify_ca and
	// webserver_connection_timeout).
	ImageHTTP                  HTTPDoer
	WebserverVerifyCA          string
	WebserverConnectionTimeout time.Duration
}

// DefaultConfig is Config with Ironic's defaults (see Bind).
func DefaultConfig() Config { return option.Default[Config]() }

// fillDefaults supplies what Config leaves to the conductor: the iPXE
// scripter, the image client and the reply linger (not options).
func (c *Config) fillDefaults() {
	if c.ImageHTTP == nil {
		c.ImageHTTP = ImageHTTPClient(c.WebserverVerifyCA, c.WebserverConnectionTimeout)
	}
	if c.ReplyLinger == 0 {
		c.ReplyLinger = 5 * time.Millisecond
	}
}

// PowerNotifier is what the conductor needs of Nova: Ironic's
// nova.power_update, which must not block.
type PowerNotifier interface {
	PowerUpdate(ctx context.Context, instanceUUID string, state states.Power)
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
	ChangedNodeColumns(old, cur *models.Node) []string

	SetNodeTraits(ctx context.Context, nodeID int64, traits []string) ([]models.NodeTrait, error)
	UnsetNodeTraits(ctx context.Context, nodeID int64) error
	AddNodeTrait(ctx context.Context, nodeID int64, trait string) (*models.NodeTrait, error)
	DeleteNodeTrait(ctx context.Context, nodeID int64, trait string) error

	// ListDeployTemplatesByNames returns the deploy templates with these
	// names, with their steps.
	ListDeployTemplatesByNames(ctx context.Context, names []string) ([]models.DeployTemplate, error)

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

	// GetBootNodeByUUID and GetBootNodeByPortAddress are the narrow node
	// reads of drivers.BootNodes.
	GetBootNodeByUUID(ctx context.Context, uuid string) (*db.BootNode, bool, error)
	GetBootNodeByPortAddress(ctx context.Context, address string) (*db.BootNode, bool, error)

	ListVolumeConnectors(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeConnector, error)
	ListVolumeTargets(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeTarget, error)
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

	// Allocations.
	ListNodes(ctx context.Context, f db.NodeFilter, o db.ListOpts) ([]models.Node, error)
	ListAllocations(ctx context.Context, f db.AllocationFilter, o db.ListOpts) ([]models.Allocation, error)
	CreateAllocation(ctx context.Context, a *models.Allocation) (*models.Allocation, error)
	UpdateAllocation(ctx context.Context, ref db.Ref, values db.Values, updateNode bool) (*models.Allocation, error)
	TakeOverAllocation(ctx context.Context, allocationID, oldConductorID, newConductorID int64) (bool, error)
	DestroyAllocation(ctx context.Context, ref db.Ref) error

	// Provisioning and periodic work.
	CreateNodeHistory(ctx context.Context, h *models.NodeHistory) (*models.NodeHistory, error)
	QueryNodeHistoryRecordsForPurge(ctx context.Context, conductorID int64, minDays, maxEntries int) (map[int64][]int64, error)
	BulkDeleteNodeHistoryRecords(ctx context.Context, ids []int64) error
	ReplaceNodeInventory(ctx context.Context, inv *models.NodeInventory) (*models.NodeInventory, error)
	ListNodeColumns(ctx context.Context, columns []string, f db.NodeFilter, o db.ListOpts) ([]models.Node, error)
	GetOfflineConductors(ctx context.Context, heartbeatTimeout time.Duration) ([]models.Conductor, error)
	GetActiveHardwareTypeDict(ctx context.Context, useGroups bool, heartbeatTimeout time.Duration) (map[string][]string, error)
	TouchNodeProvisioning(ctx context.Context, ref db.Ref) error
	CountNodesInProvisionState(ctx context.Context, sts ...states.Provision) (int64, error)
	ClearNodeTargetPowerState(ctx context.Context, hostname string) error
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
	// locks claims and releases this conductor's node locks.
	locks *nodeLocks
	// noBootMode holds the management implementations (by type) that
	// answered UnsupportedDriverExtension for both the boot mode and the
	// secure boot state: cacheBootMode skips asking them again.
	noBootMode sync.Map

	fsm    *states.Machine
	router *rpc.Router
	uuids  ironic.UUIDSource
	// syncFailures counts failed power syncs per node UUID
	// (power_state_sync_count).
	syncFailures *syncCounter
	// shuffle orders allocation candidates (math/rand/v2's Shuffle when
	// nil; tests set it).
	shuffle func(n int, swap func(i, j int))
	// imageHTTP is cfg.ImageHTTP.
	imageHTTP HTTPDoer
}

var _ rpc.ConductorAPI = (*Manager)(nil)

// New builds a conductor over store with the drivers of reg.
func New(cfg Config, store Store, reg *drivers.Registry, clock ironic.Clock, log *slog.Logger) *Manager {
	cfg.fillDefaults()
	if clock == nil {
		clock = ironic.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	locks := &nodeLocks{store: store, host: cfg.Host, attempts: cfg.NodeLockedRetryAttempts, interval: cfg.NodeLockedRetryInterval, log: log}
	return &Manager{cfg: cfg, store: store, reg: reg, clock: clock, log: log, workers: newWorkers(cfg.WorkersPoolSize), imageHTTP: cfg.ImageHTTP,
		locks: locks, fsm: states.NewMachine(), uuids: ironic.RandomUUIDs{}, syncFailures: newSyncCounter(),
		router: rpc.NewRouter(rpc.RouterConfig{
			PartitionExponent: cfg.HashPartitionExponent, ResetInterval: cfg.HashRingResetInterval,
			HeartbeatTimeout: cfg.HeartbeatTimeout,
		}, store, clock)}
}

// SetUUIDSource replaces the source of the agent tokens and other
// identifiers the conductor mints (tests make them predictable).
func (m *Manager) SetUUIDSource(u ironic.UUIDSource) { m.uuids = u }

// Host is this conductor's name.
func (m *Manager) Host() string { return m.cfg.Host }

// Register records this conductor and what it can run, as Ironic's
// conductor does at start-up, releases reservations a previous run of
// this host left behind (aborting their power actions), and fails the
// unreserved nodes mapped here that sit in a state no conductor can
// resume (deploying, cleaning, ...).
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
	if err := m.store.ClearNodeTargetPowerState(ctx, m.cfg.Host); err != nil {
		return err
	}
	if err := m.store.ClearNodeReservationsForConductor(ctx, m.cfg.Host); err != nil {
		return err
	}
	if err := m.failStuckOnStart(ctx); err != nil {
		return err
	}
	m.StartResumingAllocations(ctx)
	return nil
}

func toList(s []string) models.JSONList {
	out := make(models.JSONList, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
