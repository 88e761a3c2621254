// Package glance is the little of Glance that Ironic 21.4's
// common/glance_service uses, over gophercloud's image service v2: show
// an image (GlanceImageService.show: status and visibility checks, the
// attributes and properties of translate_from_glance) and sign a Swift
// temporary URL for an image Glance keeps in Swift
// (GlanceImageService.swift_temp_url, with the [glance] swift_* options).
// Errors are Ironic's faults: ImageNotFound, ImageNotAuthorized,
// ImageUnacceptable, InvalidImageRef, GlanceConnectionFailed,
// InvalidParameterValue and MissingParameterValue, with Ironic's texts.
package glance

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
)

// Config is the [glance] section: its keystoneauth options under Ironic's
// names and the options GlanceImageService reads. allowed_direct_url_schemes
// is not among them: Ironic 21.4 reads it only when the conductor itself
// downloads an image (a "file" direct_url is copied instead of GET
// /file), which this service doesn't do.
type Config struct {
	// Options are the section's keystoneauth options (Section is set by
	// New); ServiceType defaults to "image".
	keystoneauth.Options

	// SwiftTempURLKey is swift_temp_url_key; empty: the Swift account's
	// X-Account-Meta-Temp-URL-Key.
	SwiftTempURLKey string
	// SwiftTempURLDuration is swift_temp_url_duration, in seconds.
	SwiftTempURLDuration int
	// SwiftTempURLCacheEnabled is swift_temp_url_cache_enabled: a signed
	// URL is reused while it stays valid for
	// SwiftTempURLExpectedDownloadStartDelay more seconds.
	SwiftTempURLCacheEnabled bool
	// SwiftTempURLExpectedDownloadStartDelay is
	// swift_temp_url_expected_download_start_delay, in seconds.
	SwiftTempURLExpectedDownloadStartDelay int
	// SwiftEndpointURL is swift_endpoint_url; empty: the Swift endpoint
	// of the [swift] section.
	SwiftEndpointURL string
	// SwiftAPIVersion, SwiftAccount, SwiftAccountPrefix and SwiftContainer
	// are swift_api_version, swift_account (empty: the prefix and the
	// [swift] session's project), swift_account_prefix and
	// swift_container.
	SwiftAPIVersion, SwiftAccount, SwiftAccountPrefix, SwiftContainer string
	// SwiftStoreMultipleContainersSeed is
	// swift_store_multiple_containers_seed (0 to 32).
	SwiftStoreMultipleContainersSeed int
	// NumRetries is num_retries: requests that could not reach Glance or
	// were answered 503 are retried that many times, a second apart.
	NumRetries int
}

// Image is what GlanceImageService.show returns (translate_from_glance):
// the attributes Ironic names, nil where Glance sent none, and the
// image's other fields as Properties.
type Image struct {
	ID string
	// Attributes holds Ironic's _IMAGE_ATTRIBUTES as Glance sent them
	// (nil when absent): checksum, os_hash_algo, os_hash_value,
	// disk_format, container_format, size, tags, visibility, owner, ...
	Attributes map[string]any
	// Properties are the image's other fields (kernel_id, ramdisk_id,
	// direct_url, locations, custom properties) in Glance's order but
	// "self" (Ironic's are in a Python set's order).
	Properties *pyjson.Dict
}

// Get returns an attribute (nil when Glance sent none).
func (im Image) Get(name string) any { return im.Attributes[name] }

// DirectURL is the image's direct_url property ("" when Glance doesn't
// show it).
func (im Image) DirectURL() string {
	s, _ := im.Properties.Get("direct_url").(string)
	return s
}

// attributes is service_utils._IMAGE_ATTRIBUTES.
var attributes = []string{"size", "disk_format", "owner", "container_format", "checksum", "id",
	"name", "created_at", "updated_at", "deleted_at", "deleted", "status", "min_disk", "min_ram",
	"tags", "visibility", "protected", "file", "schema", "os_hash_algo", "os_hash_value"}

// SwiftAccount is what the [swift] section tells when [glance] doesn't:
// the account's storage URL (http://host/v1/AUTH_project) and its temp
// URL key. internal/swift's Client is one.
type SwiftAccount interface {
	AccountInfo(ctx context.Context) (storageURL, tempURLKey string, err error)
}

// Client is Ironic's GlanceImageService. It is safe for concurrent use;
// nothing is contacted before the first call.
type Client struct {
	cfg   Config
	log   *slog.Logger
	swift SwiftAccount
	// now signs temp URLs; sleep waits between retries.
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	svc keystoneauth.Service

	mu    sync.Mutex
	cache map[string]cachedURL
}

