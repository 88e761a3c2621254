// Package swift is the little of OpenStack Swift that Ironic's
// common/swift.py SwiftAPI uses, over gophercloud's objectstorage v1:
// create an object (after a PUT of its container), sign a temporary URL with
// the account's temp URL key, delete an object. Errors are Ironic's faults:
// SwiftOperationError, SwiftObjectNotFoundError, MissingParameterValue.
package swift

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/objectstorage/v1/accounts"
	"github.com/gophercloud/gophercloud/v2/openstack/objectstorage/v1/containers"
	"github.com/gophercloud/gophercloud/v2/openstack/objectstorage/v1/objects"

	ironic "github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/keystoneauth"
)

// Config is the [swift] section's keystoneauth options under their Ironic
// names, plus swift_max_retries.
type Config struct {
	// Options are the section's keystoneauth options (Section is set
	// by New); ServiceType defaults to "object-store".
	keystoneauth.Options

	// MaxRetries is swift_max_retries (2): requests that could not connect
	// or were answered 5xx are retried that many times.
	MaxRetries int
}

// Client talks to one Swift account. It is safe for concurrent use;
// nothing is contacted before the first call.
type Client struct {
	cfg Config
	log *slog.Logger
	// now is the clock temp URLs expire from.
	now func() time.Time

	svc keystoneauth.Service
}

// New returns a client.
func New(cfg Config, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "swift"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "object-store"
	}
	return &Client{cfg: cfg, log: log, now: time.Now}
}

// SetClock makes temp URLs expire relative to now (tests).
func (c *Client) SetClock(now func() time.Time) { c.now = now }

func (c *Client) service(ctx context.Context) (*gophercloud.ServiceClient, error) {
	return c.svc.Get(ctx, c.build)
}

func (c *Client) build(ctx context.Context) (*gophercloud.ServiceClient, error) {
	pc, u, _, err := keystoneauth.Connect(ctx, c.cfg.Options, c.retry)
	if err != nil {
		return nil, err
	}
	return serviceAt(pc, u), nil
}

// serviceAt is the object storage client of the account URL u
// (http://host/v1/AUTH_project).
func serviceAt(pc *gophercloud.ProviderClient, u string) *gophercloud.ServiceClient {
	u = gophercloud.NormalizeURL(u)
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u, ResourceBase: u, Type: "object-store"}
}

// retry is swiftclient's: connection failures and 5xx answers are retried
// MaxRetries times with a doubling back-off from 1 s (at most 64 s).
func (c *Client) retry(ctx context.Context, method, u string, _ *gophercloud.RequestOpts, err error, failCount uint) error {
	var rc gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &rc) && rc.Actual < 500 {
		return err
	}
	if int(failCount) > c.cfg.MaxRetries {
		return err
	}
	delay := time.Second << min(failCount-1, 6)
	c.log.WarnContext(ctx, "retrying a Swift request", "method", method, "url", u, "attempt", failCount, "error", err)
	select {
	case <-ctx.Done():
		return err
	case <-time.After(delay):
		return nil
	}
}

func opError(op string, err error) error {
	return ironic.Errorf(ironic.SwiftOperationError, "Swift operation '%s' failed: %s", op, err)
}

// CreateObject is SwiftAPI.create_object: PUT the container, then the
// object with data and headers (e.g. X-Delete-After).
func (c *Client) CreateObject(ctx context.Context, container, object string, data []byte, deleteAfter int) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	if err := containers.Create(ctx, sc, container, nil).Err; err != nil {
		return opError("put container", err)
	}
	opts := objects.CreateOpts{Content: bytes.NewReader(data), ContentLength: int64(len(data)), DeleteAfter: int64(deleteAfter)}
	if err := objects.Create(ctx, sc, container, object, opts).Err; err != nil {
		return opError("put object", err)
	}
	return nil
}

// TempURL is SwiftAPI.get_temp_url: a GET temp URL valid for ttl, signed
// (HMAC-SHA256, swiftclient's default) with the account's
// X-Account-Meta-Temp-URL-Key; Ironic reads no container key.
func (c *Client) TempURL(ctx context.Context, container, object string, ttl time.Duration) (string, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return "", err
	}
	h, err := accounts.Get(ctx, sc, nil).Extract()
	if err != nil {
		return "", opError("head account", err)
	}
	if h.TempURLKey == "" {
		return "", ironic.Errorf(ironic.MissingParameterValue, "Swift temporary URLs require a shared secret to be created. You must provide pre-generate the key on the project used to access Swift.")
	}
	u, err := objects.CreateTempURL(ctx, sc, container, object, objects.CreateTempURLOpts{
		Method: objects.GET, TTL: int(ttl / time.Second), TempURLKey: h.TempURLKey, Digest: "sha256", Timestamp: c.now(),
	})
	if err != nil {
		return "", opError("temp url", err)
	}
	return u, nil
}

// DeleteObject is SwiftAPI.delete_object; SwiftObjectNotFoundError when
// the object is gone.
func (c *Client) DeleteObject(ctx context.Context, container, object string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	if err := objects.Delete(ctx, sc, container, object, nil).Err; err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return ironic.Errorf(ironic.SwiftObjectNotFoundError, "Swift object %s from container %s not found. Operation 'delete object' failed.", object, container)
		}
		return opError("delete object", err)
	}
	return nil
}

// AccountInfo is the account's storage URL (http://host/v1/AUTH_project)
// and its X-Account-Meta-Temp-URL-Key ("" when unset): what Ironic's
// GlanceImageService reads from the [swift] session when [glance] names
// no swift_endpoint_url, swift_account or swift_temp_url_key.
func (c *Client) AccountInfo(ctx context.Context) (storageURL, tempURLKey string, err error) {
	sc, err := c.service(ctx)
	if err != nil {
		return "", "", err
	}
	h, err := accounts.Get(ctx, sc, nil).Extract()
	if err != nil {
		return "", "", opError("head account", err)
	}
	return sc.Endpoint, h.TempURLKey, nil
}
