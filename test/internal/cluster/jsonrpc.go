package cluster

import (
	"strconv"

	"github.com/goironic/ironic/internal/freeport"
)

// JSONRPC is the configuration a deployment's services share on json-rpc
// ([DEFAULT]rpc_transport = json-rpc, no authentication): every
// conductor listens on port, each on its own address (see
// JSONRPCConductor), since the API's client (ironic_lib 5.3's, which
// Ironic 21.4 uses) appends [json_rpc]port to each conductor's host name.
func JSONRPC(port int) INI {
	return INI{
		"DEFAULT":  {"rpc_transport": "json-rpc"},
		"json_rpc": {"port": strconv.Itoa(port), "auth_strategy": "noauth"},
	}
}

// JSONRPCConductor is the own configuration of a conductor started as
// host (Deployment.Start's host name) on json-rpc: it listens on host, a
// loopback address, since its host name is where the API sends its
// calls.
func JSONRPCConductor(host string) INI {
	return INI{"json_rpc": {"host_ip": host}}
}

// FreePortOn returns a TCP port free on every address, outside the
// kernel's ephemeral range (package freeport says why).
func FreePortOn(addrs ...string) (int, error) { return freeport.TCPOn(addrs...) }
