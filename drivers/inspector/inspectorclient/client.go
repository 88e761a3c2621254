// Package inspectorclient implements inspector.Client over gophercloud's
// service client (the baremetalintrospection/v1 endpoint layout),
// configured as Ironic's [inspector] section configures keystoneauth:
// auth_type "none" (or unset) with endpoint_override talks to
// ironic-inspector unauthenticated; "password" gets a token from Keystone
// and finds the "baremetal-introspection" service in its catalog (or at
// endpoint_override). Errors read as openstacksdk's exceptions do, since
// Ironic's messages embed them. Nothing is contacted before the first
// call, so an inspector that is down doesn't stop the conductor starting.
package inspectorclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetalintrospection/v1/introspection"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers/inspector"
	"github.com/goironic/ironic/internal/keystoneauth"
	"github.com/goironic/ironic/internal/pyjson"
)

// Config is the [inspector] section's keystoneauth options.
type Config struct {
	// Options are the section's keystoneauth options (Section is set by
	// New); ServiceType defaults to "baremetal-introspection".
	keystoneauth.Options
}

// Client is an inspector.Client.
type Client struct {
	cfg Config
	log *slog.Logger
	svc keystoneauth.Service
}

var _ inspector.Client = (*Client)(nil)

// New returns a client; nothing is contacted before the first call.
func New(cfg Config, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "inspector"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "baremetal-introspection"
	}
	return &Client{cfg: cfg, log: log}
}

func (c *Client) service(ctx context.Context) (*gophercloud.ServiceClient, error) {
	return c.svc.Get(ctx, func(ctx context.Context) (*gophercloud.ServiceClient, error) {
		pc, u, _, err := keystoneauth.Connect(ctx, c.cfg.Options, nil)
		if err != nil {
			return nil, err
		}
		u = gophercloud.NormalizeURL(u)
		base := u + "v1/"
		if strings.HasSuffix(u, "/v1/") {
			base = u
		}
		sc := &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u, ResourceBase: base, Type: c.cfg.ServiceType}
		// Version discovery, once per client as keystoneauth's session
		// caches it: the endpoint's root.
		root := strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1") + "/"
		if _, err := c.do(ctx, sc, http.MethodGet, root, ""); err != nil {
			c.log.WarnContext(ctx, "ironic-inspector version discovery failed", "url", root, "error", err)
			return nil, ironic.Errorf(ironic.ConfigInvalid, "Could not contact ironic-inspector for version discovery: "+
				"Unable to find a version discovery document at %s, the service is unavailable or misconfigured. "+
				"Required version range (any - any), version hack disabled.", strings.TrimSuffix(u, "/"))
		}
		return sc, nil
	})
}

// Endpoint is the adapter's get_endpoint(): endpoint_override or the
// catalog's URL, as configured (no trailing slash added).
func (c *Client) Endpoint(ctx context.Context) (string, error) {
	if c.cfg.EndpointOverride != "" {
		return c.cfg.EndpointOverride, nil
	}
	sc, err := c.service(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(sc.Endpoint, "/"), nil
}

// StartIntrospection is openstacksdk's start_introspection.
func (c *Client) StartIntrospection(ctx context.Context, uuid string, manageBoot bool) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	u := sc.ServiceURL("introspection", uuid)
	if !manageBoot {
		u += "?manage_boot=False"
	}
	_, err = c.doBody(ctx, sc, http.MethodPost, u, "", map[string]string{"uuid": uuid})
	return err
}

// AbortIntrospection is abort_introspection (a 404 is no error, as
// ignore_missing=True makes it).
func (c *Client) AbortIntrospection(ctx context.Context, uuid string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, sc, http.MethodPost, sc.ServiceURL("introspection", uuid, "abort"),
		"Failed to abort introspection for node "+uuid)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil
	}
	return err
}

