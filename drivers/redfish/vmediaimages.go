package redfish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/bootiso"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/imagefetch"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
)

// ISOBuilder builds a boot ISO at out from local files (drivers/bootiso's
// Builder).
type ISOBuilder interface {
	Build(ctx context.Context, out string, spec bootiso.Spec) error
}

// ImageFetcher downloads an image reference (an http(s) or file:// URL)
// into the local file dst.
type ImageFetcher interface {
	Fetch(ctx context.Context, ref, dst string) error
}

// ObjectStore is the Swift calls of Ironic's image_utils.ImageHandler
// ([redfish]use_swift): internal/swift's Client.
type ObjectStore interface {
	CreateObject(ctx context.Context, container, object string, data []byte, deleteAfter int) error
	TempURL(ctx context.Context, container, object string, ttl time.Duration) (string, error)
	DeleteObject(ctx context.Context, container, object string) error
}

// imageSubdir is Ironic's IMAGE_SUBDIR for the redfish driver: published
// images live in [deploy]http_root/redfish.
const imageSubdir = "redfish"

// TLS files the deploy ISO carries when [agent]api_ca_file is set
// (image_utils._TLS_REMOTE_FILE and _TLS_CONFIG_TEMPLATE).
const (
	tlsRemoteFile = "etc/ironic-python-agent/ironic.crt"
	tlsConfigFile = "etc/ironic-python-agent.d/ironic-tls.conf"
	tlsConfig     = "[DEFAULT]\ncafile = /" + tlsRemoteFile + "\n"
)

// imageName is image_utils._get_name: "<prefix>-<uuid><suffix>".
func imageName(task drivers.Task, prefix, suffix string) string {
	name := task.NodeUUID()
	if prefix != "" {
		name = prefix + "-" + name
	}
	return name + suffix
}

// joinURL is os.path.join(base, elem...) as Ironic builds URLs with it.
func joinURL(base string, elems ...string) string {
	for _, e := range elems {
		if base == "" || strings.HasSuffix(base, "/") {
			base += e
		} else {
			base += "/" + e
		}
	}
	return base
}

// publish is ImageHandler.publish_image: the file goes to Swift (a
// temporary URL with filename=<base name> appended) or is hard-linked
// (copied when it can't be) into [deploy]http_root/redfish, served under
// driver_info's external_http_url, [deploy]external_http_url or
// [deploy]http_url.
func (b *VirtualMediaBoot) publish(ctx context.Context, task drivers.Task, file, object string) (string, error) {
	cfg := b.cfg
	if cfg.UseSwift {
		if cfg.Swift == nil {
			return "", ironic.Errorf(ironic.SwiftOperationError, "Swift operation 'create_object' failed: [redfish]use_swift is set but no Swift client is configured")
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
		}
		if err := cfg.Swift.CreateObject(ctx, cfg.SwiftContainer, object, data, cfg.SwiftObjectExpiry); err != nil {
			return "", err
		}
		u, err := cfg.Swift.TempURL(ctx, cfg.SwiftContainer, object, time.Duration(cfg.SwiftObjectExpiry)*time.Second)
		if err != nil {
			return "", err
		}
		return appendFilename(u, filepath.Base(file)), nil
	}
	dir := filepath.Join(cfg.HTTPRoot, imageSubdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
	}
	dst := filepath.Join(dir, object)
	_ = os.Remove(dst)
	perm := os.FileMode(cfg.FilePermission) //nolint:gosec // a file mode from the configuration
	if err := os.Link(file, dst); err == nil {
		err = os.Chmod(file, perm)
		if err != nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
		}
	} else {
		b.c.log.DebugContext(ctx, fmt.Sprintf("Could not hardlink image file %s to public location %s (will copy it over): %s", file, dst, err))
		if err := copyFile(file, dst, perm); err != nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
		}
	}
	base := py.Str(task.DriverInfo().Get("external_http_url"))
	if !py.Truthy(task.DriverInfo().Get("external_http_url")) {
		base = cfg.ExternalHTTPURL
		if base == "" {
			base = cfg.HTTPURL
		}
	}
	return joinURL(base, imageSubdir, object), nil
}

