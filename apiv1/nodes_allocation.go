package apiv1

import (
	"net/http"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
)

// nodeAllocation is NodeAllocationController: the node's allocation, or
// "Allocation for node <ident> was not found".
func (a *API) nodeAllocation(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("fields"); err != nil {
		return nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
	n, err := a.nodeFor(rq, "baremetal:node:get")
	if err != nil {
		return nil, err
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:allocation:get", nil); err != nil {
		return nil, err
	}
	uuid := n.UUID
	als, err := a.d.Store.ListAllocations(rq.Ctx(), db.AllocationFilter{NodeUUID: &uuid}, db.ListOpts{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(als) == 0 {
		return nil, ironic.Errorf(ironic.AllocationNotFound, "Allocation for node %s was not found", rq.Var("node"))
	}
	if err := checkAllocationFieldsAllowed(rq.Ver, fields); err != nil {
		return nil, err
	}
	out, err := a.renderAllocation(rq, &als[0])
	if err != nil {
		return nil, err
	}
	return OK(sanitizeAllocation(rq.Ver, out, fields)), nil
}

// deleteNodeAllocation is NodeAllocationController.delete: the node's
// allocation is removed by the conductor (destroy_allocation).
func (a *API) deleteNodeAllocation(rq *Request) (*Response, error) {
	n, err := a.nodeFor(rq, "baremetal:node:get")
	if err != nil {
		return nil, err
	}
	uuid := n.UUID
	als, err := a.d.Store.ListAllocations(rq.Ctx(), db.AllocationFilter{NodeUUID: &uuid}, db.ListOpts{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(als) == 0 {
		return nil, ironic.Errorf(ironic.AllocationNotFound, "Allocation for node %s was not found", rq.Var("node"))
	}
	topic, err := a.randomTopic(rq)
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.DestroyAllocation(rq.Ctx(), topic, &als[0]); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}
