// Package generic implements Ironic's "no-*" and "noop" interfaces: the
// defaults of optional interfaces. The "no-*" ones (no-bios, no-console,
// no-inspect, no-raid, no-rescue, no-vendor) fail validation and every
// user-visible action with UnsupportedDriverExtension, as Ironic's noop
// module does; the "noop" ones (storage, network, management) accept
// everything and do nothing.
package generic

import (
	"context"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// Implementations returns every implementation of this package under its
// Ironic name, for drivers.NewRegistry.
func Implementations() []drivers.Implementation {
	return []drivers.Implementation{
		{Kind: drivers.BIOS, Name: "no-bios", Impl: NoBIOS{}},
		{Kind: drivers.Console, Name: "no-console", Impl: NoConsole{}},
		{Kind: drivers.Inspect, Name: "no-inspect", Impl: NoInspect{}},
		{Kind: drivers.RAID, Name: "no-raid", Impl: NoRAID{}},
		{Kind: drivers.Rescue, Name: "no-rescue", Impl: NoRescue{}},
		{Kind: drivers.Vendor, Name: "no-vendor", Impl: NoVendor{}},
		{Kind: drivers.Storage, Name: "noop", Impl: NoopStorage{}},
		{Kind: drivers.Network, Name: "noop", Impl: NoopNetwork{}},
		{Kind: drivers.Management, Name: "noop", Impl: NoopManagement{}},
	}
}

// NoBIOS is "no-bios".
type NoBIOS struct{}

// GetProperties returns none.
func (NoBIOS) GetProperties() drivers.Properties { return nil }

// Validate fails: the driver doesn't support bios.
func (NoBIOS) Validate(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "bios")
}

// ApplyConfiguration fails.
func (NoBIOS) ApplyConfiguration(_ context.Context, task drivers.Task, _ []drivers.BIOSSetting) error {
	return drivers.Unsupported(task, "bios")
}

// FactoryReset fails.
func (NoBIOS) FactoryReset(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "bios")
}

// CacheBIOSSettings does nothing.
func (NoBIOS) CacheBIOSSettings(context.Context, drivers.Task) error { return nil }

// NoConsole is "no-console".
type NoConsole struct{}

// GetProperties returns none.
func (NoConsole) GetProperties() drivers.Properties { return nil }

// Validate fails: the driver doesn't support console.
func (NoConsole) Validate(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "console")
}

// StartConsole fails.
func (NoConsole) StartConsole(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "console")
}

// StopConsole fails.
func (NoConsole) StopConsole(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "console")
}

// GetConsole fails.
func (NoConsole) GetConsole(_ context.Context, task drivers.Task) (map[string]any, error) {
	return nil, drivers.Unsupported(task, "console")
}

// NoRescue is "no-rescue".
type NoRescue struct{}

// GetProperties returns none.
func (NoRescue) GetProperties() drivers.Properties { return nil }

// Validate fails: the driver doesn't support rescue.
func (NoRescue) Validate(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "rescue")
}

// Rescue fails.
func (NoRescue) Rescue(_ context.Context, task drivers.Task) (states.Provision, error) {
	return "", drivers.Unsupported(task, "rescue")
}

// Unrescue fails.
func (NoRescue) Unrescue(_ context.Context, task drivers.Task) (states.Provision, error) {
	return "", drivers.Unsupported(task, "rescue")
}

// CleanUp does nothing.
func (NoRescue) CleanUp(context.Context, drivers.Task) error { return nil }

// NoInspect is "no-inspect".
type NoInspect struct{ drivers.InspectBase }

// GetProperties returns none.
func (NoInspect) GetProperties() drivers.Properties { return nil }

// Validate fails: the driver doesn't support inspect.
func (NoInspect) Validate(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "inspect")
}

// InspectHardware fails.
func (NoInspect) InspectHardware(_ context.Context, task drivers.Task) (states.Provision, error) {
	return "", drivers.Unsupported(task, "inspect")
}

// NoRAID is "no-raid". It still lists the logical disk properties of
// Ironic's RAID schema, as Ironic's NoRAID does.
type NoRAID struct{ drivers.RAIDBase }

// Validate fails: the driver doesn't support raid.
func (NoRAID) Validate(_ context.Context, task drivers.Task) error {
	return drivers.Unsupported(task, "raid")
}

// ValidateRAIDConfig fails.
func (NoRAID) ValidateRAIDConfig(_ context.Context, task drivers.Task, _ map[string]any) error {
	return drivers.Unsupported(task, "raid")
}

// CreateConfiguration fails.
func (NoRAID) CreateConfiguration(_ context.Context, task drivers.Task, _ drivers.RAIDCreateOptions) (states.Provision, error) {
	return "", drivers.Unsupported(task, "raid")
}

// DeleteConfiguration fails.
func (NoRAID) DeleteConfiguration(_ context.Context, task drivers.Task) (states.Provision, error) {
	return "", drivers.Unsupported(task, "raid")
}

// NoVendor is "no-vendor": no passthru methods.
type NoVendor struct{}

// GetProperties returns none.
func (NoVendor) GetProperties() drivers.Properties { return nil }

// Routes lists none.
func (NoVendor) Routes() drivers.VendorMethods { return nil }