// unpublish is ImageHandler.unpublish_image: a Swift failure is only
// logged, a missing file ignored.
func (b *VirtualMediaBoot) unpublish(ctx context.Context, task drivers.Task, object string) {
	if b.cfg.UseSwift {
		if b.cfg.Swift == nil {
			return
		}
		if err := b.cfg.Swift.DeleteObject(ctx, b.cfg.SwiftContainer, object); err != nil {
			b.c.log.WarnContext(ctx, fmt.Sprintf("Failed to clean up image %s. Error: %s.", object, err))
		}
		return
	}
	err := os.Remove(filepath.Join(b.cfg.HTTPRoot, imageSubdir, object))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		b.c.log.WarnContext(ctx, "Failed to unlink published image", "node", task.NodeUUID(), "error", err)
	}
}

// cleanupISO is image_utils.cleanup_iso_image.
func (b *VirtualMediaBoot) cleanupISO(ctx context.Context, task drivers.Task) {
	b.unpublish(ctx, task, imageName(task, "boot", ".iso"))
}

// cleanupConfigDrive is cleanup_disk_image(prefix='configdrive').
func (b *VirtualMediaBoot) cleanupConfigDrive(ctx context.Context, task drivers.Task) {
	b.unpublish(ctx, task, imageName(task, "configdrive", ""))
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm)
}

// appendFilename is ImageHandler._append_filename_param.
func appendFilename(u, name string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	for k := range q {
		if strings.EqualFold(k, "filename") {
			return u
		}
	}
	sep := "&"
	if p.RawQuery == "" {
		sep = ""
	}
	p.RawQuery += sep + "filename=" + url.QueryEscape(name)
	return p.String()
}

// isoRequest is _prepare_iso_image's arguments.
type isoRequest struct {
	kernel, ramdisk, bootloader, baseISO string
	rootUUID                             string
	params                               *orderedParams
	inject                               map[string][]byte
}

