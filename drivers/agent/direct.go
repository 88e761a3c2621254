package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// partitionImageLabels is PARTITION_IMAGE_LABELS: the instance_info keys
// a partition image's image_info carries.
var partitionImageLabels = []string{"kernel", "ramdisk", "root_gb", "root_mb", "swap_mb", "ephemeral_mb",
	"ephemeral_format", "configdrive", "preserve_ephemeral", "image_type", "deploy_boot_mode"}

// isWholeDiskImage is images.is_whole_disk_image for images that are
// not Glance's: an explicit image_type decides, else an image without
// kernel and ramdisk is a whole disk. The conductor records it in
// driver_internal_info when the deployment starts (update_image_type);
// when it is missing it is computed and recorded here.
func isWholeDiskImage(task drivers.Task) bool {
	dii := task.DriverInternalInfo()
	if v, ok := dii.Lookup("is_whole_disk_image"); ok && v != nil {
		return py.Truthy(v)
	}
	ii := task.InstanceInfo()
	iwdi := !py.Truthy(ii.Get("kernel")) && !py.Truthy(ii.Get("ramdisk"))
	if t := ii.Get("image_type"); py.Truthy(t) {
		iwdi = py.Str(t) != "partition"
	}
	dii.Set("is_whole_disk_image", iwdi)
	return iwdi
}

// buildInstanceInfoForDeploy is deploy_utils.build_instance_info_for_deploy.
// A Glance image is shown (its checksums, formats, tags and properties
// land in instance_info; a partition image's kernel and ramdisk come
// from its kernel_id and ramdisk_id); with image_download_source "swift"
// the agent downloads it from a Swift temporary URL checked with a HEAD
// request, otherwise the conductor downloads it and serves it from
// [deploy]http_url (cacheAndConvertImage). So does it for a file://
// source, which must be a file under [conductor]file_url_allowed_paths
// (FileImageService.validate_href), and for any source with
// image_download_source "local". Otherwise an http(s) URL is checked
// with a HEAD request (HttpImageService.validate_href; one permanent
// redirect is followed, as Ironic does) and becomes image_url. As in
// Ironic, instance_info is left as it was when something fails, and a
// Glance image whose type the conductor couldn't tell (update_image_type)
// is not given one here.
func (c Config) buildInstanceInfoForDeploy(ctx context.Context, task drivers.Task) (err error) {
	ii := task.InstanceInfo()
	saved := ii.DeepClone()
	defer func() {
		if err != nil {
			ii.Clear()
			ii.Update(saved)
		}
	}()
	var iwdi bool
	if deployutil.IsGlanceImage(ii.Get("image_source")) {
		iwdi = py.Truthy(task.DriverInternalInfo().Get("is_whole_disk_image"))
	} else {
		iwdi = isWholeDiskImage(task)
	}
	source := py.Str(ii.Get("image_source"))
	ids := ImageDownloadSource(task, c.ImageDownloadSource)
	ii.Set("image_url", nil)
	switch {
	case deployutil.IsGlanceImage(ii.Get("image_source")):
		if err := c.glanceInstanceInfo(ctx, task, source, ids, iwdi); err != nil {
			return err
		}
		return c.finishInstanceInfo(ctx, task, iwdi)
	case strings.HasPrefix(source, "file://") || ids == "local":
		if strings.HasPrefix(source, "file://") {
			if err := c.validateFileURL(source); err != nil {
				return err
			}
		}
		if err := c.cacheAndConvertImage(ctx, task, nil); err != nil {
			return err
		}
		return c.finishInstanceInfo(ctx, task, iwdi)
	}
	redirect, err := c.validateImageURL(ctx, source, false)
	if err != nil {
		return err
	}
	if redirect != "" {
		ii.Set("image_source", redirect)
		if _, err := c.validateImageURL(ctx, redirect, false); err != nil {
			return err
		}
		source = redirect
	}
	ii.Set("image_url", source)
	return c.finishInstanceInfo(ctx, task, iwdi)
}

// finishInstanceInfo records the image type, for a partition image
// the disk layout parse_instance_info works out, and saves the node.
func (c Config) finishInstanceInfo(ctx context.Context, task drivers.Task, iwdi bool) error {
	ii := task.InstanceInfo()
	if iwdi {
		ii.Set("image_type", "whole-disk")
	} else {
		ii.Set("image_type", "partition")
		info, err := c.parseInstanceInfo(task)
		if err != nil {
			return err
		}
		for _, m := range info {
			ii.Set(m.Key, m.Value)
		}
	}
	return task.Save(ctx)
}