type cachedURL struct {
	url     string
	expires int64
}

// New returns a client. swift may be nil when every swift_* option the
// temp URLs need is set.
func New(cfg Config, swift SwiftAccount, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "glance"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "image"
	}
	return &Client{cfg: cfg, log: log, swift: swift, now: time.Now, sleep: sleepCtx, cache: map[string]cachedURL{}}
}

// SetClock makes temp URLs expire relative to now and retries wait with
// sleep (tests).
func (c *Client) SetClock(now func() time.Time, sleep func(context.Context, time.Duration) error) {
	c.now, c.sleep = now, sleep
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) service(ctx context.Context) (*gophercloud.ServiceClient, error) {
	return c.svc.Get(ctx, func(ctx context.Context) (*gophercloud.ServiceClient, error) {
		pc, u, _, err := keystoneauth.Connect(ctx, c.cfg.Options, nil)
		if err != nil {
			return nil, err
		}
		u = gophercloud.NormalizeURL(u)
		base := u
		if !strings.HasSuffix(strings.TrimSuffix(u, "/"), "/v2") {
			base = u + "v2/"
		}
		return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u, ResourceBase: base, Type: "image"}, nil
	})
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// isUUIDLike is oslo's uuidutils.is_uuid_like (braces and dashes may be
// omitted; urn:uuid: is accepted).
func isUUIDLike(s string) bool {
	s = strings.TrimPrefix(strings.ToLower(s), "urn:uuid:")
	return uuidLike.MatchString(strings.Trim(s, "{}"))
}

// IsGlanceImage is service_utils.is_glance_image.
func IsGlanceImage(href any) bool {
	s, ok := href.(string)
	return ok && (strings.HasPrefix(s, "glance://") || isUUIDLike(s))
}

// ParseImageID is service_utils.parse_image_id.
func ParseImageID(href string) (string, error) {
	switch {
	case isUUIDLike(href):
		return href, nil
	case strings.HasPrefix(href, "glance://"):
		id := href[strings.LastIndex(href, "/")+1:]
		if isUUIDLike(id) {
			return id, nil
		}
	}
	return "", ironic.Errorf(ironic.InvalidImageRef, "Invalid image href %s.", href)
}

// Show is GlanceImageService.show: the image must be active and, for a
// caller without a token, public or the caller project's
// (is_image_available).
func (c *Client) Show(ctx context.Context, href string) (Image, error) {
	id, err := ParseImageID(href)
	if err != nil {
		return Image{}, err
	}
	c.log.DebugContext(ctx, "Getting image metadata from glance", "image", href)
	raw, err := c.get(ctx, id)
	if err != nil {
		return Image{}, err
	}
	if s, _ := raw.Get("status").(string); s != "active" {
		return Image{}, ironic.Errorf(ironic.ImageUnacceptable, "Image %s is unacceptable: The image is required to be in an active state.", id)
	}
	if !available(ctx, raw) {
		return Image{}, ironic.Errorf(ironic.ImageNotFound, "Image %s could not be found.", id)
	}
	im := Image{ID: id, Attributes: map[string]any{}, Properties: pyjson.NewDict(raw.Len())}
	if s, ok := raw.Get("id").(string); ok {
		im.ID = s
	}
	for _, a := range attributes {
		im.Attributes[a] = raw.Get(a)
	}
	for k, v := range raw.All() {
		// glanceclient drops "self" before building its model.
		if _, ok := im.Attributes[k]; !ok && k != "self" {
			im.Properties.Set(k, v)
		}
	}
	return im, nil
}

// ImageProperties is images.get_image_properties: the properties of
// the image Show returns.
func (c *Client) ImageProperties(ctx context.Context, href string) (*pyjson.Dict, error) {
	im, err := c.Show(ctx, href)
	if err != nil {
		return nil, err
	}
	return im.Properties, nil
}

// Download is GlanceImageService.download: the image's data (GET
// /v2/images/{id}/file) written to w, without a new show (callers have
// shown the image). An image without data is ImageDownloadFailed "image
// contains no data.".
func (c *Client) Download(ctx context.Context, href string, w io.Writer) error {
	id, err := ParseImageID(href)
	if err != nil {
		return err
	}
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	resp, err := sc.Request(ctx, http.MethodGet, sc.ServiceURL("images", id, "file"), &gophercloud.RequestOpts{
		KeepResponseBody: true, OkCodes: []int{http.StatusOK, http.StatusNoContent},
	})
	if err != nil {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: image contains no data.", href)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return ironic.Errorf(ironic.ImageDownloadFailed, "Failed to download image %s, reason: %s", href, err)
	}
	return nil
}

