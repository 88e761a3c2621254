package db

import (
	"context"
	"database/sql"
	"errors"

	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/states"
)

// BootNode is the part of a node its boot script is made from.
type BootNode struct {
	ID                 int64
	UUID               string
	ProvisionState     *states.Provision
	DeployInterface    *string
	DriverInfo         models.JSONDict
	InstanceInfo       models.JSONDict
	DriverInternalInfo models.JSONDict
}

const bootNodeCols = "`nodes`.`id`, `nodes`.`uuid`, `nodes`.`provision_state`, `nodes`.`deploy_interface`, " +
	"`nodes`.`driver_info`, `nodes`.`instance_info`, `nodes`.`driver_internal_info`"

// GetBootNodeByUUID reads what a node's boot script needs in one narrow
// query (a booting node asks for its script on every boot, possibly
// thousands at once); found is false when no node has that UUID.
func (s *Store) GetBootNodeByUUID(ctx context.Context, uuid string) (*BootNode, bool, error) {
	return s.bootNode(ctx, "SELECT "+bootNodeCols+" FROM `nodes` WHERE `nodes`.`uuid` = ? LIMIT 1", uuid)
}

// GetBootNodeByPortAddress is GetBootNodeByUUID for the node of the port
// with MAC address (lower case, colons).
func (s *Store) GetBootNodeByPortAddress(ctx context.Context, address string) (*BootNode, bool, error) {
	return s.bootNode(ctx, "SELECT "+bootNodeCols+" FROM `ports` JOIN `nodes` ON `ports`.`node_id` = `nodes`.`id` "+
		"WHERE `ports`.`address` = ? LIMIT 1", address)
}

func (s *Store) bootNode(ctx context.Context, q string, arg string) (*BootNode, bool, error) {
	var n BootNode
	err := s.db.QueryRowContext(ctx, q, arg).Scan(&n.ID, &n.UUID, &n.ProvisionState, &n.DeployInterface,
		&n.DriverInfo, &n.InstanceInfo, &n.DriverInternalInfo)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &n, true, nil
}
