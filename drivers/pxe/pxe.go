// Package pxe implements Ironic's "pxe" and "ipxe" boot interfaces. They
// validate nodes exactly as Ironic does; instead of writing per-node boot
// files, they set the node to boot from the network and leave its iPXE
// script to the ipxe_config driver vendor method, which renders it from
// the node's state when the node asks (Scripter).
package pxe

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/goironic/ironic"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/imagefetch"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/states"
)

// Config holds the options the PXE boot interfaces read.
type Config struct {
	// HTTPURL and HTTPRoot are [deploy]http_url and [deploy]http_root.
	HTTPURL  string
	HTTPRoot string
	// DeployKernel, DeployRamdisk, RescueKernel and RescueRamdisk are the
	// [conductor] defaults for nodes whose driver_info names none.
	DeployKernel  string
	DeployRamdisk string
	RescueKernel  string
	RescueRamdisk string
	// AutomatedClean is [conductor]automated_clean.
	AutomatedClean bool
	// KickstartTemplate is [anaconda]default_ks_template.
	KickstartTemplate string
	// DefaultBootMode is [deploy]default_boot_mode ("" means uefi).
	DefaultBootMode string
	// IPXEUseSwift is [pxe]ipxe_use_swift: Glance deploy and rescue
	// images are not fetched (iPXE gets Swift temporary URLs for them).
	IPXEUseSwift bool
	// TFTPMasterPath is [pxe]tftp_master_path: the master copies of the
	// images fetched for nodes ("": none, each node downloads).
	TFTPMasterPath string
	// FileURLAllowedPaths is [conductor]file_url_allowed_paths.
	FileURLAllowedPaths []string
	// Glance serves deploy, rescue and instance images given as Glance
	// images (internal/glance.Client); nil fails them.
	Glance imagefetch.Glance
	// ImageHTTP fetches http(s) images.
	ImageHTTP *http.Client
	// Log receives the boot mode and secure boot messages; nil discards.
	Log *slog.Logger
}

// newCache is the cache the pxe and ipxe boot interfaces share.
func newCache(cfg Config) *imagefetch.Cache {
	return &imagefetch.Cache{
		Source:    imagefetch.Source{Glance: cfg.Glance, HTTP: cfg.ImageHTTP, FileURLAllowedPaths: cfg.FileURLAllowedPaths},
		MasterDir: cfg.TFTPMasterPath,
	}
}

func (c Config) defaultBootMode() string {
	if c.DefaultBootMode == "" {
		return drivers.BootModeUEFI
	}
	return c.DefaultBootMode
}

// Implementations returns the pxe and ipxe boot interfaces, for
// drivers.NewRegistry.
func Implementations(cfg Config) []drivers.Implementation {
	c := newCache(cfg)
	return []drivers.Implementation{
		{Kind: drivers.Boot, Name: "pxe", Impl: &Boot{cfg: cfg, name: "pxe", images: c}},
		{Kind: drivers.Boot, Name: "ipxe", Impl: &Boot{cfg: cfg, name: "ipxe", ipxe: true, images: c}},
	}
}

// Boot is the pxe boot interface, or the ipxe one.
type Boot struct {
	cfg    Config
	name   string
	ipxe   bool
	images *imagefetch.Cache
}

// NewBoot returns the pxe boot interface, or the ipxe one.
func NewBoot(cfg Config, ipxe bool) *Boot {
	if ipxe {
		return &Boot{cfg: cfg, name: "ipxe", ipxe: true, images: newCache(cfg)}
	}
	return &Boot{cfg: cfg, name: "pxe", images: newCache(cfg)}
}

// GetProperties returns deploy/rescue kernel and ramdisk, boot persistency
// and kernel parameters.
func (*Boot) GetProperties() drivers.Properties { return commonProperties() }

// Capabilities are ramdisk_boot and pxe_boot for pxe, iscsi_volume_boot,
// ramdisk_boot and ipxe_boot for ipxe.
func (b *Boot) Capabilities() []string {
	if b.ipxe {
		return []string{"iscsi_volume_boot", "ramdisk_boot", "ipxe_boot"}
	}
	return []string{"ramdisk_boot", "pxe_boot"}
}

