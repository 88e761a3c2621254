package wire

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/goironic/ironic/apiv1/auth"
	"github.com/goironic/ironic/conductor"
	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/option"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/rpc/amqp"
	"github.com/goironic/ironic/rpc/jsonrpc"
)

// The split binaries' transports ([DEFAULT]rpc_transport).
const (
	transportOslo    = "oslo"
	transportJSONRPC = "json-rpc"
)

// jsonrpcConfig is what the split binaries read of [json_rpc] for
// rpc_transport = json-rpc: where the conductor listens (host_ip and the
// client's port), the server's authentication and TLS, the client's.
type jsonrpcConfig struct {
	// HostIP is [json_rpc]host_ip; the conductor listens on it at
	// Client.Port, the port the API's calls go to.
	HostIP string
	Server jsonrpc.ServerConfig
	Client jsonrpc.ClientConfig
}

func (c *jsonrpcConfig) Bind(b *option.Binder) {
	b.String(&c.HostIP, "json_rpc", "host_ip")
	c.Server.Bind(b)
	c.Client.Bind(b)
}

// rpcTransport returns [DEFAULT]rpc_transport after checking that it is
// one the split binaries (prog) can use, and the [json_rpc] options,
// bound whichever transport is chosen (so a bad value is an error
// either way).
func rpcTransport(cfg *conf.Config, prog string) (string, jsonrpcConfig, error) {
	b := cfg.Binder()
	tc := bound[transportConfig](b, compTransport)
	jc := bound[jsonrpcConfig](b, compJSONRPC)
	if err := b.Err(); err != nil {
		return "", jsonrpcConfig{}, err
	}
	switch tc.RPCTransport {
	case transportOslo:
	case transportJSONRPC:
	default:
		return "", jsonrpcConfig{}, fmt.Errorf("%s needs [DEFAULT]rpc_transport = oslo (with transport_url = rabbit://...) or json-rpc, not %q; the all-in-one `ironic` runs API and conductor in one process", prog, tc.RPCTransport)
	}
	return tc.RPCTransport, jc, nil
}

// RPCClient is the API's connection to the conductors; Close releases it.
type RPCClient interface{ Close() error }

// ConductorClient is the API's conductor client over [DEFAULT]
// rpc_transport: oslo.messaging on RabbitMQ, or json-rpc. The caller
// closes the returned client.
func ConductorClient(cfg *conf.Config, store *db.Store, log *slog.Logger) (RPCClient, rpc.ConductorAPI, error) {
	t, jc, err := rpcTransport(cfg, "ironic-api")
	if err != nil {
		return nil, nil, err
	}
	if t == transportOslo {
		return osloClient(cfg, store, log)
	}
	cc := jc.Client
	cc.Timeout = cc.Session.Timeout // [json_rpc]timeout bounds each call
	tr, err := jsonrpc.New(cc, nil, nil, log.With("component", "rpc"))
	if err != nil {
		return nil, nil, err
	}
	return tr, jsonrpc.NewClient(tr, store), nil
}

// RPCServer serves the conductor's RPC API.
type RPCServer interface {
	// Listen takes the server's address, if it has one, so that calls
	// wait for Run rather than fail: the conductor calls it before it
	// registers, as 21.4 starts its RPC server before init_host.
	Listen() error
	// Run serves until ctx ends.
	Run(ctx context.Context) error
}

// ConductorServer serves cond as this host's conductor over [DEFAULT]
// rpc_transport: on its oslo.messaging queues, or as JSON-RPC on
// [json_rpc]host_ip:port.
func ConductorServer(cfg *conf.Config, cond rpc.ConductorAPI, store *db.Store, log *slog.Logger) (RPCServer, error) {
	t, jc, err := rpcTransport(cfg, "ironic-conductor")
	if err != nil {
		return nil, err
	}
	if t == transportOslo {
		s, err := osloServer(cfg, cond, store, log)
		return osloRPCServer{s}, err
	}
	b := cfg.Binder()
	host := bound[conductor.Config](b, compConductor).Host
	keystone := bound[auth.Config](b, compAuth).Keystone
	rlog := log.With("component", "rpc")
	h, err := jsonrpc.NewHandler(jc.Server, jsonrpc.NewServer(host, cond, store, rlog),
		func(strategy, userFile string) (jsonrpc.Authenticator, error) {
			// ironic_lib wraps its server in the API's middlewares, with
			// [keystone_authtoken], and no public routes.
			return auth.New(auth.Config{Strategy: auth.Strategy(strategy), HTTPBasicAuthUserFile: userFile,
				Keystone: keystone, PublicRoutes: []string{}}, auth.Deps{Log: rlog})
		})
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if jc.Server.UseSSL {
		// wsgi.Server(use_ssl=True) takes oslo.service's [ssl] options.
		if tlsCfg, err = apiTLS(bound[listenConfig](b, compListen)); err != nil {
			return nil, fmt.Errorf("[json_rpc]use_ssl: %w", err)
		}
	}
	return &jsonrpcServer{
		addr: net.JoinHostPort(jc.HostIP, strconv.Itoa(jc.Client.Port)),
		host: host, h: h, log: rlog, cfg: jc.Server, tls: tlsCfg,
	}, nil
}

// osloRPCServer is the RabbitMQ server, which has no address: its
// queues are declared when it runs.
type osloRPCServer struct{ *amqp.Server }

func (osloRPCServer) Listen() error { return nil }

// jsonrpcServer is the conductor's JSON-RPC endpoint.
type jsonrpcServer struct {
	addr, host string
	h          http.Handler
	log        *slog.Logger
	ln         net.Listener
	cfg        jsonrpc.ServerConfig
	tls        *tls.Config
}

func (s *jsonrpcServer) Listen() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("json-rpc: [json_rpc]host_ip, port: %w", err)
	}
	if s.ln, err = s.cfg.Listener(ln, s.tls); err != nil {
		ln.Close()
		return err
	}
	return nil
}

// Run serves on the listener of Listen, which it calls if nobody did.
func (s *jsonrpcServer) Run(ctx context.Context) error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	s.log.InfoContext(ctx, "serving RPC", "transport", transportJSONRPC, "host", s.host, "address", s.ln.Addr().String())
	return Serve(ctx, s.ln, s.h, s.log)
}
