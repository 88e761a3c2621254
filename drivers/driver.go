package drivers

// Driver is a node's composed driver (Ironic's BareDriver): its hardware
// type and one implementation per kind.
type Driver struct {
	// HardwareType is the node's driver field.
	HardwareType string

	BIOS       BIOSInterface
	Boot       BootInterface
	Console    ConsoleInterface
	Deploy     DeployInterface
	Inspect    InspectInterface
	Management ManagementInterface
	Network    NetworkInterface
	Power      PowerInterface
	RAID       RAIDInterface
	Rescue     RescueInterface
	Storage    StorageInterface
	Vendor     VendorInterface

	names map[Kind]string
}

// ImplName returns the name of the implementation used for kind k.
func (d *Driver) ImplName(k Kind) string { return d.names[k] }

// Interface returns the implementation used for kind k: an Interface for
// every kind but Vendor, a VendorInterface for Vendor.
func (d *Driver) Interface(k Kind) any {
	switch k {
	case BIOS:
		return d.BIOS
	case Boot:
		return d.Boot
	case Console:
		return d.Console
	case Deploy:
		return d.Deploy
	case Inspect:
		return d.Inspect
	case Management:
		return d.Management
	case Network:
		return d.Network
	case Power:
		return d.Power
	case RAID:
		return d.RAID
	case Rescue:
		return d.Rescue
	case Storage:
		return d.Storage
	case Vendor:
		return d.Vendor
	}
	return nil
}

// NewDriver composes a driver from explicit implementations, for tests and
// tools; nodes get theirs from Registry.BuildDriver. impls maps each kind to
// its name and implementation; kinds left out stay nil.
func NewDriver(hwType string, impls ...Implementation) *Driver {
	d := &Driver{HardwareType: hwType, names: map[Kind]string{}}
	for _, im := range impls {
		d.set(im.Kind, im.Name, im.Impl)
	}
	return d
}

func (d *Driver) set(k Kind, name string, impl any) {
	d.names[k] = name
	switch k {
	case BIOS:
		d.BIOS, _ = impl.(BIOSInterface)
	case Boot:
		d.Boot, _ = impl.(BootInterface)
	case Console:
		d.Console, _ = impl.(ConsoleInterface)
	case Deploy:
		d.Deploy, _ = impl.(DeployInterface)
	case Inspect:
		d.Inspect, _ = impl.(InspectInterface)
	case Management:
		d.Management, _ = impl.(ManagementInterface)
	case Network:
		d.Network, _ = impl.(NetworkInterface)
	case Power:
		d.Power, _ = impl.(PowerInterface)
	case RAID:
		d.RAID, _ = impl.(RAIDInterface)
	case Rescue:
		d.Rescue, _ = impl.(RescueInterface)
	case Storage:
		d.Storage, _ = impl.(StorageInterface)
	case Vendor:
		d.Vendor, _ = impl.(VendorInterface)
	}
}
