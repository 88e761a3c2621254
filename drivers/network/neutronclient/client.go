// Package neutronclient implements network.Neutron over gophercloud's
// networking v2 packages, configured as Ironic's [neutron] section
// configures keystoneauth: auth_type "none" (or unset) with
// endpoint_override talks to Neutron unauthenticated; "password" and
// "v3password" get a token from Keystone and find Neutron in its catalog
// (or at endpoint_override). The client is built on first use, so that a
// Keystone or Neutron that is down doesn't stop the conductor from
// starting.
package neutronclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/agents"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/internal/keystoneauth"
)

// Config is the [neutron] section's keystoneauth options, under their
// Ironic names.
type Config struct {
	// Options are the section's keystoneauth options (Section is set
	// by New); ServiceType defaults to "network".
	keystoneauth.Options

	// ConnectRetries retries requests that could not connect,
	// StatusCodeRetries those answered 503; a zero delay backs off
	// exponentially from 0.5 s to 60 s, as keystoneauth does.
	ConnectRetries       int
	ConnectRetryDelay    time.Duration
	StatusCodeRetries    int
	StatusCodeRetryDelay time.Duration
}

// Client is a network.Neutron.
type Client struct {
	cfg Config
	log *slog.Logger
	// sleep waits between retries.
	sleep func(time.Duration)

	svc keystoneauth.Service
}

var _ network.Neutron = (*Client)(nil)

// New returns a client; nothing is contacted before the first call.
func New(cfg Config, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Section = "neutron"
	if cfg.ServiceType == "" {
		cfg.ServiceType = "network"
	}
	return &Client{cfg: cfg, log: log, sleep: time.Sleep}
}

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

// serviceAt is the networking client of the endpoint u, with or without
// its "/v2.0" suffix.
func serviceAt(pc *gophercloud.ProviderClient, u string) *gophercloud.ServiceClient {
	u = gophercloud.NormalizeURL(u)
	base := u + "v2.0/"
	if strings.HasSuffix(u, "/v2.0/") {
		base = u
	}
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: u, ResourceBase: base, Type: "network"}
}

// retry is the provider client's RetryFunc: connection failures and 503
// answers are retried as keystoneauth's connect_retries and
// status_code_retries say.
func (c *Client) retry(ctx context.Context, method, u string, _ *gophercloud.RequestOpts, err error, failCount uint) error {
	var rc gophercloud.ErrUnexpectedResponseCode
	limit, delay := c.cfg.ConnectRetries, c.cfg.ConnectRetryDelay
	if errors.As(err, &rc) {
		if rc.Actual != http.StatusServiceUnavailable {
			return err
		}
		limit, delay = c.cfg.StatusCodeRetries, c.cfg.StatusCodeRetryDelay
	} else if ctx.Err() != nil {
		return err
	}
	if int(failCount) > limit {
		return err
	}
	if delay == 0 {
		delay = time.Duration(math.Min(0.5*math.Pow(2, float64(failCount-1)), 60) * float64(time.Second))
	}
	c.log.WarnContext(ctx, "retrying Neutron request", "method", method, "url", u, "attempt", failCount, "error", err)
	c.sleep(delay)
	return nil
}

// APIError is an error answer of Neutron. Error() renders it as
// openstacksdk does, since Ironic's messages embed that text.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// URL is the request's URL.
	URL string
	// Details are the messages of the answer's NeutronError.
	Details string
	// Message is openstacksdk's exception message: "No Port found for
	// <id>" for a GET of one resource, else "<class>: <status>".
	Message string
}

// StatusCode implements network's status interface.
func (e *APIError) StatusCode() int { return e.Status }

func (e *APIError) Error() string {
	source := "Server"
	if e.Status >= 400 && e.Status < 500 {
		source = "Client"
	}
	remote := source + " Error for url: " + e.URL
	if e.Details != "" {
		remote += ", " + e.Details
	}
	return e.Message + ": " + remote
}

