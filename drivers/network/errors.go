package network

import (
	"context"
	"errors"
	"net/url"

	"github.com/goironic/ironic"
)

// neutronFailure marks an error of the Neutron client that is not a
// fault: an error answer Ironic doesn't catch, or a Neutron that can't be
// reached. Ironic lets such openstacksdk and keystoneauth exceptions
// through with their text; done makes them NetworkError faults.
type neutronFailure struct{ err error }

func (e *neutronFailure) Error() string { return e.err.Error() }
func (e *neutronFailure) Unwrap() error { return e.err }

// done turns what leaves an interface method into what the conductor
// expects: faults as they are, Neutron failures as NetworkError faults
// with their text, anything else (a database error) unchanged.
func done(err error) error {
	var f *ironic.Fault
	var nf *neutronFailure
	switch {
	case err == nil, errors.As(err, &f):
		return err
	case errors.As(err, &nf):
		return ironic.Errorf(ironic.NetworkError, "%s", err.Error())
	}
	return err
}

func isMissingParameter(err error) bool { return ironic.IsClass(err, ironic.MissingParameterValue) }

func mark(err error) error {
	var f *ironic.Fault
	if err == nil || errors.As(err, &f) {
		return err
	}
	return &neutronFailure{err: err}
}

// marked is a Neutron whose non-fault errors are marked as Neutron
// failures.
type marked struct{ api Neutron }

func (m marked) GetPort(ctx context.Context, id string) (*NeutronPort, error) {
	p, err := m.api.GetPort(ctx, id)
	return p, mark(err)
}

func (m marked) UpdatePort(ctx context.Context, id string, attrs map[string]any) (*NeutronPort, error) {
	p, err := m.api.UpdatePort(ctx, id, attrs)
	return p, mark(err)
}

func (m marked) CreatePort(ctx context.Context, attrs map[string]any) (*NeutronPort, error) {
	p, err := m.api.CreatePort(ctx, attrs)
	return p, mark(err)
}

func (m marked) DeletePort(ctx context.Context, id string) error {
	return mark(m.api.DeletePort(ctx, id))
}

func (m marked) ListPorts(ctx context.Context, filters url.Values) ([]NeutronPort, error) {
	l, err := m.api.ListPorts(ctx, filters)
	return l, mark(err)
}

func (m marked) GetNetwork(ctx context.Context, id string) (*NeutronNetwork, error) {
	n, err := m.api.GetNetwork(ctx, id)
	return n, mark(err)
}

func (m marked) ListNetworks(ctx context.Context, filters url.Values) ([]NeutronNetwork, error) {
	l, err := m.api.ListNetworks(ctx, filters)
	return l, mark(err)
}

func (m marked) GetSubnet(ctx context.Context, id string) (*NeutronSubnet, error) {
	s, err := m.api.GetSubnet(ctx, id)
	return s, mark(err)
}

func (m marked) ListAgents(ctx context.Context, filters url.Values) ([]NeutronAgent, error) {
	l, err := m.api.ListAgents(ctx, filters)
	return l, mark(err)
}

func (m marked) ListSecurityGroupIDs(ctx context.Context, filters url.Values) ([]string, error) {
	l, err := m.api.ListSecurityGroupIDs(ctx, filters)
	return l, mark(err)
}

func isVIFNotAttached(err error) bool { return ironic.IsClass(err, ironic.VifNotAttached) }
