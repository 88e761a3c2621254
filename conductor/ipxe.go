package conductor

import (
	"context"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers/pxe"
	"github.com/goironic/ironic/rpc"
)

// ipxeStore is what generating a node's iPXE script reads: the node (by
// UUID or by a port's MAC address, in one narrow query) and its volumes.
type ipxeStore interface {
	GetBootNodeByUUID(ctx context.Context, uuid string) (*db.BootNode, bool, error)
	GetBootNodeByPortAddress(ctx context.Context, address string) (*db.BootNode, bool, error)
	ListVolumeTargets(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeTarget, error)
	ListVolumeConnectors(ctx context.Context, f db.VolumeFilter, o db.ListOpts) ([]models.VolumeConnector, error)
}

// ipxeConfig is the ipxe_config driver vendor method: the iPXE script of
// the node named by info's node_uuid or port_address (a MAC in any case,
// ':' or '-' separated), generated from the node's current state; no
// conductor keeps a file for it and no lock is taken. Whatever goes wrong
// with the node (unknown, no boot configuration in its state, images
// missing) the answer is still a script: one that prints the problem on
// the node's console and exits, while the problem is logged here.
func (m *Manager) ipxeConfig(ctx context.Context, driver, httpMethod string, info any) (*rpc.VendorResult, error) {
	if strings.ToUpper(httpMethod) != "GET" {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The method %s does not support HTTP %s", pxe.IPXEConfigMethod, strings.ToUpper(httpMethod))
	}
	args, err := vendorArgs(info)
	if err != nil {
		return nil, err
	}
	script, err := m.ipxeScript(ctx, args)
	if err != nil {
		return nil, err
	}
	if script.Problem != "" {
		m.log.WarnContext(ctx, "iPXE configuration requested for a node that cannot boot from the network now",
			"driver", driver, "node_uuid", args["node_uuid"], "port_address", args["port_address"], "problem", script.Problem)
	}
	return &rpc.VendorResult{Return: script.Body, Attach: true}, nil
}

// ipxeScript finds the node and renders its script. Only a database
// failure is an error.
func (m *Manager) ipxeScript(ctx context.Context, args map[string]any) (pxe.Script, error) {
	s := m.cfg.IPXE
	st, ok := m.store.(ipxeStore)
	if !ok {
		return s.ErrorScript("this conductor cannot look nodes up for iPXE"), nil
	}
	uuid, _ := args["node_uuid"].(string)
	mac, _ := args["port_address"].(string)
	var n *db.BootNode
	var found bool
	var err error
	switch {
	case uuid != "":
		if n, found, err = st.GetBootNodeByUUID(ctx, uuid); err == nil && !found {
			return s.ErrorScript(fmt.Sprintf("no node %s is known", uuid)), nil
		}
	case mac != "":
		norm, ok := pxe.NormalizeMAC(mac)
		if !ok {
			return s.ErrorScript(fmt.Sprintf("%q is not a MAC address", mac)), nil
		}
		if n, found, err = st.GetBootNodeByPortAddress(ctx, norm); err == nil && !found {
			return s.ErrorScript(fmt.Sprintf("no node has a port with MAC address %s", norm)), nil
		}
	default:
		return s.ErrorScript("the iPXE configuration URL names no node: give node_uuid or port_address"), nil
	}
	if err != nil {
		return pxe.Script{}, err
	}
	sn := pxe.ScriptNode{
		UUID: n.UUID, ProvisionState: derefStr(n.ProvisionState), DeployInterface: derefStr(n.DeployInterface),
		DriverInfo: n.DriverInfo, InstanceInfo: n.InstanceInfo, DriverInternalInfo: n.DriverInternalInfo,
	}
	if v, ok := n.InstanceInfo["deploy_interface"].(string); ok && v != "" {
		sn.DeployInterface = v
	}
	if sn.ProvisionState == "active" {
		if err := m.ipxeVolumes(ctx, st, n.ID, &sn); err != nil {
			return pxe.Script{}, err
		}
	}
	return s.Render(sn), nil
}

// ipxeVolumes adds the node's volume targets and connectors (the boot
// from volume branch needs them).
func (m *Manager) ipxeVolumes(ctx context.Context, st ipxeStore, nodeID int64, sn *pxe.ScriptNode) error {
	f := db.VolumeFilter{NodeID: &nodeID}
	ts, err := st.ListVolumeTargets(ctx, f, db.ListOpts{})
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return nil
	}
	for _, t := range ts {
		sn.VolumeTargets = append(sn.VolumeTargets, pxe.VolumeTarget{UUID: t.UUID, VolumeType: derefStr(t.VolumeType), BootIndex: t.BootIndex, Properties: t.Properties})
	}
	cs, err := st.ListVolumeConnectors(ctx, f, db.ListOpts{})
	if err != nil {
		return err
	}
	for _, c := range cs {
		sn.VolumeConnectors = append(sn.VolumeConnectors, pxe.VolumeConnector{Type: derefStr(c.Type), ConnectorID: derefStr(c.ConnectorID)})
	}
	return nil
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