// ConnectError is a request that reached no Neutron (keystoneauth's
// ConnectFailure). When no connection could be opened at all, the text is
// that of the version discovery failure Ironic reports, since its client
// always starts with a discovery request.
type ConnectError struct {
	URL string
	Err error
	// Endpoint is set when the connection was refused: the endpoint
	// discovery would have been tried at.
	Endpoint string
}

func (e *ConnectError) Error() string {
	if e.Endpoint != "" {
		return fmt.Sprintf("Unable to find a version discovery document at %s, the service is unavailable or misconfigured. Required version range (any - any), version hack disabled.", e.Endpoint)
	}
	return fmt.Sprintf("Unable to establish connection to %s: %v", e.URL, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// sdkClass is openstacksdk's exception class for a status.
func sdkClass(status int) string {
	switch status {
	case 409:
		return "ConflictException"
	case 404:
		return "ResourceNotFound"
	case 400:
		return "BadRequestException"
	case 412:
		return "PreconditionFailedException"
	}
	return "HttpException"
}

// translate turns gophercloud's errors into APIError and ConnectError.
// getOf names the resource kind and ID of a GET of one resource.
func (c *Client) translate(ctx context.Context, err error, sc *gophercloud.ServiceClient, u string, getOf ...string) error {
	if err == nil {
		return nil
	}
	var rc gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &rc) {
		var urlErr *url.Error
		if !errors.As(err, &urlErr) {
			return fmt.Errorf("unexpected answer of Neutron at %s: %w", u, err)
		}
		ce := &ConnectError{URL: urlErr.URL, Err: urlErr.Err}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			ce.Endpoint = c.cfg.EndpointOverride
			if ce.Endpoint == "" {
				ce.Endpoint = strings.TrimSuffix(sc.Endpoint, "/")
			}
		}
		c.log.WarnContext(ctx, "Neutron unreachable", "url", urlErr.URL, "error", urlErr.Err)
		return ce
	}
	e := &APIError{Status: rc.Actual, URL: rc.URL, Details: details(rc)}
	if len(getOf) == 2 {
		e.Message = fmt.Sprintf("No %s found for %s", getOf[0], getOf[1])
	} else {
		e.Message = fmt.Sprintf("%s: %d", sdkClass(rc.Actual), rc.Actual)
	}
	return e
}

// details is openstacksdk's raise_from_response: the "message" (or
// "faultstring") of every object of the JSON answer, else the reason.
func details(rc gophercloud.ErrUnexpectedResponseCode) string {
	if strings.Contains(rc.ResponseHeader.Get("Content-Type"), "application/json") && len(rc.Body) > 0 {
		var doc map[string]any
		if err := json.Unmarshal(rc.Body, &doc); err == nil {
			var msgs []string
			for _, v := range doc {
				if m := message(v); m != "" {
					msgs = append(msgs, m)
				}
			}
			if len(msgs) == 0 {
				if m := message(doc); m != "" {
					msgs = append(msgs, m)
				}
			}
			if len(msgs) > 0 {
				return strings.Join(msgs, "\n")
			}
		} else {
			return string(rc.Body)
		}
	}
	return http.StatusText(rc.Actual)
}

