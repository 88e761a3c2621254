package drivers

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
