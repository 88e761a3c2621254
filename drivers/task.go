package drivers

import (
	"context"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// Task is how an implementation sees the node it acts on: the conductor's
// task (Ironic's TaskManager) holding the node's lock. Dicts returned by
// the accessors are the node's own: an implementation may change them in
// place (a new key goes at the end, as in Python's dicts, and the order
// is what the API shows), and Save persists every change made through the
// task.
//
// Besides the node, a task offers the conductor code Ironic's drivers call
// (the capabilities NodeLock, StepFlow, RescueFlow and NodeRenderer): every
// task has all of them, so an implementation never asks whether the task
// it was given can do something. The conductor implements Task over its
// node record (and asserts so at compile time); tests use
// drivers/fake.Task.
type Task interface {
	NodeLock
	StepFlow
	RescueFlow
	InspectionFlow
	NodeRenderer

	// NodeUUID is the node's UUID.
	NodeUUID() string
	// NodeName is the node's name ("" for None).
	NodeName() string
	// DriverName is the node's driver field: its hardware type name.
	DriverName() string
	// Driver is the node's composed driver (one implementation per kind),
	// as Registry.Build made it for this task.
	Driver() *Driver
	// InterfaceName is the implementation name the node uses for kind k,
	// with an instance_info override ("<kind>_interface") taking
	// precedence over the node field, as Ironic's node.get_interface does.
	InterfaceName(k Kind) string

	// DriverInfo is the node's driver_info (never nil).
	DriverInfo() *pyjson.Dict
	// DriverInternalInfo is the node's driver_internal_info (never nil).
	DriverInternalInfo() *pyjson.Dict
	// InstanceInfo is the node's instance_info (never nil).
	InstanceInfo() *pyjson.Dict
	// Properties is the node's properties (never nil).
	Properties() *pyjson.Dict
	// TargetRAIDConfig is the node's target_raid_config (never nil).
	TargetRAIDConfig() *pyjson.Dict
	// RAIDConfig is the node's raid_config, the RAID configuration a RAID
	// interface found on the hardware (never nil).
	RAIDConfig() *pyjson.Dict
	// NetworkData is the node's network_data (never nil).
	NetworkData() *pyjson.Dict
	// AutomatedClean is the node's automated_clean field; nil means unset
	// (the [conductor]automated_clean option decides).
	AutomatedClean() *bool
	// LastError is the node's last_error; nil means None (fast track
	// requires it, utils.fast_track_able).
	LastError() *string
	// PowerState is the node's power_state as stored ("" for None).
	PowerState() states.Power
	// SetPowerState records a power state on the node, as a driver that
	// tracks power itself (the fake one) does with task.node.power_state.
	SetPowerState(state states.Power)
	// ProvisionState is the node's provision_state.
	ProvisionState() states.Provision
	// TargetProvisionState is the node's target_provision_state ("" for
	// None).
	TargetProvisionState() states.Provision
	// Maintenance is the node's maintenance flag.
	Maintenance() bool
	// InstanceUUID is the node's instance_uuid ("" for None).
	InstanceUUID() string

	// Ports are the node's ports, as loaded when the task started.
	Ports() []Port
	// Portgroups are the node's port groups, as loaded when the task
	// started.
	Portgroups() []Portgroup
	// SavePort persists the InternalInfo and Extra of the node's port
	// p.UUID (Ironic's port.save() after a network interface recorded or
	// cleared a VIF); other fields of p are ignored. Ports returns the
	// saved values afterwards.
	SavePort(ctx context.Context, p Port) error
	// SavePortgroup is SavePort for port groups.
	SavePortgroup(ctx context.Context, pg Portgroup) error
	// CreatePort creates a port of the node with the MAC address, every
	// other field at its default (Ironic's objects.Port(address=...,
	// node_id=...).create(), as inspection does); a MACAlreadyExists
	// fault when a port has the address. Ports returns it afterwards.
	CreatePort(ctx context.Context, address string) error
	// Volumes is the node's volume connectors and targets (Ironic's
	// task.volume_connectors and task.volume_targets), which storage
	// interfaces attach and detach.
	Volumes() VolumeStore
	// BIOSSettings is the node's cached BIOS settings (the bios_settings
	// table), which BIOS implementations keep in sync with the hardware.
	BIOSSettings() BIOSSettingsStore
	// Save persists the changes made to the node through the task.
	Save(ctx context.Context) error
	// PowerAction is Ironic's conductor.utils.node_power_action, for
	// interfaces that drive a node's power as part of a bigger job
	// (deploying, tearing down): it moves the node to state
	// (states.PowerOn, PowerOff, Rebooting, SoftPowerOff, SoftRebooting)
	// through its power interface, skipping a change to the state the hardware already
	// reports, and records the result (power_state, last_error) on the
	// node as the conductor does for the power API.
	PowerAction(ctx context.Context, state states.Power) error
}

// NodeLock is how the task holds its node.
//
// A task holds the node's lock either shared (read-only: nothing is
// written to the node and several tasks may hold it) or exclusive (the
// nodes.reservation column names this conductor). UpgradeLock is Ironic's
// task.upgrade_lock(retry=False), as agent_base calls it while handling a
// heartbeat: a shared lock becomes exclusive at once or the call fails with
// NodeLocked (the next heartbeat tries again); the node is re-read, so the
// task's view of it is the locked row. On an exclusive task it does
// nothing.
type NodeLock interface {
	// Shared reports whether the task holds a shared (read-only) lock.
	Shared() bool
	// UpgradeLock takes the node's exclusive lock without waiting.
	UpgradeLock(ctx context.Context) error
}

// StepFlow is the conductor's clean/deploy step engine as an interface
// handling an agent's heartbeat drives it (Ironic's agent_base calling
// steps.set_node_cleaning_steps, _continue_steps,
// cleaning_error_handler/deploying_error_handler and
// node.touch_provisioning).
//
// The calls run in the caller's goroutine, under the task's exclusive
// lock (UpgradeLock first): ContinueSteps moves a waiting node back to
// cleaning or deploying and runs its next step before it returns, as
// continue_node_clean/continue_node_deploy run in the heartbeat's task.
// FailSteps records msg as the node's last_error and moves it to the
// phase's failed state (after the error handler's clean up); it reports
// nothing, the node's state tells. Every change is saved by the call that
// makes it.
type StepFlow interface {
	// CurrentStep is node.clean_step (phase CleanStep) or
	// node.deploy_step (otherwise); empty when no step runs.
	CurrentStep(phase StepPhase) *pyjson.Dict
	// SetCleaningSteps is set_node_cleaning_steps, once the agent's clean
	// steps are known: the node's clean step list is computed again.
	SetCleaningSteps(ctx context.Context) error
	// ValidateDeploySteps is deployments.validate_deploy_steps, once a
	// running agent's deploy steps are cached in the middle of a
	// deployment (fast track): the user's steps and deploy templates are
	// validated, the node's deploy step list is computed again keeping
	// the current step and its index, and steps_validated is recorded.
	ValidateDeploySteps(ctx context.Context) error
	// ContinueSteps resumes the node and runs its next step of phase.
	ContinueSteps(ctx context.Context, phase StepPhase) error
	// FailSteps is cleaning_error_handler (phase CleanStep) or
	// deploying_error_handler (otherwise).
	FailSteps(ctx context.Context, phase StepPhase, msg string)
	// TouchProvisioning is node.touch_provisioning(): provision_updated_at
	// becomes now, so a long step does not time out.
	TouchProvisioning(ctx context.Context) error
}

// RescueFlow is the conductor's side of finishing a rescue from an
// agent's heartbeat, under the task's exclusive lock.
//
// ProcessEvent is task.process_event: the provision state machine applies
// event ("resume", "done") and the node is saved; an event the node's
// state does not allow is InvalidState. FailRescue is
// rescuing_error_handler: the node is powered off, the rescue interface
// cleans up, the agent URL is forgotten, msg is recorded as last_error and
// the node moves to rescue failed; it reports nothing, the node's state
// tells.
type RescueFlow interface {
	// ProcessEvent moves the node through the state machine and saves it.
	ProcessEvent(ctx context.Context, event states.Event) error
	// FailRescue is rescuing_error_handler.
	FailRescue(ctx context.Context, msg string)
}

// InspectionFlow is the conductor's side of an asynchronous (in-band)
// inspection, as Ironic's inspector interface uses it.
//
// FailInspection is the end of _inspection_error_handler: msg becomes
// the node's last_error and the node moves to inspect failed
// (task.process_event('fail')); the node is saved. It needs the
// exclusive lock. StoreInventory is inspect_utils.store_introspection_data
// with [inventory]data_backend = database, except that a node's previous
// inventory is replaced rather than duplicated. AfterRelease is
// eventlet.spawn_n from a driver: fn runs in a goroutine of its own once
// the task's lock is released (at once for a shared task), with a context
// that outlives the task; withNode takes the node's exclusive lock again
// (waiting as task_manager.acquire does), runs f on a fresh task and
// releases it.
type InspectionFlow interface {
	FailInspection(ctx context.Context, msg string) error
	StoreInventory(ctx context.Context, inventory, pluginData *pyjson.Dict) error
	AfterRelease(fn func(ctx context.Context, withNode WithNode))
}

// WithNode runs f on the node under its exclusive lock (InspectionFlow's
// AfterRelease).
type WithNode func(ctx context.Context, f func(ctx context.Context, t Task) error) error

// NodeRenderer renders the task's node and ports as Ironic's objects'
// as_dict() does, for the agent commands' "node" and "ports" parameters.
//
// NodeDict is node.as_dict(): every field of Ironic's Node object, in
// its field order, datetimes as oslo's to_primitive writes them
// ("%Y-%m-%dT%H:%M:%S.%f") and traits as {"objects": [...]}; nothing is
// masked (the caller masks, as as_dict(secure=True) does). PortDicts is
// [port.as_dict() for port in task.ports], every field of Ironic's Port
// object in its order. An error means the node can't be rendered (a
// programming error, not a state of the node).
type NodeRenderer interface {
	NodeDict() (pyjson.Object, error)
	PortDicts() ([]any, error)
}

// Port is what a driver sees of one of the node's ports.
type Port struct {
	UUID                string
	Address             string
	PXEEnabled          bool
	PhysicalNetwork     string
	PortgroupUUID       string
	IsSmartNIC          bool
	LocalLinkConnection *pyjson.Dict
	InternalInfo        *pyjson.Dict
	Extra               *pyjson.Dict
}

// Portgroup is what a driver sees of one of the node's port groups.
type Portgroup struct {
	UUID                     string
	Name                     string
	Address                  string
	Mode                     string
	StandalonePortsSupported bool
	Properties               *pyjson.Dict
	InternalInfo             *pyjson.Dict
	Extra                    *pyjson.Dict
}

// BIOSSetting is one cached BIOS setting of a node: its value and, when
// the hardware describes it in an attribute registry, the registry's
// fields (nil when not known).
type BIOSSetting struct {
	Name  string
	Value string
	// AttributeType is the registry's Type ("Enumeration", "String",
	// "Integer", "Boolean", "Password").
	AttributeType *string
	// AllowableValues are an enumeration's values.
	AllowableValues []string
	LowerBound      *int64
	MaxLength       *int64
	MinLength       *int64
	ReadOnly        *bool
	ResetRequired   *bool
	Unique          *bool
	UpperBound      *int64
}

// BIOSSettingsStore is a node's cached BIOS settings.
type BIOSSettingsStore interface {
	// List returns the node's cached settings, ordered by name.
	List(ctx context.Context) ([]BIOSSetting, error)
	// Replace makes the cache hold exactly settings: new names are
	// created, changed values updated and names not given deleted (Ironic's
	// BIOSSettingList.sync_node_setting followed by create/save/delete).
	Replace(ctx context.Context, settings []BIOSSetting) error
}

// VolumeConnector is what a driver sees of one of the node's volume
// connectors: how the node connects to storage (type "iqn", "wwpn",
// "wwnn", "ip", "mac", ...).
type VolumeConnector struct {
	UUID        string
	Type        string
	ConnectorID string
}

// VolumeTarget is what a driver sees of one of the node's volume targets.
type VolumeTarget struct {
	UUID       string
	VolumeType string
	// VolumeID is the storage service's volume ID ("" for None).
	VolumeID string
	// BootIndex 0 marks the boot volume.
	BootIndex  int64
	Properties *pyjson.Dict
}

// VolumeStore is a node's volume connectors and targets, ordered by id as
// Ironic lists them.
type VolumeStore interface {
	// Connectors returns the node's volume connectors.
	Connectors(ctx context.Context) ([]VolumeConnector, error)
	// Targets returns the node's volume targets.
	Targets(ctx context.Context) ([]VolumeTarget, error)
	// SetTargetProperties replaces the properties of every volume target
	// whose volume_id is volumeID (of any node, as Ironic's
	// VolumeTarget.list_by_volume_id followed by save() does) and returns
	// how many it changed.
	SetTargetProperties(ctx context.Context, volumeID string, props *pyjson.Dict) (int, error)
	// DestroyTarget deletes one of the node's volume targets.
	DestroyTarget(ctx context.Context, uuid string) error
}
