// Package rpc is the contract between the API and the conductors: the
// ConductorAPI (a mirror of ironic/conductor/rpcapi.py, RPC API 1.55), the
// routing of a call to the conductor that owns a node (Ironic's hash ring).
// The transports live below it: rpc/oslo is oslo.messaging's wire format
// (with oslo.versionedobjects encoding of Ironic's objects), rpc/amqp
// carries it over RabbitMQ (rpc_transport = oslo), and rpc/none serves the
// all-in-one in-process (rpc_transport = none), still writing and reading
// every call through the oslo codec, so nothing can depend on sharing
// memory with the conductor.
package rpc

import (
	"context"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// APIVersion is the conductor RPC API version this contract mirrors.
const APIVersion = "1.55"

// Topic is the base RPC topic of conductors; a conductor's own topic is
// Topic + "." + host.
const Topic = "ironic.conductor_manager"

// NodeUpdate is a node object with the names of the fields the caller
// changed (oslo.versionedobjects' changes list): the conductor saves only
// those.
type NodeUpdate struct {
	Node    models.Node `json:"node"`
	Changes []string    `json:"changes"`
}

// ValidationResult is one interface's entry of validate_driver_interfaces.
type ValidationResult struct {
	Result bool   `json:"result"`
	Reason string `json:"reason,omitempty"`
}

// VendorMethod describes a vendor passthru method.
type VendorMethod struct {
	HTTPMethods          []string `json:"http_methods"`
	Async                bool     `json:"async"`
	Description          string   `json:"description"`
	Attach               bool     `json:"attach"`
	RequireExclusiveLock bool     `json:"require_exclusive_lock"`
}

// ConductorAPI is what the API asks of a conductor. Every method takes the
// topic of the conductor that must answer (see Router); faults raised by
// the conductor come back as *ironic.Fault with their class intact.
type ConductorAPI interface {
	// CreateNode validates the node's driver and interfaces, fills in the
	// default interfaces and stores the node (rpcapi create_node, 1.36).
	CreateNode(ctx context.Context, topic string, node *models.Node) (*models.Node, error)
	// UpdateNode saves the changed fields of a node under its lock,
	// re-validating the driver and interfaces when they change; with
	// resetInterfaces, interfaces not given are reset to the new driver's
	// defaults (update_node, 1.1/1.44).
	UpdateNode(ctx context.Context, topic string, upd NodeUpdate, resetInterfaces bool) (*models.Node, error)
	// DestroyNode deletes a node that is in a deletable state (destroy_node).
	DestroyNode(ctx context.Context, topic, nodeUUID string) error
	// ValidateDriverInterfaces runs every interface's validate and returns
	// the results keyed by interface name (validate_driver_interfaces).
	ValidateDriverInterfaces(ctx context.Context, topic, nodeUUID string) (map[string]ValidationResult, error)
	// GetDriverProperties returns the properties a hardware type's default
	// interfaces accept (get_driver_properties).
	GetDriverProperties(ctx context.Context, topic, driver string) (map[string]string, error)
	// GetDriverVendorPassthruMethods lists a hardware type's driver-level
	// vendor methods (get_driver_vendor_passthru_methods).
	GetDriverVendorPassthruMethods(ctx context.Context, topic, driver string) (map[string]VendorMethod, error)
	// GetNodeVendorPassthruMethods lists a node's vendor methods.
	GetNodeVendorPassthruMethods(ctx context.Context, topic, nodeUUID string) (map[string]VendorMethod, error)
	// GetRAIDLogicalDiskProperties describes the RAID logical disk
	// properties a hardware type's default RAID interface accepts.
	GetRAIDLogicalDiskProperties(ctx context.Context, topic, driver string) (map[string]string, error)
	// AddNodeTraits adds traits to a node, or replaces all of them.
	AddNodeTraits(ctx context.Context, topic, nodeUUID string, traits []string, replace bool) error
	// RemoveNodeTraits removes the given traits, or all when traits is nil.
	RemoveNodeTraits(ctx context.Context, topic, nodeUUID string, traits []string) error
	// VIFList, VIFAttach and VIFDetach manage the node's VIFs through its
	// network interface.
	VIFList(ctx context.Context, topic, nodeUUID string) ([]map[string]any, error)
	VIFAttach(ctx context.Context, topic, nodeUUID string, vifInfo map[string]any) error
	VIFDetach(ctx context.Context, topic, nodeUUID, vifID string) error
	// CreatePort, UpdatePort and DestroyPort change ports under their
	// node's lock, with the network interface's checks.
	CreatePort(ctx context.Context, topic string, port *models.Port) (*models.Port, error)
	UpdatePort(ctx context.Context, topic string, port *models.Port, changes []string) (*models.Port, error)
	DestroyPort(ctx context.Context, topic string, port *models.Port) error
	// UpdatePortgroup and DestroyPortgroup do the same for port groups.
	UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error)
	DestroyPortgroup(ctx context.Context, topic string, pg *models.Portgroup) error
	// UpdateVolumeConnector, DestroyVolumeConnector, UpdateVolumeTarget and
	// DestroyVolumeTarget change volume resources; Ironic allows it only
	// while the node is powered off.
	UpdateVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error)
	DestroyVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector) error
	UpdateVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget, changes []string) (*models.VolumeTarget, error)
	DestroyVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget) error
	// ChangeNodePowerState starts a power action; timeout 0 means the
	// conductor's default (change_node_power_state, 1.39).
	ChangeNodePowerState(ctx context.Context, topic, nodeUUID string, newState states.Power, timeout int) error
	// ChangeNodeBootMode ("bios"/"uefi") and ChangeNodeSecureBoot (1.55).
	ChangeNodeBootMode(ctx context.Context, topic, nodeUUID, newState string) error
	ChangeNodeSecureBoot(ctx context.Context, topic, nodeUUID string, newState bool) error
	// VendorPassthru and DriverVendorPassthru call a vendor method; info is
	// the request body (1.20).
	VendorPassthru(ctx context.Context, topic, nodeUUID, method, httpMethod string, info any) (*VendorResult, error)
	DriverVendorPassthru(ctx context.Context, topic, driver, method, httpMethod string, info any) (*VendorResult, error)

	// DoNodeDeploy deploys (or with rebuild, redeploys) a node; configdrive
	// is nil, a string or a dict (a pyjson.Object in the client's key
	// order, which the config drive's files keep; a map[string]any is
	// taken in sorted order); deploySteps is nil unless given (1.22/1.52).
	DoNodeDeploy(ctx context.Context, topic, nodeUUID string, rebuild bool, configdrive any, deploySteps []map[string]any) error
	// DoNodeTearDown undeploys a node (1.6).
	DoNodeTearDown(ctx context.Context, topic, nodeUUID string) error
	// DoProvisioningAction runs the event manage, provide, abort or adopt
	// (1.23).
	DoProvisioningAction(ctx context.Context, topic, nodeUUID string, action states.Event) error
	// ContinueNodeClean and ContinueNodeDeploy are casts: the conductor
	// resumes the node's steps after an agent callback (1.27/1.45).
	ContinueNodeClean(ctx context.Context, topic, nodeUUID string) error
	ContinueNodeDeploy(ctx context.Context, topic, nodeUUID string) error
	// DoNodeClean starts manual cleaning; disableRamdisk is nil unless
	// given (1.32/1.53).
	DoNodeClean(ctx context.Context, topic, nodeUUID string, cleanSteps []map[string]any, disableRamdisk *bool) error
	// DoNodeRescue and DoNodeUnrescue (1.43).
	DoNodeRescue(ctx context.Context, topic, nodeUUID, rescuePassword string) error
	DoNodeUnrescue(ctx context.Context, topic, nodeUUID string) error
	// InspectHardware starts inspection (1.24).
	InspectHardware(ctx context.Context, topic, nodeUUID string) error

	// GetConsoleInformation and SetConsoleMode (1.11).
	GetConsoleInformation(ctx context.Context, topic, nodeUUID string) (map[string]any, error)
	SetConsoleMode(ctx context.Context, topic, nodeUUID string, enabled bool) error
	// SetBootDevice, GetBootDevice and GetSupportedBootDevices (1.17).
	SetBootDevice(ctx context.Context, topic, nodeUUID, device string, persistent bool) error
	GetBootDevice(ctx context.Context, topic, nodeUUID string) (*BootDevice, error)
	GetSupportedBootDevices(ctx context.Context, topic, nodeUUID string) ([]string, error)
	// InjectNMI (1.40).
	InjectNMI(ctx context.Context, topic, nodeUUID string) error
	// SetTargetRAIDConfig validates and stores a node's target RAID
	// configuration (1.30).
	SetTargetRAIDConfig(ctx context.Context, topic, nodeUUID string, config map[string]any) error

	// CreateAllocation stores and starts processing an allocation;
	// DestroyAllocation removes one, freeing its node (1.48).
	CreateAllocation(ctx context.Context, topic string, a *models.Allocation) (*models.Allocation, error)
	DestroyAllocation(ctx context.Context, topic string, a *models.Allocation) error

	// Heartbeat is an agent's heartbeat (1.34-1.54).
	Heartbeat(ctx context.Context, topic, nodeUUID string, hb Heartbeat) error
	// GetNodeWithToken returns the node with a fresh agent token in
	// driver_internal_info.agent_secret_token (1.49).
	GetNodeWithToken(ctx context.Context, topic, nodeUUID string) (*models.Node, error)
	// GetSupportedIndicators maps component to indicator name to its
	// description, for all components or just one (component "").
	GetSupportedIndicators(ctx context.Context, topic, nodeUUID, component string) (map[string]map[string]Indicator, error)
	// GetIndicatorState reads an indicator; SetIndicatorState sets it.
	GetIndicatorState(ctx context.Context, topic, nodeUUID, component, indicator string) (string, error)
	SetIndicatorState(ctx context.Context, topic, nodeUUID, component, indicator, state string) error
}

// Indicator describes one hardware indicator (an LED).
type Indicator struct {
	ReadOnly bool     `json:"readonly"`
	States   []string `json:"states"`
}

// VendorResult is what a vendor passthru call returns.
type VendorResult struct {
	Return any  `json:"return"`
	Async  bool `json:"async"`
	Attach bool `json:"attach"`
}

// BootDevice is get_boot_device's answer; nil fields are unknown.
type BootDevice struct {
	BootDevice *string `json:"boot_device"`
	Persistent *bool   `json:"persistent"`
}

// Heartbeat holds the arguments of an agent heartbeat after the node.
type Heartbeat struct {
	CallbackURL        string  `json:"callback_url"`
	AgentVersion       *string `json:"agent_version"`
	AgentToken         *string `json:"agent_token"`
	AgentVerifyCA      *string `json:"agent_verify_ca"`
	AgentStatus        *string `json:"agent_status"`
	AgentStatusMessage *string `json:"agent_status_message"`
}