// prepareISO is image_utils._prepare_iso_image: a prebuilt ISO given as
// an http(s) URL is passed through (unless ramdisk_image_download_source
// is "local"), anything else is fetched or built into a temporary
// directory and published as boot-<node>.iso. The temporary directory is
// removed on every path.
func (b *VirtualMediaBoot) prepareISO(ctx context.Context, task drivers.Task, r isoRequest) (string, error) {
	if (r.kernel == "" || r.ramdisk == "") && r.baseISO == "" {
		return "", drivers.InvalidParameter("Unable to find kernel, ramdisk for building ISO, or explicit ISO for %s", task.NodeUUID())
	}
	ii := task.InstanceInfo()
	ramdiskBoot := task.ProvisionState() == states.Deploying && deployutil.BootOption(task) == "ramdisk"
	source := b.cfg.RamdiskImageDownloadSource
	if ramdiskBoot && py.Truthy(ii.Get("ramdisk_image_download_source")) {
		source = py.Str(ii.Get("ramdisk_image_download_source"))
	}
	if r.baseISO != "" {
		scheme := ""
		if u, err := url.Parse(r.baseISO); err == nil {
			scheme = strings.ToLower(u.Scheme)
		}
		if scheme == "swift" {
			return r.baseISO, nil
		}
		if source == "swift" && deployutil.IsGlanceImage(r.baseISO) {
			return "", ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: Glance images are not supported by this service's virtual media boot; give the ISO as an http(s) URL", r.baseISO)
		}
		if source != "local" {
			if scheme == "http" || scheme == "https" {
				return r.baseISO, nil
			}
			b.c.log.DebugContext(ctx, fmt.Sprintf("ramdisk_image_download_source set to http but boot_iso is not an HTTP URL: %s", r.baseISO))
		}
	}
	mode, err := deployutil.BootMode(task, b.cfg.defaultBootMode())
	if err != nil {
		return "", err
	}
	publisher := ""
	if !ramdiskBoot {
		publisher = b.newUUID()
	}
	dir, err := os.MkdirTemp(b.cfg.TempDir, "vmedia-")
	if err != nil {
		return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
	}
	defer os.RemoveAll(dir)
	iso := filepath.Join(dir, "boot.iso")
	if r.baseISO != "" {
		if len(r.inject) > 0 {
			b.c.log.WarnContext(ctx, fmt.Sprintf("Using pre-built %s ISO %s for node %s, custom configuration will not be available", mode, r.baseISO, task.NodeUUID()))
		}
		if err := b.fetch(ctx, r.baseISO, iso); err != nil {
			return "", err
		}
	} else {
		var kp string
		if ramdiskBoot {
			kp = "root=/dev/ram0 text " + py.Str(orEmpty(ii.Get("ramdisk_kernel_arguments")))
		} else {
			kp = b.kernelAppendParams(task) + " ir_pub_id=" + publisher
		}
		if s := r.params.String(); s != "" {
			kp += " " + s
		}
		spec := bootiso.Spec{BootMode: mode, Kernel: filepath.Join(dir, "kernel"), Ramdisk: filepath.Join(dir, "ramdisk"),
			InjectFiles: r.inject, PublisherID: publisher}
		if r.rootUUID != "" {
			spec.KernelParams = append(spec.KernelParams, "root=UUID="+r.rootUUID)
		}
		spec.KernelParams = append(spec.KernelParams, kp)
		if err := b.fetch(ctx, r.kernel, spec.Kernel); err != nil {
			return "", err
		}
		if err := b.fetch(ctx, r.ramdisk, spec.Ramdisk); err != nil {
			return "", err
		}
		if mode == drivers.BootModeUEFI && r.bootloader != "" {
			spec.ESPImage = filepath.Join(dir, "esp.img")
			if err := b.fetch(ctx, r.bootloader, spec.ESPImage); err != nil {
				return "", err
			}
		}
		b.c.log.DebugContext(ctx, fmt.Sprintf("Trying to create %s ISO image for node %s with kernel %s, ramdisk %s, bootloader %s and kernel params %s",
			mode, task.NodeUUID(), r.kernel, r.ramdisk, r.bootloader, kp))
		if b.cfg.ISO == nil {
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: no ISO builder is configured")
		}
		if err := b.cfg.ISO.Build(ctx, iso, spec); err != nil {
			var f *ironic.Fault
			if errors.As(err, &f) {
				return "", err
			}
			var ice *bootiso.ImageCreationFailed
			if errors.As(err, &ice) {
				err = ice.Err
			}
			return "", ironic.Errorf(ironic.ImageCreationFailed, "Creating iso image failed: %s", err)
		}
	}
	name := imageName(task, "boot", ".iso")
	u, err := b.publish(ctx, task, iso, name)
	if err != nil {
		return "", err
	}
	b.c.log.DebugContext(ctx, fmt.Sprintf("Created ISO %s in object store for node %s, exposed as temporary URL %s", name, task.NodeUUID(), u))
	return u, nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// fetch downloads ref into dst.
func (b *VirtualMediaBoot) fetch(ctx context.Context, ref, dst string) error {
	f := b.cfg.Images
	if f == nil {
		f = NewFetcher(nil, nil, b.cfg.FileURLAllowedPaths)
	}
	return f.Fetch(ctx, ref, dst)
}

// kernelAppendParams is driver_utils.get_kernel_append_params with
// [redfish]kernel_append_params as the default.
func (b *VirtualMediaBoot) kernelAppendParams(task drivers.Task) string {
	for _, d := range []*pyjson.Dict{task.InstanceInfo(), task.DriverInfo()} {
		if v, ok := d.Lookup("kernel_append_params"); ok && v != nil {
			return strings.ReplaceAll(py.Str(v), "%default%", b.cfg.KernelAppendParams)
		}
	}
	return b.cfg.KernelAppendParams
}

// networkDataJSON is json.dumps(network_data, indent=2) of the network
// interface's answer, or nil when it has none.
func networkDataJSON(ctx context.Context, task drivers.Task) ([]byte, error) {
	drv := task.Driver()
	if drv == nil || drv.Network == nil {
		return nil, nil
	}
	nd, err := drv.Network.GetNodeNetworkData(ctx, task)
	if err != nil || nd == nil || nd.Len() == 0 {
		return nil, err
	}
	compact, err := pyjson.Marshal(nd)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// NewFetcher is the service's ImageFetcher (drivers/internal/imagefetch,
// as the pxe boot interfaces and the direct deploy fetch): Glance images
// (UUIDs, glance://) through g, http(s) URLs through hc (nil:
// http.DefaultClient), file:// paths under allowed
// ([conductor]file_url_allowed_paths). Failures are Ironic's
// (ImageDownloadFailed, ImageRefValidationFailed, Glance's).
func NewFetcher(hc *http.Client, g imagefetch.Glance, allowed []string) ImageFetcher {
	return fetcher{&imagefetch.Cache{Source: imagefetch.Source{Glance: g, HTTP: hc, FileURLAllowedPaths: allowed}}}
}

type fetcher struct{ c *imagefetch.Cache }

func (f fetcher) Fetch(ctx context.Context, ref, dst string) error {
	return f.c.Fetch(ctx, ref, deployutil.IsGlanceImage(ref), dst)
}
