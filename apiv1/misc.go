package apiv1

import (
	"context"
	"time"

	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
)

// miscStore is the part of the database the routes of misc*.go use: the
// ramdisk's lookup and heartbeat, and allocations (which Ironic's API
// reads, and patches, directly).
type miscStore interface {
	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
	GetNodeByID(ctx context.Context, id int64) (*models.Node, error)
	GetNodeByPortAddresses(ctx context.Context, addresses []string) (*models.Node, error)
	CheckNodeList(ctx context.Context, idents []string, project string) (map[string]string, error)
	GetOnlineConductors(ctx context.Context, heartbeatTimeout time.Duration) ([]string, error)
	ListAllocations(ctx context.Context, f db.AllocationFilter, o db.ListOpts) ([]models.Allocation, error)
	GetAllocationByUUID(ctx context.Context, uuid string) (*models.Allocation, error)
	GetAllocationByName(ctx context.Context, name string) (*models.Allocation, error)
	UpdateAllocation(ctx context.Context, ref db.Ref, values db.Values, updateNode bool) (*models.Allocation, error)
}
