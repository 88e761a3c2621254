package redfish

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/drivers/pxe"
)

// VirtualMediaBoot is the "redfish-virtual-media" boot interface.
type VirtualMediaBoot struct {
	c   *core
	cfg Config
}

// GetProperties returns deploy_kernel, deploy_ramdisk and deploy_iso.
func (*VirtualMediaBoot) GetProperties() drivers.Properties { return virtualMediaProperties() }

// Capabilities are iscsi_volume_boot, ramdisk_boot and
// ramdisk_boot_configdrive, as Ironic declares.
func (*VirtualMediaBoot) Capabilities() []string {
	return []string{"iscsi_volume_boot", "ramdisk_boot", "ramdisk_boot_configdrive"}
}

// validateDriverInfo is Ironic's redfish boot _parse_driver_info reduced
// to its checks.
func (b *VirtualMediaBoot) validateDriverInfo(task drivers.Task) error {
	mode := deployutil.RescueOrDeployMode(task)
	if !deployutil.NeedsAgentRamdisk(task, mode, b.cfg.AutomatedClean) {
		return nil
	}
	di := task.DriverInfo()
	iso := di.Get(string(mode) + "_iso")
	if !py.Truthy(iso) {
		iso = di.Get("redfish_" + string(mode) + "_iso")
	}
	if !py.Truthy(iso) {
		kernel, ramdisk := mode.KernelKey(), mode.RamdiskKey()
		k, r := di.Get(kernel), di.Get(ramdisk)
		if !py.Truthy(k) || !py.Truthy(r) {
			if mode == drivers.RamdiskRescue {
				k, r = b.cfg.RescueKernel, b.cfg.RescueRamdisk
			} else {
				k, r = b.cfg.DeployKernel, b.cfg.DeployRamdisk
			}
		}
		if err := deployutil.CheckMissing("Error validating Redfish virtual media. Some parameters were missing in node's driver_info",
			deployutil.Param{Label: kernel, Value: k}, deployutil.Param{Label: ramdisk, Value: r}); err != nil {
			return err
		}
	}
	_, err := ParseDriverInfo(task, b.cfg)
	return err
}

// Validate is Ironic's validate: the agent image references and the
// Redfish driver_info, then (_validate_instance_info) the instance image
// information when the image is written and not booted locally: a
// ramdisk deploy's kernel and ramdisk or boot_iso (deploy_utils'
// get_image_instance_info and validate_image_properties, as pxe checks
// them).
func (b *VirtualMediaBoot) Validate(ctx context.Context, task drivers.Task) error {
	if err := b.validateDriverInfo(task); err != nil {
		return err
	}
	if drv := task.Driver(); drv != nil && drv.Storage != nil {
		write, err := drv.Storage.ShouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		if !write {
			return nil
		}
	}
	if deployutil.BootOption(task) == "local" {
		return nil
	}
	info, err := pxe.ImageInstanceInfo(task)
	if err != nil {
		return err
	}
	return pxe.ValidateImageProperties(task, info)
}

// ValidateRescue is Ironic's: the rescue images are checked by Validate
// when the node is in a rescue state.
func (b *VirtualMediaBoot) ValidateRescue(_ context.Context, task drivers.Task) error {
	return b.validateDriverInfo(task)
}

// ValidateInspection falls back to unmanaged inspection (unsupported) when
// parameters are missing.
func (b *VirtualMediaBoot) ValidateInspection(_ context.Context, task drivers.Task) error {
	err := b.validateDriverInfo(task)
	if ironic.IsClass(err, ironic.MissingParameterValue) {
		return drivers.Unsupported(task, "inspection")
	}
	return err
}

// InsertMedia puts the image at url into a free virtual media device of
// the type (VirtualMediaCD, VirtualMediaDVD, VirtualMediaUSBStick,
// VirtualMediaFloppy), as Ironic's _insert_vmedia does.
func (b *VirtualMediaBoot) InsertMedia(ctx context.Context, task drivers.Task, url, device string) error {
	return b.c.InsertVirtualMedia(ctx, task, url, device)
}

// EjectMedia ejects the devices of the type ("" for every device) and
// reports whether one held media (Ironic's eject_vmedia).
func (b *VirtualMediaBoot) EjectMedia(ctx context.Context, task drivers.Task, device string) (bool, error) {
	return b.c.EjectVirtualMedia(ctx, task, device)
}
