package apiv1

import (
	"net/http"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
)

// nodeAllocationArgs are NodeAllocationController.get_all's parameters.
var nodeAllocationArgs = params(opt("fields", stringListArg))

// nodeAllocation is NodeAllocationController.get_all: the node's
// allocation, or "Allocation for node <ident> was not found". As
// _get_allocations_collection looks the parent node up, a node that is not
// found is a 400.
func (a *API) nodeAllocation(rq *Request) (*Response, error) {
	b, err := nodeAllocationArgs.bind(rq)
	if err != nil {
		return nil, err
	}
	fields := b.list("fields")
	n, err := a.findNodeOnce(rq, rq.Var("node"))
	if err != nil {
		return nil, withStatus(err, ironic.NodeNotFound, http.StatusBadRequest)
	}
	// _get_allocations_collection(parent_node): the node must be visible
	// (else a plain 404), then the allocation under allocation:get.
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:node:get", nodeTarget(n)); err != nil {
		if ironic.IsClass(err, ironic.HTTPForbidden) {
			return nil, ironic.Errorf(ironic.NotFound, "Resource could not be found.")
		}
		return nil, err
	}
	al, err := a.allocationOfNode(rq, n)
	if err != nil {
		return nil, err
	}
	if err := a.d.Policy.Authorize(ctx, "baremetal:allocation:get", allocationTarget(al)); err != nil {
		return nil, err
	}
	if err := checkAllocationFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	out, err := a.allocationView(rq, al, fields)
	if err != nil {
		return nil, err
	}
	return OK(out), nil
}

// deleteNodeAllocation is NodeAllocationController.delete: the node's
// allocation is removed by the conductor (destroy_allocation).
func (a *API) deleteNodeAllocation(rq *Request) (*Response, error) {
	n, err := a.subNode(rq, "baremetal:node:get")
	if err != nil {
		return nil, err
	}
	al, err := a.allocationOfNode(rq, n)
	if err != nil {
		return nil, err
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:allocation:delete", allocationTarget(al)); err != nil {
		return nil, err
	}
	topic, err := a.randomTopic(rq)
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.DestroyAllocation(rq.Ctx(), topic, al); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// allocationOfNode is the allocation of n, or "Allocation for node
// <ident as given> was not found".
func (a *API) allocationOfNode(rq *Request, n *models.Node) (*models.Allocation, error) {
	uuid := n.UUID
	als, err := a.d.Store.ListAllocations(rq.Ctx(), db.AllocationFilter{NodeUUID: &uuid}, db.ListOpts{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(als) == 0 {
		return nil, ironic.Errorf(ironic.AllocationNotFound, "Allocation for node %s was not found", rq.Var("node"))
	}
	return &als[0], nil
}