// available is service_utils.is_image_available: public images and the
// caller project's. Ironic asks Glance with the caller's token when the
// request had one and then trusts Glance's answer; this client always
// asks with the [glance] section's credentials, so a caller with a token
// also sees community images, and every image when it has the admin
// role (as Glance shows them to it), but not images merely shared with
// its project.
func available(ctx context.Context, raw *pyjson.Dict) bool {
	rc := ironic.FromContext(ctx)
	v := raw.Get("visibility")
	if v == "public" {
		return true
	}
	if rc.ProjectID != "" && raw.Get("owner") == rc.ProjectID {
		return true
	}
	return rc.AuthToken != "" && (v == "community" || rc.HasRole("admin"))
}

// get is GET /v2/images/{id} through GlanceImageService.call: 401/403,
// 404 and 400 become Ironic's image faults; 503 and connection failures
// are retried num_retries times, then GlanceConnectionFailed.
func (c *Client) get(ctx context.Context, id string) (*pyjson.Dict, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		var body json.RawMessage
		err := images.Get(ctx, sc, id).ExtractInto(&body)
		if err == nil {
			d, err := pyjson.DecodeDict(body)
			if err != nil {
				return nil, ironic.Errorf(ironic.GlanceConnectionFailed, "Connection to glance endpoint %s failed: %s", sc.Endpoint, err)
			}
			return d, nil
		}
		var rc gophercloud.ErrUnexpectedResponseCode
		isCode := errors.As(err, &rc)
		switch {
		case isCode && (rc.Actual == http.StatusUnauthorized || rc.Actual == http.StatusForbidden):
			return nil, ironic.Errorf(ironic.ImageNotAuthorized, "Not authorized for image %s.", id)
		case isCode && rc.Actual == http.StatusNotFound:
			return nil, ironic.Errorf(ironic.ImageNotFound, "Image %s could not be found.", id)
		case isCode && rc.Actual == http.StatusBadRequest:
			return nil, ironic.Errorf(ironic.Invalid, "%s", glanceError(rc))
		case isCode && rc.Actual != http.StatusServiceUnavailable:
			return nil, ironic.Errorf(ironic.Invalid, "%s", glanceError(rc))
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		c.log.ErrorContext(ctx, "Error contacting glance endpoint", "endpoint", sc.Endpoint, "method", "get", "error", err)
		if attempt >= c.cfg.NumRetries {
			reason := err.Error()
			if isCode {
				reason = glanceError(rc)
			}
			return nil, ironic.Errorf(ironic.GlanceConnectionFailed, "Connection to glance endpoint %s failed: %s", sc.Endpoint, reason)
		}
		if err := c.sleep(ctx, time.Second); err != nil {
			return nil, err
		}
	}
}

// glanceError is glanceclient's HTTPException text: "HTTP <code> <reason>"
// and the body's details.
func glanceError(rc gophercloud.ErrUnexpectedResponseCode) string {
	msg := fmt.Sprintf("HTTP %d %s", rc.Actual, http.StatusText(rc.Actual))
	if d := strings.TrimSpace(string(rc.Body)); d != "" {
		msg += ": " + d
	}
	return msg
}

