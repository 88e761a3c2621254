package redfish

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/ordered"
	"github.com/goironic/ironic/states"
)

// orderedParams is the ramdisk_params dict in insertion order: the
// kernel command line lists them as Python's dict iterates.
type orderedParams struct{ ordered.Map[any] }

// String is ' '.join('%s=%s' % kv if kv[1] is not None else kv[0]).
func (p *orderedParams) String() string {
	if p == nil {
		return ""
	}
	words := make([]string, 0, len(p.Keys()))
	for _, k := range p.Keys() {
		if v, _ := p.Get(k); v != nil {
			words = append(words, k+"="+py.Str(v))
		} else {
			words = append(words, k)
		}
	}
	return strings.Join(words, " ")
}

func (c Config) defaultBootMode() string {
	if c.DefaultBootMode == "" {
		return drivers.BootModeUEFI
	}
	return c.DefaultBootMode
}

func (b *VirtualMediaBoot) newUUID() string {
	if b.cfg.NewUUID != nil {
		return b.cfg.NewUUID()
	}
	return uuid.NewString()
}

// newToken is secrets.token_urlsafe(): 32 random bytes, base64url.
func (b *VirtualMediaBoot) newToken() string {
	if b.cfg.NewToken != nil {
		return b.cfg.NewToken()
	}
	buf := make([]byte, 32)
	_, _ = rand.Read(buf)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// deployInfo is what _parse_driver_info returns for the ramdisk: the
// agent ISO or kernel and ramdisk, the bootloader and whether the ramdisk
// can be given its configuration.
type deployInfo struct {
	kernel, ramdisk, iso, bootloader string
	canConfig                        bool
	configViaRemovable               bool
}

// parseDeployInfo is _parse_driver_info for PrepareRamdisk; ok is false
// when the node needs no agent ramdisk.
func (b *VirtualMediaBoot) parseDeployInfo(task drivers.Task) (deployInfo, bool, error) {
	mode := deployutil.RescueOrDeployMode(task)
	if !deployutil.NeedsAgentRamdisk(task, mode, b.cfg.AutomatedClean) {
		return deployInfo{}, false, nil
	}
	if err := b.validateDriverInfo(task); err != nil {
		return deployInfo{}, false, err
	}
	di := task.DriverInfo()
	var d deployInfo
	iso := di.Get(string(mode) + "_iso")
	if !py.Truthy(iso) {
		iso = di.Get("redfish_" + string(mode) + "_iso")
	}
	if py.Truthy(iso) {
		d.iso = py.Str(iso)
	} else {
		k, r := di.Get(mode.KernelKey()), di.Get(mode.RamdiskKey())
		if !py.Truthy(k) || !py.Truthy(r) {
			if mode == drivers.RamdiskRescue {
				k, r = b.cfg.RescueKernel, b.cfg.RescueRamdisk
			} else {
				k, r = b.cfg.DeployKernel, b.cfg.DeployRamdisk
			}
		}
		d.kernel, d.ramdisk, d.canConfig = py.Str(k), py.Str(r), true
	}
	if v, ok := di.Lookup("bootloader"); ok {
		if v != nil {
			d.bootloader = py.Str(v)
		}
	} else {
		d.bootloader = b.cfg.Bootloader
	}
	removable := di.Get("config_via_removable")
	if removable == nil {
		removable = di.Get("config_via_floppy")
	}
	d.configViaRemovable = py.Truthy(removable)
	d.canConfig = d.canConfig || d.configViaRemovable
	return d, true, nil
}

// PrepareRamdisk is Ironic's RedfishVirtualMediaBoot.prepare_ramdisk: a
// pregenerated agent token, the node powered off, the deploy (or rescue)
// ISO built with the ramdisk parameters and the network interface's
// network_data and published, the virtual CD ejected and loaded with it,
// the boot mode synchronised and the node set to boot once from the CD.
// A failure after publishing removes the published ISO again.
func (b *VirtualMediaBoot) PrepareRamdisk(ctx context.Context, task drivers.Task, ramdiskParams map[string]any, _ drivers.RamdiskMode) (err error) {
	if !needPrepareRamdisk(task) {
		return nil
	}
	// A node that needs no agent (a ramdisk deploy without automated
	// cleaning) gets no images here, as 21.4's _parse_driver_info answers:
	// its manual cleaning fails building the ISO, as 21.4's does.
	d, _, err := b.parseDeployInfo(task)
	if err != nil {
		return err
	}
	s, err := b.c.openMedia(ctx, task)
	if err != nil {
		return err
	}
	defer s.close()
	params := &orderedParams{}
	// deploy_utils.build_agent_options, which Ironic's deploy interfaces
	// pass in and ours leave to the boot interface. Inspection's
	// parameters are the inspector interface's alone (21.4's
	// _start_managed_inspection adds ipa-api-url itself, for fast track
	// only).
	if b.cfg.APIURL != "" && !inspecting(task) {
		params.Set("ipa-api-url", strings.TrimRight(b.cfg.APIURL, "/"))
	}
	extra := make([]string, 0, len(ramdiskParams))
	for k := range ramdiskParams {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	for _, k := range extra {
		params.Set(k, ramdiskParams[k])
	}
	if d.canConfig {
		dii := task.DriverInternalInfo()
		tok := b.newToken()
		dii.Set("agent_secret_token", tok)
		dii.Set("agent_secret_token_pregenerated", true)
		if err := task.Save(ctx); err != nil {
			return err
		}
		params.Set("ipa-agent-token", tok)
	}
	if err := task.PowerAction(ctx, states.PowerOff); err != nil {
		return err
	}
	if mac, err := b.deployNICMAC(ctx, task); err != nil {
		return err
	} else if mac != "" {
		params.Set("BOOTIF", mac)
	}
	if b.cfg.Debug && !params.Has("ipa-debug") {
		params.Set("ipa-debug", "1")
	}
	params.Set("boot_method", "vmedia")
	if d.configViaRemovable {
		b.c.log.WarnContext(ctx, fmt.Sprintf("Config via a removable device is requested, but virtual USB and floppy devices are not supported by this service on node %s", task.NodeUUID()))
	}
	if b.cfg.ExternalCallbackURL != "" {
		params.Set("ipa-api-url", strings.TrimRight(b.cfg.ExternalCallbackURL, "/"))
	}
	inject := map[string][]byte{}
	if b.cfg.APICAFile != "" {
		ca, err := os.ReadFile(b.cfg.APICAFile)
		if err != nil {
			return ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
		}
		inject[tlsRemoteFile] = ca
		inject[tlsConfigFile] = []byte(tlsConfig)
	}
	nd, err := networkDataJSON(ctx, task)
	if err != nil {
		return err
	}
	if nd != nil {
		b.c.log.DebugContext(ctx, "Injecting custom network data for node "+task.NodeUUID())
		inject["openstack/latest/network_data.json"] = nd
	}
	isoURL, err := b.prepareISO(ctx, task, isoRequest{kernel: d.kernel, ramdisk: d.ramdisk, bootloader: d.bootloader,
		baseISO: d.iso, params: params, inject: inject})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			b.cleanupISO(ctx, task)
		}
	}()
	if _, err = s.eject(ctx, VirtualMediaCD); err != nil {
		return err
	}
	if err = s.insert(ctx, isoURL, VirtualMediaCD); err != nil {
		return err
	}
	s.close()
	s.done = func() {}
	if err = deployutil.SyncBootMode(ctx, task, b.cfg.defaultBootMode(), b.c.log); err != nil {
		return err
	}
	if err = deployutil.NodeSetBootDevice(ctx, task, drivers.BootDeviceCDROM, false); err != nil {
		return err
	}
	b.c.log.DebugContext(ctx, fmt.Sprintf("Node %s is set to one time boot from %s", task.NodeUUID(), drivers.BootDeviceCDROM))
	return nil
}