func message(v any) string {
	o, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for _, k := range []string{"message", "faultstring"} {
		if s, ok := o[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// body is an UpdateOptsBuilder/CreateOptsBuilder of a raw attribute map.
type body struct{ attrs map[string]any }

func (b body) ToPortUpdateMap() (map[string]any, error) { return map[string]any{"port": b.attrs}, nil }
func (b body) ToPortCreateMap() (map[string]any, error) { return map[string]any{"port": b.attrs}, nil }

// query is a ListOptsBuilder of raw filters.
type query url.Values

func (q query) encode() (string, error) {
	if len(q) == 0 {
		return "", nil
	}
	return "?" + url.Values(q).Encode(), nil
}
func (q query) ToPortListQuery() (string, error)    { return q.encode() }
func (q query) ToNetworkListQuery() (string, error) { return q.encode() }
func (q query) ToAgentListQuery() (string, error)   { return q.encode() }

// portJSON is a port as Neutron sends it.
type portJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	NetworkID  string `json:"network_id"`
	MACAddress string `json:"mac_address"`
	Status     string `json:"status"`
	FixedIPs   []struct {
		SubnetID  string `json:"subnet_id"`
		IPAddress string `json:"ip_address"`
	} `json:"fixed_ips"`
	HostID     string         `json:"binding:host_id"`
	Profile    map[string]any `json:"binding:profile"`
	VNICType   string         `json:"binding:vnic_type"`
	IsSmartNIC bool           `json:"is_smartnic"`
}

func (p portJSON) port() network.NeutronPort {
	out := network.NeutronPort{ID: p.ID, Name: p.Name, NetworkID: p.NetworkID, MACAddress: p.MACAddress,
		Status: p.Status, HostID: p.HostID, Profile: p.Profile, VNICType: p.VNICType, IsSmartNIC: p.IsSmartNIC}
	for _, f := range p.FixedIPs {
		out.FixedIPs = append(out.FixedIPs, network.FixedIP{SubnetID: f.SubnetID, IPAddress: f.IPAddress})
	}
	return out
}

// networkJSON is a network as Neutron sends it.
type networkJSON struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	MTU             int     `json:"mtu"`
	PhysicalNetwork *string `json:"provider:physical_network"`
	Segments        *[]struct {
		PhysicalNetwork *string `json:"provider:physical_network"`
	} `json:"segments"`
}

func (n networkJSON) network() network.NeutronNetwork {
	out := network.NeutronNetwork{ID: n.ID, Name: n.Name, MTU: n.MTU}
	if n.PhysicalNetwork != nil {
		out.PhysicalNetwork = *n.PhysicalNetwork
	}
	if n.Segments != nil {
		out.Segments = []network.Segment{}
		for _, s := range *n.Segments {
			seg := network.Segment{}
			if s.PhysicalNetwork != nil {
				seg.PhysicalNetwork = *s.PhysicalNetwork
			}
			out.Segments = append(out.Segments, seg)
		}
	}
	return out
}

// GetPort implements network.Neutron.
func (c *Client) GetPort(ctx context.Context, id string) (*network.NeutronPort, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out portJSON
	if err := ports.Get(ctx, sc, id).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("ports", id), "Port", id)
	}
	p := out.port()
	return &p, nil
}

// UpdatePort implements network.Neutron.
func (c *Client) UpdatePort(ctx context.Context, id string, attrs map[string]any) (*network.NeutronPort, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out portJSON
	if err := ports.Update(ctx, sc, id, body{attrs}).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("ports", id))
	}
	p := out.port()
	return &p, nil
}

// CreatePort implements network.Neutron.
func (c *Client) CreatePort(ctx context.Context, attrs map[string]any) (*network.NeutronPort, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out portJSON
	if err := ports.Create(ctx, sc, body{attrs}).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("ports"))
	}
	p := out.port()
	return &p, nil
}

// DeletePort implements network.Neutron.
func (c *Client) DeletePort(ctx context.Context, id string) error {
	sc, err := c.service(ctx)
	if err != nil {
		return err
	}
	return c.translate(ctx, ports.Delete(ctx, sc, id).ExtractErr(), sc, sc.ServiceURL("ports", id))
}

// ListPorts implements network.Neutron.
func (c *Client) ListPorts(ctx context.Context, filters url.Values) ([]network.NeutronPort, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	page, err := ports.List(sc, query(filters)).AllPages(ctx)
	if err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("ports"))
	}
	var raw []portJSON
	if err := ports.ExtractPortsInto(page, &raw); err != nil {
		return nil, err
	}
	out := make([]network.NeutronPort, len(raw))
	for i, p := range raw {
		out[i] = p.port()
	}
	return out, nil
}

