package apiv1

import (
	"net/http"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
)

// splitIndicator is IndicatorAtComponent: "<name>@<component>".
func splitIndicator(unique string) (name, component string, err error) {
	i := strings.IndexByte(unique, '@')
	if i < 0 {
		return "", "", ironic.Errorf(ironic.InvalidParameterValue, "Malformed indicator name \"%s\"", unique)
	}
	return unique[:i], unique[i+1:], nil
}

// The parameters of IndicatorController's methods.
var (
	indicatorListArgs = params(req("node_ident", uuidOrNameArg)).withKwargs()
	indicatorGetArgs  = params(req("node_ident", uuidOrNameArg), req("indicator", strArg))
	indicatorSetArgs  = params(req("node_ident", uuidOrNameArg), req("indicator", strArg), req("state", strArg))
)

// indicatorAction is the node action on an indicator: the node under
// policy, the indicator's name and component, then the node's conductor
// topic.
func (a *API) indicatorAction(rq *Request, b args, policy string) (n *models.Node, topic, name, comp string, err error) {
	n, topic, err = a.nodeAction(rq, policy, b.ident("node_ident"), func(*models.Node) (err error) {
		name, comp, err = splitIndicator(b.strOr("indicator", "None"))
		return err
	})
	return n, topic, name, comp, err
}

// listIndicators is IndicatorController.get_all.
func (a *API) listIndicators(rq *Request) (*Response, error) {
	b, err := indicatorListArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	n, topic, err := a.nodeAction(rq, "baremetal:node:get_indicator_state", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	inds, err := a.d.Conductor.GetSupportedIndicators(rq.Ctx(), topic, n.UUID, "")
	if err != nil {
		return nil, err
	}
	comps := make([]string, 0, len(inds))
	for c := range inds {
		comps = append(comps, c)
	}
	slices.Sort(comps)
	base, ident := rq.BaseURL(), b.ident("node_ident")
	items := []any{}
	for _, c := range comps {
		names := make([]string, 0, len(inds[c]))
		for name := range inds[c] {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			ind := inds[c][name]
			if name == "" {
				// A component without an ID (a chassis without UUID):
				// IndicatorAtComponent refuses the empty name.
				return nil, &ironic.Fault{Class: ironic.MissingParameterValue, Message: `Missing indicator name "%s"`}
			}
			unique := name + "@" + c
			states := ind.States
			if states == nil {
				states = []string{}
			}
			items = append(items, pyjson.Object{
				{Key: "name", Value: unique},
				{Key: "component", Value: c},
				{Key: "readonly", Value: ind.ReadOnly},
				{Key: "states", Value: states},
				{Key: "links", Value: []pyjson.Object{
					link("self", base+"/v1/nodes/"+ident+"/management/indicators/"+unique),
					link("bookmark", base+"/nodes/"+ident+"/management/indicators/"+unique),
				}},
			})
		}
	}
	return OK(pyjson.Object{{Key: "indicators", Value: items}}), nil
}

// getIndicator is IndicatorController.get_one.
func (a *API) getIndicator(rq *Request) (*Response, error) {
	b, err := indicatorGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	n, topic, name, comp, err := a.indicatorAction(rq, b, "baremetal:node:get_indicator_state")
	if err != nil {
		return nil, err
	}
	state, err := a.d.Conductor.GetIndicatorState(rq.Ctx(), topic, n.UUID, comp, name)
	if err != nil {
		return nil, err
	}
	return OK(pyjson.Object{{Key: "state", Value: state}}), nil
}

// setIndicator is IndicatorController.put.
func (a *API) setIndicator(rq *Request) (*Response, error) {
	b, err := indicatorSetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	state := b.strOr("state", "None")
	n, topic, name, comp, err := a.indicatorAction(rq, b, "baremetal:node:set_indicator_state")
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.SetIndicatorState(rq.Ctx(), topic, n.UUID, comp, name, state); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}
