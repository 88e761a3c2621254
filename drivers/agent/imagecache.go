package agent

import (
	"bytes"
	"context"
	"crypto/md5"  //nolint:gosec // Ironic's default image checksum
	"crypto/sha1" //nolint:gosec // an algorithm Ironic accepts
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/imagefetch"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/pyjson"
)

// cacheAndConvertImage is deploy_utils._cache_and_convert_image: the
// conductor downloads the image (from Glance when im is set, else the
// file:// or http(s) image_source) into [pxe]images_path/<node>/disk,
// checks its checksum, its format against [conductor]permitted_image_formats
// (and Glance's disk_format), converts it to raw with qemu-img when
// [DEFAULT]force_raw_images and [agent]stream_raw_images ask for it,
// links it as [deploy]http_root/<http_image_subdir>/<node> and gives the
// agent its URL under [deploy]http_url. Unlike Ironic there is no master
// cache shared between nodes ([pxe]instance_master_path): each node gets
// its own copy.
func (c Config) cacheAndConvertImage(ctx context.Context, task drivers.Task, im *glance.Image) error {
	ii := task.InstanceInfo()
	forceRaw := c.ForceRawImages && c.StreamRawImages
	var initialFormat any
	if im != nil {
		initialFormat = im.Get("disk_format")
	} else {
		initialFormat = ii.Get("image_disk_format")
	}
	checksum, algo, err := checksumAndAlgo(ii)
	if err != nil {
		return err
	}
	source := py.Str(ii.Get("image_source"))
	dir := filepath.Join(c.ImagesPath, task.NodeUUID())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ironic.Errorf(ironic.InstanceDeployFailure, "%s", err)
	}
	path := filepath.Join(dir, "disk")
	format, err := c.fetchImage(ctx, task, source, path, im, initialFormat, forceRaw, checksum, algo)
	if err != nil {
		return err
	}
	if forceRaw || im == nil {
		if forceRaw {
			ii.Set("image_disk_format", "raw")
		} else {
			ii.Set("image_disk_format", format)
		}
		var hashAlgo, hashValue, old any
		if im == nil {
			hashAlgo, hashValue, old = ii.Get("image_os_hash_algo"), ii.Get("image_os_hash_value"), ii.Get("image_checksum")
		} else {
			hashAlgo, hashValue, old = im.Get("os_hash_algo"), im.Get("os_hash_value"), im.Get("checksum")
		}
		if !pyjson.Equal(initialFormat, ii.Get("image_disk_format")) {
			if a := py.Str(hashAlgo); !py.Truthy(hashAlgo) || a == "md5" {
				hashAlgo = "sha256"
			}
			ii.Set("image_checksum", nil)
			v, err := fileChecksum(path, py.Str(hashAlgo))
			if err != nil {
				return err
			}
			hashValue = v
		} else {
			ii.Set("image_checksum", old)
		}
		ii.Set("image_os_hash_algo", hashAlgo)
		ii.Set("image_os_hash_value", hashValue)
	} else {
		ii.Set("image_checksum", im.Get("checksum"))
		ii.Set("image_disk_format", im.Get("disk_format"))
		ii.Set("image_os_hash_algo", im.Get("os_hash_algo"))
		ii.Set("image_os_hash_value", im.Get("os_hash_value"))
	}
	linkDir := filepath.Join(c.HTTPRoot, c.HTTPImageSubdir)
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		return ironic.Errorf(ironic.InstanceDeployFailure, "%s", err)
	}
	// create_link_without_raise: an existing link stays.
	if err := os.Symlink(path, filepath.Join(linkDir, task.NodeUUID())); err != nil && !errors.Is(err, os.ErrExist) {
		c.logf(ctx, task, true, "Failed to create symlink from %s to %s, error: %s", path, filepath.Join(linkDir, task.NodeUUID()), err)
	}
	u := strings.Join([]string{strings.TrimSuffix(c.HTTPURL, "/"), c.HTTPImageSubdir, task.NodeUUID()}, "/")
	if _, err := c.validateImageURL(ctx, u, false); err != nil {
		return err
	}
	ii.Set("image_url", u)
	return nil
}

