// Package imagefetch downloads the images the conductor handles itself
// (Ironic's image_service.get_image_service(href).download and
// image_cache.ImageCache): Glance images, file:// paths under
// [conductor]file_url_allowed_paths and http(s) URLs, into local files,
// optionally through a master cache shared by the nodes.
package imagefetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/glance"
)

// Glance is what fetching needs of Glance (internal/glance.Client).
type Glance interface {
	// Show is GlanceImageService.show.
	Show(ctx context.Context, href string) (glance.Image, error)
	// Download is GlanceImageService.download: the image's data.
	Download(ctx context.Context, href string, w io.Writer) error
}

// Source says where images may come from.
type Source struct {
	// Glance serves Glance images; nil fails them.
	Glance Glance
	// HTTP downloads http(s) images (nil: http.DefaultClient).
	HTTP *http.Client
	// FileURLAllowedPaths is [conductor]file_url_allowed_paths.
	FileURLAllowedPaths []string
}

// ValidateFileURL is FileImageService.validate_href: the file's absolute
// path must be one of FileURLAllowedPaths or below one, and a regular
// file.
func (s Source) ValidateFileURL(href string) error {
	p := href
	if u, err := url.Parse(href); err == nil {
		p = u.Path
	}
	fail := func(reason string) error {
		return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: %s", href, reason)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	allowed := false
	for _, a := range s.FileURLAllowedPaths {
		if abs == a || strings.HasPrefix(abs, a+string(filepath.Separator)) {
			allowed = true
			break
		}
	}
	if !allowed {
		return fail(fmt.Sprintf("Security: Path %s is not allowed for image source file URLs", p))
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return fail("Specified image file not found.")
	}
	return nil
}

// Download writes the image to w: Glance's data when glanceImage is true,
// a file:// path's content, or an http(s) URL's answer to GET. Errors
// are Ironic's (ImageDownloadFailed, ImageRefValidationFailed).
func (s Source) Download(ctx context.Context, source string, glanceImage bool, w io.Writer) error {
	fail := func(reason string) error {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", source, reason)
	}
	if glanceImage {
		if s.Glance == nil {
			return fail("no Glance client is configured")
		}
		return s.Glance.Download(ctx, source, w)
	}
	u, err := url.Parse(source)
	if err != nil {
		return fail(err.Error())
	}
	switch u.Scheme {
	case "file":
		if err := s.ValidateFileURL(source); err != nil {
			return err
		}
		f, err := os.Open(u.Path)
		if err != nil {
			return fail(err.Error())
		}
		defer f.Close()
		if _, err := io.Copy(w, f); err != nil {
			return fail(err.Error())
		}
		return nil
	case "http", "https":
		hc := s.HTTP
		if hc == nil {
			hc = http.DefaultClient
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
		if err != nil {
			return fail(err.Error())
		}
		resp, err := hc.Do(req)
		if err != nil {
			return fail(err.Error())
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: Got HTTP code %d instead of 200 in response to GET request.", source, resp.StatusCode)
		}
		if _, err := io.Copy(w, resp.Body); err != nil {
			return fail(err.Error())
		}
		return nil
	}
	if u.Scheme == "" {
		return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: Scheme-less image href is not a UUID.", source)
	}
	return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: Image download protocol %s is not supported.", source, u.Scheme)
}

// Cache keeps one master copy of each image in MasterDir and links it to
// where nodes need it, as Ironic's ImageCache does with
// [pxe]tftp_master_path: the master of a file:// image is fetched again
// when the file changed since. With no MasterDir every fetch downloads.
// Unlike Ironic's cache, masters are not evicted by size or age
// ([pxe]image_cache_size, image_cache_ttl).
type Cache struct {
	Source
	// MasterDir is the master images' directory ("": no master cache).
	MasterDir string

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// Fetch puts the image href at dest (replacing what is there), with
// glanceImage saying whether href names a Glance image.
func (c *Cache) Fetch(ctx context.Context, href string, glanceImage bool, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
	}
	if c.MasterDir == "" {
		return c.download(ctx, href, glanceImage, dest)
	}
	key := masterName(href, glanceImage)
	lock := c.lock(key)
	lock.Lock()
	defer lock.Unlock()
	master := filepath.Join(c.MasterDir, key)
	if fi, err := os.Stat(master); err == nil && c.stale(href, glanceImage, fi.ModTime()) {
		_ = os.Remove(master)
	}
	if _, err := os.Stat(master); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(c.MasterDir, 0o755); err != nil {
			return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
		}
		if err := c.download(ctx, href, glanceImage, master); err != nil {
			return err
		}
	}
	if mi, err := os.Stat(master); err == nil {
		if di, err := os.Stat(dest); err == nil && os.SameFile(mi, di) {
			return nil // already this master's link (rename would do nothing)
		}
	}
	tmp := dest + ".link"
	_ = os.Remove(tmp)
	if err := os.Link(master, tmp); err != nil {
		// Another file system: a copy.
		if err := copyFile(master, tmp); err != nil {
			return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		_ = os.Remove(tmp)
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
	}
	return nil
}

func (c *Cache) lock(key string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l, ok := c.locks[key]
	if !ok {
		l = &sync.Mutex{}
		c.locks[key] = l
	}
	return l
}

// stale is ImageCache._delete_master_path_if_stale's test: a Glance
// image never changes (new content is a new image); a file:// image did
// when the file was modified after the master was written. (The http(s)
// images that are fetched, Ironic asks for their Last-Modified; none are
// cached here: see Fetch's callers.)
func (c *Cache) stale(href string, glanceImage bool, mtime time.Time) bool {
	if glanceImage {
		return false
	}
	if u, err := url.Parse(href); err == nil && u.Scheme == "file" {
		if fi, err := os.Stat(u.Path); err == nil {
			return fi.ModTime().After(mtime)
		}
	}
	return true
}

// download writes href to path through path.part, so that path is
// either the whole image or absent.
func (c *Cache) download(ctx context.Context, href string, glanceImage bool, path string) error {
	part := path + ".part"
	f, err := os.Create(part)
	if err != nil {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
	}
	err = c.Source.Download(ctx, href, glanceImage, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, cerr)
	}
	if err == nil {
		if rerr := os.Rename(part, path); rerr != nil {
			err = ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, rerr)
		}
	}
	if err != nil {
		_ = os.Remove(part)
	}
	return err
}

// masterName is ImageCache.fetch_image's master file name: a Glance
// image's ID, else the UUID v5 of the href in the URL namespace.
func masterName(href string, glanceImage bool) string {
	if glanceImage {
		if id, err := glance.ParseImageID(href); err == nil {
			return id
		}
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte(href)).String()
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
