package oslo

import (
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/objects"
)

// The Ironic objects this codec carries (their field tables and
// primitives are package objects').
var (
	nodeDef       = objects.NodeDef()
	portDef       = objects.PortDef()
	portgroupDef  = objects.PortgroupDef()
	connectorDef  = objects.VolumeConnectorDef()
	targetDef     = objects.VolumeTargetDef()
	allocationDef = objects.AllocationDef()
)

type (
	port      = models.Port
	portgroup = models.Portgroup
)
