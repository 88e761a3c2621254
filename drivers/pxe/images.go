package pxe

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
)

// agentImageRefs is parseDriverInfo's pick: the mode's kernel and ramdisk
// from driver_info, else the configuration.
func (b *Boot) agentImageRefs(task drivers.Task, mode drivers.RamdiskMode) map[string]any {
	di := task.DriverInfo()
	k, r := di.Get(mode.KernelKey()), di.Get(mode.RamdiskKey())
	if !py.Truthy(k) && !py.Truthy(r) {
		if mode == drivers.RamdiskRescue {
			k, r = b.cfg.RescueKernel, b.cfg.RescueRamdisk
		} else {
			k, r = b.cfg.DeployKernel, b.cfg.DeployRamdisk
		}
	}
	return map[string]any{mode.KernelKey(): k, mode.RamdiskKey(): r}
}

// cacheImages is pxe_utils.cache_ramdisk_kernel: each image iPXE loads
// from the conductor's <[deploy]http_url>/<node>/<label> is fetched to
// <[deploy]http_root>/<node>/<label> (through the [pxe]tftp_master_path
// cache). Images given as http(s) URLs are not fetched: iPXE loads them
// from where they are (a departure, see Scripter.imageURL); nor are
// Glance images under [pxe]ipxe_use_swift, as Ironic skips them too.
func (b *Boot) cacheImages(ctx context.Context, task drivers.Task, refs map[string]any, swiftOK bool) error {
	for label, ref := range refs {
		href, ok := ref.(string)
		if !ok || href == "" || isHTTPURL(href) {
			continue
		}
		glance := deployutil.IsGlanceImage(href)
		if glance && swiftOK && b.ipxe && b.cfg.IPXEUseSwift {
			continue
		}
		dest := filepath.Join(b.cfg.HTTPRoot, task.NodeUUID(), label)
		if err := b.images.Fetch(ctx, href, glance, dest); err != nil {
			return err
		}
	}
	return nil
}

// removeImages is clean_up_pxe_env's unlinking of the node's images; a
// file already gone is fine, the node's directory goes when empty.
func (b *Boot) removeImages(task drivers.Task, labels ...string) {
	dir := filepath.Join(b.cfg.HTTPRoot, task.NodeUUID())
	for _, l := range labels {
		if err := os.Remove(filepath.Join(dir, l)); err != nil && !errors.Is(err, os.ErrNotExist) && b.cfg.Log != nil {
			b.cfg.Log.Warn("could not remove a boot image", "node", task.NodeUUID(), "path", filepath.Join(dir, l), "error", err)
		}
	}
	_ = os.Remove(dir) // only when empty
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
