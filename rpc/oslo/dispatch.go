package oslo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
	"github.com/goironic/ironic/objects"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// NodeUUIDLookup turns node ids into UUIDs, for add/remove_node_traits
// from Ironic's API, which sends the integer id. db.Store has it.
type NodeUUIDLookup interface {
	NodeUUIDsByID(ctx context.Context, ids []int64) (map[int64]string, error)
}

// Dispatcher is the server side: it decodes a request, checks its
// version, calls the conductor and encodes the result, as oslo's RPC
// dispatcher does for Ironic's ConductorManager (target version 1.55).
type Dispatcher struct {
	api   rpc.ConductorAPI
	nodes NodeUUIDLookup
}

// NewDispatcher serves api. nodes may be nil (integer node ids are then
// refused).
func NewDispatcher(api rpc.ConductorAPI, nodes NodeUUIDLookup) *Dispatcher {
	return &Dispatcher{api: api, nodes: nodes}
}

// call is one request being served: the dispatcher and the topic the
// request came in on (passed to the conductor).
type call struct {
	*Dispatcher
	topic string
}

// serverMajor and serverMinor are RPC_API_VERSION 1.55.
const serverMajor, serverMinor = 1, 55

// Has tells whether method is one Dispatch serves (else it answers
// NoSuchMethod).
func (d *Dispatcher) Has(method string) bool {
	_, ok := handlers[method]
	return ok && !strings.HasPrefix(method, "_")
}

// Dispatch serves one request that arrived on topic. The request context
// in ctx is replaced by the request's. The result is encoded JSON (nil for None); a failure is what
// the reply carries instead.
func (d *Dispatcher) Dispatch(ctx context.Context, topic string, in *Incoming) (result []byte, failure *Failure) {
	if strings.HasPrefix(in.Method, "_") || in.Namespace != "" {
		return nil, NoSuchMethod(in.Method)
	}
	h, ok := handlers[in.Method]
	if !ok {
		return nil, NoSuchMethod(in.Method)
	}
	major, minor, ok := objects.SplitVersion(in.Version)
	if !ok || major != serverMajor || minor > serverMinor {
		return nil, UnsupportedVersion(in.Version, in.Method)
	}
	ctx = ironic.WithRequestContext(ctx, in.Context)
	a := &args{method: in.Method, o: in.Args}
	v, err := h(ctx, call{d, topic}, a)
	if err == nil && a.err != nil {
		err = a.err
	}
	if err != nil {
		var ae *argError
		if errors.As(err, &ae) {
			return nil, &Failure{Class: ae.class, Module: "builtins", Message: ae.msg,
				TB: []string{"Traceback (most recent call last):\n", ae.class + ": " + ae.msg + "\n"}, Args: []any{ae.msg}}
		}
		return nil, FromError(err)
	}
	res, err := encodeResult(v)
	if err != nil {
		return nil, FromError(fmt.Errorf("encoding the result of %s: %w", in.Method, err))
	}
	return res, nil
}

// handler decodes a method's arguments from a (errors are collected in a
// and checked after the call, which is only made when a.err is nil) and
// calls the conductor.
type handler func(ctx context.Context, d call, a *args) (any, error)

// guard runs call only when the arguments decoded.
func guard(a *args, call func() (any, error)) (any, error) {
	if a.err != nil {
		return nil, a.err
	}
	return call()
}

// vendorResult is a vendor passthru answer as Ironic's manager returns
// it: the dict {'return': ..., 'async': ..., 'attach': ...}, built in
// that order, which json.dumps keeps (a Go struct or map would be
// written with sorted keys).
func vendorResult(r *rpc.VendorResult, err error) (any, error) {
	if err != nil || r == nil {
		return nil, err
	}
	return pyjson.Object{{Key: "return", Value: r.Return}, {Key: "async", Value: r.Async}, {Key: "attach", Value: r.Attach}}, nil
}

func guard0(a *args, call func() error) (any, error) {
	if a.err != nil {
		return nil, a.err
	}
	return nil, call()
}

func nodeResult(n *models.Node, err error) (any, error) {
	if err != nil || n == nil {
		return nil, err
	}
	return objValue[models.Node]{nodeDef, n, objects.EncodeOpts{}}, nil
}

func objOut[T any](def *objects.Def[T], v *T, err error) (any, error) {
	if err != nil || v == nil {
		return nil, err
	}
	return objValue[T]{def, v, objects.EncodeOpts{}}, nil
}