// parseInstanceInfo is deploy_utils.parse_instance_info for a partition
// image deployed by the agent: image_source, kernel and ramdisk (not for
// Glance images, nor local boot), root_gb required; preserve_ephemeral
// as a boolean; swap_mb and ephemeral_gb (default 0) integers, root_mb
// and ephemeral_mb in MiB, ephemeral_format ([pxe]default_ephemeral_format
// when an ephemeral partition has none); configdrive. Ironic's check that
// a preserved ephemeral partition's layout is unchanged is not made.
func (c Config) parseInstanceInfo(task drivers.Task) (pyjson.Object, error) {
	ii := task.InstanceInfo()
	source := ii.Get("image_source")
	info := pyjson.Object{{Key: "image_source", Value: source}}
	params := []deployutil.Param{{Label: "image_source", Value: source}}
	if py.Truthy(source) && deployutil.BootOption(task) != "local" && !deployutil.IsGlanceImage(source) {
		info = append(info, pyjson.Member{Key: "kernel", Value: ii.Get("kernel")}, pyjson.Member{Key: "ramdisk", Value: ii.Get("ramdisk")})
		params = append(params, deployutil.Param{Label: "kernel", Value: ii.Get("kernel")}, deployutil.Param{Label: "ramdisk", Value: ii.Get("ramdisk")})
	}
	info = append(info, pyjson.Member{Key: "root_gb", Value: ii.Get("root_gb")})
	params = append(params, deployutil.Param{Label: "root_gb", Value: ii.Get("root_gb")})
	if err := deployutil.CheckMissing("Some parameters were missing in node's instance_info", params...); err != nil {
		return nil, err
	}
	pe, ok := ii.Lookup("preserve_ephemeral")
	if !ok {
		pe = false
	}
	preserve, err := deployutil.BoolFromString(pe)
	if err != nil {
		return nil, drivers.InvalidParameter("Invalid parameter %s: %s", "preserve_ephemeral", err)
	}
	info = append(info, pyjson.Member{Key: "preserve_ephemeral", Value: preserve})
	orZero := func(k string) any {
		if v, ok := ii.Lookup(k); ok {
			return v
		}
		return 0
	}
	swap, eph := orZero("swap_mb"), orZero("ephemeral_gb")
	ints := map[string]int64{}
	for _, p := range []struct {
		name string
		v    any
	}{{"root_gb", ii.Get("root_gb")}, {"swap_mb", swap}, {"ephemeral_gb", eph}} {
		n, ok := py.Int(p.v)
		if !ok {
			return nil, drivers.InvalidParameter("Invalid parameter %s: %s is not an integer value.", p.name, py.Str(p.v))
		}
		ints[p.name] = n
	}
	format := ii.Get("ephemeral_format")
	if py.Truthy(eph) && !py.Truthy(format) {
		format = c.DefaultEphemeralFormat
	}
	info = append(info,
		pyjson.Member{Key: "swap_mb", Value: ints["swap_mb"]},
		pyjson.Member{Key: "ephemeral_gb", Value: eph},
		pyjson.Member{Key: "root_mb", Value: 1024 * ints["root_gb"]},
		pyjson.Member{Key: "ephemeral_mb", Value: 1024 * ints["ephemeral_gb"]},
		pyjson.Member{Key: "ephemeral_format", Value: format},
		pyjson.Member{Key: "configdrive", Value: ii.Get("configdrive")})
	return info, nil
}

// glanceInstanceInfo is build_instance_info_for_deploy's Glance branch.
func (c Config) glanceInstanceInfo(ctx context.Context, task drivers.Task, source, ids string, iwdi bool) error {
	if c.Glance == nil {
		return ironic.Errorf(ironic.InstanceDeployFailure,
			"Node %s: the image %s is a Glance image, and this service was built without a Glance client.", task.NodeUUID(), source)
	}
	ii := task.InstanceInfo()
	im, err := c.Glance.Show(ctx, source)
	if err != nil {
		return err
	}
	ii.Set("image_checksum", im.Get("checksum"))
	ii.Set("image_os_hash_algo", im.Get("os_hash_algo"))
	ii.Set("image_os_hash_value", im.Get("os_hash_value"))
	if ids == "swift" {
		u, err := c.Glance.SwiftTempURL(ctx, im)
		if err != nil {
			return err
		}
		if _, err := c.validateImageURL(ctx, u, true); err != nil {
			return err
		}
		ii.Set("image_url", u)
		ii.Set("image_disk_format", im.Get("disk_format"))
	} else if err := c.cacheAndConvertImage(ctx, task, &im); err != nil {
		return err
	}
	ii.Set("image_container_format", im.Get("container_format"))
	tags := im.Get("tags")
	if tags == nil {
		tags = []any{}
	}
	ii.Set("image_tags", tags)
	ii.Set("image_properties", im.Properties)
	if !iwdi && deployutil.BootOption(task) != "local" {
		ii.Set("kernel", im.Properties.Get("kernel_id"))
		ii.Set("ramdisk", im.Properties.Get("ramdisk_id"))
	}
	return nil
}

