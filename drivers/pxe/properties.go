package pxe

import "github.com/goironic/ironic/drivers"

// The texts below are Ironic 21.4's property descriptions, kept byte for
// byte: GET /v1/drivers/{name}/properties shows them.

// commonProperties are the properties of Ironic's pxe and ipxe boot interfaces.
func commonProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "deploy_kernel", Description: "UUID (from Glance) of the deployment kernel. Required."},
		{Name: "deploy_ramdisk", Description: "UUID (from Glance) of the ramdisk that is mounted at boot time. Required."},
		{Name: "force_persistent_boot_device", Description: "Controls the persistency of boot order changes. 'Always' will make all changes persistent, 'Default' will make all but the final one upon instance deployment non-persistent, and 'Never' will make no persistent changes at all. The old values 'True' and 'False' are still supported but deprecated in favor of the new ones.Defaults to 'Default'. Optional."},
		{Name: "rescue_kernel", Description: "UUID (from Glance) of the rescue kernel. This value is required for rescue mode."},
		{Name: "rescue_ramdisk", Description: "UUID (from Glance) of the rescue ramdisk with agent that is used at node rescue time. This value is required for rescue mode."},
		{Name: "kernel_append_params", Description: "Additional kernel parameters to pass down to instance kernel. These parameters can be consumed by the kernel or by the applications by reading /proc/cmdline. Mind severe cmdline size limit. When used with virtual media, only applies to ISO images that Ironic builds, but not to pre-built ISOs provided via e.g. deploy_iso. Overrides the [pxe]/kernel_append_params configuration option, use %default% to insert its value."},
	}
}
