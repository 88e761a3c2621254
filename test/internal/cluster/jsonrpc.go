package cluster

import (
	"fmt"
	"net"
	"strconv"
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

// FreePortOn returns a TCP port that was free on every address a moment
// ago (the kernel's choice on the first, checked on the others).
func FreePortOn(addrs ...string) (int, error) {
	for range 20 {
		first, err := net.Listen("tcp", net.JoinHostPort(addrs[0], "0"))
		if err != nil {
			return 0, err
		}
		port := first.Addr().(*net.TCPAddr).Port
		ls := []net.Listener{first}
		free := true
		for _, a := range addrs[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				free = false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			_ = l.Close()
		}
		if free {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no port free on all of %v", addrs)
}
