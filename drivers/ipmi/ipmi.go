// Package ipmi implements Ironic's ipmitool interfaces: "ipmitool" power,
// management and vendor, and the "ipmitool-socat" and
// "ipmitool-shellinabox" consoles. Like Ironic 21.4's
// drivers/modules/ipmitool.py they drive the ipmitool binary, with the
// same command lines, the password in a file, the [ipmi] retries and
// pacing, and Ironic's messages.
//
// Every command goes through a Runner (ExecRunner runs processes; tests
// record and answer command lines), paced per BMC by a gate, with the
// clock, sleeper and jitter of Config.
package ipmi

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// Implementations returns the ipmitool interfaces, for drivers.NewRegistry.
// They share one ipmitool runner (its option probes and BMC gates) and
// one pool of console ports.
func Implementations(cfg Config) []drivers.Implementation {
	t := newTool(cfg)
	ports := newPortPool()
	return []drivers.Implementation{
		{Kind: drivers.Power, Name: "ipmitool", Impl: &Power{t: t}},
		{Kind: drivers.Management, Name: "ipmitool", Impl: &Management{t: t}},
		{Kind: drivers.Vendor, Name: "ipmitool", Impl: &Vendor{t: t}},
		{Kind: drivers.Console, Name: "ipmitool-socat", Impl: &Console{t: t, ports: ports, kind: socat}},
		{Kind: drivers.Console, Name: "ipmitool-shellinabox", Impl: &Console{t: t, ports: ports, kind: shellinabox}},
	}
}

// Info is a node's parsed IPMI access parameters (Ironic's
// _parse_driver_info result). Values Ironic passes on as given (user,
// keys, bridging addresses) keep their JSON type: ipmitool gets their
// Python str().
type Info struct {
	NodeUUID        string
	Address         string
	DestPort        *int64
	Username        any
	Password        string
	HexKgKey        any
	TerminalPort    *int64
	PrivLevel       string
	LocalAddress    any
	TransitChannel  any
	TransitAddress  any
	TargetChannel   any
	TargetAddress   any
	ProtocolVersion string
	ForceBootDevice any
	CipherSuite     any
}

// bmcKey names the BMC the node's commands go to, for pacing: its
// address and port.
func (i *Info) bmcKey() string {
	if i.DestPort == nil {
		return i.Address
	}
	return i.Address + ":" + strconv.FormatInt(*i.DestPort, 10)
}

