package apiv1

import (
	"github.com/goironic/ironic"
	mv "github.com/goironic/ironic/microversions"
)

// verbMinVersion is MIN_VERB_VERSIONS: provision verbs newer than the
// request are 406.
func verbMinVersion(verb string) mv.Version {
	switch verb {
	case "manage", "provide":
		return mv.ManageableState
	case "inspect":
		return mv.InspectState
	case "abort":
		return mv.AbortVerb
	case "clean":
		return mv.ManualClean
	case "adopt":
		return mv.AdoptVerb
	case "rescue", "unrescue":
		return mv.RescueInterface
	case "deploy", "undeploy":
		return mv.DeployUndeployVerbs
	}
	return mv.InitialVersion
}

// setProvisionState is PUT /nodes/{node}/states/provision. The version
// gates are Ironic's; the transitions themselves belong to the conductor's
// state machine, which this build does not run yet, so every verb that
// passes the gates is refused with that explanation.
func (a *API) setProvisionState(rq *Request) (*Response, error) {
	args, err := bodyArgs(rq, "target", "configdrive", "clean_steps", "deploy_steps", "rescue_password", "disable_ramdisk")
	if err != nil {
		return nil, err
	}
	target, ok := args["target"].(string)
	if !ok {
		if _, present := args["target"]; present {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected string for target: %s", pyStrValue(args["target"]))
		}
		return nil, ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: target")
	}
	n, err := a.nodeFor(rq, "baremetal:node:set_provision_state")
	if err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(verbMinVersion(target)) {
		return nil, notAcceptable()
	}
	return nil, ironic.Errorf(ironic.UnsupportedDriverExtension,
		"Driver %s does not support provision state changes (disabled or not implemented): the state machine is not part of this release.", n.Driver)
}
