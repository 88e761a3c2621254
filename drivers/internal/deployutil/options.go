package deployutil

import "github.com/goironic/ironic/option"

// BindAgentImages reads [conductor]deploy_kernel, deploy_ramdisk,
// rescue_kernel and rescue_ramdisk, the agent images of nodes whose
// driver_info names none, onto a boot interface's Config fields.
func BindAgentImages(b *option.Binder, deployKernel, deployRamdisk, rescueKernel, rescueRamdisk *string) {
	b.String(deployKernel, "conductor", "deploy_kernel")
	b.String(deployRamdisk, "conductor", "deploy_ramdisk")
	b.String(rescueKernel, "conductor", "rescue_kernel")
	b.String(rescueRamdisk, "conductor", "rescue_ramdisk")
}
