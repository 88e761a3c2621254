// Package cinderclient implements storage.Cinder over gophercloud's block
// storage v3 packages, configured as Ironic's [cinder] section configures
// keystoneauth (the pattern of drivers/network/neutronclient): auth_type
// "none" (or unset) with endpoint_override talks to Cinder
// unauthenticated; "password" and "v3password" get a token from Keystone
// and find Cinder (service type volumev3) in its catalog or at
// endpoint_override. As with cinderclient, the endpoint is the versioned
// one (".../v3"); with a token, a project ID after /v3 is dropped, as
// Ironic does. The client is built on first use, so that a Keystone or Cinder
// that is down doesn't stop the conductor from starting.
package cinderclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"

	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/internal/keystoneauth"
)

// Config is the [cinder] section's keystoneauth options and retries,
// under their Ironic names.
type Config struct {
	// Options are the section's keystoneauth options (Section is set
	// by New); ServiceType defaults to "volumev3".
	keystoneauth.Options

	// Retries is [cinder]retries: requests that could not connect are
	// retried this many times (cinderclient's connect_retries), backing
	// off exponentially from 0.5 s.
	Retries int
	// StatusCodeRetries retries 503 answers.
	StatusCodeRetries int
}

// Client is a storage.Cinder.
type Client struct {
	cfg   Config
	log   *slog.Logger
	sleep func(time.Duration)

	svc keystoneauth.Service
}

var _ storage.Cinder = (*Client)(nil)

// New returns a client; nothing is contacted before the first call.
func New(cfg Config, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "cinder"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "volumev3"
	}
	return &Client{cfg: cfg, log: log, sleep: time.Sleep}
}

func (c *Client) service(ctx context.Context) (*gophercloud.ServiceClient, error) {
	return c.svc.Get(ctx, c.build)
}

func (c *Client) build(ctx context.Context) (*gophercloud.ServiceClient, error) {
	pc, u, authenticated, err := keystoneauth.Connect(ctx, c.cfg.Options, c.retry)
	if err != nil {
		return nil, err
	}
	return serviceAt(pc, u, authenticated), nil
}

// serviceAt is the block storage client of the endpoint u, which, as
// for cinderclient, is the versioned endpoint ("http://cinder:8776/v3"):
// requests go to <u>/volumes/.... With projectScoped (password auth), a
// project ID after /v3 is dropped, as Ironic does (Cinder 3.67+ needs
// none, and refuses one with service tokens).
func serviceAt(pc *gophercloud.ProviderClient, u string, projectScoped bool) *gophercloud.ServiceClient {
	u = gophercloud.NormalizeURL(u)
	base := u
	if projectScoped {
		if i := strings.Index(u, "/v3/"); i >= 0 {
			rest := strings.Trim(u[i+len("/v3/"):], "/")
			if rest != "" && !strings.Contains(rest, "/") {
				base = u[:i+len("/v3/")]
			}
		}
	}
	sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u, ResourceBase: base, Type: "volumev3"}
	sc.MoreHeaders = map[string]string{"OpenStack-API-Version": "volume 3.0"}
	return sc
}

// retry is the provider client's RetryFunc: connection failures are
// retried [cinder]retries times, 503 answers status_code_retries times.
func (c *Client) retry(ctx context.Context, method, u string, _ *gophercloud.RequestOpts, err error, failCount uint) error {
	var rc gophercloud.ErrUnexpectedResponseCode
	limit := c.cfg.Retries
	if errors.As(err, &rc) {
		if rc.Actual != http.StatusServiceUnavailable {
			return err
		}
		limit = c.cfg.StatusCodeRetries
	} else if ctx.Err() != nil {
		return err
	}
	if int(failCount) > limit {
		return err
	}
	delay := time.Duration(math.Min(0.5*math.Pow(2, float64(failCount-1)), 60) * float64(time.Second))
	c.log.WarnContext(ctx, "retrying Cinder request", "method", method, "url", u, "attempt", failCount, "error", err)
	c.sleep(delay)
	return nil
}

// APIError is an error answer of Cinder. Error() renders it as
// cinderclient's ClientException does, since Ironic's messages embed
// that text.
type APIError struct {
	Status    int
	Message   string
	RequestID string
}

// StatusCode is the HTTP status.
func (e *APIError) StatusCode() int { return e.Status }

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status)
	if e.RequestID != "" {
		s += " (Request-ID: " + e.RequestID + ")"
	}
	return s
}

// ConnectError is a request that reached no Cinder.
type ConnectError struct {
	URL string
	Err error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("Unable to establish connection to %s: %v", e.URL, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

func (c *Client) translate(ctx context.Context, err error, u string) error {
	if err == nil {
		return nil
	}
	var rc gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &rc) {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			c.log.WarnContext(ctx, "Cinder unreachable", "url", urlErr.URL, "error", urlErr.Err)
			return &ConnectError{URL: urlErr.URL, Err: urlErr.Err}
		}
		return fmt.Errorf("unexpected answer of Cinder at %s: %w", u, err)
	}
	e := &APIError{Status: rc.Actual, RequestID: rc.ResponseHeader.Get("X-Openstack-Request-Id"), Message: http.StatusText(rc.Actual)}
	var doc map[string]any
	if json.Unmarshal(rc.Body, &doc) == nil {
		for _, v := range doc {
			if o, ok := v.(map[string]any); ok {
				if m, ok := o["message"].(string); ok {
					e.Message = m
				}
			}
		}
	}
	return e
}