// inspecting is whether the node boots the ramdisk for in-band
// inspection.
func inspecting(task drivers.Task) bool {
	s := task.ProvisionState()
	return s == states.Inspecting || s == states.InspectWait
}

// needPrepareRamdisk is driver_utils.need_prepare_ramdisk: only a node
// deploying, cleaning, rescuing or inspecting boots the ramdisk (a
// conductor takeover, say, changes nothing).
func needPrepareRamdisk(task drivers.Task) bool {
	switch task.ProvisionState() {
	case states.Deploying, states.DeployWait, states.Cleaning, states.CleanWait,
		states.Rescuing, states.RescueWait, states.Inspecting, states.InspectWait:
		return true
	}
	return false
}

// deployNICMAC is deploy_utils.get_single_nic_with_vif_port_id.
func (b *VirtualMediaBoot) deployNICMAC(ctx context.Context, task drivers.Task) (string, error) {
	drv := task.Driver()
	if drv == nil || drv.Network == nil {
		return "", nil
	}
	for _, p := range task.Ports() {
		vif, err := drv.Network.GetCurrentVIF(ctx, task, p.UUID)
		if err != nil {
			return "", err
		}
		if vif != "" {
			return p.Address, nil
		}
	}
	return "", nil
}

// CleanUpRamdisk is clean_up_ramdisk: every virtual medium this interface
// inserted is ejected and the published ISO removed.
func (b *VirtualMediaBoot) CleanUpRamdisk(ctx context.Context, task drivers.Task, _ drivers.RamdiskMode) error {
	b.c.log.DebugContext(ctx, "Cleaning up deploy boot for "+task.NodeUUID())
	return b.ejectAll(ctx, task)
}