// objOutWithNode is objOut for a Port or Portgroup, whose node_uuid
// Ironic's API reads from the object that create_port, update_port and
// update_portgroup return: Python's conductor fills it from the database,
// and so does this, from the node id that nodeOf reads.
func objOutWithNode[T any](ctx context.Context, d call, def *objects.Def[T], v *T, err error, nodeOf func(*T) *int64) (any, error) {
	if err != nil || v == nil {
		return nil, err
	}
	o := objValue[T]{def, v, objects.EncodeOpts{}}
	if nodeID := nodeOf(v); nodeID != nil && d.nodes != nil {
		m, err := d.nodes.NodeUUIDsByID(ctx, []int64{*nodeID})
		if err != nil {
			return nil, err
		}
		o.opts.NodeUUID = m[*nodeID]
	}
	return o, nil
}

// traitsNode reads the node of add/remove_node_traits: an integer id (as
// Ironic's API sends) or a UUID.
func (d call) traitsNode(ctx context.Context, a *args) string {
	r := a.raw("node_id", true)
	if r == nil || a.err != nil {
		return ""
	}
	if len(r) > 0 && r[0] == '"' {
		s, err := rawjson.DecodeString(r)
		a.wrap("node_id", err)
		return s
	}
	id, err := rawjson.DecodeInt(r)
	if err != nil {
		a.wrap("node_id", err)
		return ""
	}
	if d.nodes == nil {
		a.wrap("node_id", fmt.Errorf("node ids cannot be resolved here"))
		return ""
	}
	m, err := d.nodes.NodeUUIDsByID(ctx, []int64{id})
	if err != nil {
		a.err = err
		return ""
	}
	u, ok := m[id]
	if !ok {
		a.err = ironic.Errorf(ironic.NodeNotFound, "Node %d could not be found.", id)
	}
	return u
}

func heartbeatArgs(a *args) rpc.Heartbeat {
	return rpc.Heartbeat{
		CallbackURL:        a.str("callback_url"),
		AgentVersion:       a.optStr("agent_version"),
		AgentToken:         a.optStr("agent_token"),
		AgentVerifyCA:      a.optStr("agent_verify_ca"),
		AgentStatus:        a.optStr("agent_status"),
		AgentStatusMessage: a.optStr("agent_status_message"),
	}
}