// parse checks a node's IPMI driver_info as Ironic's _parse_driver_info
// does and returns the parsed parameters. Its errors are
// MissingParameterValue and InvalidParameterValue faults with Ironic's
// messages. Bridging needs an ipmitool that supports it.
func (t *tool) parse(ctx context.Context, task drivers.Task) (*Info, error) {
	info := task.DriverInfo()
	internal := task.DriverInternalInfo()
	if !py.Truthy(info.Get("ipmi_address")) {
		return nil, drivers.MissingParameter("Missing the following IPMI credentials in node's driver_info: %s.", py.Repr([]string{"ipmi_address"}))
	}
	get := func(key string, def any) any {
		if v, ok := info.Lookup(key); ok {
			return v
		}
		return def
	}
	out := &Info{
		NodeUUID:        task.NodeUUID(),
		Address:         py.Str(info.Get("ipmi_address")),
		Username:        info.Get("ipmi_username"),
		Password:        py.Str(get("ipmi_password", "")),
		HexKgKey:        info.Get("ipmi_hex_kg_key"),
		PrivLevel:       py.Str(get("ipmi_priv_level", "ADMINISTRATOR")),
		ProtocolVersion: py.Str(get("ipmi_protocol_version", "2.0")),
		ForceBootDevice: get("ipmi_force_boot_device", false),
		CipherSuite:     info.Get("ipmi_cipher_suite"),
		LocalAddress:    info.Get("ipmi_local_address"),
		TransitChannel:  info.Get("ipmi_transit_channel"),
		TransitAddress:  info.Get("ipmi_transit_address"),
		TargetChannel:   info.Get("ipmi_target_channel"),
		TargetAddress:   info.Get("ipmi_target_address"),
	}
	if !py.Truthy(out.Username) {
		t.cfg.Log.WarnContext(ctx, fmt.Sprintf("ipmi_username is not defined or empty for node %s: NULL user will be utilized.", out.NodeUUID), "node", out.NodeUUID)
	}
	if out.Password == "" {
		t.cfg.Log.WarnContext(ctx, fmt.Sprintf("ipmi_password is not defined or empty for node %s: NULL password will be utilized.", out.NodeUUID), "node", out.NodeUUID)
	}
	if out.ProtocolVersion != "2.0" && out.ProtocolVersion != "1.5" {
		return nil, drivers.InvalidParameter("Invalid IPMI protocol version value %s, the valid value can be one of %s",
			out.ProtocolVersion, "2.0, 1.5")
	}
	port := info.Get("ipmi_terminal_port")
	if !py.Truthy(port) {
		port = internal.Get("allocated_ipmi_terminal_port")
	}
	if port != nil {
		p, err := networkPort(port, "ipmi_terminal_port")
		if err != nil {
			return nil, err
		}
		out.TerminalPort = &p
	}
	if dest := info.Get("ipmi_port"); dest != nil {
		p, err := networkPort(dest, "ipmi_port")
		if err != nil {
			return nil, err
		}
		out.DestPort = &p
	}
	bridging := get("ipmi_bridging", "no")
	switch bridging {
	case "no":
		out.LocalAddress, out.TransitChannel, out.TransitAddress, out.TargetChannel, out.TargetAddress = nil, nil, nil, nil, nil
	case "single", "dual":
		if !t.supports(ctx, py.Str(bridging)+"_bridge") {
			return nil, drivers.InvalidParameter("Value for ipmi_bridging is provided as %s, but IPMI bridging is not supported by the IPMI utility installed on host. Ensure ipmitool version is > 1.8.11", bridging)
		}
		var undefined []string
		if out.TargetChannel == nil {
			undefined = append(undefined, "ipmi_target_channel")
		}
		if out.TargetAddress == nil {
			undefined = append(undefined, "ipmi_target_address")
		}
		if bridging == "dual" {
			if out.TransitChannel == nil {
				undefined = append(undefined, "ipmi_transit_channel")
			}
			if out.TransitAddress == nil {
				undefined = append(undefined, "ipmi_transit_address")
			}
		} else {
			out.TransitChannel, out.TransitAddress = nil, nil
		}
		if len(undefined) > 0 {
			return nil, drivers.MissingParameter("%s not provided", py.Repr(undefined))
		}
	default:
		return nil, drivers.InvalidParameter("Invalid value for ipmi_bridging: %s, the valid value can be one of: %s",
			py.Str(bridging), py.Repr([]string{"single", "dual", "no"}))
	}
	levels := []string{"ADMINISTRATOR", "CALLBACK", "OPERATOR", "USER"}
	if _, isStr := get("ipmi_priv_level", "ADMINISTRATOR").(string); !isStr || !slices.Contains(levels, out.PrivLevel) {
		return nil, drivers.InvalidParameter("Invalid privilege level value:%s, the valid value can be one of %s",
			out.PrivLevel, strings.Join(levels, ", "))
	}
	if py.Truthy(out.HexKgKey) && len(py.Str(out.HexKgKey))%2 != 0 {
		return nil, drivers.InvalidParameter("Number of ipmi_hex_kg_key characters is not even")
	}
	if out.CipherSuite != nil {
		if _, ok := py.Int(out.CipherSuite); !ok {
			return nil, drivers.InvalidParameter("Invalid cipher suite %s, expected a number", py.Str(out.CipherSuite))
		}
		if out.ProtocolVersion == "1.5" {
			return nil, drivers.InvalidParameter("Cipher suites cannot be used with IPMI 1.5")
		}
	}
	return out, nil
}

// networkPort is Ironic's utils.validate_network_port.
func networkPort(v any, name string) (int64, error) {
	n, ok := py.Int(v)
	if !ok || n < 0 || n > 65535 {
		return 0, drivers.InvalidParameter("%s \"%s\" is not a valid port.", name, py.Str(v))
	}
	return n, nil
}
