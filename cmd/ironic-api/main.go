// Command ironic-api is the api half of a split Ironic deployment, reaching
// the other half over oslo.messaging on RabbitMQ. This release only has the
// all-in-one (cmd/ironic): rpc_transport=oslo is not implemented yet, so
// the command explains that and exits rather than pretend.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "ironic-api: the split deployment (rpc_transport = oslo over RabbitMQ) is not implemented in this release; run the all-in-one: ironic --config-file /etc/ironic/ironic.conf")
	os.Exit(2)
}