// GetNetwork implements network.Neutron.
func (c *Client) GetNetwork(ctx context.Context, id string) (*network.NeutronNetwork, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out networkJSON
	if err := networks.Get(ctx, sc, id).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("networks", id), "Network", id)
	}
	n := out.network()
	return &n, nil
}

// ListNetworks implements network.Neutron.
func (c *Client) ListNetworks(ctx context.Context, filters url.Values) ([]network.NeutronNetwork, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	page, err := networks.List(sc, query(filters)).AllPages(ctx)
	if err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("networks"))
	}
	var raw []networkJSON
	if err := networks.ExtractNetworksInto(page, &raw); err != nil {
		return nil, err
	}
	out := make([]network.NeutronNetwork, len(raw))
	for i, n := range raw {
		out[i] = n.network()
	}
	return out, nil
}

// GetSubnet implements network.Neutron.
func (c *Client) GetSubnet(ctx context.Context, id string) (*network.NeutronSubnet, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out struct {
		Subnet struct {
			ID              string  `json:"id"`
			CIDR            string  `json:"cidr"`
			IPVersion       int     `json:"ip_version"`
			GatewayIP       *string `json:"gateway_ip"`
			IPv6AddressMode *string `json:"ipv6_address_mode"`
			HostRoutes      []struct {
				Destination string `json:"destination"`
				NextHop     string `json:"nexthop"`
			} `json:"host_routes"`
		} `json:"subnet"`
	}
	if err := subnets.Get(ctx, sc, id).ExtractInto(&out); err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("subnets", id), "Subnet", id)
	}
	s := out.Subnet
	sn := &network.NeutronSubnet{ID: s.ID, CIDR: s.CIDR, IPVersion: s.IPVersion}
	if s.GatewayIP != nil {
		sn.GatewayIP = *s.GatewayIP
	}
	if s.IPv6AddressMode != nil {
		sn.IPv6AddressMode = *s.IPv6AddressMode
	}
	for _, r := range s.HostRoutes {
		sn.HostRoutes = append(sn.HostRoutes, network.HostRoute{Destination: r.Destination, NextHop: r.NextHop})
	}
	return sn, nil
}

// ListAgents implements network.Neutron.
func (c *Client) ListAgents(ctx context.Context, filters url.Values) ([]network.NeutronAgent, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	var out []network.NeutronAgent
	err = agents.List(sc, query(filters)).EachPage(ctx, func(_ context.Context, p pagination.Page) (bool, error) {
		as, err := agents.ExtractAgents(p)
		for _, a := range as {
			out = append(out, network.NeutronAgent{ID: a.ID, Host: a.Host, IsAlive: a.Alive})
		}
		return true, err
	})
	if err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("agents"))
	}
	return out, nil
}

// ListSecurityGroupIDs implements network.Neutron.
func (c *Client) ListSecurityGroupIDs(ctx context.Context, filters url.Values) ([]string, error) {
	sc, err := c.service(ctx)
	if err != nil {
		return nil, err
	}
	// groups.List takes a fixed ListOpts, which can't repeat "id".
	q, err := query(filters).encode()
	if err != nil {
		return nil, err
	}
	pager := pagination.NewPager(sc, sc.ServiceURL("security-groups")+q, func(r pagination.PageResult) pagination.Page {
		return groups.SecGroupPage{LinkedPageBase: pagination.LinkedPageBase{PageResult: r}}
	})
	var out []string
	err = pager.EachPage(ctx, func(_ context.Context, p pagination.Page) (bool, error) {
		gs, err := groups.ExtractGroups(p)
		for _, g := range gs {
			out = append(out, g.ID)
		}
		return true, err
	})
	if err != nil {
		return nil, c.translate(ctx, err, sc, sc.ServiceURL("security-groups"))
	}
	return out, nil
}