// validateCommon is Ironic's PXEBaseMixin._validate_common.
func (b *Boot) validateCommon(task drivers.Task) error {
	if len(task.Ports()) == 0 {
		return drivers.MissingParameter("Node %s does not have any port associated with it", task.NodeUUID())
	}
	if b.ipxe && (b.cfg.HTTPURL == "" || b.cfg.HTTPRoot == "") {
		return drivers.MissingParameter("iPXE boot is enabled but no HTTP URL or HTTP root was specified")
	}
	if deployutil.BootOption(task) == "kickstart" {
		if b.cfg.HTTPURL == "" || b.cfg.HTTPRoot == "" {
			return drivers.MissingParameter("'kickstart' boot option is set on the node but no HTTP URL or HTTP root was specified")
		}
		if b.cfg.KickstartTemplate == "" {
			return drivers.MissingParameter("'kickstart' boot option is set on the node but no default kickstart template is specified")
		}
	}
	if err := deployutil.ValidateCapabilities(task); err != nil {
		return err
	}
	ii := task.InstanceInfo()
	if py.Truthy(ii.Get("image_source")) && py.Truthy(ii.Get("boot_iso")) {
		return drivers.InvalidParameter("An 'image_source' and 'boot_iso' parameter may not be specified at the same time")
	}
	return b.parseDriverInfo(task, drivers.RamdiskDeploy)
}

// parseDriverInfo is Ironic's pxe_utils.parse_driver_info: the agent
// kernel and ramdisk of mode, from driver_info or else the configuration.
func (b *Boot) parseDriverInfo(task drivers.Task, mode drivers.RamdiskMode) error {
	if !deployutil.NeedsAgentRamdisk(task, mode, b.cfg.AutomatedClean) {
		return nil
	}
	kernel, ramdisk := mode.KernelKey(), mode.RamdiskKey()
	di := task.DriverInfo()
	k, r := di.Get(kernel), di.Get(ramdisk)
	if !py.Truthy(k) && !py.Truthy(r) {
		if mode == drivers.RamdiskRescue {
			k, r = b.cfg.RescueKernel, b.cfg.RescueRamdisk
		} else {
			k, r = b.cfg.DeployKernel, b.cfg.DeployRamdisk
		}
	}
	return deployutil.CheckMissing("Cannot validate PXE bootloader. Some parameters were missing in node's driver_info and configuration",
		deployutil.Param{Label: kernel, Value: k}, deployutil.Param{Label: ramdisk, Value: r})
}

// Validate checks ports, configuration, capabilities and the agent kernel
// and ramdisk; for ramdisk and kickstart deployments also the instance
// image information.
func (b *Boot) Validate(ctx context.Context, task drivers.Task) error {
	if err := b.validateCommon(task); err != nil {
		return err
	}
	write := true
	if drv := task.Driver(); drv != nil && drv.Storage != nil {
		w, err := drv.Storage.ShouldWriteImage(ctx, task)
		if err != nil {
			return err
		}
		write = w
	}
	opt := deployutil.BootOption(task)
	if !write || opt == "local" {
		return nil
	}
	info, err := ImageInstanceInfo(task)
	if err != nil {
		return err
	}
	return ValidateImageProperties(task, info)
}

// ValidateRescue checks the rescue kernel and ramdisk.
func (b *Boot) ValidateRescue(_ context.Context, task drivers.Task) error {
	return b.parseDriverInfo(task, drivers.RamdiskRescue)
}

// ValidateInspection checks what booting an inspection ramdisk needs;
// missing parameters make inspection unsupported (Ironic falls back to
// unmanaged inspection).
func (b *Boot) ValidateInspection(_ context.Context, task drivers.Task) error {
	err := b.validateCommon(task)
	if err != nil && isMissing(err) {
		return drivers.Unsupported(task, "inspection")
	}
	return err
}

// PrepareRamdisk gets the node ready to boot the deploy (or rescue)
// ramdisk: the images must be known, and the node is set to boot from the
// network. No file is written: the node's iPXE script is generated when
// it boots (the ipxe_config driver vendor method), from its state.
func (b *Boot) PrepareRamdisk(ctx context.Context, task drivers.Task, ramdiskParams map[string]any, mode drivers.RamdiskMode) error {
	if mode == "" {
		mode = drivers.RamdiskDeploy
	}
	if err := b.parseDriverInfo(task, mode); err != nil {
		return err
	}
	if p := renderRamdiskParams(ramdiskParams); p != "" {
		task.DriverInternalInfo().Set(RamdiskParamsKey, p)
	} else {
		task.DriverInternalInfo().Delete(RamdiskParamsKey)
	}
	if err := deployutil.SyncBootMode(ctx, task, b.cfg.defaultBootMode(), b.cfg.Log); err != nil {
		return err
	}
	if err := setBootDevice(ctx, task, drivers.BootDevicePXE, false); err != nil {
		return err
	}
	if !deployutil.NeedsAgentRamdisk(task, mode, b.cfg.AutomatedClean) {
		return nil
	}
	return b.cacheImages(ctx, task, b.agentImageRefs(task, mode), true)
}

