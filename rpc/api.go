// Package rpc is the contract between the API and the conductors: the
// ConductorAPI (a mirror of ironic/conductor/rpcapi.py, RPC API 1.55), the
// routing of a call to the conductor that owns a node (Ironic's hash ring),
// and the transports. The in-process transport (Local) still encodes every
// argument and result through the codec, so nothing can depend on sharing
// memory with the conductor.
package rpc

import (
	"context"

	"github.com/goironic/ironic/db/models"
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
	DestroyPort(ctx context.Context, topic, portUUID string) error
	// UpdatePortgroup and DestroyPortgroup do the same for port groups.
	UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error)
	DestroyPortgroup(ctx context.Context, topic, portgroupUUID string) error
	// UpdateVolumeConnector, DestroyVolumeConnector, UpdateVolumeTarget and
	// DestroyVolumeTarget change volume resources; Ironic allows it only
	// while the node is powered off.
	UpdateVolumeConnector(ctx context.Context, topic string, c *models.VolumeConnector, changes []string) (*models.VolumeConnector, error)
	DestroyVolumeConnector(ctx context.Context, topic, uuid string) error
	UpdateVolumeTarget(ctx context.Context, topic string, t *models.VolumeTarget, changes []string) (*models.VolumeTarget, error)
	DestroyVolumeTarget(ctx context.Context, topic, uuid string) error
	// ChangeNodePowerState, DoProvisioningAction and the other actions
	// arrive with the state machine; until then the conductor answers them
	// as unsupported.
	ChangeNodePowerState(ctx context.Context, topic, nodeUUID, newState string, timeout int) error
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
