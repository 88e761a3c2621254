package drivers

// RamdiskMode is what the agent ramdisk boots for (the mode of Ironic's
// prepare_ramdisk): driver_info names its images <mode>_kernel and
// <mode>_ramdisk.
type RamdiskMode string

// Ramdisk modes.
const (
	RamdiskDeploy RamdiskMode = "deploy"
	RamdiskRescue RamdiskMode = "rescue"
)

// KernelKey is the driver_info key of the mode's kernel (deploy_kernel).
func (m RamdiskMode) KernelKey() string { return string(m) + "_kernel" }

// RamdiskKey is the driver_info key of the mode's ramdisk (deploy_ramdisk).
func (m RamdiskMode) RamdiskKey() string { return string(m) + "_ramdisk" }

// Boot devices (ironic.common.boot_devices).
const (
	BootDevicePXE       = "pxe"
	BootDeviceDisk      = "disk"
	BootDeviceCDROM     = "cdrom"
	BootDeviceBIOS      = "bios"
	BootDeviceSafe      = "safe"
	BootDeviceWANBoot   = "wanboot"
	BootDeviceISCSIBoot = "iscsiboot"
	BootDeviceFloppy    = "floppy"
)

// Boot modes (ironic.common.boot_modes).
const (
	BootModeBIOS = "bios"
	BootModeUEFI = "uefi"
)

// Hardware components and indicator states (ironic.common.components and
// ironic.common.indicator_states).
const (
	ComponentChassis = "chassis"
	ComponentSystem  = "system"
	ComponentDisk    = "disk"
	ComponentPower   = "power"
	ComponentNIC     = "nic"

	IndicatorOff      = "off"
	IndicatorOn       = "on"
	IndicatorBlinking = "blinking"
	IndicatorUnknown  = "unknown"
)