// GetIntrospection is get_introspection.
func (c *Client) GetIntrospection(ctx context.Context, uuid string) (inspector.Status, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return inspector.Status{}, err
	}
	body, err := c.do(ctx, sc, http.MethodGet, sc.ServiceURL("introspection", uuid), "No Introspection found for "+uuid)
	if err != nil {
		return inspector.Status{}, err
	}
	var st introspection.Introspection
	if err := json.Unmarshal(body, &st); err != nil {
		return inspector.Status{}, fmt.Errorf("ironic-inspector's status of %s: %w", uuid, err)
	}
	return inspector.Status{Finished: st.Finished, Error: st.Error}, nil
}

// GetIntrospectionData is get_introspection_data(processed=True).
func (c *Client) GetIntrospectionData(ctx context.Context, uuid string) (*pyjson.Dict, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	body, err := c.do(ctx, sc, http.MethodGet, sc.ServiceURL("introspection", uuid, "data"),
		"Failed to fetch introspection data for node "+uuid)
	if err != nil {
		return nil, err
	}
	d := pyjson.NewDict(0)
	if err := json.Unmarshal(body, d); err != nil {
		return nil, fmt.Errorf("ironic-inspector's data of %s: %w", uuid, err)
	}
	return d, nil
}

// do sends one request (with the token, when there is one) and returns
// the answer's body; an answer of 400 or more is an *APIError.
func (c *Client) do(ctx context.Context, sc *gophercloud.ServiceClient, method, u, errMsg string) ([]byte, error) {
	return c.doBody(ctx, sc, method, u, errMsg, nil)
}

// doBody is do with a JSON body (nil for none).
func (c *Client) doBody(ctx context.Context, sc *gophercloud.ServiceClient, method, u, errMsg string, body any) ([]byte, error) {
	resp, err := sc.Request(ctx, method, u, &gophercloud.RequestOpts{
		KeepResponseBody: true, OkCodes: []int{200, 201, 202, 204}, JSONBody: body,
		MoreHeaders: map[string]string{"Accept": "application/json"},
	})
	if err != nil {
		var rc gophercloud.ErrUnexpectedResponseCode
		if errors.As(err, &rc) {
			return nil, newAPIError(rc, errMsg)
		}
		return nil, connectError(u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	return io.ReadAll(resp.Body)
}

// connectError words a transport failure as keystoneauth does.
func connectError(u string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("Request to %s timed out", u) //nolint:staticcheck // keystoneauth's wording.
	}
	return fmt.Errorf("Unable to establish connection to %s: %w", u, err) //nolint:staticcheck // keystoneauth's wording.
}

// APIError is an error answer of ironic-inspector, worded as
// openstacksdk's HttpException.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// URL is the request's URL.
	URL string
	// Details are the answer's error message(s).
	Details string
	// Message is the exception's message ("<Class>: <status>" unless
	// the call names one).
	Message string
}

func (e *APIError) Error() string {
	source := "Server"
	if e.Status >= 400 && e.Status < 500 {
		source = "Client"
	}
	s := fmt.Sprintf("%s: %s Error for url: %s", e.Message, source, e.URL)
	if e.Details != "" {
		s += ", " + e.Details
	}
	return s
}

func newAPIError(rc gophercloud.ErrUnexpectedResponseCode, msg string) *APIError {
	e := &APIError{Status: rc.Actual, URL: rc.URL}
	if msg == "" {
		cls := "HttpException"
		switch rc.Actual {
		case http.StatusConflict:
			cls = "ConflictException"
		case http.StatusNotFound:
			cls = "NotFoundException"
		case http.StatusBadRequest:
			cls = "BadRequestException"
		case http.StatusPreconditionFailed:
			cls = "PreconditionFailedException"
		}
		msg = fmt.Sprintf("%s: %d", cls, rc.Actual)
	}
	e.Message = msg
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(rc.Body, &body) == nil && body.Error.Message != "" {
		e.Details = body.Error.Message
	} else if t := strings.TrimSpace(string(bytes.TrimSpace(rc.Body))); t != "" {
		e.Details = t
	} else {
		e.Details = http.StatusText(rc.Actual)
	}
	return e
}