// CleanUpRamdisk removes the agent kernel and ramdisk fetched for the
// node (pxe_utils.clean_up_pxe_env) and forgets the ramdisk's extra
// kernel parameters; the script itself is never written.
func (b *Boot) CleanUpRamdisk(_ context.Context, task drivers.Task, mode drivers.RamdiskMode) error {
	if mode == "" {
		mode = drivers.RamdiskDeploy
	}
	b.removeImages(task, mode.KernelKey(), mode.RamdiskKey())
	task.DriverInternalInfo().Delete(RamdiskParamsKey)
	return nil
}

// RamdiskParamsKey is the driver_internal_info field holding the extra
// kernel parameters PrepareRamdisk was given (the inspection callback),
// which Ironic writes into the node's PXE configuration file and the
// iPXE script rendered at boot appends here.
const RamdiskParamsKey = "ramdisk_kernel_params"

// renderRamdiskParams is pxe_utils' "key=value" (or "key" for None)
// words, in key order.
func renderRamdiskParams(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var words []string
	for _, k := range keys {
		if params[k] == nil {
			words = append(words, k)
		} else {
			words = append(words, k+"="+py.Str(params[k]))
		}
	}
	return strings.Join(words, " ")
}

// PrepareInstance is Ironic's PXEBaseMixin.prepare_instance: the boot
// mode is synchronised and secure boot configured, then a node booting
// from an iSCSI volume or a ramdisk is set to boot from the network
// persistently (its iPXE script, rendered when it boots, holds the
// sanhook or the instance kernel and ramdisk) and any other from its
// local disk. An active node (conductor takeover) keeps its boot device.
func (b *Boot) PrepareInstance(ctx context.Context, task drivers.Task) error {
	if err := deployutil.SyncBootMode(ctx, task, b.cfg.defaultBootMode(), b.cfg.Log); err != nil {
		return err
	}
	opt := deployutil.BootOption(task)
	if opt != "kickstart" {
		if err := deployutil.ConfigureSecureBoot(ctx, task, true, b.cfg.Log); err != nil {
			return err
		}
	}
	dev := drivers.BootDeviceDisk
	iscsi, err := isISCSIBoot(ctx, task)
	if err != nil {
		return err
	}
	if iscsi || opt == "ramdisk" || opt == "kickstart" {
		dev = drivers.BootDevicePXE
	}
	if task.ProvisionState() == states.Active {
		return nil
	}
	if opt == "ramdisk" || opt == "kickstart" {
		ii := task.InstanceInfo()
		if err := b.cacheImages(ctx, task, map[string]any{"kernel": ii.Get("kernel"), "ramdisk": ii.Get("ramdisk"), "boot_iso": ii.Get("boot_iso")}, false); err != nil {
			return err
		}
	}
	if dev == drivers.BootDeviceDisk && strings.ToLower(py.Str(task.Properties().Get("vendor"))) == "lenovo" && task.ProvisionState() == states.Deploying {
		if mode, err := deployutil.BootMode(task, b.cfg.defaultBootMode()); err == nil && mode == drivers.BootModeUEFI {
			// Lenovo's UEFI NVRAM may drop the change (Ironic bug 2053064).
			return nil
		}
	}
	return setBootDevice(ctx, task, dev, true)
}

