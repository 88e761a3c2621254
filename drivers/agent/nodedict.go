package agent

import (
	"maps"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/strutils"
)

var masker = strutils.NewMasker()

// nodeDict is what the agent gets of the node in its commands' "node"
// parameter: Ironic sends node.as_dict(secure=True), with driver_info,
// instance_info and driver_internal_info passed through
// mask_dict_password, and the configuration drive masked unless
// maskConfigdrive is false (deploy steps need it). The conductor's task
// gives every field of the node (NodeDict); with a plain driver task only
// the fields it exposes are sent (uuid, driver, the info dictionaries,
// properties, states, instance_uuid and the interface names).
func nodeDict(task drivers.Task, maskConfigdrive bool) pyjson.Object {
	if nd, ok := task.(nodeDicter); ok {
		if full, err := nd.NodeDict(); err == nil {
			return secureNodeDict(task, full, maskConfigdrive)
		}
	}
	return secureNodeDict(task, taskNodeDict(task), maskConfigdrive)
}

// nodeDicter is a task that gives the whole node.as_dict() (the
// conductor's does).
type nodeDicter interface {
	NodeDict() (pyjson.Object, error)
}

// secureNodeDict is as_dict(secure=True, mask_configdrive): driver_info,
// instance_info and driver_internal_info through mask_dict_password,
// instance_info's configdrive masked unless asked not to.
func secureNodeDict(task drivers.Task, d pyjson.Object, maskConfigdrive bool) pyjson.Object {
	ii := maps.Clone(task.InstanceInfo())
	cd, hasCD := ii["configdrive"]
	delete(ii, "configdrive")
	ii = maps.Clone(masker.MaskDict(ii, "******"))
	if hasCD && cd != nil {
		if maskConfigdrive {
			ii["configdrive"] = "******"
		} else {
			ii["configdrive"] = cd
		}
	}
	out := make(pyjson.Object, 0, len(d)+1)
	for _, m := range d {
		switch m.Key {
		case "driver_info":
			m.Value = masker.MaskDict(task.DriverInfo(), "******")
		case "driver_internal_info":
			m.Value = masker.MaskDict(task.DriverInternalInfo(), "******")
		case "instance_info":
			// Python pops instance_info and adds it back: it comes last.
			continue
		}
		out = append(out, m)
	}
	return append(out, pyjson.Member{Key: "instance_info", Value: ii})
}

// taskNodeDict is the part of as_dict a plain driver task can give.
func taskNodeDict(task drivers.Task) pyjson.Object {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	o := pyjson.Object{
		{Key: "uuid", Value: task.NodeUUID()},
		{Key: "driver", Value: task.DriverName()},
		{Key: "driver_info", Value: nil},
		{Key: "driver_internal_info", Value: nil},
		{Key: "instance_info", Value: nil},
		{Key: "instance_uuid", Value: nullable(task.InstanceUUID())},
		{Key: "properties", Value: task.Properties()},
		{Key: "power_state", Value: nullable(task.PowerState())},
		{Key: "provision_state", Value: nullable(task.ProvisionState())},
	}
	for _, k := range drivers.Kinds() {
		o = append(o, pyjson.Member{Key: k.Field(), Value: nullable(task.InterfaceName(k))})
	}
	return o
}

// portDicts is [port.as_dict() for port in ports]: every Port field from
// the conductor's task, the fields a plain driver task exposes otherwise.
func portDicts(task drivers.Task) []any {
	if pd, ok := task.(interface{ PortDicts() ([]any, error) }); ok {
		if out, err := pd.PortDicts(); err == nil {
			return out
		}
	}
	ports := task.Ports()
	out := make([]any, 0, len(ports))
	for _, p := range ports {
		llc := p.LocalLinkConnection
		if llc == nil {
			llc = map[string]any{}
		}
		var pg, physnet any
		if p.PortgroupUUID != "" {
			pg = p.PortgroupUUID
		}
		if p.PhysicalNetwork != "" {
			physnet = p.PhysicalNetwork
		}
		out = append(out, pyjson.Object{
			{Key: "uuid", Value: p.UUID},
			{Key: "address", Value: p.Address},
			{Key: "extra", Value: orEmptyMap(p.Extra)},
			{Key: "internal_info", Value: orEmptyMap(p.InternalInfo)},
			{Key: "local_link_connection", Value: llc},
			{Key: "pxe_enabled", Value: p.PXEEnabled},
			{Key: "physical_network", Value: physnet},
			{Key: "is_smartnic", Value: p.IsSmartNIC},
			{Key: "portgroup_uuid", Value: pg},
		})
	}
	return out
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
