package oslo

import (
	"context"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// Transport delivers encoded requests. The Client fills in method, args,
// version and context; the transport adds the message ids, writes the
// message and, for a call, waits for the reply.
type Transport interface {
	// Call sends req to topic and returns the reply's result, still
	// encoded (nil for None). A failure reply is returned as the
	// *ironic.Fault its Failure describes.
	Call(ctx context.Context, topic string, req *Request) ([]byte, error)
	// Cast sends req to topic without waiting.
	Cast(ctx context.Context, topic string, req *Request) error
}

// NodeIDLookup finds a node's database id; add/remove_node_traits carry
// the integer id on the wire. db.Store has it.
type NodeIDLookup interface {
	GetNodeByUUID(ctx context.Context, uuid string) (*models.Node, error)
}

// Client is rpc.ConductorAPI over an oslo.messaging transport: it encodes
// each call as Ironic's rpcapi.py does (method names, argument names and
// prepare versions of RPC API 1.55) and decodes the replies.
type Client struct {
	t Transport
	// nodes, if set, turns node UUIDs into ids for the traits methods;
	// without it the UUID is sent (Ironic's conductor accepts either).
	nodes NodeIDLookup
}

var _ rpc.ConductorAPI = (*Client)(nil)

// NewClient returns a client sending through t. nodes may be nil.
func NewClient(t Transport, nodes NodeIDLookup) *Client { return &Client{t: t, nodes: nodes} }

func (c *Client) call(ctx context.Context, topic, method, version string, a ...Arg) ([]byte, error) {
	req := &Request{Method: method, Version: version, Args: a, Context: ironic.FromContext(ctx)}
	return c.t.Call(ctx, topic, req)
}

func (c *Client) call0(ctx context.Context, topic, method, version string, a ...Arg) error {
	_, err := c.call(ctx, topic, method, version, a...)
	return err
}

func (c *Client) cast(ctx context.Context, topic, method, version string, a ...Arg) error {
	req := &Request{Method: method, Version: version, Args: a, Context: ironic.FromContext(ctx)}
	return c.t.Cast(ctx, topic, req)
}

func callAs[T any](c *Client, ctx context.Context, topic, method, version string, a ...Arg) (T, error) {
	raw, err := c.call(ctx, topic, method, version, a...)
	if err != nil {
		var zero T
		return zero, err
	}
	return decodeInto[T](raw)
}

func objResult[T any](d *objects.Def[T], raw []byte, err error) (*T, error) {
	if err != nil || raw == nil {
		return nil, err
	}
	o, err := d.Decode(raw)
	if err != nil {
		return nil, err
	}
	return o.Value, nil
}

func nodeID(id string) Arg { return Arg{"node_id", id} }

func (c *Client) CreateNode(ctx context.Context, topic string, n *models.Node) (*models.Node, error) {
	raw, err := c.call(ctx, topic, "create_node", "1.36",
		Arg{"node_obj", objValue[models.Node]{nodeDef, n, objects.EncodeOpts{Create: true}}})
	return objResult(nodeDef, raw, err)
}

func (c *Client) UpdateNode(ctx context.Context, topic string, upd rpc.NodeUpdate, reset bool) (*models.Node, error) {
	raw, err := c.call(ctx, topic, "update_node", "1.1",
		Arg{"node_obj", objValue[models.Node]{nodeDef, &upd.Node, objects.EncodeOpts{Changes: upd.Changes}}},
		Arg{"reset_interfaces", reset})
	return objResult(nodeDef, raw, err)
}

func (c *Client) DestroyNode(ctx context.Context, topic, id string) error {
	return c.call0(ctx, topic, "destroy_node", "1.9", nodeID(id))
}

func (c *Client) ValidateDriverInterfaces(ctx context.Context, topic, id string) (map[string]rpc.ValidationResult, error) {
	return callAs[map[string]rpc.ValidationResult](c, ctx, topic, "validate_driver_interfaces", "1.5", nodeID(id))
}

func (c *Client) GetDriverProperties(ctx context.Context, topic, driver string) (map[string]string, error) {
	return callAs[map[string]string](c, ctx, topic, "get_driver_properties", "1.16", Arg{"driver_name", driver})
}

func (c *Client) GetDriverVendorPassthruMethods(ctx context.Context, topic, driver string) (map[string]rpc.VendorMethod, error) {
	return callAs[map[string]rpc.VendorMethod](c, ctx, topic, "get_driver_vendor_passthru_methods", "1.21", Arg{"driver_name", driver})
}

func (c *Client) GetNodeVendorPassthruMethods(ctx context.Context, topic, id string) (map[string]rpc.VendorMethod, error) {
	return callAs[map[string]rpc.VendorMethod](c, ctx, topic, "get_node_vendor_passthru_methods", "1.21", nodeID(id))
}

func (c *Client) GetRAIDLogicalDiskProperties(ctx context.Context, topic, driver string) (map[string]string, error) {
	return callAs[map[string]string](c, ctx, topic, "get_raid_logical_disk_properties", "1.30", Arg{"driver_name", driver})
}

// traitsNodeID is the node argument of the traits methods: the integer id
// when it can be looked up, as Ironic's API sends it.
func (c *Client) traitsNodeID(ctx context.Context, uuid string) (any, error) {
	if c.nodes == nil {
		return uuid, nil
	}
	n, err := c.nodes.GetNodeByUUID(ctx, uuid)
	if err != nil {
		return nil, err
	}
	return n.ID, nil
}

func stringsOrNil(s []string) any {
	if s == nil {
		return nil
	}
	return s
}

func (c *Client) AddNodeTraits(ctx context.Context, topic, id string, traits []string, replace bool) error {
	nid, err := c.traitsNodeID(ctx, id)
	if err != nil {
		return err
	}
	return c.call0(ctx, topic, "add_node_traits", "1.44", Arg{"node_id", nid}, Arg{"traits", stringsOrNil(traits)}, Arg{"replace", replace})
}

func (c *Client) RemoveNodeTraits(ctx context.Context, topic, id string, traits []string) error {
	nid, err := c.traitsNodeID(ctx, id)
	if err != nil {
		return err
	}
	return c.call0(ctx, topic, "remove_node_traits", "1.44", Arg{"node_id", nid}, Arg{"traits", stringsOrNil(traits)})
}

func (c *Client) VIFList(ctx context.Context, topic, id string) ([]map[string]any, error) {
	return callAs[[]map[string]any](c, ctx, topic, "vif_list", "1.38", nodeID(id))
}

func (c *Client) VIFAttach(ctx context.Context, topic, id string, vifInfo map[string]any) error {
	return c.call0(ctx, topic, "vif_attach", "1.38", nodeID(id), Arg{"vif_info", vifInfo})
}

func (c *Client) VIFDetach(ctx context.Context, topic, id, vifID string) error {
	return c.call0(ctx, topic, "vif_detach", "1.38", nodeID(id), Arg{"vif_id", vifID})
}

func (c *Client) CreatePort(ctx context.Context, topic string, p *models.Port) (*models.Port, error) {
	raw, err := c.call(ctx, topic, "create_port", "1.41", Arg{"port_obj", objValue[models.Port]{portDef, p, objects.EncodeOpts{Create: true}}})
	return objResult(portDef, raw, err)
}

func (c *Client) UpdatePort(ctx context.Context, topic string, p *models.Port, changes []string) (*models.Port, error) {
	raw, err := c.call(ctx, topic, "update_port", "1.13", Arg{"port_obj", objValue[models.Port]{portDef, p, objects.EncodeOpts{Changes: changes}}})
	return objResult(portDef, raw, err)
}

func (c *Client) DestroyPort(ctx context.Context, topic string, p *models.Port) error {
	return c.call0(ctx, topic, "destroy_port", "1.25", Arg{"port", objValue[models.Port]{portDef, p, objects.EncodeOpts{}}})
}

func (c *Client) UpdatePortgroup(ctx context.Context, topic string, pg *models.Portgroup, changes []string) (*models.Portgroup, error) {
	raw, err := c.call(ctx, topic, "update_portgroup", "1.33", Arg{"portgroup_obj", objValue[models.Portgroup]{portgroupDef, pg, objects.EncodeOpts{Changes: changes}}})
	return objResult(portgroupDef, raw, err)
}

func (c *Client) DestroyPortgroup(ctx context.Context, topic string, pg *models.Portgroup) error {
	return c.call0(ctx, topic, "destroy_portgroup", "1.33", Arg{"portgroup", objValue[models.Portgroup]{portgroupDef, pg, objects.EncodeOpts{}}})
}

func (c *Client) UpdateVolumeConnector(ctx context.Context, topic string, vc *models.VolumeConnector, changes []string) (*models.VolumeConnector, error) {
	raw, err := c.call(ctx, topic, "update_volume_connector", "1.35", Arg{"connector", objValue[models.VolumeConnector]{connectorDef, vc, objects.EncodeOpts{Changes: changes}}})
	return objResult(connectorDef, raw, err)
}

func (c *Client) DestroyVolumeConnector(ctx context.Context, topic string, vc *models.VolumeConnector) error {
	return c.call0(ctx, topic, "destroy_volume_connector", "1.35", Arg{"connector", objValue[models.VolumeConnector]{connectorDef, vc, objects.EncodeOpts{}}})
}

func (c *Client) UpdateVolumeTarget(ctx context.Context, topic string, vt *models.VolumeTarget, changes []string) (*models.VolumeTarget, error) {
	raw, err := c.call(ctx, topic, "update_volume_target", "1.37", Arg{"target", objValue[models.VolumeTarget]{targetDef, vt, objects.EncodeOpts{Changes: changes}}})
	return objResult(targetDef, raw, err)
}

func (c *Client) DestroyVolumeTarget(ctx context.Context, topic string, vt *models.VolumeTarget) error {
	return c.call0(ctx, topic, "destroy_volume_target", "1.37", Arg{"target", objValue[models.VolumeTarget]{targetDef, vt, objects.EncodeOpts{}}})
}

func (c *Client) ChangeNodePowerState(ctx context.Context, topic, id string, newState states.Power, timeout int) error {
	var t any
	if timeout != 0 {
		t = timeout
	}
	return c.call0(ctx, topic, "change_node_power_state", "1.39", nodeID(id), Arg{"new_state", string(newState)}, Arg{"timeout", t})
}

func (c *Client) ChangeNodeBootMode(ctx context.Context, topic, id, newState string) error {
	return c.call0(ctx, topic, "change_node_boot_mode", "1.55", nodeID(id), Arg{"new_state", newState})
}

func (c *Client) ChangeNodeSecureBoot(ctx context.Context, topic, id string, newState bool) error {
	return c.call0(ctx, topic, "change_node_secure_boot", "1.55", nodeID(id), Arg{"new_state", newState})
}

func (c *Client) VendorPassthru(ctx context.Context, topic, id, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return callAs[*rpc.VendorResult](c, ctx, topic, "vendor_passthru", "1.20", nodeID(id),
		Arg{"driver_method", method}, Arg{"http_method", httpMethod}, Arg{"info", info})
}

func (c *Client) DriverVendorPassthru(ctx context.Context, topic, driver, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	return callAs[*rpc.VendorResult](c, ctx, topic, "driver_vendor_passthru", "1.20", Arg{"driver_name", driver},
		Arg{"driver_method", method}, Arg{"http_method", httpMethod}, Arg{"info", info})
}

func (c *Client) DoNodeDeploy(ctx context.Context, topic, id string, rebuild bool, configdrive any, deploySteps []map[string]any) error {
	a := []Arg{nodeID(id), {"rebuild", rebuild}, {"configdrive", configdrive}}
	version := "1.22"
	if len(deploySteps) > 0 {
		version = "1.52"
		a = append(a, Arg{"deploy_steps", deploySteps})
	}
	return c.call0(ctx, topic, "do_node_deploy", version, a...)
}

func (c *Client) DoNodeTearDown(ctx context.Context, topic, id string) error {
	return c.call0(ctx, topic, "do_node_tear_down", "1.6", nodeID(id))
}

func (c *Client) DoProvisioningAction(ctx context.Context, topic, id string, action states.Event) error {
	return c.call0(ctx, topic, "do_provisioning_action", "1.23", nodeID(id), Arg{"action", string(action)})
}

func (c *Client) ContinueNodeClean(ctx context.Context, topic, id string) error {
	return c.cast(ctx, topic, "continue_node_clean", "1.27", nodeID(id))
}

func (c *Client) ContinueNodeDeploy(ctx context.Context, topic, id string) error {
	return c.cast(ctx, topic, "continue_node_deploy", "1.45", nodeID(id))
}

func (c *Client) DoNodeClean(ctx context.Context, topic, id string, cleanSteps []map[string]any, disableRamdisk *bool) error {
	a := []Arg{nodeID(id), {"clean_steps", cleanSteps}}
	version := "1.32"
	if disableRamdisk != nil && *disableRamdisk {
		version = "1.53"
		a = append(a, Arg{"disable_ramdisk", true})
	}
	return c.call0(ctx, topic, "do_node_clean", version, a...)
}

func (c *Client) DoNodeRescue(ctx context.Context, topic, id, password string) error {
	return c.call0(ctx, topic, "do_node_rescue", "1.43", nodeID(id), Arg{"rescue_password", password})
}

func (c *Client) DoNodeUnrescue(ctx context.Context, topic, id string) error {
	return c.call0(ctx, topic, "do_node_unrescue", "1.43", nodeID(id))
}

func (c *Client) InspectHardware(ctx context.Context, topic, id string) error {
	return c.call0(ctx, topic, "inspect_hardware", "1.24", nodeID(id))
}

func (c *Client) GetConsoleInformation(ctx context.Context, topic, id string) (map[string]any, error) {
	return callAs[map[string]any](c, ctx, topic, "get_console_information", "1.11", nodeID(id))
}

func (c *Client) SetConsoleMode(ctx context.Context, topic, id string, enabled bool) error {
	return c.call0(ctx, topic, "set_console_mode", "1.11", nodeID(id), Arg{"enabled", enabled})
}

func (c *Client) SetBootDevice(ctx context.Context, topic, id, device string, persistent bool) error {
	return c.call0(ctx, topic, "set_boot_device", "1.17", nodeID(id), Arg{"device", device}, Arg{"persistent", persistent})
}

func (c *Client) GetBootDevice(ctx context.Context, topic, id string) (*rpc.BootDevice, error) {
	return callAs[*rpc.BootDevice](c, ctx, topic, "get_boot_device", "1.17", nodeID(id))
}

func (c *Client) GetSupportedBootDevices(ctx context.Context, topic, id string) ([]string, error) {
	return callAs[[]string](c, ctx, topic, "get_supported_boot_devices", "1.17", nodeID(id))
}

func (c *Client) InjectNMI(ctx context.Context, topic, id string) error {
	return c.call0(ctx, topic, "inject_nmi", "1.40", nodeID(id))
}

func (c *Client) SetTargetRAIDConfig(ctx context.Context, topic, id string, config map[string]any) error {
	return c.call0(ctx, topic, "set_target_raid_config", "1.30", nodeID(id), Arg{"target_raid_config", config})
}

func (c *Client) CreateAllocation(ctx context.Context, topic string, a *models.Allocation) (*models.Allocation, error) {
	raw, err := c.call(ctx, topic, "create_allocation", "1.48", Arg{"allocation", objValue[models.Allocation]{allocationDef, a, objects.EncodeOpts{Create: true}}})
	return objResult(allocationDef, raw, err)
}

func (c *Client) DestroyAllocation(ctx context.Context, topic string, a *models.Allocation) error {
	return c.call0(ctx, topic, "destroy_allocation", "1.48", Arg{"allocation", objValue[models.Allocation]{allocationDef, a, objects.EncodeOpts{}}})
}

func optString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// Heartbeat sends every argument of RPC 1.54, as rpcapi.py does when the
// version cap (1.55) allows it.
func (c *Client) Heartbeat(ctx context.Context, topic, id string, hb rpc.Heartbeat) error {
	return c.call0(ctx, topic, "heartbeat", "1.54", nodeID(id), Arg{"callback_url", hb.CallbackURL},
		Arg{"agent_version", optString(hb.AgentVersion)}, Arg{"agent_token", optString(hb.AgentToken)},
		Arg{"agent_verify_ca", optString(hb.AgentVerifyCA)}, Arg{"agent_status", optString(hb.AgentStatus)},
		Arg{"agent_status_message", optString(hb.AgentStatusMessage)})
}

func (c *Client) GetNodeWithToken(ctx context.Context, topic, id string) (*models.Node, error) {
	raw, err := c.call(ctx, topic, "get_node_with_token", "1.49", nodeID(id))
	return objResult(nodeDef, raw, err)
}

func (c *Client) GetSupportedIndicators(ctx context.Context, topic, id, component string) (map[string]map[string]rpc.Indicator, error) {
	var comp any
	if component != "" {
		comp = component
	}
	return callAs[map[string]map[string]rpc.Indicator](c, ctx, topic, "get_supported_indicators", "1.50", nodeID(id), Arg{"component", comp})
}

func (c *Client) GetIndicatorState(ctx context.Context, topic, id, component, indicator string) (string, error) {
	return callAs[string](c, ctx, topic, "get_indicator_state", "1.50", nodeID(id), Arg{"component", component}, Arg{"indicator", indicator})
}

func (c *Client) SetIndicatorState(ctx context.Context, topic, id, component, indicator, state string) error {
	return c.call0(ctx, topic, "set_indicator_state", "1.50", nodeID(id), Arg{"component", component}, Arg{"indicator", indicator}, Arg{"state", state})
}
