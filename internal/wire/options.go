package wire

import (
	"github.com/goironic/ironic/apiv1"
	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/apiv1/policy"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/bootiso"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/inspector"
	"github.com/goironic/ironic/drivers/inspector/inspectorclient"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/drivers/network"
	"github.com/goironic/ironic/drivers/network/neutronclient"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/drivers/redfish"
	"github.com/goironic/ironic/drivers/storage"
	"github.com/goironic/ironic/drivers/storage/cinderclient"
	"github.com/goironic/ironic/internal/glance"
	"github.com/goironic/ironic/internal/novaclient"
	"github.com/goironic/ironic/internal/swift"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
)

// binds is a component's Config: it binds its options.
type binds[C any] interface {
	*C
	Bind(*option.Binder)
}

// bound returns a component's Config with its options bound through b
// (as component name, see option.Binder.Effective).
func bound[C any, P binds[C]](b *option.Binder, name string) C {
	var c C
	P(&c).Bind(b.For(name))
	return c
}

// The components of this build, by the name they bind under. Every
// binary builds a subset; Implemented binds them all.
const (
	compLog             = "log"
	compListen          = "listen"
	compTransport       = "rpc_transport"
	compDB              = "db"
	compDrivers         = "drivers"
	compFake            = "drivers/fake"
	compRedfish         = "drivers/redfish"
	compBootISO         = "drivers/bootiso"
	compIPMI            = "drivers/ipmi"
	compPXE             = "drivers/pxe"
	compIPXE            = "drivers/pxe/ipxe"
	compAgent           = "drivers/agent"
	compAgentClient     = "drivers/agent/client"
	compNetwork         = "drivers/network"
	compInspector       = "drivers/inspector"
	compInspectorClient = "drivers/inspector/inspectorclient"
	compNeutronClient   = "drivers/network/neutronclient"
	compStorage         = "drivers/storage"
	compCinderClient    = "drivers/storage/cinderclient"
	compSwift           = "swift"
	compGlance          = "glance"
	compNova            = "nova"
	compConductor       = "conductor"
	compRouter          = "rpc/router"
	compAMQP            = "rpc/amqp"
	compJSONRPC         = "rpc/jsonrpc"
	compAPI             = "apiv1"
	compPolicy          = "apiv1/policy"
	compAuth            = "apiv1/auth"
)

// bindAll binds the options of every component this build has.
func bindAll(b *option.Binder) {
	bound[logConfig](b, compLog)
	bound[listenConfig](b, compListen)
	bound[transportConfig](b, compTransport)
	bound[db.Config](b, compDB)
	bound[drivers.Config](b, compDrivers)
	bound[fake.Config](b, compFake)
	bound[redfish.Config](b, compRedfish)
	bound[bootiso.Config](b, compBootISO)
	bound[ipmi.Config](b, compIPMI)
	bound[pxe.Config](b, compPXE)
	bound[pxe.ScriptConfig](b, compIPXE)
	bound[agent.Config](b, compAgent)
	bound[agent.ClientConfig](b, compAgentClient)
	bound[network.Config](b, compNetwork)
	bound[inspector.Config](b, compInspector)
	bound[inspectorclient.Config](b, compInspectorClient)
	bound[neutronclient.Config](b, compNeutronClient)
	bound[storage.Config](b, compStorage)
	bound[cinderclient.Config](b, compCinderClient)
	bound[swift.Config](b, compSwift)
	bound[glance.Config](b, compGlance)
	bound[novaclient.Config](b, compNova)
	bound[conductor.Config](b, compConductor)
	bound[rpc.RouterConfig](b, compRouter)
	bound[amqp.Config](b, compAMQP)
	bound[jsonrpcConfig](b, compJSONRPC)
	bound[apiv1.Config](b, compAPI)
	bound[policy.Config](b, compPolicy)
	bound[auth.Config](b, compAuth)
}

// Implemented returns the options this build implements, whichever
// binary reads them: every option some component binds, and those their
// values refer to. It binds every component against cfg's values, so a
// bad value of any implemented option is an error here, at start-up.
func Implemented(cfg *conf.Config) ([]string, error) {
	b := option.NewBinder(cfg.Values())
	bindAll(b)
	return b.Read(), b.Err()
}

// logConfig is how the process logs.
type logConfig struct {
	// Debug is [DEFAULT]debug: log at debug level.
	Debug bool
}

func (c *logConfig) Bind(b *option.Binder) { b.Bool(&c.Debug, "DEFAULT", "debug") }

// listenConfig is where and how the API listens.
type listenConfig struct {
	// HostIP and Port are [api]host_ip and port.
	HostIP string
	Port   int
	// SSL is [api]enable_ssl_api: the API serves HTTPS only, with
	// oslo.service's [ssl] options (see apiTLS).
	SSL bool
	// CertFile, KeyFile, CAFile, Version and Ciphers are [ssl]cert_file,
	// key_file, ca_file, version and ciphers.
	CertFile, KeyFile, CAFile, Version, Ciphers string
}

func (c *listenConfig) Bind(b *option.Binder) {
	b.String(&c.HostIP, "api", "host_ip")
	b.Int(&c.Port, "api", "port")
	b.Bool(&c.SSL, "api", "enable_ssl_api")
	b.String(&c.CertFile, "ssl", "cert_file")
	b.String(&c.KeyFile, "ssl", "key_file")
	b.String(&c.CAFile, "ssl", "ca_file")
	b.String(&c.Version, "ssl", "version")
	b.String(&c.Ciphers, "ssl", "ciphers")
}

// transportConfig is how the API reaches the conductors.
type transportConfig struct {
	// RPCTransport is [DEFAULT]rpc_transport: the split binaries need
	// "oslo" or "json-rpc"; the all-in-one runs its conductor in-process whatever it
	// says, and warns when it is not "none".
	RPCTransport string
}

func (c *transportConfig) Bind(b *option.Binder) {
	b.String(&c.RPCTransport, "DEFAULT", "rpc_transport")
}
