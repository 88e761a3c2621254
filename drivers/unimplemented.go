package drivers

import (
	"context"
	"time"

	"github.com/goironic/ironic/states"
)

// unimplemented stands in for an implementation Ironic has but this service
// doesn't (yet): enabling it is accepted, as Ironic would, and every
// operation, validation included, answers NotImplemented. It satisfies the
// interface of every kind but vendor.
type unimplemented struct {
	kind Kind
	name string
}

// unimplementedVendor is unimplemented for the vendor kind.
type unimplementedVendor struct{ name string }

func unimplementedFor(k Kind, name string) any {
	if k == Vendor {
		return unimplementedVendor{name: name}
	}
	return unimplemented{kind: k, name: name}
}

func (u unimplemented) err(op string) error { return NotImplemented(u.name, u.kind, op) }

// placeholderProperties are the properties Ironic's implementations without
// Go code declare (only ansible declares any), so that a hardware type
// defaulting to one still lists them.
func placeholderProperties(k Kind, name string) Properties {
	if k == Deploy && name == "ansible" {
		return ansibleProperties()
	}
	return nil
}

func (u unimplemented) GetProperties() Properties { return placeholderProperties(u.kind, u.name) }
func (u unimplemented) Validate(context.Context, Task) error {
	return u.err("validate nodes")
}

// Power.

func (u unimplemented) GetPowerState(context.Context, Task) (states.Power, error) {
	return "", u.err("get the power state")
}
func (u unimplemented) SetPowerState(context.Context, Task, states.Power, time.Duration) error {
	return u.err("set the power state")
}
func (u unimplemented) Reboot(context.Context, Task, time.Duration) error {
	return u.err("reboot")
}
func (u unimplemented) GetSupportedPowerStates(context.Context, Task) ([]states.Power, error) {
	return nil, u.err("list power states")
}

// Management.

func (u unimplemented) GetSupportedBootDevices(context.Context, Task) ([]string, error) {
	return nil, u.err("list boot devices")
}
func (u unimplemented) SetBootDevice(context.Context, Task, string, bool) error {
	return u.err("set the boot device")
}
func (u unimplemented) GetBootDevice(context.Context, Task) (BootDevice, error) {
	return BootDevice{}, u.err("get the boot device")
}
func (u unimplemented) GetSensorsData(context.Context, Task) (map[string]any, error) {
	return nil, u.err("get sensors data")
}
func (u unimplemented) InjectNMI(context.Context, Task) error { return u.err("inject NMI") }
func (u unimplemented) GetSupportedBootModes(context.Context, Task) ([]string, error) {
	return nil, u.err("list boot modes")
}
func (u unimplemented) GetBootMode(context.Context, Task) (string, error) {
	return "", u.err("get the boot mode")
}
func (u unimplemented) SetBootMode(context.Context, Task, string) error {
	return u.err("set the boot mode")
}
func (u unimplemented) GetSecureBootState(context.Context, Task) (bool, error) {
	return false, u.err("get the secure boot state")
}
func (u unimplemented) SetSecureBootState(context.Context, Task, bool) error {
	return u.err("set the secure boot state")
}
func (u unimplemented) GetSupportedIndicators(context.Context, Task, string) (map[string]map[string]Indicator, error) {
	return nil, u.err("list indicators")
}
func (u unimplemented) SetIndicatorState(context.Context, Task, string, string, string) error {
	return u.err("set indicator states")
}
func (u unimplemented) GetIndicatorState(context.Context, Task, string, string) (string, error) {
	return "", u.err("get indicator states")
}

// Boot.

func (u unimplemented) Capabilities() []string { return nil }
func (u unimplemented) PrepareRamdisk(context.Context, Task, map[string]any, RamdiskMode) error {
	return u.err("prepare the ramdisk")
}
func (u unimplemented) CleanUpRamdisk(context.Context, Task, RamdiskMode) error {
	return u.err("clean up the ramdisk")
}
func (u unimplemented) PrepareInstance(context.Context, Task) error {
	return u.err("prepare the instance")
}
func (u unimplemented) CleanUpInstance(context.Context, Task) error {
	return u.err("clean up the instance")
}
func (u unimplemented) ValidateRescue(context.Context, Task) error {
	return u.err("validate rescue")
}
func (u unimplemented) ValidateInspection(context.Context, Task) error {
	return u.err("validate inspection")
}

// Deploy.

func (u unimplemented) Deploy(context.Context, Task) (states.Provision, error) {
	return "", u.err("deploy")
}
func (u unimplemented) TearDown(context.Context, Task) (states.Provision, error) {
	return "", u.err("tear down")
}
func (u unimplemented) Prepare(context.Context, Task) error  { return u.err("prepare") }
func (u unimplemented) CleanUp(context.Context, Task) error  { return u.err("clean up") }
func (u unimplemented) TakeOver(context.Context, Task) error { return u.err("take over") }
func (u unimplemented) PrepareCleaning(context.Context, Task) (states.Provision, error) {
	return "", u.err("prepare cleaning")
}
func (u unimplemented) TearDownCleaning(context.Context, Task) error {
	return u.err("tear down cleaning")
}
func (u unimplemented) Heartbeat(context.Context, Task, Heartbeat) error {
	return u.err("handle heartbeats")
}

// Inspect.

