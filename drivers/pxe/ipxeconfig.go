package pxe

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/states"
)

// IPXEConfig is the ipxe_config driver method (a drivers.DriverMethod,
// registered for every hardware type): the iPXE script of the node named
// by the request's node_uuid or port_address (a MAC in any case, ':' or
// '-' separated), generated from the node's current state; no conductor
// keeps a file for it and no lock is taken. Whatever goes wrong with the
// node (unknown, no boot configuration in its state, images missing) the
// answer is still a script: one that prints the problem on the node's
// console and exits, while the problem is logged. Only a failed database
// read is an error.
type IPXEConfig struct {
	s   *Scripter
	log *slog.Logger
}

var _ drivers.DriverMethod = (*IPXEConfig)(nil)

// NewIPXEConfig renders scripts with cfg and logs the problems of the
// nodes that get the error script to log (nil discards).
func NewIPXEConfig(cfg ScriptConfig, log *slog.Logger) (*IPXEConfig, error) {
	s, err := NewScripter(cfg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &IPXEConfig{s: s, log: log}, nil
}

// Method implements drivers.DriverMethod: GET, the script as the
// response body.
func (c *IPXEConfig) Method() drivers.VendorMethod {
	return drivers.VendorMethod{Name: IPXEConfigMethod, HTTPMethods: []string{"GET"}, Attach: true,
		Description: "The iPXE script of the node named by node_uuid or port_address."}
}

// Call implements drivers.DriverMethod.
func (c *IPXEConfig) Call(ctx context.Context, nodes drivers.BootNodes, driver string, args map[string]any) (any, error) {
	script, err := c.script(ctx, nodes, args)
	if err != nil {
		return nil, err
	}
	if script.Problem != "" {
		c.log.WarnContext(ctx, "iPXE configuration requested for a node that cannot boot from the network now",
			"driver", driver, "node_uuid", args["node_uuid"], "port_address", args["port_address"], "problem", script.Problem)
	}
	return script.Body, nil
}

// script finds the node and renders its script.
func (c *IPXEConfig) script(ctx context.Context, nodes drivers.BootNodes, args map[string]any) (Script, error) {
	s := c.s
	uuid, _ := args["node_uuid"].(string)
	mac, _ := args["port_address"].(string)
	var n drivers.BootNode
	var found bool
	var err error
	switch {
	case uuid != "":
		if n, found, err = nodes.BootNodeByUUID(ctx, uuid); err == nil && !found {
			return s.ErrorScript(fmt.Sprintf("no node %s is known", uuid)), nil
		}
	case mac != "":
		norm, ok := NormalizeMAC(mac)
		if !ok {
			return s.ErrorScript(fmt.Sprintf("%q is not a MAC address", mac)), nil
		}
		if n, found, err = nodes.BootNodeByPortAddress(ctx, norm); err == nil && !found {
			return s.ErrorScript(fmt.Sprintf("no node has a port with MAC address %s", norm)), nil
		}
	default:
		return s.ErrorScript("the iPXE configuration URL names no node: give node_uuid or port_address"), nil
	}
	if err != nil {
		return Script{}, err
	}
	sn := ScriptNode{
		UUID: n.UUID, ProvisionState: n.ProvisionState, DeployInterface: n.DeployInterface,
		DriverInfo: n.DriverInfo, InstanceInfo: n.InstanceInfo, DriverInternalInfo: n.DriverInternalInfo,
	}
	if v, ok := n.InstanceInfo["deploy_interface"].(string); ok && v != "" {
		sn.DeployInterface = v
	}
	if sn.ProvisionState == states.Active {
		if err := volumes(ctx, nodes, n, &sn); err != nil {
			return Script{}, err
		}
	}
	return s.Render(sn), nil
}

// volumes adds the node's volume targets and connectors (the boot from
// volume branch needs them); connectors are read only for a node with
// targets.
func volumes(ctx context.Context, nodes drivers.BootNodes, n drivers.BootNode, sn *ScriptNode) error {
	targets, err := nodes.BootVolumeTargets(ctx, n)
	if err != nil || len(targets) == 0 {
		return err
	}
	sn.VolumeTargets = targets
	connectors, err := nodes.BootVolumeConnectors(ctx, n)
	if err != nil {
		return err
	}
	for _, vc := range connectors {
		sn.VolumeConnectors = append(sn.VolumeConnectors, VolumeConnector{Type: vc.Type, ConnectorID: vc.ConnectorID})
	}
	return nil
}
