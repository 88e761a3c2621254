package conductor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
)

// HTTPDoer sends the HEAD requests that tell whether an http(s) image
// source is a file or a directory (images.is_source_a_path). An
// *http.Client is one; tests give a fake.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// ImageHTTPClient is the client Ironic's image service uses for web
// servers: requests' behaviour with [DEFAULT]webserver_verify_ca
// ("True", "False" or a CA bundle; a bundle that can't be read verifies
// with the system's roots) and webserver_connection_timeout, redirects
// not followed.
func ImageHTTPClient(verifyCA string, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	switch strings.ToLower(strings.TrimSpace(verifyCA)) {
	case "1", "t", "true", "on", "y", "yes", "":
	case "0", "f", "false", "off", "n", "no":
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // [DEFAULT]webserver_verify_ca = False asks for it
	default:
		if pem, err := os.ReadFile(verifyCA); err == nil {
			pool := x509.NewCertPool()
			if pool.AppendCertsFromPEM(pem) {
				tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
			}
		}
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Image types (images.IMAGE_TYPE_*).
const (
	imageTypePartition = "partition"
	imageTypeWholeDisk = "whole-disk"
)

// updateImageType is conductor.utils.update_image_type: it records in
// driver_internal_info whether the instance image is a whole disk image
// (and sets instance_info.image_type accordingly), or that its source is
// a directory (is_source_a_path). It reports whether it changed the node.
//
// images.is_whole_disk_image decides: instance_info.image_type when set;
// for Glance images the image's properties (img_type, else a whole disk
// image unless it has a kernel_id or a ramdisk_id; when Glance can't be
// asked, nothing is recorded, as in Ironic); otherwise a whole disk image unless instance_info names a
// kernel or a ramdisk, or the source is a directory. Only the last needs
// the network: one HEAD request for http(s) sources (Ironic sends it a
// second time when the answer is "a directory"; the result is the
// same). An image source with an unsupported scheme fails with
// ImageRefValidationFailed, as Ironic's get_image_service does.
func (m *Manager) updateImageType(ctx context.Context, t *task) (bool, error) {
	ii := t.node.InstanceInfo
	src := ii.Get("image_source")
	if !pyjson.Truthy(src) {
		return false, nil
	}
	var wholeDisk bool
	if it := ii.Get("image_type"); pyjson.Truthy(it) {
		wholeDisk = it != imageTypePartition
	} else if isGlanceImage(src) {
		if m.cfg.Images == nil {
			return false, nil
		}
		href, _ := src.(string)
		props, err := m.cfg.Images.ImageProperties(ctx, href)
		if err != nil {
			m.log.DebugContext(ctx, "cannot read the image's properties", "image", src, "error", err)
			return false, nil
		}
		if it := props.Get("img_type"); pyjson.Truthy(it) {
			wholeDisk = it != imageTypePartition
		} else {
			wholeDisk = !pyjson.Truthy(props.Get("kernel_id")) && !pyjson.Truthy(props.Get("ramdisk_id"))
		}
	} else {
		isPath, err := m.sourceIsPath(ctx, src)
		if err != nil {
			return false, err
		}
		if isPath {
			t.DriverInternalInfo().Set("is_source_a_path", true)
			return true, nil
		}
		wholeDisk = !pyjson.Truthy(ii.Get("kernel")) && !pyjson.Truthy(ii.Get("ramdisk"))
	}
	t.DriverInternalInfo().Set("is_whole_disk_image", wholeDisk)
	it := imageTypePartition
	if wholeDisk {
		it = imageTypeWholeDisk
	}
	t.InstanceInfo().Set("image_type", it)
	return true, nil
}

// ImageProperties reads a Glance image's properties (Ironic's
// images.get_image_properties): every field of the image but Ironic's
// named attributes. internal/glance.Client is one.
type ImageProperties interface {
	ImageProperties(ctx context.Context, href string) (*pyjson.Dict, error)
}

// urlScheme is urllib.parse's scheme of a URL: the lower-cased text
// before the first colon when it starts with a letter and holds only
// letters, digits, "+", "-" and ".".
func urlScheme(s string) string {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return ""
	}
	c := s[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return ""
	}
	for _, c := range []byte(s[:i]) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return ""
		}
	}
	return strings.ToLower(s[:i])
}

// sourceIsPath is images.is_source_a_path for a non-Glance image source,
// reduced to the only answer that matters to update_image_type: true
// when the source looks like a directory, false when it looks like a
// file or can't be checked.
func (m *Manager) sourceIsPath(ctx context.Context, src any) (bool, error) {
	href, ok := src.(string)
	if !ok {
		href = pyStr(src)
	}
	switch scheme := urlScheme(href); scheme {
	case "":
		if isGlanceImage(href) {
			return false, nil
		}
		return false, imageRefInvalid(href, "Scheme-less image href is not a UUID.")
	case "http", "https":
	case "file", "glance":
		// A file URL is a path only when it ends with "/", which a file
		// Ironic accepts never does; Glance can't be asked here.
		return false, nil
	default:
		return false, imageRefInvalid(href, "Image download protocol "+scheme+" is not supported.")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, href, nil)
	if err != nil {
		return false, nil
	}
	resp, err := m.imageHTTP.Do(req)
	if err != nil {
		m.log.DebugContext(ctx, "image source HEAD failed", "url", href, "error", err)
		return false, nil
	}
	_ = resp.Body.Close()
	slash := strings.HasSuffix(href, "/")
	switch {
	case resp.StatusCode == http.StatusMovedPermanently && resp.Header.Get("Location") != "":
		// A redirect to a directory (a URL missing its trailing slash).
		// Ironic 21.4 fails with UnboundLocalError on any other
		// redirect; here the source is then taken for a file.
		return strings.HasSuffix(resp.Header.Get("Location"), "/"), nil
	case resp.StatusCode == http.StatusForbidden && slash:
		// A directory whose index the server won't list.
	case resp.StatusCode != http.StatusOK:
		return false, nil
	}
	ct, hasCT := resp.Header["Content-Type"]
	if hasCT && len(ct) > 0 && strings.HasPrefix(ct[0], "text/html") {
		return true, nil
	}
	if _, hasCL := resp.Header["Content-Length"]; hasCT && hasCL {
		return false, nil
	}
	return slash, nil
}

func imageRefInvalid(href, reason string) error {
	return ironic.Errorf(ironic.ImageRefValidationFailed, "Validation of image href %s failed, reason: %s", href, reason)
}

// pyStr is str() of a decoded JSON value that is not a string.
func pyStr(v any) string {
	if v == nil {
		return "None"
	}
	return pyschema.Repr(v)
}