// ejectAll is _eject_all: the CD (and the removable devices when
// config_via_removable asked for them, and the USB stick of a ramdisk
// deploy's config drive) ejected, the published images removed.
func (b *VirtualMediaBoot) ejectAll(ctx context.Context, task drivers.Task) error {
	s, err := b.c.openMedia(ctx, task)
	if err != nil {
		return err
	}
	defer s.close()
	if _, err := s.eject(ctx, VirtualMediaCD); err != nil {
		return err
	}
	di := task.DriverInfo()
	if py.Truthy(di.Get("config_via_removable")) || py.Truthy(di.Get("config_via_floppy")) {
		if _, err := s.eject(ctx, VirtualMediaUSBStick); err != nil {
			return err
		}
		if _, err := s.eject(ctx, VirtualMediaFloppy); err != nil {
			return err
		}
		b.unpublish(ctx, task, imageName(task, "image", ""))
	}
	if deployutil.BootOption(task) == "ramdisk" && task.InstanceInfo().Get("configdrive") != nil {
		if _, err := s.eject(ctx, VirtualMediaUSBStick); err != nil {
			return err
		}
		b.cleanupConfigDrive(ctx, task)
	}
	b.cleanupISO(ctx, task)
	return nil
}

// PrepareInstance is prepare_instance: media ejected, the boot mode
// synchronised and secure boot configured; a local boot (or a whole disk
// image) boots from the disk persistently, a ramdisk deploy or a
// partition image's instance from a boot ISO in the virtual CD.
func (b *VirtualMediaBoot) PrepareInstance(ctx context.Context, task drivers.Task) (err error) {
	if err := b.ejectAll(ctx, task); err != nil {
		return err
	}
	if err := deployutil.SyncBootMode(ctx, task, b.cfg.defaultBootMode(), b.c.log); err != nil {
		return err
	}
	if err := deployutil.ConfigureSecureBoot(ctx, task, true, b.c.log); err != nil {
		return err
	}
	opt := deployutil.BootOption(task)
	iwdi, _ := task.DriverInternalInfo().Get("is_whole_disk_image").(bool)
	if opt == "local" || iwdi {
		if err := deployutil.NodeSetBootDevice(ctx, task, drivers.BootDeviceDisk, true); err != nil {
			return err
		}
		b.c.log.DebugContext(ctx, fmt.Sprintf("Node %s is set to permanently boot from local %s", task.NodeUUID(), drivers.BootDeviceDisk))
		return nil
	}
	rootUUID := ""
	if opt != "ramdisk" {
		rootUUID = py.Str(orEmpty(task.DriverInternalInfo().Get("root_uuid_or_disk_id")))
		write := true
		if drv := task.Driver(); drv != nil && drv.Storage != nil {
			if write, err = drv.Storage.ShouldWriteImage(ctx, task); err != nil {
				return err
			}
		}
		if rootUUID == "" && write {
			b.c.log.WarnContext(ctx, fmt.Sprintf("The UUID of the root partition could not be found for node %s. Booting instance from disk anyway.", task.NodeUUID()))
			return deployutil.NodeSetBootDevice(ctx, task, drivers.BootDeviceDisk, true)
		}
	}
	s, err := b.c.openMedia(ctx, task)
	if err != nil {
		return err
	}
	defer s.close()
	ii := task.InstanceInfo()
	kernel, ramdisk := py.Str(orEmpty(ii.Get("kernel"))), py.Str(orEmpty(ii.Get("ramdisk")))
	base := py.Str(orEmpty(ii.Get("boot_iso")))
	if (kernel == "" || ramdisk == "") && base == "" {
		return drivers.InvalidParameter("Unable to find kernel or ramdisk for to generate boot ISO for %s", task.NodeUUID())
	}
	d, _, err := b.parseDeployInfo(task)
	if err != nil {
		return err
	}
	isoURL, err := b.prepareISO(ctx, task, isoRequest{kernel: kernel, ramdisk: ramdisk, bootloader: d.bootloader, baseISO: base, rootUUID: rootUUID})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			b.cleanupISO(ctx, task)
		}
	}()
	if _, err = s.eject(ctx, VirtualMediaCD); err != nil {
		return err
	}
	if err = s.insert(ctx, isoURL, VirtualMediaCD); err != nil {
		return err
	}
	if opt == "ramdisk" {
		if err = b.attachConfigDrive(ctx, task, s); err != nil {
			return err
		}
	}
	s.close()
	s.done = func() {}
	if err = deployutil.NodeSetBootDevice(ctx, task, drivers.BootDeviceCDROM, true); err != nil {
		return err
	}
	b.c.log.DebugContext(ctx, fmt.Sprintf("Node %s is set to permanently boot from %s", task.NodeUUID(), drivers.BootDeviceCDROM))
	return nil
}

