package drivers

// Power states, as stored in the node's power_state and passed to
// PowerInterface.SetPowerState (ironic.common.states).
const (
	PowerOn      = "power on"
	PowerOff     = "power off"
	Reboot       = "rebooting"
	SoftReboot   = "soft rebooting"
	SoftPowerOff = "soft power off"
	PowerError   = "error"
)

// Provision states an implementation may hand back to the conductor.
const (
	StateDeployWait  = "wait call-back"
	StateCleanWait   = "clean wait"
	StateDeleted     = "deleted"
	StateManageable  = "manageable"
	StateInspectWait = "inspect wait"
	StateActive      = "active"
	StateRescue      = "rescue"
	StateRescueWait  = "rescue wait"
)

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
