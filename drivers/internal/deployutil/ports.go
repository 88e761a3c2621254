package deployutil

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
)

// CreatePortsIfNotExist is Ironic's inspect_utils.create_ports_if_not_exist:
// a port for each valid MAC address (lower case, as Ironic's MAC field
// stores it), one that exists already logged and skipped, an invalid
// address logged and ignored.
func CreatePortsIfNotExist(ctx context.Context, task drivers.Task, macs []string, log *slog.Logger) error {
	for _, mac := range macs {
		if _, err := net.ParseMAC(mac); err != nil || strings.Count(mac, ":") != 5 {
			log.WarnContext(ctx, fmt.Sprintf("Ignoring NIC address %s for node %s because it is not a valid MAC", mac, task.NodeUUID()))
			continue
		}
		err := task.CreatePort(ctx, strings.ToLower(mac))
		switch {
		case ironic.IsClass(err, ironic.MACAlreadyExists):
			log.InfoContext(ctx, fmt.Sprintf("Port already exists for MAC address %s for node %s", mac, task.NodeUUID()))
		case err != nil:
			return err
		default:
			log.InfoContext(ctx, fmt.Sprintf("Port created for MAC address %s for node %s", mac, task.NodeUUID()))
		}
	}
	return nil
}
