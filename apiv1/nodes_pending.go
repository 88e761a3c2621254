package apiv1

import (
	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	mv "github.com/goironic/ironic/microversions"
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

// deleteNodeAllocation is NodeAllocationController.delete: the allocation
// is found as Ironic finds it; removing it is the conductor's
// destroy_allocation, which this release's RPC API doesn't carry.
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
	if err := a.randomTopic(rq); err != nil {
		return nil, err
	}
	return nil, a.missingRPC(rq.Ctx(), "destroy_allocation", als[0].UUID)
}

// notYet answers a node action that needs a conductor call this release
// doesn't have (they arrive with the state machine): the node is looked
// up and the version gate applied as Ironic does, then the action is
// refused as an unsupported driver extension, naming what is missing.
func (a *API) notYet(policy, extension string, min mv.Version) handlerFunc {
	return func(rq *Request) (*Response, error) {
		if !rq.Ver.AtLeast(min) {
			return nil, notAcceptable()
		}
		n, err := a.nodeFor(rq, policy)
		if err != nil {
			return nil, err
		}
		return nil, ironic.Errorf(ironic.UnsupportedDriverExtension,
			"Driver %s does not support %s (disabled or not implemented): not in this release.", n.Driver, extension)
	}
}
