package drivers

import (
	"context"
	"time"

	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// Interface is what every implementation of every kind except vendor
// provides (Ironic's BaseInterface).
//
// Errors returned by any method are expected to be *ironic.Fault values;
// anything else is reported as an unexpected error. Validation errors are
// InvalidParameterValue or MissingParameterValue faults, and
// UnsupportedDriverExtension for the "no-*" implementations.
type Interface interface {
	// GetProperties lists the driver_info keys the implementation reads, with
	// their descriptions, in the order Ironic's get_properties() returns
	// them. The list is static: it doesn't depend on any node.
	GetProperties() Properties

	// Validate checks, without talking to the hardware, that the node's
	// driver_info, instance_info and the like hold what the implementation
	// needs. It runs synchronously in API requests (node validation, state
	// changes) and must therefore be quick. A nil error means valid.
	Validate(ctx context.Context, task Task) error
}

// PowerInterface controls a node's power (Ironic's PowerInterface).
type PowerInterface interface {
	Interface

	// GetPowerState reads the node's actual power state from the hardware
	// and returns one of states.PowerOn, PowerOff or PowerError. It must
	// not change the node.
	GetPowerState(ctx context.Context, task Task) (states.Power, error)

	// SetPowerState drives the node to state (states.PowerOn, PowerOff,
	// SoftRebooting or SoftPowerOff; Rebooting goes through Reboot) and returns
	// once the hardware reports it, or fails after timeout (zero means the
	// implementation's default). Unsupported states are
	// InvalidParameterValue faults. The conductor records the resulting
	// power state on the node itself.
	SetPowerState(ctx context.Context, task Task, state states.Power, timeout time.Duration) error

	// Reboot power-cycles the node, powering it on if it was off; it
	// returns once the node is on again, or fails after timeout (zero
	// means the default).
	Reboot(ctx context.Context, task Task, timeout time.Duration) error

	// GetSupportedPowerStates lists the states SetPowerState and Reboot
	// accept for this node; Ironic's default is states.PowerOn, PowerOff
	// and Rebooting.
	GetSupportedPowerStates(ctx context.Context, task Task) ([]states.Power, error)
}

// PowerSyncer is implemented by power interfaces whose GetPowerState can't
// be trusted for the conductor's periodic power-state sync (Ironic's
// supports_power_sync; true when the method is absent).
type PowerSyncer interface {
	SupportsPowerSync(ctx context.Context, task Task) bool
}

// VendorDetector is implemented by management interfaces that can tell
// the hardware's vendor (Ironic's detect_vendor; the base class answers
// UnsupportedDriverExtension, as an implementation without the method
// does here). DetectVendor asks the hardware and returns the vendor's
// name, "" when the hardware doesn't say; the conductor caches it in the
// node's properties as "vendor".
type VendorDetector interface {
	DetectVendor(ctx context.Context, task Task) (string, error)
}

// BootDevice is the answer of ManagementInterface.GetBootDevice. A nil
// Persistent means unknown, as does an empty Device.
type BootDevice struct {
	Device     string
	Persistent *bool
}

// Indicator describes one indicator (LED) of a component.
type Indicator struct {
	ReadOnly bool
	States   []string
}

// ManagementInterface handles boot devices, boot modes, sensors and
// indicators (Ironic's ManagementInterface). Implementations embed
// ManagementBase to answer UnsupportedDriverExtension for the optional
// methods they don't support, as Ironic's base class does.
type ManagementInterface interface {
	Interface

	// GetSupportedBootDevices lists the boot devices (BootDevice*
	// constants) SetBootDevice accepts for this node.
	GetSupportedBootDevices(ctx context.Context, task Task) ([]string, error)

	// SetBootDevice makes the node boot from device on its next boot, or
	// on every boot when persistent is set. A device not in
	// GetSupportedBootDevices is an InvalidParameterValue fault. Requires
	// the exclusive lock.
	SetBootDevice(ctx context.Context, task Task, device string, persistent bool) error

	// GetBootDevice reads the current boot device from the hardware.
	GetBootDevice(ctx context.Context, task Task) (BootDevice, error)

	// GetSensorsData reads the node's sensors, grouped by sensor type
	// (Ironic sends this to the notification bus).
	GetSensorsData(ctx context.Context, task Task) (map[string]any, error)

	// InjectNMI injects a non-maskable interrupt into the node.
	InjectNMI(ctx context.Context, task Task) error

	// GetSupportedBootModes lists the boot modes (BootMode* constants)
	// SetBootMode accepts.
	GetSupportedBootModes(ctx context.Context, task Task) ([]string, error)

	// GetBootMode reads the boot mode the node will boot in; "" means
	// unknown.
	GetBootMode(ctx context.Context, task Task) (string, error)

	// SetBootMode makes the node boot in mode from now on.
	SetBootMode(ctx context.Context, task Task, mode string) error

	// GetSecureBootState reports whether UEFI secure boot is enabled.
	GetSecureBootState(ctx context.Context, task Task) (bool, error)

	// SetSecureBootState enables or disables UEFI secure boot.
	SetSecureBootState(ctx context.Context, task Task, enabled bool) error

	// GetSupportedIndicators maps component (Component* constants) to
	// indicator name to its description, for every component when
	// component is "", else only for that component.
	GetSupportedIndicators(ctx context.Context, task Task, component string) (map[string]map[string]Indicator, error)

	// SetIndicatorState sets an indicator of a component to state
	// (Indicator* constants). Unknown components or indicators, and
	// read-only indicators, are InvalidParameterValue faults.
	SetIndicatorState(ctx context.Context, task Task, component, indicator, state string) error

	// GetIndicatorState reads an indicator's state.
	GetIndicatorState(ctx context.Context, task Task, component, indicator string) (string, error)
}

// BootInterface prepares what a node boots: the deploy/rescue ramdisk and
// the instance (Ironic's BootInterface).
type BootInterface interface {
	Interface

	// Capabilities lists what the implementation can boot, as Ironic's
	// capabilities attribute does ("ramdisk_boot", "ipxe_boot",
	// "pxe_boot", "iscsi_volume_boot", ...). Deploy interfaces check it.
	Capabilities() []string

	// PrepareRamdisk prepares the node to boot the agent ramdisk for mode
	// (RamdiskDeploy, also for cleaning, or RamdiskRescue; "" is
	// RamdiskDeploy), passing ramdiskParams on its kernel command line;
	// the node is then rebooted by the caller.
	PrepareRamdisk(ctx context.Context, task Task, ramdiskParams map[string]any, mode RamdiskMode) error

	// CleanUpRamdisk undoes PrepareRamdisk.
	CleanUpRamdisk(ctx context.Context, task Task, mode RamdiskMode) error

	// PrepareInstance prepares the node to boot the deployed instance.
	PrepareInstance(ctx context.Context, task Task) error

	// CleanUpInstance undoes PrepareInstance.
	CleanUpInstance(ctx context.Context, task Task) error

	// ValidateRescue checks what booting the rescue ramdisk needs
	// (rescue_kernel, rescue_ramdisk); UnsupportedDriverExtension when the
	// implementation can't rescue.
	ValidateRescue(ctx context.Context, task Task) error

	// ValidateInspection checks what in-band inspection needs;
	// UnsupportedDriverExtension when the implementation can't boot an
	// inspection ramdisk.
	ValidateInspection(ctx context.Context, task Task) error
}

// DeployInterface deploys an instance onto a node and tears it down
// (Ironic's DeployInterface). Its deploy steps come through Stepper.
type DeployInterface interface {
	Interface

	// Deploy starts deploying the instance (Ironic runs it as the "deploy"
	// deploy step). It returns states.DeployWait when the deployment goes
	// on asynchronously (an agent will call back), "" when done.
	Deploy(ctx context.Context, task Task) (states.Provision, error)

	// TearDown powers the node off and removes the instance's traces; it
	// returns the resulting provision state (states.Deleted).
	TearDown(ctx context.Context, task Task) (states.Provision, error)

	// Prepare gets the environment ready for Deploy (networks, boot
	// configuration), right before deploying.
	Prepare(ctx context.Context, task Task) error

	// CleanUp removes what Prepare set up, after tear down or a failure.
	CleanUp(ctx context.Context, task Task) error

	// TakeOver is called when this conductor takes an active node over
	// from another conductor, to rebuild local state (boot files).
	TakeOver(ctx context.Context, task Task) error

	// PrepareCleaning gets the node ready for in-band cleaning; it returns
	// states.CleanWait when an agent has to boot first, "" otherwise.
	PrepareCleaning(ctx context.Context, task Task) (states.Provision, error)

	// TearDownCleaning undoes PrepareCleaning.
	TearDownCleaning(ctx context.Context, task Task) error

	// Heartbeat handles a heartbeat of the node's agent (IPA) that calls
	// back from callbackURL.
	Heartbeat(ctx context.Context, task Task, hb Heartbeat) error
}

// Heartbeat is what an agent's heartbeat carries.
type Heartbeat struct {
	CallbackURL        string
	AgentVersion       string
	AgentVerifyCA      string
	AgentStatus        string
	AgentStatusMessage string
}

// InspectInterface discovers a node's hardware properties (Ironic's
// InspectInterface).
type InspectInterface interface {
	Interface

	// InspectHardware inspects the node and updates its properties and
	// ports; it returns states.Manageable when done, states.InspectWait
	// when inspection goes on asynchronously.
	InspectHardware(ctx context.Context, task Task) (states.Provision, error)

	// Abort stops an asynchronous inspection. Requires the exclusive lock
	// and must be quick; UnsupportedDriverExtension when inspection is
	// synchronous.
	Abort(ctx context.Context, task Task) error
}

// VIF is a virtual network interface attached to a node: a dictionary with
// at least an "id" key.
type VIF map[string]any

// NetworkInterface wires a node's ports to networks (Ironic's
// NetworkInterface). Implementations embed NetworkBase for the optional
// methods.
type NetworkInterface interface {
	Interface

	// PortChanged reacts to (and may veto, with a fault) a change of one of
	// the node's ports before it is saved. port holds the new values.
	PortChanged(ctx context.Context, task Task, port Port) error

	// PortgroupChanged is PortChanged for port groups.
	PortgroupChanged(ctx context.Context, task Task, pg Portgroup) error

	// VIFAttach attaches a VIF (vif["id"] is its ID) to a free port or port
	// group; VifAlreadyAttached and NoFreePhysicalPorts faults when it
	// can't.
	VIFAttach(ctx context.Context, task Task, vif VIF) error

	// VIFDetach detaches the VIF with the given ID; a VifNotAttached fault
	// when it isn't attached.
	VIFDetach(ctx context.Context, task Task, vifID string) error

	// VIFList lists the attached VIFs, each with an "id" key.
	VIFList(ctx context.Context, task Task) ([]VIF, error)

	// GetCurrentVIF returns the VIF currently bound to the port (or port
	// group) with the given UUID, "" when none: the cleaning, provisioning
	// or rescuing VIF while those networks are in use, else the tenant one.
	GetCurrentVIF(ctx context.Context, task Task, portUUID string) (string, error)

	// AddProvisioningNetwork plugs the node into the provisioning network.
	AddProvisioningNetwork(ctx context.Context, task Task) error
	// RemoveProvisioningNetwork unplugs it.
	RemoveProvisioningNetwork(ctx context.Context, task Task) error
	// ConfigureTenantNetworks binds the node's ports to the tenant's VIFs.
	ConfigureTenantNetworks(ctx context.Context, task Task) error
	// UnconfigureTenantNetworks unbinds them.
	UnconfigureTenantNetworks(ctx context.Context, task Task) error
	// AddCleaningNetwork plugs the node into the cleaning network and
	// returns port UUID → network port ID.
	AddCleaningNetwork(ctx context.Context, task Task) (map[string]string, error)
	// RemoveCleaningNetwork unplugs it.
	RemoveCleaningNetwork(ctx context.Context, task Task) error

	// ValidateRescue checks the rescuing network configuration.
	ValidateRescue(ctx context.Context, task Task) error
	// AddRescuingNetwork plugs the node into the rescuing network and
	// returns port UUID → network port ID.
	AddRescuingNetwork(ctx context.Context, task Task) (map[string]string, error)
	// RemoveRescuingNetwork unplugs it.
	RemoveRescuingNetwork(ctx context.Context, task Task) error
	// ValidateInspection checks the inspection network configuration;
	// UnsupportedDriverExtension when the implementation has none.
	ValidateInspection(ctx context.Context, task Task) error
	// AddInspectionNetwork plugs the node into the inspection network and
	// returns port UUID → network port ID.
	AddInspectionNetwork(ctx context.Context, task Task) (map[string]string, error)
	// RemoveInspectionNetwork unplugs it.
	RemoveInspectionNetwork(ctx context.Context, task Task) error
	// NeedPowerOn reports whether the node must be powered on while its
	// network configuration changes (smart NICs).
	NeedPowerOn(ctx context.Context, task Task) bool
	// GetNodeNetworkData returns the node's network configuration in Nova's
	// network_data.json layout; Ironic's default is the node's
	// network_data field.
	GetNodeNetworkData(ctx context.Context, task Task) (*pyjson.Dict, error)
}

// StorageInterface attaches remote volumes (Ironic's StorageInterface).
type StorageInterface interface {
	Interface

	// AttachVolumes attaches the node's volume targets before deployment.
	AttachVolumes(ctx context.Context, task Task) error
	// DetachVolumes detaches them on tear down.
	DetachVolumes(ctx context.Context, task Task) error
	// ShouldWriteImage reports whether deployment writes an image to the
	// node's local disk (false when booting from a volume).
	ShouldWriteImage(ctx context.Context, task Task) (bool, error)
}

// ConsoleInterface gives access to a node's serial console (Ironic's
// ConsoleInterface).
type ConsoleInterface interface {
	Interface

	// StartConsole starts the console service for the node; starting an
	// already started console is not an error.
	StartConsole(ctx context.Context, task Task) error
	// StopConsole stops it.
	StopConsole(ctx context.Context, task Task) error
	// GetConsole returns how to connect: {"type": ..., "url": ...}.
	GetConsole(ctx context.Context, task Task) (map[string]any, error)
}

// RescueInterface boots an active node into a rescue environment and back
// (Ironic's RescueInterface).
type RescueInterface interface {
	Interface

	// Rescue boots the rescue environment; it returns states.Rescue when
	// done, states.RescueWait while an agent has yet to call back.
	Rescue(ctx context.Context, task Task) (states.Provision, error)
	// Unrescue boots the instance again; it returns states.Active.
	Unrescue(ctx context.Context, task Task) (states.Provision, error)
	// CleanUp removes the rescue environment after a failure or timeout.
	CleanUp(ctx context.Context, task Task) error
}

// RAIDCreateOptions are the arguments of RAIDInterface.CreateConfiguration.
type RAIDCreateOptions struct {
	CreateRootVolume     bool
	CreateNonRootVolumes bool
	DeleteExisting       bool
}

// RAIDInterface builds RAID volumes (Ironic's RAIDInterface).
// Implementations embed RAIDBase, which validates target_raid_config
// against Ironic's RAID schema.
type RAIDInterface interface {
	Interface

	// ValidateRAIDConfig checks a RAID configuration (a
	// target_raid_config) against what the implementation supports.
	ValidateRAIDConfig(ctx context.Context, task Task, config *pyjson.Dict) error

	// CreateConfiguration builds the node's target_raid_config on the
	// hardware. It returns states.CleanWait or states.DeployWait when the
	// work goes on asynchronously, "" when done.
	CreateConfiguration(ctx context.Context, task Task, opts RAIDCreateOptions) (states.Provision, error)

	// DeleteConfiguration removes every RAID volume and clears the node's
	// raid_config; it returns like CreateConfiguration.
	DeleteConfiguration(ctx context.Context, task Task) (states.Provision, error)

	// GetLogicalDiskProperties lists the logical disk keys a RAID
	// configuration may use, with their descriptions.
	GetLogicalDiskProperties() Properties
}

// BIOSInterface reads and changes BIOS settings (Ironic's BIOSInterface).
type BIOSInterface interface {
	Interface

	// ApplyConfiguration applies settings on the hardware and refreshes
	// the node's cached settings (Task.BIOSSettings).
	ApplyConfiguration(ctx context.Context, task Task, settings []BIOSSetting) error
	// FactoryReset restores the factory settings and refreshes the cache.
	FactoryReset(ctx context.Context, task Task) error
	// CacheBIOSSettings reads the settings from the hardware into the
	// node's cache.
	CacheBIOSSettings(ctx context.Context, task Task) error
}

// VendorInterface exposes vendor passthru methods, on nodes and on the
// hardware type (Ironic's VendorInterface). It is not validated with the
// other interfaces: each call is.
type VendorInterface interface {
	// GetProperties is Interface.GetProperties.
	GetProperties() Properties

	// Routes lists the node vendor passthru methods, by name.
	Routes() VendorMethods
	// DriverRoutes lists the driver (hardware type) vendor passthru
	// methods, by name.
	DriverRoutes() VendorMethods

	// Validate checks a node passthru call of method with args (the
	// request body) before it runs; MissingParameterValue or
	// InvalidParameterValue faults when args are wrong,
	// UnsupportedDriverExtension when the implementation has no vendor
	// methods.
	Validate(ctx context.Context, task Task, method, httpMethod string, args map[string]any) error
	// DriverValidate is Validate for driver passthru calls.
	DriverValidate(ctx context.Context, method, httpMethod string, args map[string]any) error

	// Call runs a node passthru method after Validate accepted it and
	// returns its result (any JSON value). The conductor runs async
	// methods in a worker and discards their result.
	Call(ctx context.Context, task Task, method, httpMethod string, args map[string]any) (any, error)
	// CallDriver runs a driver passthru method.
	CallDriver(ctx context.Context, method, httpMethod string, args map[string]any) (any, error)
}