// DriverRoutes lists none.
func (NoVendor) DriverRoutes() drivers.VendorMethods { return nil }

// Validate fails: the driver doesn't support vendor.
func (NoVendor) Validate(_ context.Context, task drivers.Task, _, _ string, _ map[string]any) error {
	return drivers.Unsupported(task, "vendor")
}

// DriverValidate fails, naming the implementation (NoVendor) as Ironic
// does.
func (NoVendor) DriverValidate(context.Context, string, string, map[string]any) error {
	return drivers.UnsupportedFor("NoVendor", "vendor")
}

// Call fails.
func (NoVendor) Call(_ context.Context, task drivers.Task, _, _ string, _ map[string]any) (any, error) {
	return nil, drivers.Unsupported(task, "vendor")
}

// CallDriver fails.
func (NoVendor) CallDriver(context.Context, string, string, map[string]any) (any, error) {
	return nil, drivers.UnsupportedFor("NoVendor", "vendor")
}

// NoopStorage is the "noop" storage interface: no remote volumes.
type NoopStorage struct{}

// GetProperties returns none.
func (NoopStorage) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (NoopStorage) Validate(context.Context, drivers.Task) error { return nil }

// AttachVolumes does nothing.
func (NoopStorage) AttachVolumes(context.Context, drivers.Task) error { return nil }

// DetachVolumes does nothing.
func (NoopStorage) DetachVolumes(context.Context, drivers.Task) error { return nil }

// ShouldWriteImage returns true.
func (NoopStorage) ShouldWriteImage(context.Context, drivers.Task) (bool, error) { return true, nil }

// NoopNetwork is the "noop" network interface: no network is configured,
// VIFs are neither recorded nor listed.
type NoopNetwork struct{ drivers.NetworkBase }

// PortChanged accepts every change.
func (NoopNetwork) PortChanged(context.Context, drivers.Task, drivers.Port) error { return nil }

// PortgroupChanged accepts every change.
func (NoopNetwork) PortgroupChanged(context.Context, drivers.Task, drivers.Portgroup) error {
	return nil
}

// VIFAttach does nothing.
func (NoopNetwork) VIFAttach(context.Context, drivers.Task, drivers.VIF) error { return nil }

// VIFDetach does nothing.
func (NoopNetwork) VIFDetach(context.Context, drivers.Task, string) error { return nil }

// VIFList returns no VIFs.
func (NoopNetwork) VIFList(context.Context, drivers.Task) ([]drivers.VIF, error) {
	return []drivers.VIF{}, nil
}

// GetCurrentVIF returns none.
func (NoopNetwork) GetCurrentVIF(context.Context, drivers.Task, string) (string, error) {
	return "", nil
}

// AddProvisioningNetwork does nothing.
func (NoopNetwork) AddProvisioningNetwork(context.Context, drivers.Task) error { return nil }

// RemoveProvisioningNetwork does nothing.
func (NoopNetwork) RemoveProvisioningNetwork(context.Context, drivers.Task) error { return nil }

// ConfigureTenantNetworks does nothing.
func (NoopNetwork) ConfigureTenantNetworks(context.Context, drivers.Task) error { return nil }

// UnconfigureTenantNetworks does nothing.
func (NoopNetwork) UnconfigureTenantNetworks(context.Context, drivers.Task) error { return nil }

// AddCleaningNetwork does nothing and returns no ports.
func (NoopNetwork) AddCleaningNetwork(context.Context, drivers.Task) (map[string]string, error) {
	return nil, nil
}

// RemoveCleaningNetwork does nothing.
func (NoopNetwork) RemoveCleaningNetwork(context.Context, drivers.Task) error { return nil }

// ValidateInspection accepts every node.
func (NoopNetwork) ValidateInspection(context.Context, drivers.Task) error { return nil }

// NoopManagement is the "noop" management interface: the boot order is
// assumed to be preconfigured (PXE, then disk).
type NoopManagement struct{ drivers.ManagementBase }

// GetProperties returns none.
func (NoopManagement) GetProperties() drivers.Properties { return nil }

// Validate accepts every node.
func (NoopManagement) Validate(context.Context, drivers.Task) error { return nil }

// GetSupportedBootDevices returns pxe and disk.
func (NoopManagement) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootDevicePXE, drivers.BootDeviceDisk}, nil
}

// SetBootDevice accepts pxe and disk and does nothing.
func (m NoopManagement) SetBootDevice(ctx context.Context, task drivers.Task, device string, _ bool) error {
	supported, _ := m.GetSupportedBootDevices(ctx, task)
	for _, d := range supported {
		if d == device {
			return nil
		}
	}
	return drivers.InvalidParameter("Invalid boot device %s specified, supported are %s.",
		device, strings.Join(supported, ", "))
}

// GetBootDevice returns pxe, persistent.
func (NoopManagement) GetBootDevice(context.Context, drivers.Task) (drivers.BootDevice, error) {
	persistent := true
	return drivers.BootDevice{Device: drivers.BootDevicePXE, Persistent: &persistent}, nil
}

// GetSensorsData is not implemented by Ironic's noop management either
// (it raises NotImplementedError).
func (NoopManagement) GetSensorsData(context.Context, drivers.Task) (map[string]any, error) {
	return nil, drivers.NotImplemented("noop", drivers.Management, "get sensors data")
}
