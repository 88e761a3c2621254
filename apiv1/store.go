package apiv1

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/rpc"
)

// Store is what the API reads (and, where Ironic's API writes directly,
// writes) in the database. Each resource file declares the part it uses;
// *db.Store satisfies the whole.
type Store interface {
	nodeStore
	portStore
	portgroupStore
	chassisStore
	driverStore
	conductorStore
	templateStore
	volumeStore
	miscStore
}

// Conductor is the RPC client: the conductor API plus the routing that
// picks the conductor owning a node.
type Conductor interface {
	rpc.ConductorAPI
	ConductorFor(ctx context.Context, n *models.Node) (string, error)
	TopicFor(ctx context.Context, n *models.Node) (string, error)
	TopicForDriver(ctx context.Context, driver string) (string, error)
	// PickHost picks one of hosts at random (get_random_topic).
	PickHost(hosts []string) string
}

// Policy authorizes requests (oslo.policy rules named as Ironic names
// them, e.g. "baremetal:node:get").
type Policy interface {
	// Authorize fails with a 403 fault when rule denies the caller.
	Authorize(ctx context.Context, rule string, target map[string]string) error
	// Check evaluates a rule without failing (policy.check).
	Check(ctx context.Context, rule string, target map[string]string) bool
}

// AllowAll is the policy of noauth and http_basic: Ironic skips
// authorization then, but rules evaluated with policy.check still run, and
// "show_password"/"show_instance_secrets" default to "!" (never).
type AllowAll struct{}

// Authorize allows everything.
func (AllowAll) Authorize(context.Context, string, map[string]string) error { return nil }

// Check is false only for the rules whose default is "!".
func (AllowAll) Check(_ context.Context, rule string, _ map[string]string) bool {
	return rule != "show_password" && rule != "show_instance_secrets"
}

var _ = ironic.NotFound