// handlers maps every conductor method of RPC API 1.55 that the Go
// conductor serves to its decoding.
var handlers = map[string]handler{
	"create_node": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, nodeDef, "node_obj")
		return guard(a, func() (any, error) { return nodeResult(d.api.CreateNode(ctx, d.topic, o.Value)) })
	},
	"update_node": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, nodeDef, "node_obj")
		reset := a.boolean("reset_interfaces", false)
		return guard(a, func() (any, error) {
			return nodeResult(d.api.UpdateNode(ctx, d.topic, rpc.NodeUpdate{Node: *o.Value, Changes: o.Changes}, reset))
		})
	},
	"destroy_node": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.DestroyNode(ctx, d.topic, id) })
	},
	"validate_driver_interfaces": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.ValidateDriverInterfaces(ctx, d.topic, id) })
	},
	"get_driver_properties": func(ctx context.Context, d call, a *args) (any, error) {
		drv := a.str("driver_name")
		return guard(a, func() (any, error) { return d.api.GetDriverProperties(ctx, d.topic, drv) })
	},
	"get_driver_vendor_passthru_methods": func(ctx context.Context, d call, a *args) (any, error) {
		drv := a.str("driver_name")
		return guard(a, func() (any, error) { return d.api.GetDriverVendorPassthruMethods(ctx, d.topic, drv) })
	},
	"get_node_vendor_passthru_methods": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.GetNodeVendorPassthruMethods(ctx, d.topic, id) })
	},
	"get_raid_logical_disk_properties": func(ctx context.Context, d call, a *args) (any, error) {
		drv := a.str("driver_name")
		return guard(a, func() (any, error) { return d.api.GetRAIDLogicalDiskProperties(ctx, d.topic, drv) })
	},
	"add_node_traits": func(ctx context.Context, d call, a *args) (any, error) {
		id := d.traitsNode(ctx, a)
		traits := a.strings("traits", true)
		replace := a.boolean("replace", false)
		return guard0(a, func() error { return d.api.AddNodeTraits(ctx, d.topic, id, traits, replace) })
	},
	"remove_node_traits": func(ctx context.Context, d call, a *args) (any, error) {
		id := d.traitsNode(ctx, a)
		traits := a.strings("traits", true)
		return guard0(a, func() error { return d.api.RemoveNodeTraits(ctx, d.topic, id, traits) })
	},
	"vif_list": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.VIFList(ctx, d.topic, id) })
	},
	"vif_attach": func(ctx context.Context, d call, a *args) (any, error) {
		id, info := a.str("node_id"), a.dict("vif_info", true)
		return guard0(a, func() error { return d.api.VIFAttach(ctx, d.topic, id, info) })
	},
	"vif_detach": func(ctx context.Context, d call, a *args) (any, error) {
		id, vif := a.str("node_id"), a.str("vif_id")
		return guard0(a, func() error { return d.api.VIFDetach(ctx, d.topic, id, vif) })
	},
	"create_port": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, portDef, "port_obj")
		return guard(a, func() (any, error) {
			p, err := d.api.CreatePort(ctx, d.topic, o.Value)
			return objOutWithNode(ctx, d, portDef, p, err, func(p *port) *int64 { return p.NodeID })
		})
	},
	"update_port": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, portDef, "port_obj")
		return guard(a, func() (any, error) {
			p, err := d.api.UpdatePort(ctx, d.topic, o.Value, o.Changes)
			return objOutWithNode(ctx, d, portDef, p, err, func(p *port) *int64 { return p.NodeID })
		})
	},
	"destroy_port": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, portDef, "port")
		return guard0(a, func() error { return d.api.DestroyPort(ctx, d.topic, o.Value) })
	},
	"update_portgroup": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, portgroupDef, "portgroup_obj")
		return guard(a, func() (any, error) {
			p, err := d.api.UpdatePortgroup(ctx, d.topic, o.Value, o.Changes)
			return objOutWithNode(ctx, d, portgroupDef, p, err, func(p *portgroup) *int64 { return p.NodeID })
		})
	},
	"destroy_portgroup": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, portgroupDef, "portgroup")
		return guard0(a, func() error { return d.api.DestroyPortgroup(ctx, d.topic, o.Value) })
	},
	"update_volume_connector": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, connectorDef, "connector")
		return guard(a, func() (any, error) {
			v, err := d.api.UpdateVolumeConnector(ctx, d.topic, o.Value, o.Changes)
			return objOut(connectorDef, v, err)
		})
	},
	"destroy_volume_connector": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, connectorDef, "connector")
		return guard0(a, func() error { return d.api.DestroyVolumeConnector(ctx, d.topic, o.Value) })
	},
	"update_volume_target": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, targetDef, "target")
		return guard(a, func() (any, error) {
			v, err := d.api.UpdateVolumeTarget(ctx, d.topic, o.Value, o.Changes)
			return objOut(targetDef, v, err)
		})
	},
	"destroy_volume_target": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, targetDef, "target")
		return guard0(a, func() error { return d.api.DestroyVolumeTarget(ctx, d.topic, o.Value) })
	},
	"change_node_power_state": func(ctx context.Context, d call, a *args) (any, error) {
		id, st, to := a.str("node_id"), states.Power(a.str("new_state")), a.integer("timeout", false)
		return guard0(a, func() error { return d.api.ChangeNodePowerState(ctx, d.topic, id, st, to) })
	},
	"change_node_boot_mode": func(ctx context.Context, d call, a *args) (any, error) {
		id, st := a.str("node_id"), a.str("new_state")
		return guard0(a, func() error { return d.api.ChangeNodeBootMode(ctx, d.topic, id, st) })
	},
	"change_node_secure_boot": func(ctx context.Context, d call, a *args) (any, error) {
		id, st := a.str("node_id"), a.boolean("new_state", true)
		return guard0(a, func() error { return d.api.ChangeNodeSecureBoot(ctx, d.topic, id, st) })
	},
	"vendor_passthru": func(ctx context.Context, d call, a *args) (any, error) {
		id, m, hm, info := a.str("node_id"), a.str("driver_method"), a.str("http_method"), a.anyValue("info", true)
		return guard(a, func() (any, error) { return vendorResult(d.api.VendorPassthru(ctx, d.topic, id, m, hm, info)) })
	},
	"driver_vendor_passthru": func(ctx context.Context, d call, a *args) (any, error) {
		drv, m, hm, info := a.str("driver_name"), a.str("driver_method"), a.str("http_method"), a.anyValue("info", true)
		return guard(a, func() (any, error) { return vendorResult(d.api.DriverVendorPassthru(ctx, d.topic, drv, m, hm, info)) })
	},
	"do_node_deploy": func(ctx context.Context, d call, a *args) (any, error) {
		id, rebuild, cd := a.str("node_id"), a.boolean("rebuild", false), a.anyValue("configdrive", false)
		steps := a.dictList("deploy_steps", false)
		return guard0(a, func() error { return d.api.DoNodeDeploy(ctx, d.topic, id, rebuild, cd, steps) })
	},
	"do_node_tear_down": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.DoNodeTearDown(ctx, d.topic, id) })
	},
	"do_provisioning_action": func(ctx context.Context, d call, a *args) (any, error) {
		id, action := a.str("node_id"), states.Event(a.str("action"))
		return guard0(a, func() error { return d.api.DoProvisioningAction(ctx, d.topic, id, action) })
	},
	"continue_node_clean": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.ContinueNodeClean(ctx, d.topic, id) })
	},
	"continue_node_deploy": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.ContinueNodeDeploy(ctx, d.topic, id) })
	},
	"do_node_clean": func(ctx context.Context, d call, a *args) (any, error) {
		id, steps, dr := a.str("node_id"), a.dictList("clean_steps", true), a.optBool("disable_ramdisk")
		return guard0(a, func() error { return d.api.DoNodeClean(ctx, d.topic, id, steps, dr) })
	},
	"do_node_rescue": func(ctx context.Context, d call, a *args) (any, error) {
		id, pw := a.str("node_id"), a.str("rescue_password")
		return guard0(a, func() error { return d.api.DoNodeRescue(ctx, d.topic, id, pw) })
	},
	"do_node_unrescue": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.DoNodeUnrescue(ctx, d.topic, id) })
	},
	"inspect_hardware": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.InspectHardware(ctx, d.topic, id) })
	},
	"get_console_information": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.GetConsoleInformation(ctx, d.topic, id) })
	},
	"set_console_mode": func(ctx context.Context, d call, a *args) (any, error) {
		id, en := a.str("node_id"), a.boolean("enabled", true)
		return guard0(a, func() error { return d.api.SetConsoleMode(ctx, d.topic, id, en) })
	},
	"set_boot_device": func(ctx context.Context, d call, a *args) (any, error) {
		id, dev, pers := a.str("node_id"), a.str("device"), a.boolean("persistent", false)
		return guard0(a, func() error { return d.api.SetBootDevice(ctx, d.topic, id, dev, pers) })
	},
	"get_boot_device": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.GetBootDevice(ctx, d.topic, id) })
	},
	"get_supported_boot_devices": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return d.api.GetSupportedBootDevices(ctx, d.topic, id) })
	},
	"inject_nmi": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard0(a, func() error { return d.api.InjectNMI(ctx, d.topic, id) })
	},
	"set_target_raid_config": func(ctx context.Context, d call, a *args) (any, error) {
		id, cfg := a.str("node_id"), a.dict("target_raid_config", true)
		return guard0(a, func() error { return d.api.SetTargetRAIDConfig(ctx, d.topic, id, cfg) })
	},
	"create_allocation": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, allocationDef, "allocation")
		return guard(a, func() (any, error) {
			v, err := d.api.CreateAllocation(ctx, d.topic, o.Value)
			return objOut(allocationDef, v, err)
		})
	},
	"destroy_allocation": func(ctx context.Context, d call, a *args) (any, error) {
		o := objectArg(a, allocationDef, "allocation")
		return guard0(a, func() error { return d.api.DestroyAllocation(ctx, d.topic, o.Value) })
	},
	"heartbeat": func(ctx context.Context, d call, a *args) (any, error) {
		id, hb := a.str("node_id"), heartbeatArgs(a)
		return guard0(a, func() error { return d.api.Heartbeat(ctx, d.topic, id, hb) })
	},
	"get_node_with_token": func(ctx context.Context, d call, a *args) (any, error) {
		id := a.str("node_id")
		return guard(a, func() (any, error) { return nodeResult(d.api.GetNodeWithToken(ctx, d.topic, id)) })
	},
	"get_supported_indicators": func(ctx context.Context, d call, a *args) (any, error) {
		id, comp := a.str("node_id"), models.Deref(a.optStr("component"))
		return guard(a, func() (any, error) { return d.api.GetSupportedIndicators(ctx, d.topic, id, comp) })
	},
	"get_indicator_state": func(ctx context.Context, d call, a *args) (any, error) {
		id, comp, ind := a.str("node_id"), a.str("component"), a.str("indicator")
		return guard(a, func() (any, error) { return d.api.GetIndicatorState(ctx, d.topic, id, comp, ind) })
	},
	"set_indicator_state": func(ctx context.Context, d call, a *args) (any, error) {
		id, comp, ind, st := a.str("node_id"), a.str("component"), a.str("indicator"), a.str("state")
		return guard0(a, func() error { return d.api.SetIndicatorState(ctx, d.topic, id, comp, ind, st) })
	},
}

// Casts are the methods Ironic's API casts rather than calls.
var Casts = map[string]bool{"continue_node_clean": true, "continue_node_deploy": true}

// Methods lists the methods the dispatcher serves.
func Methods() []string {
	out := make([]string, 0, len(handlers))
	for m := range handlers {
		out = append(out, m)
	}
	return out
}