// checksumAndAlgo is checksum_utils.get_checksum_and_algo: the
// os_hash_value and its algorithm when instance_info has one, else
// image_checksum with an algorithm told by its length (sha512, sha256,
// else MD5). Checksum URLs are not supported here.
func checksumAndAlgo(ii interface{ Lookup(string) (any, bool) }) (checksum, algo string, err error) {
	if v, ok := ii.Lookup("image_os_hash_value"); ok {
		a, _ := ii.Lookup("image_os_hash_algo")
		return py.Str(orEmpty(v)), py.Str(orEmpty(a)), nil
	}
	v, _ := ii.Lookup("image_checksum")
	checksum = py.Str(orEmpty(v))
	if strings.HasPrefix(checksum, "http://") || strings.HasPrefix(checksum, "https://") || strings.HasPrefix(checksum, "file://") {
		return "", "", ironic.Errorf(ironic.InvalidParameterValue,
			"image_checksum %s is a URL: checksum URLs are not supported for images the conductor serves", checksum)
	}
	switch len(checksum) {
	case 128:
		algo = "sha512"
	case 64:
		algo = "sha256"
	}
	return checksum, algo, nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// fetchImage is image_cache._fetch for one node: download to path.part,
// validate the checksum, inspect the format (it must be permitted and,
// when Glance or instance_info tells one, the expected one), convert to
// raw when asked, and rename to path. It returns the format.
func (c Config) fetchImage(ctx context.Context, task drivers.Task, source, path string, im *glance.Image, expected any, forceRaw bool, checksum, algo string) (string, error) {
	part := path + ".part"
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(part)
		}
	}()
	f, err := os.Create(part)
	if err != nil {
		return "", ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", source, err)
	}
	err = c.download(ctx, source, im, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", source, cerr)
	}
	if err != nil {
		return "", err
	}
	if checksum != "" {
		use, useAlgo := checksum, algo
		if a, v, found := strings.Cut(checksum, ":"); found {
			useAlgo, use = a, v
		}
		if use == "" {
			return "", ironic.Errorf(ironic.ImageChecksumError, "The supplied image checksum is invalid or does not match.")
		}
		if useAlgo == "" {
			useAlgo = "md5"
		}
		got, err := fileChecksum(part, strings.ToLower(useAlgo))
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(got, use) {
			return "", ironic.Errorf(ironic.ImageChecksumError, "The supplied image checksum is invalid or does not match.")
		}
	}
	format, err := detectFormat(part)
	if err != nil {
		return "", err
	}
	if !slices.Contains(c.PermittedImageFormats, format) {
		c.logf(ctx, task, true, "Security: The requested deploy image %s is of format image %s and is not in the [conductor]permitted_image_formats list.", source, format)
		return "", ironic.Errorf(ironic.InvalidImage, "The requested image is not valid for use.")
	}
	if exp := py.Str(expected); expected != nil && exp != format && exp != "ari" && exp != "aki" {
		c.logf(ctx, task, true, "Security: The requested deploy image %s has a format (%s) which does not match the expected image format (%s) based upon supplied or retrieved information.", source, format, exp)
		return "", ironic.Errorf(ironic.InvalidImage, "The requested image is not valid for use.")
	}
	if forceRaw && format != "raw" && format != "iso" {
		staged := path + ".converted"
		out, err := exec.CommandContext(ctx, "qemu-img", "convert", "-f", format, "-O", "raw", part, staged).CombinedOutput() //nolint:gosec // fixed arguments
		if err != nil {
			_ = os.Remove(staged)
			return "", ironic.Errorf(ironic.ImageConvertFailed, "Image %s is unacceptable: %s", source, strings.TrimSpace(string(out)+" "+err.Error()))
		}
		if err := os.Rename(staged, path); err != nil {
			return "", ironic.Errorf(ironic.ImageConvertFailed, "Image %s is unacceptable: %s", source, err)
		}
		ok = true
		_ = os.Remove(part)
		return format, nil
	}
	if err := os.Rename(part, path); err != nil {
		return "", ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", source, err)
	}
	ok = true
	return format, nil
}