// validateFileURL is FileImageService.validate_href.
func (c Config) validateFileURL(href string) error { return c.imageSource().ValidateFileURL(href) }

// validateImageURL is HttpImageService.validate_href: a HEAD request that
// must answer 200 (or 403 for a URL ending in "/"); a 301 with a Location
// is returned as the redirect (ImageRefIsARedirect). A secret URL (a
// Swift temp URL) is named "secreturl" in messages.
func (c Config) validateImageURL(ctx context.Context, href string, secret bool) (string, error) {
	hc := c.ImageHTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	noRedirect := *hc
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	shown := href
	if secret {
		shown = "secreturl"
	}
	fail := func(reason string) error {
		return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: %s", shown, reason)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, href, nil)
	if err != nil {
		return "", fail(err.Error())
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			return "", fail(ue.Unwrap().Error())
		}
		return "", fail(err.Error())
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusMovedPermanently && resp.Header.Get("Location") != "":
		loc, err := resp.Location()
		if err != nil {
			return "", fail(err.Error())
		}
		return loc.String(), nil
	case resp.StatusCode == http.StatusForbidden && strings.HasSuffix(href, "/"):
		return "", nil
	case resp.StatusCode != http.StatusOK:
		return "", fail(fmt.Sprintf("Got HTTP code %d instead of 200 in response to HEAD request.", resp.StatusCode))
	}
	return "", nil
}

// writeImageStep is the in-band step AgentDeploy.write_image switches
// to: {"interface": "deploy", "step": "write_image", "args":
// {"image_info": ..., "configdrive": ...}} with Ironic's image_info.
func (c Config) writeImageStep(task drivers.Task) pyjson.Object {
	ii, di := task.InstanceInfo(), task.DriverInfo()
	source := py.Str(ii.Get("image_source"))
	info := pyjson.Object{
		{Key: "id", Value: source[strings.LastIndex(source, "/")+1:]},
		{Key: "urls", Value: []any{ii.Get("image_url")}},
		{Key: "disk_format", Value: ii.Get("image_disk_format")},
		{Key: "container_format", Value: ii.Get("image_container_format")},
		{Key: "stream_raw_images", Value: c.StreamRawImages},
	}
	if py.Truthy(ii.Get("image_checksum")) {
		info = append(info, pyjson.Member{Key: "checksum", Value: ii.Get("image_checksum")})
	}
	if py.Truthy(ii.Get("image_os_hash_algo")) && py.Truthy(ii.Get("image_os_hash_value")) {
		info = append(info, pyjson.Member{Key: "os_hash_algo", Value: ii.Get("image_os_hash_algo")},
			pyjson.Member{Key: "os_hash_value", Value: ii.Get("image_os_hash_value")})
	}
	var proxies pyjson.Object
	for _, scheme := range []string{"http", "https"} {
		if p := di.Get("image_" + scheme + "_proxy"); py.Truthy(p) {
			proxies = append(proxies, pyjson.Member{Key: scheme, Value: p})
		}
	}
	if len(proxies) > 0 {
		info = append(info, pyjson.Member{Key: "proxies", Value: proxies})
		if np, ok := di.Lookup("image_no_proxy"); ok && np != nil {
			info = append(info, pyjson.Member{Key: "no_proxy", Value: np})
		}
	}
	info = append(info, pyjson.Member{Key: "node_uuid", Value: task.NodeUUID()})
	if !py.Truthy(task.DriverInternalInfo().Get("is_whole_disk_image")) {
		for _, l := range partitionImageLabels {
			info = setMember(info, l, ii.Get(l))
		}
		mode, _ := deployutil.BootMode(task, c.defaultBootMode())
		info = setMember(info, "deploy_boot_mode", mode)
		info = append(info, pyjson.Member{Key: "boot_option", Value: deployutil.BootOption(task)})
		// get_disk_label: instance_info's capabilities, gpt in UEFI mode.
		caps, _ := deployutil.InstanceInfoCapabilities(task)
		dl := caps["disk_label"]
		if dl == nil && mode == drivers.BootModeUEFI {
			dl = "gpt"
		}
		if dl != nil {
			info = append(info, pyjson.Member{Key: "disk_label", Value: dl})
		}
	}
	configdrive := ii.Get("configdrive")
	if !py.Truthy(configdrive) {
		configdrive = nil
	} else {
		info = setMember(info, "configdrive", configdrive)
	}
	return pyjson.Object{
		{Key: "interface", Value: "deploy"},
		{Key: "step", Value: "write_image"},
		{Key: "args", Value: pyjson.Object{{Key: "image_info", Value: info}, {Key: "configdrive", Value: configdrive}}},
	}
}

