package network

import (
	"context"
	"errors"
	"net/url"
)

// Neutron is what the network interfaces need of the Networking API
// (v2.0). drivers/network/neutronclient implements it over gophercloud;
// tests use it against test/fakeneutron.
//
// Errors answered by Neutron implement StatusCode() int, and their Error()
// is openstacksdk's rendering of them ("ResourceNotFound: 404: Client
// Error for url: ..., Port ... could not be found."), which Ironic embeds in
// its own messages. Other errors (Neutron unreachable, no endpoint) are
// returned as they are.
type Neutron interface {
	// GetPort is GET /v2.0/ports/{id}.
	GetPort(ctx context.Context, id string) (*NeutronPort, error)
	// UpdatePort is PUT /v2.0/ports/{id} with {"port": attrs}; a nil value
	// is sent as JSON null.
	UpdatePort(ctx context.Context, id string, attrs map[string]any) (*NeutronPort, error)
	// CreatePort is POST /v2.0/ports with {"port": attrs}.
	CreatePort(ctx context.Context, attrs map[string]any) (*NeutronPort, error)
	// DeletePort is DELETE /v2.0/ports/{id}.
	DeletePort(ctx context.Context, id string) error
	// ListPorts is GET /v2.0/ports with the given filters (a key repeated
	// for "any of"), every page.
	ListPorts(ctx context.Context, filters url.Values) ([]NeutronPort, error)
	// GetNetwork is GET /v2.0/networks/{id}.
	GetNetwork(ctx context.Context, id string) (*NeutronNetwork, error)
	// ListNetworks is GET /v2.0/networks with the given filters.
	ListNetworks(ctx context.Context, filters url.Values) ([]NeutronNetwork, error)
	// GetSubnet is GET /v2.0/subnets/{id}.
	GetSubnet(ctx context.Context, id string) (*NeutronSubnet, error)
	// ListAgents is GET /v2.0/agents with the given filters.
	ListAgents(ctx context.Context, filters url.Values) ([]NeutronAgent, error)
	// ListSecurityGroupIDs is GET /v2.0/security-groups with the given
	// filters: the IDs of the groups listed.
	ListSecurityGroupIDs(ctx context.Context, filters url.Values) ([]string, error)
}

// NeutronPort is a Neutron port, as far as Ironic reads it.
type NeutronPort struct {
	ID         string
	Name       string
	NetworkID  string
	MACAddress string
	Status     string
	FixedIPs   []FixedIP
	// HostID is binding:host_id, Profile binding:profile, VNICType
	// binding:vnic_type.
	HostID   string
	Profile  map[string]any
	VNICType string
	// IsSmartNIC is the port's "is_smartnic" key (Neutron has none;
	// openstacksdk's port dict answers False).
	IsSmartNIC bool
}

// FixedIP is one address of a port.
type FixedIP struct {
	SubnetID  string
	IPAddress string
}

// NeutronNetwork is a Neutron network, as far as Ironic reads it.
type NeutronNetwork struct {
	ID   string
	Name string
	MTU  int
	// PhysicalNetwork is provider:physical_network ("" when none).
	PhysicalNetwork string
	// Segments are the network's segments (multi-provider networks); nil
	// when the network has no "segments" attribute.
	Segments []Segment
}

// Segment is one segment of a multi-segment network.
type Segment struct {
	// PhysicalNetwork is the segment's provider:physical_network.
	PhysicalNetwork string
}

// NeutronSubnet is a Neutron subnet, as far as Ironic reads it.
type NeutronSubnet struct {
	ID              string
	CIDR            string
	IPVersion       int
	GatewayIP       string
	IPv6AddressMode string
	HostRoutes      []HostRoute
}

// HostRoute is one host route of a subnet.
type HostRoute struct {
	Destination string
	NextHop     string
}

// NeutronAgent is a Neutron agent.
type NeutronAgent struct {
	ID      string
	Host    string
	IsAlive bool
}

// statusCoder is how an error says which HTTP status Neutron answered.
type statusCoder interface{ StatusCode() int }

// neutronStatus is the HTTP status of a Neutron error answer, 0 for any
// other error.
func neutronStatus(err error) int {
	var sc statusCoder
	if errors.As(err, &sc) {
		return sc.StatusCode()
	}
	return 0
}

// isNeutronAnswer reports whether err is an error answer of Neutron
// (openstacksdk's OpenStackCloudException, which Ironic catches), as
// opposed to a connection failure.
func isNeutronAnswer(err error) bool { return neutronStatus(err) != 0 }

func isNotFound(err error) bool { return neutronStatus(err) == 404 }