// SwiftTempURL is GlanceImageService.swift_temp_url: a GET temp URL for
// the image's object, /<swift_api_version>/<account>/<container>/<image
// id> at the Swift endpoint, signed with HMAC-SHA256 (swiftclient's
// generate_temp_url) and valid for swift_temp_url_duration seconds.
func (c *Client) SwiftTempURL(ctx context.Context, im Image) (string, error) {
	cfg := c.cfg
	if cfg.SwiftTempURLDuration < cfg.SwiftTempURLExpectedDownloadStartDelay {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "\"swift_temp_url_duration\" must be greater than or equal to \"[glance]swift_temp_url_expected_download_start_delay\" option, otherwise the Swift temporary URL may expire before the download starts.")
	}
	if seed := cfg.SwiftStoreMultipleContainersSeed; seed < 0 || seed > 32 {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "An integer value between 0 and 32 is required for swift_store_multiple_containers_seed.")
	}
	if !isUUIDLike(im.ID) {
		return "", ironic.Errorf(ironic.ImageUnacceptable, "The given image info does not have a valid image id: %s", im.ID)
	}
	endpoint, key, account := cfg.SwiftEndpointURL, cfg.SwiftTempURLKey, cfg.SwiftAccount
	prefix := cfg.SwiftAccountPrefix
	if prefix != "" && !strings.HasSuffix(prefix, "_") {
		prefix += "_"
	}
	var storageURL, accountKey string
	if endpoint == "" || account == "" || key == "" {
		if c.swift == nil {
			return "", ironic.Errorf(ironic.MissingParameterValue, "Swift temporary URLs require a Swift endpoint URL, but it was not found in the service catalog. You must provide \"swift_endpoint_url\" as a config option.")
		}
		var err error
		storageURL, accountKey, err = c.swift.AccountInfo(ctx)
		if err != nil {
			var f *ironic.Fault
			if endpoint == "" && errors.As(err, &f) && f.Class == ironic.CatalogNotFound {
				return "", ironic.Errorf(ironic.MissingParameterValue, "Swift temporary URLs require a Swift endpoint URL, but it was not found in the service catalog. You must provide \"swift_endpoint_url\" as a config option.")
			}
			return "", err
		}
	}
	if endpoint == "" {
		endpoint = storageURL
	}
	endpoint = regexp.MustCompile(`/v1/`+regexp.QuoteMeta(prefix)+`[^/]+/?$`).ReplaceAllString(endpoint, "")
	if account == "" {
		// Ironic: the prefix and the [swift] session's project id; the
		// storage URL's last segment is AUTH_<project id>.
		seg := strings.TrimSuffix(storageURL, "/")
		seg = seg[strings.LastIndex(seg, "/")+1:]
		account = prefix + strings.TrimPrefix(seg, prefix)
	}
	if key == "" {
		key = accountKey
	}
	if key == "" {
		return "", ironic.Errorf(ironic.MissingParameterValue, "Swift temporary URLs require a shared secret to be created. You must provide \"swift_temp_url_key\" as a config option or pre-generate the key on the project used to access Swift.")
	}
	path := fmt.Sprintf("/%s/%s/%s/%s", cfg.SwiftAPIVersion, account, c.container(im.ID), im.ID)

	now := c.now().Unix()
	if cfg.SwiftTempURLCacheEnabled {
		c.mu.Lock()
		defer c.mu.Unlock()
		for id, e := range c.cache {
			if e.expires < now+int64(cfg.SwiftTempURLExpectedDownloadStartDelay) {
				delete(c.cache, id)
			}
		}
		if e, ok := c.cache[im.ID]; ok {
			return e.url, nil
		}
	}
	expires := now + int64(cfg.SwiftTempURLDuration)
	u := endpoint + SignTempURL(path, "GET", key, expires)
	if cfg.SwiftTempURLCacheEnabled {
		c.cache[im.ID] = cachedURL{url: u, expires: expires}
	}
	return u, nil
}

// SignTempURL is swiftclient's generate_temp_url with an absolute expiry:
// path?temp_url_sig=<hex HMAC-SHA256 of "METHOD\nexpires\npath">&temp_url_expires=<expires>.
func SignTempURL(path, method, key string, expires int64) string {
	mac := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(mac, "%s\n%d\n%s", strings.ToUpper(method), expires, path)
	return path + "?temp_url_sig=" + hex.EncodeToString(mac.Sum(nil)) + "&temp_url_expires=" + strconv.FormatInt(expires, 10)
}

// container is _get_swift_container: swift_container, or with a seed of
// n > 0, swift_container_<the first n characters of the lower-cased
// image id, dashes not counted>.
func (c *Client) container(imageID string) string {
	seed := c.cfg.SwiftStoreMultipleContainersSeed
	if seed <= 0 {
		return c.cfg.SwiftContainer
	}
	id := strings.ToLower(imageID)
	n := min(seed, len(id))
	n = min(seed+strings.Count(id[:n], "-"), len(id))
	return c.cfg.SwiftContainer + "_" + id[:n]
}

// ValidTempURL tells whether u carries a valid, unexpired signature for
// method with key at now (what a Swift proxy's tempurl middleware checks;
// used by the test doubles).
func ValidTempURL(u *url.URL, method, key string, now time.Time) bool {
	q := u.Query()
	exp, err := strconv.ParseInt(q.Get("temp_url_expires"), 10, 64)
	if err != nil || exp < now.Unix() {
		return false
	}
	want := SignTempURL(u.EscapedPath(), method, key, exp)
	got := u.EscapedPath() + "?temp_url_sig=" + q.Get("temp_url_sig") + "&temp_url_expires=" + q.Get("temp_url_expires")
	return hmac.Equal([]byte(want), []byte(got))
}