// isISCSIBoot is Ironic's deploy_utils.is_iscsi_boot: the node's boot
// volume (driver_internal_info/boot_from_volume) is an iSCSI one.
func isISCSIBoot(ctx context.Context, task drivers.Task) (bool, error) {
	id, _ := task.DriverInternalInfo().Get("boot_from_volume").(string)
	if id == "" {
		return false, nil
	}
	targets, err := task.Volumes().Targets(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range targets {
		if t.UUID == id {
			return strings.Contains(t.VolumeType, "iscsi"), nil
		}
	}
	return false, nil
}

// CleanUpInstance removes the instance kernel and ramdisk fetched for the
// node; secure boot, when the instance asked for it, is turned off again.
func (b *Boot) CleanUpInstance(ctx context.Context, task drivers.Task) error {
	b.removeImages(task, "kernel", "ramdisk", "boot_iso")
	return deployutil.ConfigureSecureBoot(ctx, task, false, b.cfg.Log)
}

// setBootDevice is manager_utils.node_set_boot_device; a node without a
// management interface is left alone.
func setBootDevice(ctx context.Context, task drivers.Task, device string, persistent bool) error {
	if drv := task.Driver(); drv == nil || drv.Management == nil {
		return nil
	}
	return deployutil.NodeSetBootDevice(ctx, task, device, persistent)
}

// ImageInstanceInfo is Ironic's deploy_utils.get_image_instance_info: the
// image information of instance_info that the boot option needs.
func ImageInstanceInfo(task drivers.Task) (map[string]any, error) {
	ii := task.InstanceInfo()
	info := map[string]any{}
	var params []deployutil.Param
	bootISO, imageSource := ii.Get("boot_iso"), ii.Get("image_source")
	switch {
	case py.Truthy(bootISO):
		if py.Truthy(imageSource) {
			return nil, drivers.InvalidParameter("An 'image_source' and 'boot_iso' parameter may not be specified at the same time.")
		}
		info["boot_iso"] = bootISO
		params = append(params, deployutil.Param{Label: "boot_iso", Value: bootISO})
	case deployutil.BootOption(task) == "ramdisk":
		info["kernel"], info["ramdisk"] = ii.Get("kernel"), ii.Get("ramdisk")
		params = append(params, deployutil.Param{Label: "kernel", Value: ii.Get("kernel")}, deployutil.Param{Label: "ramdisk", Value: ii.Get("ramdisk")})
	default:
		info["image_source"] = imageSource
		params = append(params, deployutil.Param{Label: "image_source", Value: imageSource})
		wholeDisk := py.Truthy(task.DriverInternalInfo().Get("is_whole_disk_image"))
		if !wholeDisk && deployutil.BootOption(task) != "local" && !deployutil.IsGlanceImage(imageSource) {
			info["kernel"], info["ramdisk"] = ii.Get("kernel"), ii.Get("ramdisk")
			params = append(params, deployutil.Param{Label: "kernel", Value: ii.Get("kernel")}, deployutil.Param{Label: "ramdisk", Value: ii.Get("ramdisk")})
		}
	}
	err := deployutil.CheckMissing("Cannot validate image information for node "+task.NodeUUID()+
		" because one or more parameters are missing from its instance_info and insufficient information is present to boot from a remote volume", params...)
	if err != nil {
		return nil, err
	}
	return info, nil
}

// ValidateImageProperties is Ironic's deploy_utils.validate_image_properties
// for images that need no Glance lookup; Glance images that would need
// their kernel_id/ramdisk_id checked answer NotImplemented.
func ValidateImageProperties(task drivers.Task, info map[string]any) error {
	href, bootISO := info["image_source"], info["boot_iso"]
	if py.Truthy(href) && py.Truthy(bootISO) {
		return drivers.InvalidParameter("An 'image_source' and 'boot_iso' parameter may not be specified at the same time.")
	}
	if !py.Truthy(href) {
		href = bootISO
	}
	dii := task.DriverInternalInfo()
	isap := py.Truthy(dii.Get("is_source_a_path"))
	if py.Truthy(bootISO) || py.Truthy(dii.Get("is_whole_disk_image")) || deployutil.BootOption(task) == "local" || isap {
		if s, ok := href.(string); ok && s != "" {
			if reason := deployutil.ImageRefError(s); reason != "" {
				return drivers.InvalidParameter("Validation of image href %s failed, reason: %s", s, reason)
			}
		}
		if !isap {
			return nil
		}
	}
	if deployutil.IsGlanceImage(href) {
		return drivers.NotImplemented("pxe", drivers.Boot, "validate Glance image properties")
	}
	var missing []string
	for _, p := range []string{"kernel", "ramdisk"} {
		if !py.Truthy(info[p]) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return drivers.MissingParameter("Image %s is missing the following properties: %s", py.Str(href), strings.Join(missing, ", "))
	}
	return nil
}

func isMissing(err error) bool { return ironic.IsClass(err, ironic.MissingParameterValue) }