// download writes the image to w: Glance's data, a file:// path's
// content, or an http(s) URL's answer to GET.
func (c Config) download(ctx context.Context, source string, im *glance.Image, w io.Writer) error {
	return c.imageSource().Download(ctx, source, im != nil, w)
}

// imageSource is where the conductor fetches images from.
func (c Config) imageSource() imagefetch.Source {
	src := imagefetch.Source{HTTP: c.ImageHTTP, FileURLAllowedPaths: c.FileURLAllowedPaths}
	if c.Glance != nil {
		src.Glance = c.Glance
	}
	return src
}

// fileChecksum is checksum_utils.compute_image_checksum.
func fileChecksum(path, algo string) (string, error) {
	var h hash.Hash
	switch algo {
	case "md5", "":
		h = md5.New() //nolint:gosec // Ironic's default
	case "sha1":
		h = sha1.New() //nolint:gosec // accepted by Ironic
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return "", ironic.Errorf(ironic.ImageChecksumAlgorithmFailure, "The requested image checksum algorithm cannot be loaded.")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", ironic.Errorf(ironic.ImageChecksumFileReadFailure, "Failed to read the file from local storage to perform a checksum operation.")
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", ironic.Errorf(ironic.ImageChecksumFileReadFailure, "Failed to read the file from local storage to perform a checksum operation.")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// detectFormat is a reduced images.safety_check_image: the formats told
// by their magic numbers (qcow2, vmdk, vhdx, vhd, vdi, iso), else raw.
// As Ironic's format inspector does, a qcow2 image naming a backing file
// or an external data file is refused (InvalidImage); the other formats'
// own safety checks (vmdk extents, ...) are not made.
func detectFormat(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", ironic.Errorf(ironic.InvalidImage, "The requested image is not valid for use.")
	}
	defer f.Close()
	head := make([]byte, 0x8006)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("QFI\xfb")):
		// Version at 4, backing_file_offset at 8; from version 3 the
		// incompatible features at 72, bit 2 an external data file.
		if len(head) < 80 || binary.BigEndian.Uint64(head[8:16]) != 0 ||
			(binary.BigEndian.Uint32(head[4:8]) >= 3 && binary.BigEndian.Uint64(head[72:80])&4 != 0) {
			return "", ironic.Errorf(ironic.InvalidImage, "The requested image is not valid for use.")
		}
		return "qcow2", nil
	case bytes.HasPrefix(head, []byte("KDMV")):
		return "vmdk", nil
	case bytes.HasPrefix(head, []byte("vhdxfile")):
		return "vhdx", nil
	case bytes.HasPrefix(head, []byte("conectix")):
		return "vhd", nil
	case len(head) >= 0x44 && bytes.Equal(head[0x40:0x44], []byte{0x7f, 0x10, 0xda, 0xbe}):
		return "vdi", nil
	case len(head) >= 0x8006 && bytes.Equal(head[0x8001:0x8006], []byte("CD001")):
		return "iso", nil
	}
	return "raw", nil
}

// destroyHTTPInstanceImages is deploy_utils.destroy_http_instance_images:
// the node's link under [deploy]http_root and its image directory go.
func (c Config) destroyHTTPInstanceImages(task drivers.Task) {
	c.removeHTTPInstanceSymlink(task)
	if c.ImagesPath != "" {
		_ = os.RemoveAll(filepath.Join(c.ImagesPath, task.NodeUUID()))
	}
}

// removeHTTPInstanceSymlink is deploy_utils.remove_http_instance_symlink.
func (c Config) removeHTTPInstanceSymlink(task drivers.Task) {
	if c.HTTPRoot != "" {
		_ = os.Remove(filepath.Join(c.HTTPRoot, c.HTTPImageSubdir, task.NodeUUID()))
	}
}
