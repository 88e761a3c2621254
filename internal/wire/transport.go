package wire

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

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
// rpc_transport = json-rpc (ironic_lib 5.3's json_rpc, which 21.4 uses):
// where the conductor listens and how the API reaches it.
type jsonrpcConfig struct {
	// HostIP and Port are [json_rpc]host_ip and port: the conductor
	// serves JSON-RPC there. The API sends a call to the host name the
	// hash ring gives for the node (the conductor's [DEFAULT]host) at
	// Port, as ironic_lib's client does.
	HostIP string
	Port   int
	// AuthStrategy is [json_rpc]auth_strategy; empty means
	// DefaultAuthStrategy, [DEFAULT]auth_strategy (ironic_lib's
	// json_rpc.auth_strategy()).
	AuthStrategy, DefaultAuthStrategy string
	// UseSSL is [json_rpc]use_ssl.
	UseSSL bool
	// Timeout is [json_rpc]timeout: the client session's bound on each
	// call (120 s: ironic_lib sets that default).
	Timeout time.Duration
}

func (c *jsonrpcConfig) Bind(b *option.Binder) {
	b.String(&c.HostIP, "json_rpc", "host_ip")
	b.Int(&c.Port, "json_rpc", "port")
	b.String(&c.AuthStrategy, "json_rpc", "auth_strategy")
	b.String(&c.DefaultAuthStrategy, "DEFAULT", "auth_strategy")
	b.Bool(&c.UseSSL, "json_rpc", "use_ssl")
	b.Seconds(&c.Timeout, "json_rpc", "timeout")
}

// strategy is the effective auth strategy of the json-rpc endpoint.
func (c jsonrpcConfig) strategy() string {
	if c.AuthStrategy != "" {
		return c.AuthStrategy
	}
	return c.DefaultAuthStrategy
}

// check refuses what this wiring cannot honour yet, rather than serving
// or calling in plain text without authentication.
func (c jsonrpcConfig) check() error {
	if s := c.strategy(); s != "noauth" {
		return fmt.Errorf("rpc_transport = json-rpc: [json_rpc]auth_strategy (or [DEFAULT]auth_strategy) = %q is not supported by this build yet; set [json_rpc]auth_strategy = noauth", s)
	}
	if c.UseSSL {
		return fmt.Errorf("rpc_transport = json-rpc: [json_rpc]use_ssl is not supported by this build yet")
	}
	return nil
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
		if err := jc.check(); err != nil {
			return "", jsonrpcConfig{}, err
		}
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
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	tr := jsonrpc.NewTransport(jsonrpc.ClientConfig{Port: jc.Port, Timeout: jc.Timeout}, hc, nil, log.With("component", "rpc"))
	return idleCloser{hc}, jsonrpc.NewClient(tr, store), nil
}

// idleCloser closes an HTTP client's idle connections.
type idleCloser struct{ c *http.Client }

func (i idleCloser) Close() error { i.c.CloseIdleConnections(); return nil }

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
	host := bound[conductor.Config](cfg.Binder(), compConductor).Host
	rlog := log.With("component", "rpc")
	return &jsonrpcServer{
		addr: net.JoinHostPort(jc.HostIP, strconv.Itoa(jc.Port)),
		host: host,
		h:    jsonrpc.NewServer(host, cond, store, rlog),
		log:  rlog,
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
}

func (s *jsonrpcServer) Listen() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("json-rpc: [json_rpc]host_ip, port: %w", err)
	}
	s.ln = ln
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