// attachConfigDrive is _attach_configdrive: a config drive given as
// base64 gzip'd content, or as a URL, goes into a virtual USB stick.
func (b *VirtualMediaBoot) attachConfigDrive(ctx context.Context, task drivers.Task, s *mediaSession) error {
	cd := task.InstanceInfo().Get("configdrive")
	ref, ok := cd.(string)
	if !ok || ref == "" {
		return nil
	}
	if _, err := s.eject(ctx, VirtualMediaUSBStick); err != nil {
		return err
	}
	u, err := b.prepareConfigDrive(ctx, task, ref)
	if err != nil {
		return err
	}
	err = s.insert(ctx, u, VirtualMediaUSBStick)
	if ironic.IsClass(err, ironic.InvalidParameterValue) {
		return ironic.Errorf(ironic.InstanceDeployFailure, "Cannot attach configdrive for node %s: no suitable virtual USB slot has been found", task.NodeUUID())
	}
	return err
}

// CleanUpInstance is clean_up_instance: media ejected, images removed,
// secure boot turned off again.
func (b *VirtualMediaBoot) CleanUpInstance(ctx context.Context, task drivers.Task) error {
	b.c.log.DebugContext(ctx, "Cleaning up instance boot for "+task.NodeUUID())
	if err := b.ejectAll(ctx, task); err != nil {
		return err
	}
	return deployutil.ConfigureSecureBoot(ctx, task, false, b.c.log)
}

// EjectAndCleanUp is redfish boot's eject_vmedia, the vendor method's
// body: the devices of the type ("" for all) ejected, and when one held
// media, the config drive (USB stick or all) and boot ISO (CD or all)
// this interface published removed.
func (b *VirtualMediaBoot) EjectAndCleanUp(ctx context.Context, task drivers.Task, device string) error {
	found, err := b.c.EjectVirtualMedia(ctx, task, device)
	if err != nil || !found {
		return err
	}
	if device == "" || device == VirtualMediaUSBStick {
		b.cleanupConfigDrive(ctx, task)
	}
	if device == "" || device == VirtualMediaCD {
		b.cleanupISO(ctx, task)
	}
	return nil
}

// prepareConfigDrive is image_utils.prepare_configdrive_image: the config
// drive (base64 of a gzip'd image, or a URL of one, raw or base64)
// published as configdrive-<node>.
func (b *VirtualMediaBoot) prepareConfigDrive(ctx context.Context, task drivers.Task, content string) (string, error) {
	dir, err := os.MkdirTemp(b.cfg.TempDir, "configdrive-")
	if err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
	}
	defer os.RemoveAll(dir)
	img := filepath.Join(dir, "configdrive.img")
	var data []byte
	if strings.Contains(content, "://") {
		if err := b.fetch(ctx, content, img); err != nil {
			return "", err
		}
		raw, err := os.ReadFile(img)
		if err != nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
		}
		if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw))); err == nil {
			data = dec
		} else {
			return b.publish(ctx, task, img, imageName(task, "configdrive", ""))
		}
	} else {
		dec, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
		}
		data = dec
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
	}
	if err := os.WriteFile(img, out, 0o600); err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating disk image failed: %s", err)
	}
	return b.publish(ctx, task, img, imageName(task, "configdrive", ""))
}