func (u unimplemented) InspectHardware(context.Context, Task) (states.Provision, error) {
	return "", u.err("inspect hardware")
}
func (u unimplemented) Abort(context.Context, Task) error { return u.err("abort") }

// Network.

func (u unimplemented) PortChanged(context.Context, Task, Port) error {
	return u.err("handle port changes")
}
func (u unimplemented) PortgroupChanged(context.Context, Task, Portgroup) error {
	return u.err("handle port group changes")
}
func (u unimplemented) VIFAttach(context.Context, Task, VIF) error { return u.err("attach VIFs") }
func (u unimplemented) VIFDetach(context.Context, Task, string) error {
	return u.err("detach VIFs")
}
func (u unimplemented) VIFList(context.Context, Task) ([]VIF, error) {
	return nil, u.err("list VIFs")
}
func (u unimplemented) GetCurrentVIF(context.Context, Task, string) (string, error) {
	return "", u.err("get the current VIF")
}
func (u unimplemented) AddProvisioningNetwork(context.Context, Task) error {
	return u.err("add the provisioning network")
}
func (u unimplemented) RemoveProvisioningNetwork(context.Context, Task) error {
	return u.err("remove the provisioning network")
}
func (u unimplemented) ConfigureTenantNetworks(context.Context, Task) error {
	return u.err("configure tenant networks")
}
func (u unimplemented) UnconfigureTenantNetworks(context.Context, Task) error {
	return u.err("unconfigure tenant networks")
}
func (u unimplemented) AddCleaningNetwork(context.Context, Task) (map[string]string, error) {
	return nil, u.err("add the cleaning network")
}
func (u unimplemented) RemoveCleaningNetwork(context.Context, Task) error {
	return u.err("remove the cleaning network")
}
func (u unimplemented) AddRescuingNetwork(context.Context, Task) (map[string]string, error) {
	return nil, u.err("add the rescuing network")
}
func (u unimplemented) RemoveRescuingNetwork(context.Context, Task) error {
	return u.err("remove the rescuing network")
}
func (u unimplemented) AddInspectionNetwork(context.Context, Task) (map[string]string, error) {
	return nil, u.err("add the inspection network")
}
func (u unimplemented) RemoveInspectionNetwork(context.Context, Task) error {
	return u.err("remove the inspection network")
}
func (u unimplemented) NeedPowerOn(context.Context, Task) bool { return false }
func (u unimplemented) GetNodeNetworkData(context.Context, Task) (map[string]any, error) {
	return nil, u.err("get network data")
}

// Storage.

func (u unimplemented) AttachVolumes(context.Context, Task) error { return u.err("attach volumes") }
func (u unimplemented) DetachVolumes(context.Context, Task) error { return u.err("detach volumes") }
func (u unimplemented) ShouldWriteImage(context.Context, Task) (bool, error) {
	return false, u.err("decide whether to write an image")
}

// Console.

func (u unimplemented) StartConsole(context.Context, Task) error { return u.err("start consoles") }
func (u unimplemented) StopConsole(context.Context, Task) error  { return u.err("stop consoles") }
func (u unimplemented) GetConsole(context.Context, Task) (map[string]any, error) {
	return nil, u.err("get consoles")
}

// Rescue.

func (u unimplemented) Rescue(context.Context, Task) (states.Provision, error) {
	return "", u.err("rescue")
}
func (u unimplemented) Unrescue(context.Context, Task) (states.Provision, error) {
	return "", u.err("unrescue")
}

// RAID.

func (u unimplemented) ValidateRAIDConfig(context.Context, Task, map[string]any) error {
	return u.err("validate RAID configurations")
}
func (u unimplemented) CreateConfiguration(context.Context, Task, RAIDCreateOptions) (states.Provision, error) {
	return "", u.err("create RAID configurations")
}
func (u unimplemented) DeleteConfiguration(context.Context, Task) (states.Provision, error) {
	return "", u.err("delete RAID configurations")
}
func (u unimplemented) GetLogicalDiskProperties() Properties { return LogicalDiskProperties() }

// BIOS.

func (u unimplemented) ApplyConfiguration(context.Context, Task, []BIOSSetting) error {
	return u.err("apply BIOS settings")
}
func (u unimplemented) FactoryReset(context.Context, Task) error {
	return u.err("reset BIOS settings")
}
func (u unimplemented) CacheBIOSSettings(context.Context, Task) error {
	return u.err("cache BIOS settings")
}

// Vendor.

func (u unimplementedVendor) err(op string) error { return NotImplemented(u.name, Vendor, op) }

func (u unimplementedVendor) GetProperties() Properties   { return nil }
func (u unimplementedVendor) Routes() VendorMethods       { return nil }
func (u unimplementedVendor) DriverRoutes() VendorMethods { return nil }
func (u unimplementedVendor) Validate(context.Context, Task, string, string, map[string]any) error {
	return u.err("validate vendor passthru calls")
}
func (u unimplementedVendor) DriverValidate(context.Context, string, string, map[string]any) error {
	return u.err("validate vendor passthru calls")
}
func (u unimplementedVendor) Call(context.Context, Task, string, string, map[string]any) (any, error) {
	return nil, u.err("run vendor passthru methods")
}
func (u unimplementedVendor) CallDriver(context.Context, string, string, map[string]any) (any, error) {
	return nil, u.err("run vendor passthru methods")
}