// setMember is dict assignment: an existing key keeps its place.
func setMember(o pyjson.Object, k string, v any) pyjson.Object {
	for i := range o {
		if o[i].Key == k {
			o[i].Value = v
			return o
		}
	}
	return append(o, pyjson.Member{Key: k, Value: v})
}

func (c Config) defaultBootMode() string {
	if c.DefaultBootMode == "" {
		return drivers.BootModeUEFI
	}
	return c.DefaultBootMode
}

// prepareWrittenInstanceBoot is AgentDeployMixin.prepare_instance_boot
// after the agent wrote an image: the agent reports the partition UUIDs
// (root_uuid_or_disk_id recorded), installs a boot loader where one is
// needed, the node is set to boot from its disk and the boot interface
// prepares the instance.
func (c Config) prepareWrittenInstanceBoot(ctx context.Context, task drivers.Task) error {
	iwdi := py.Truthy(task.DriverInternalInfo().Get("is_whole_disk_image"))
	res, err := c.client().GetPartitionUUIDs(ctx, task)
	if err != nil {
		return err
	}
	uuids := res.Result()
	root := uuids.Get("root uuid")
	if py.Truthy(root) {
		task.DriverInternalInfo().Set("root_uuid_or_disk_id", root)
		if err := task.Save(ctx); err != nil {
			return err
		}
	} else if !iwdi {
		c.logf(ctx, task, true, "No root UUID returned from the ramdisk for node %s, the deploy will likely fail. Partition UUIDs are %s",
			task.NodeUUID(), py.Repr(uuids))
	}
	mode, err := deployutil.BootMode(task, c.defaultBootMode())
	if err != nil {
		return err
	}
	var efi, prep any
	if !iwdi && mode == drivers.BootModeUEFI {
		efi = uuids.Get("efi system partition uuid")
	}
	if arch := py.Str(task.Properties().Get("cpu_arch")); strings.HasPrefix(arch, "ppc64") {
		prep = uuids.Get("PReP Boot partition uuid")
	}
	if !c.ManageAgentBoot {
		return task.Driver().Management.SetBootDevice(ctx, task, drivers.BootDeviceDisk, true)
	}
	if err := c.configureLocalBoot(ctx, task, root, efi, prep, mode, iwdi); err != nil {
		return err
	}
	if err := task.Driver().Boot.PrepareInstance(ctx, task); err != nil {
		c.logf(ctx, task, true, "Preparing instance for booting failed for instance %s. %s: %s", task.InstanceUUID(), faultClass(err), err)
		c.collectOnFailure(ctx, task)
		return ironic.Errorf(ironic.InstanceDeployFailure, "Failed to prepare instance for booting")
	}
	// The image was written: the conductor stops serving it.
	c.removeHTTPInstanceSymlink(task)
	return nil
}

// configureLocalBoot is AgentDeployMixin.configure_local_boot: the agent
// installs a boot loader (partition images, UEFI whole-disk images,
// software RAID) and the node boots from its disk, persistently unless
// driver_info/force_persistent_boot_device is "Never". The image's
// rootfs_uuid for software RAID comes from instance_info only (no Glance).
func (c Config) configureLocalBoot(ctx context.Context, task drivers.Task, root, efi, prep any, mode string, iwdi bool) error {
	softwareRAID := false
	if disks, ok := task.TargetRAIDConfig().Get("logical_disks").([]any); ok {
		for _, d := range disks {
			if m, ok := pyjson.AsDict(d); ok && m.Get("controller") == "software" {
				softwareRAID = true
				break
			}
		}
	}
	if softwareRAID {
		root = task.InstanceInfo().Get("image_rootfs_uuid")
		if !py.Truthy(root) {
			root = task.DriverInternalInfo().Get("root_uuid_or_disk_id")
		}
	}
	if softwareRAID || (py.Truthy(root) && !iwdi) || (iwdi && mode == drivers.BootModeUEFI) {
		res, err := c.client().InstallBootloader(ctx, task, root, mode, efi, prep, softwareRAID)
		if err != nil {
			return err
		}
		if res.Status() == "FAILED" {
			c.collectOnFailure(ctx, task)
			return ironic.Errorf(ironic.InstanceDeployFailure, "Failed to install a bootloader when deploying node %s: %s", task.NodeUUID(), CommandError(res))
		}
	}
	persistent := py.Str(task.DriverInfo().Get("force_persistent_boot_device")) != "Never"
	vendor := strings.ToLower(py.Str(task.Properties().Get("vendor")))
	if vendor == "lenovo" && mode == drivers.BootModeUEFI {
		return nil
	}
	if mg := task.Driver().Management; mg != nil {
		if err := mg.SetBootDevice(ctx, task, drivers.BootDeviceDisk, persistent); err != nil {
			return ironic.Errorf(ironic.InstanceDeployFailure, "Failed to change the boot device to disk when deploying node %s: %s", task.NodeUUID(), err)
		}
	}
	return nil
}