// raw is a request body builder of a raw map.
type raw map[string]any

func (r raw) ToVolumeInitializeConnectionMap() (map[string]any, error) { return r, nil }
func (r raw) ToVolumeTerminateConnectionMap() (map[string]any, error)  { return r, nil }
func (r raw) ToVolumeAttachMap() (map[string]any, error)               { return r, nil }
func (r raw) ToVolumeDetachMap() (map[string]any, error)               { return r, nil }

// GetVolume implements storage.Cinder.
func (c *Client) GetVolume(ctx context.Context, id string) (*storage.Volume, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	// ExtractInto unwraps the "volume" key.
	var out struct {
		ID          string `json:"id"`
		Status      string `json:"status"`
		Multiattach bool   `json:"multiattach"`
		Attachments []struct {
			ServerID     *string `json:"server_id"`
			AttachmentID *string `json:"attachment_id"`
		} `json:"attachments"`
	}
	if err := volumes.Get(ctx, sc, id).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc.ServiceURL("volumes", id))
	}
	v := &storage.Volume{ID: out.ID, Status: out.Status, Multiattach: out.Multiattach}
	for _, a := range out.Attachments {
		att := storage.Attachment{}
		if a.ServerID != nil {
			att.ServerID = *a.ServerID
		}
		if a.AttachmentID != nil {
			att.AttachmentID = *a.AttachmentID
		}
		v.Attachments = append(v.Attachments, att)
	}
	return v, nil
}

// Reserve implements storage.Cinder.
func (c *Client) Reserve(ctx context.Context, id string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	return c.action(ctx, sc, id, "os-reserve")
}

// action posts {"<name>": null}, as cinderclient does for actions without
// arguments (gophercloud would send {}).
func (c *Client) action(ctx context.Context, sc *gophercloud.ServiceClient, id, name string) error {
	u := sc.ServiceURL("volumes", id, "action")
	resp, err := sc.Post(ctx, u, map[string]any{name: nil}, nil, &gophercloud.RequestOpts{OkCodes: []int{200, 202}})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	return c.translate(ctx, err, u)
}

// InitializeConnection implements storage.Cinder.
func (c *Client) InitializeConnection(ctx context.Context, id string, connector map[string]any) (map[string]any, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	r := volumes.InitializeConnection(ctx, sc, id, raw{"os-initialize_connection": map[string]any{"connector": connector}})
	if r.Err != nil {
		return nil, c.translate(ctx, r.Err, sc.ServiceURL("volumes", id, "action"))
	}
	// Numbers stay as Cinder wrote them (target_lun 0, not 0.0), since
	// the data is stored as the volume target's properties.
	b, err := json.Marshal(r.Body)
	if err != nil {
		return nil, err
	}
	var out struct {
		ConnectionInfo map[string]any `json:"connection_info"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("unexpected answer of Cinder to os-initialize_connection: %w", err)
	}
	if out.ConnectionInfo == nil {
		out.ConnectionInfo = map[string]any{}
	}
	return out.ConnectionInfo, nil
}

// Attach implements storage.Cinder.
func (c *Client) Attach(ctx context.Context, id, instanceUUID, mountpoint string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	body := raw{"os-attach": map[string]any{"instance_uuid": instanceUUID, "mountpoint": mountpoint, "mode": "rw"}}
	return c.translate(ctx, volumes.Attach(ctx, sc, id, body).ExtractErr(), sc.ServiceURL("volumes", id, "action"))
}

// BeginDetaching implements storage.Cinder.
func (c *Client) BeginDetaching(ctx context.Context, id string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	return c.action(ctx, sc, id, "os-begin_detaching")
}

// TerminateConnection implements storage.Cinder.
func (c *Client) TerminateConnection(ctx context.Context, id string, connector map[string]any) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	body := raw{"os-terminate_connection": map[string]any{"connector": connector}}
	return c.translate(ctx, volumes.TerminateConnection(ctx, sc, id, body).ExtractErr(), sc.ServiceURL("volumes", id, "action"))
}

// Detach implements storage.Cinder.
func (c *Client) Detach(ctx context.Context, id, attachmentID string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	var aid any
	if attachmentID != "" {
		aid = attachmentID
	}
	body := raw{"os-detach": map[string]any{"attachment_id": aid}}
	return c.translate(ctx, volumes.Detach(ctx, sc, id, body).ExtractErr(), sc.ServiceURL("volumes", id, "action"))
}

// Unreserve is the os-unreserve action (not part of storage.Cinder:
// Ironic never calls it; kept for operators' tooling and tests).
func (c *Client) Unreserve(ctx context.Context, id string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	return c.action(ctx, sc, id, "os-unreserve")
}

// SetMetadata implements storage.Cinder.
func (c *Client) SetMetadata(ctx context.Context, id string, metadata map[string]string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	u := sc.ServiceURL("volumes", id, "metadata")
	resp, err := sc.Post(ctx, u, map[string]any{"metadata": metadata}, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	return c.translate(ctx, err, u)
}
