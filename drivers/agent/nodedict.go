package agent

import (
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/strutils"
)

var masker = strutils.NewMasker()

// nodeDict is what the agent gets of the node in its commands' "node"
// parameter: Ironic sends node.as_dict(secure=True), with driver_info,
// instance_info and driver_internal_info passed through
// mask_dict_password, and the configuration drive masked unless
// maskConfigdrive is false (deploy steps need it).
func nodeDict(task drivers.Task, maskConfigdrive bool) (pyjson.Object, error) {
	full, err := task.NodeDict()
	if err != nil {
		return nil, err
	}
	return secureNodeDict(task, full, maskConfigdrive), nil
}

// secureNodeDict is as_dict(secure=True, mask_configdrive): driver_info,
// instance_info and driver_internal_info through mask_dict_password,
// instance_info's configdrive masked unless asked not to.
func secureNodeDict(task drivers.Task, d pyjson.Object, maskConfigdrive bool) pyjson.Object {
	ii := task.InstanceInfo().Clone()
	cd, hasCD := ii.Delete("configdrive")
	ii = masker.MaskDict(ii, "******").Clone()
	if hasCD && cd != nil {
		// popped and set again: it moves to the end
		if maskConfigdrive {
			ii.Set("configdrive", "******")
		} else {
			ii.Set("configdrive", cd)
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

// nodeAndPorts are the "node" and "ports" parameters of the step
// commands: nodeDict and [port.as_dict() for port in task.ports].
func nodeAndPorts(task drivers.Task, maskConfigdrive bool) (pyjson.Object, []any, error) {
	node, err := nodeDict(task, maskConfigdrive)
	if err != nil {
		return nil, nil, err
	}
	ports, err := task.PortDicts()
	if err != nil {
		return nil, nil, err
	}
	return node, ports, nil
}
