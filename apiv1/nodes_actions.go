package apiv1

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/pyschema"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// The node actions: NodeStatesController (provision, boot_mode,
// secure_boot, raid, console), NodeManagementController (boot_device,
// inject_nmi) and NodeVendorPassthruController. Each validates what
// Ironic's API validates, in Ironic's order, then makes the conductor call
// and renders its answer; whether the action can be done is the
// conductor's to say.

// configDriveSchema is utils.py _CONFIG_DRIVE_SCHEMA.
var configDriveSchema = pyschema.MustCompile(`{
  "anyOf": [
    {
      "type": "object",
      "properties": {
        "meta_data": {"type": "object"},
        "network_data": {"type": "object"},
        "user_data": {"type": ["object", "array", "string", "null"]},
        "vendor_data": {"type": "object"}
      },
      "additionalProperties": false
    },
    {"type": ["string", "null"]}
  ]
}`)

// cleanStepsSchema is node.py _CLEAN_STEPS_SCHEMA; the interfaces are
// conductor/steps.py CLEANING_INTERFACE_PRIORITY in its order.
var cleanStepsSchema = pyschema.MustCompile(`{
  "$schema": "http://json-schema.org/schema#",
  "title": "Clean steps schema",
  "type": "array",
  "items": {
    "type": "object",
    "required": ["interface", "step"],
    "properties": {
      "interface": {
        "description": "driver interface",
        "enum": ["power", "management", "deploy", "bios", "raid"]
      },
      "step": {
        "description": "name of clean step",
        "type": "string",
        "minLength": 1
      },
      "args": {
        "description": "additional args",
        "type": "object",
        "properties": {}
      }
    },
    "additionalProperties": false
  }
}`)

// deployStepsSchema is node.py _DEPLOY_STEPS_SCHEMA.
var deployStepsSchema = pyschema.MustCompile(`{
  "$schema": "http://json-schema.org/schema#",
  "title": "Deploy steps schema",
  "type": "array",
  "items": ` + deployStepSchemaJSON + `
}`)

// b64Alphabet is utils.py _B64_ALPHABET: base64 plus the whitespace common
// in base64 values.
const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n\r\t "

// statesLocation is the Location of an accepted state change:
// /v1/nodes/<ident as given>/states[/<sub>].
func statesLocation(rq *Request, b args, sub string) string {
	loc := rq.BaseURL() + "/v1/nodes/" + b.ident("node_ident") + "/states"
	if sub != "" {
		loc += "/" + sub
	}
	return loc
}

// provisionArgs are NodeStatesController.provision's parameters.
var provisionArgs = params(req("node_ident", uuidOrNameArg), req("target", strArg),
	opt("configdrive", typesArg("NoneType", "dict", "str")), opt("clean_steps", typesArg("NoneType", "list")),
	opt("deploy_steps", typesArg("NoneType", "list")), opt("rescue_password", strArg),
	opt("disable_ramdisk", boolArg))

// provisionRequest are provision's bound arguments.
type provisionRequest struct {
	target         states.Verb
	configdrive    any
	cleanSteps     []any
	deploySteps    []any
	hasDeploySteps bool
	rescuePassword *string
	disableRamdisk *bool
}

func newProvisionRequest(b args) *provisionRequest {
	p := &provisionRequest{
		// A null target is Python's None, refused as a state.
		target:         states.Verb(b.strOr("target", "None")),
		configdrive:    b.value("configdrive"),
		rescuePassword: b.str("rescue_password"),
		disableRamdisk: b.boolean("disable_ramdisk"),
	}
	p.cleanSteps, _ = b.value("clean_steps").([]any)
	p.deploySteps, p.hasDeploySteps = b.value("deploy_steps").([]any)
	return p
}

// verbMinVersion is MIN_VERB_VERSIONS: provision verbs newer than the
// request are 406. Ironic keys the table by event, so "delete" (not
// "undeploy") is the 1.73 verb, and "undeploy" passes at any version.
func verbMinVersion(verb states.Verb) mv.Version {
	switch verb {
	case states.VerbManage, states.VerbProvide:
		return mv.ManageableState
	case states.VerbInspect:
		return mv.InspectState
	case states.VerbAbort:
		return mv.AbortVerb
	case states.VerbClean:
		return mv.ManualClean
	case states.VerbAdopt:
		return mv.AdoptVerb
	case states.VerbRescue, states.VerbUnrescue:
		return mv.RescueInterface
	case states.VerbDeploy, states.Verb(states.EventDelete):
		return mv.DeployUndeployVerbs
	}
	return mv.InitialVersion
}

// nodeAction is how a node action starts once its arguments are read:
// the node under policy (check_node_policy_and_retrieve), then each of
// checks in turn (the version gates and argument checks Ironic makes
// before it routes the call), then the topic of the node's conductor.
func (a *API) nodeAction(rq *Request, policy, ident string, checks ...func(*models.Node) error) (*models.Node, string, error) {
	n, err := a.nodeFor(rq, policy, ident)
	if err != nil {
		return nil, "", err
	}
	for _, check := range checks {
		if err := check(n); err != nil {
			return nil, "", err
		}
	}
	topic, err := a.d.Conductor.TopicFor(rq.Ctx(), n)
	if err != nil {
		return nil, "", err
	}
	return n, topic, nil
}

// minVersion is a nodeAction check: requests older than min are 406.
func minVersion(rq *Request, min mv.Version) func(*models.Node) error {
	return func(*models.Node) error {
		if !rq.Ver.AtLeast(min) {
			return notAcceptable()
		}
		return nil
	}
}

// nodeRead is a GET of what a node's conductor holds: the node_ident
// argument alone, the node under policy, then get on its conductor.
func nodeRead[T any](a *API, rq *Request, positional []string, policy string, get func(ctx context.Context, topic, uuid string) (T, error)) (T, error) {
	var zero T
	b, err := nodeIdentArgs.bind(rq, positional...)
	if err != nil {
		return zero, err
	}
	n, topic, err := a.nodeAction(rq, policy, b.ident("node_ident"))
	if err != nil {
		return zero, err
	}
	return get(rq.Ctx(), topic, n.UUID)
}

// setProvisionState is NodeStatesController.provision.
func (a *API) setProvisionState(rq *Request) (*Response, error) {
	b, err := provisionArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	p := newProvisionRequest(b)
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_provision_state", b.ident("node_ident"), func(n *models.Node) error {
		return checkProvisionRequest(rq, n, p)
	})
	if err != nil {
		return nil, err
	}
	if err := a.doProvisionAction(rq, n, topic, p); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted, Location: statesLocation(rq, b, "")}, nil
}

// checkProvisionRequest is provision's checks of the verb and its
// arguments against the node and the request's version.
func checkProvisionRequest(rq *Request, n *models.Node, p *provisionRequest) error {
	target := p.target
	if !rq.Ver.AtLeast(verbMinVersion(target)) {
		return notAcceptable()
	}
	if (target == states.VerbActive || target == states.VerbRebuild) && n.Maintenance {
		return ironic.Errorf(ironic.NodeInMaintenance,
			"The provisioning operation can't be performed on node %s because it's in maintenance mode.", n.UUID)
	}
	state := models.Deref(n.ProvisionState)
	if !states.NewMachine().Actionable(state, target.Event()) {
		// A node being worked on is locked: 409 as Ironic has always
		// answered, rather than 400.
		if n.Reservation != nil {
			return ironic.Errorf(ironic.NodeLocked,
				"Node %s is locked by host %s, please retry after the current operation is completed.", n.UUID, *n.Reservation)
		}
		return ironic.Errorf(ironic.InvalidStateRequested,
			"The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".", target, n.UUID, state)
	}
	if err := checkConfigDrive(rq.Ver, target, p.configdrive); err != nil {
		return err
	}
	if p.disableRamdisk != nil {
		if !rq.Ver.AtLeast(mv.CleanDisableRamdisk) {
			return ironic.Errorf(ironic.NotAcceptable, "disable_ramdisk is not acceptable in this API version")
		}
		if target != states.VerbClean {
			// exception.BadRequest has no code: a 500 in Ironic.
			return ironic.Errorf(ironic.BadRequest, "disable_ramdisk is supported only with manual cleaning").
				WithStatus(http.StatusBadRequest)
		}
	}
	if len(p.cleanSteps) > 0 && target != states.VerbClean {
		return ironic.Errorf(ironic.ClientSideError,
			"\"clean_steps\" is only valid when setting target provision state to clean")
	}
	if len(p.deploySteps) > 0 {
		if !rq.Ver.AtLeast(mv.DeploySteps) {
			return ironic.Errorf(ironic.NotAcceptable,
				"Request not acceptable. The minimal required API version should be %s", mv.DeploySteps)
		}
		if target != states.VerbActive && target != states.VerbRebuild {
			return ironic.Errorf(ironic.ClientSideError,
				"\"deploy_steps\" is only valid when setting target provision state to active or rebuild")
		}
	}
	if p.rescuePassword != nil && target != states.VerbRescue {
		return ironic.Errorf(ironic.ClientSideError,
			"\"rescue_password\" is only valid when setting target provision state to rescue")
	}
	if state == states.InspectWait && target == states.VerbAbort && !rq.Ver.AtLeast(mv.InspectionAbort) {
		return notAcceptable()
	}
	return nil
}

// doProvisionAction is _do_provision_action: the conductor call for the
// verb.
func (a *API) doProvisionAction(rq *Request, n *models.Node, topic string, p *provisionRequest) error {
	ctx := rq.Ctx()
	c := a.d.Conductor
	switch target := p.target; target {
	case states.VerbActive, states.VerbRebuild, states.VerbDeploy:
		var steps []map[string]any
		if len(p.deploySteps) > 0 {
			if verr := deployStepsSchema.Validate(p.deploySteps); verr != nil {
				return ironic.Errorf(ironic.InvalidParameterValue, "Invalid deploy_steps: %s", verr.Verbose())
			}
		}
		if p.hasDeploySteps {
			steps = stepMaps(p.deploySteps)
		}
		// The configdrive dict goes as Python's ironic-api sends what
		// json.loads made of it: keys in the client's order (Ironic writes
		// meta_data and the rest out in it), numbers as Python holds them.
		return c.DoNodeDeploy(ctx, topic, n.UUID, target == states.VerbRebuild, pyjson.PythonNumbers(p.configdrive), steps)
	case states.VerbUnrescue:
		return c.DoNodeUnrescue(ctx, topic, n.UUID)
	case states.VerbRescue:
		if p.rescuePassword == nil || strings.TrimSpace(*p.rescuePassword) == "" {
			return ironic.Errorf(ironic.ClientSideError,
				"A non-empty \"rescue_password\" is required when setting target provision state to rescue")
		}
		return c.DoNodeRescue(ctx, topic, n.UUID, *p.rescuePassword)
	case states.VerbDeleted, states.VerbUndeploy:
		return c.DoNodeTearDown(ctx, topic, n.UUID)
	case states.VerbInspect:
		return c.InspectHardware(ctx, topic, n.UUID)
	case states.VerbClean:
		if len(p.cleanSteps) == 0 {
			return ironic.Errorf(ironic.ClientSideError,
				"\"clean_steps\" is required when setting target provision state to clean")
		}
		if verr := cleanStepsSchema.Validate(p.cleanSteps); verr != nil {
			return ironic.Errorf(ironic.InvalidParameterValue, "Invalid clean_steps: %s", verr.Verbose())
		}
		return c.DoNodeClean(ctx, topic, n.UUID, stepMaps(p.cleanSteps), p.disableRamdisk)
	case states.VerbManage, states.VerbProvide, states.VerbAbort, states.VerbAdopt:
		return c.DoProvisioningAction(ctx, topic, n.UUID, target.Event())
	default:
		return ironic.Errorf(ironic.InvalidStateRequested, "The requested action \"%s\" could not be understood.", target)
	}
}

// stepMaps converts validated steps (JSON objects) for the RPC call.
func stepMaps(steps []any) []map[string]any {
	out := make([]map[string]any, 0, len(steps))
	for _, s := range steps {
		if m, ok := plain(s).(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// checkConfigDrive is check_allow_configdrive.
func checkConfigDrive(v mv.Version, target states.Verb, cd any) error {
	if !pyjson.Truthy(cd) {
		return nil
	}
	allowed := []states.Verb{states.VerbActive}
	if v.AtLeast(mv.RebuildConfigDrive) {
		allowed = append(allowed, states.VerbRebuild)
	}
	if !slices.Contains(allowed, target) {
		return ironic.Errorf(ironic.ClientSideError,
			"Adding a config drive is only supported when setting provision state to %s", states.Join(allowed, ", "))
	}
	if verr := configDriveSchema.Validate(cd); verr != nil {
		return ironic.Errorf(ironic.ClientSideError, "Invalid configdrive format: %s", verr.Verbose())
	}
	switch x := cd.(type) {
	case pyjson.Object:
		if !v.AtLeast(mv.BuildConfigdrive) {
			return ironic.Errorf(ironic.ClientSideError,
				"Providing a JSON object for configdrive is only supported starting with API version %s", mv.BuildConfigdrive)
		}
		if _, ok := x.Get("vendor_data"); ok && !v.AtLeast(mv.ConfigdriveVendorData) {
			return ironic.Errorf(ironic.ClientSideError,
				"Providing vendor_data in configdrive is only supported starting with API version %s", mv.ConfigdriveVendorData)
		}
	case string:
		if strings.Contains(x, "://") {
			return nil
		}
		if strings.IndexFunc(x, func(r rune) bool { return !strings.ContainsRune(b64Alphabet, r) }) >= 0 {
			return ironic.Errorf(ironic.ClientSideError,
				"Invalid configdrive format: it is neither a JSON, nor a URL, nor a base64 string")
		}
	}
	return nil
}

// setBootMode is NodeStatesController.boot_mode (1.76).
func (a *API) setBootMode(rq *Request) (*Response, error) {
	return changeBootState(a, rq, "baremetal:node:set_boot_mode", bootModeArgs, args.str, func(target *string) error {
		if target == nil || (*target != "bios" && *target != "uefi") {
			return ironic.Errorf(ironic.InvalidParameterValue,
				"Invalid boot mode %s requested for node. Allowed boot modes are: bios, uefi", pyStr(target))
		}
		return nil
	}, a.d.Conductor.ChangeNodeBootMode)
}

// setSecureBoot is NodeStatesController.secure_boot (1.76).
func (a *API) setSecureBoot(rq *Request) (*Response, error) {
	return changeBootState(a, rq, "baremetal:node:set_secure_boot", secureBootArgs, args.boolean, func(target *bool) error {
		if target == nil {
			return ironic.Errorf(ironic.InvalidParameterValue,
				"Invalid secure_boot None requested for node. Allowed secure_boot states are: True, False) ")
		}
		return nil
	}, a.d.Conductor.ChangeNodeSecureBoot)
}

// The parameters of NodeStatesController.boot_mode and secure_boot.
var (
	bootModeArgs   = params(req("node_ident", uuidOrNameArg), req("target", strArg))
	secureBootArgs = params(req("node_ident", uuidOrNameArg), req("target", boolArg))
)

// changeBootState is what boot_mode and secure_boot share: the arguments
// (the target read by arg), the node routed to its conductor, the 1.76
// gate, the target's validity, the node's stability, then change.
func changeBootState[T any](a *API, rq *Request, policy string, spec argSpec,
	arg func(args, string) *T, valid func(*T) error,
	change func(ctx context.Context, topic, uuid string, target T) error) (*Response, error) {
	b, err := spec.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	target := arg(b, "target")
	n, topic, err := a.nodeAction(rq, policy, b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.NodeChangeBootMode) {
		return nil, changeBootModeNotFound()
	}
	if err := valid(target); err != nil {
		return nil, err
	}
	if err := checkStableForBootMode(models.Deref(n.ProvisionState)); err != nil {
		return nil, err
	}
	if err := change(rq.Ctx(), topic, n.UUID, *target); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted, Location: statesLocation(rq, b, "")}, nil
}

func changeBootModeNotFound() error {
	return ironic.Errorf(ironic.NotFound, "This endpoint is supported starting with the API version 1.%d",
		int(mv.NodeChangeBootMode))
}

// checkStableForBootMode refuses boot mode changes in UNSTABLE_STATES.
// Ironic passes its message as the exception's text, so the "%(state)s"
// placeholder reaches the client as written.
func checkStableForBootMode(state states.Provision) error {
	if states.Unstable(state) {
		return ironic.Errorf(ironic.Conflict, "%s", "Node is in %(state)s state. Since node is transitioning, "+
			"the boot mode will not be set as this may interfere with ongoing changes and result in "+
			"erroneous modification. Try again later.")
	}
	return nil
}

// raidArgs are NodeStatesController.raid's parameters.
var raidArgs = params(req("node_ident", uuidOrNameArg), req("target_raid_config", typesArg("dict"))).
	takesBody("target_raid_config")

// setRAIDConfig is NodeStatesController.raid: the whole body is the
// target RAID configuration; the conductor validates it.
func (a *API) setRAIDConfig(rq *Request) (*Response, error) {
	b, err := raidArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_raid_state", b.ident("node_ident"), minVersion(rq, mv.RAIDConfig))
	if err != nil {
		return nil, err
	}
	cfg, _ := plain(b.value("target_raid_config")).(map[string]any)
	if err := a.d.Conductor.SetTargetRAIDConfig(rq.Ctx(), topic, n.UUID, cfg); err != nil {
		// RAID is a standard interface a driver may lack: 404.
		return nil, withStatus(err, ironic.UnsupportedDriverExtension, http.StatusNotFound)
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// getConsole is NodeConsoleController.get.
func (a *API) getConsole(rq *Request) (*Response, error) {
	info, err := nodeRead(a, rq, rq.positional(), "baremetal:node:get_console", a.d.Conductor.GetConsoleInformation)
	switch {
	case ironic.IsClass(err, ironic.NodeConsoleNotEnabled):
		return OK(pyjson.Object{{Key: "console_enabled", Value: false}, {Key: "console_info", Value: nil}}), nil
	case err != nil:
		return nil, err
	}
	var infoVal any = info
	if info == nil {
		infoVal = map[string]any{}
	}
	return OK(pyjson.Object{{Key: "console_enabled", Value: true}, {Key: "console_info", Value: infoVal}}), nil
}

// consoleArgs are NodeConsoleController.put's parameters.
var consoleArgs = params(req("node_ident", uuidOrNameArg), req("enabled", boolArg))

// setConsole is NodeConsoleController.put.
func (a *API) setConsole(rq *Request) (*Response, error) {
	b, err := consoleArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	enabled := b.boolean("enabled")
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_console_state", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.SetConsoleMode(rq.Ctx(), topic, n.UUID, enabled != nil && *enabled); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted, Location: statesLocation(rq, b, "console")}, nil
}

// getBootDevice is BootDeviceController.get.
func (a *API) getBootDevice(rq *Request) (*Response, error) {
	bd, err := nodeRead(a, rq, rq.positional(), "baremetal:node:get_boot_device", a.d.Conductor.GetBootDevice)
	if err != nil {
		return nil, err
	}
	var dev, persistent any
	if bd != nil {
		dev, persistent = strOrNil(bd.BootDevice), boolOrNil(bd.Persistent)
	}
	return OK(pyjson.Object{{Key: "boot_device", Value: dev}, {Key: "persistent", Value: persistent}}), nil
}

// supportedBootDevices is BootDeviceController.supported.
func (a *API) supportedBootDevices(rq *Request) (*Response, error) {
	devs, err := nodeRead(a, rq, rq.positional(), "baremetal:node:get_boot_device", a.d.Conductor.GetSupportedBootDevices)
	if err != nil {
		return nil, err
	}
	if devs == nil {
		devs = []string{}
	}
	return OK(pyjson.Object{{Key: "supported_boot_devices", Value: devs}}), nil
}

// bootDeviceArgs are BootDeviceController.put's parameters.
var bootDeviceArgs = params(req("node_ident", uuidOrNameArg), req("boot_device", strArg), opt("persistent", boolArg))

// setBootDevice is BootDeviceController.put.
func (a *API) setBootDevice(rq *Request) (*Response, error) {
	b, err := bootDeviceArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	dev, persistent := b.str("boot_device"), b.boolean("persistent")
	n, topic, err := a.nodeAction(rq, "baremetal:node:set_boot_device", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.SetBootDevice(rq.Ctx(), topic, n.UUID, pyStr(dev), persistent != nil && *persistent); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// injectNMI is InjectNmiController.put (1.29): older versions don't know
// the endpoint.
func (a *API) injectNMI(rq *Request) (*Response, error) {
	b, err := nodeIdentArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.InjectNMI) {
		return nil, resourceNotFound()
	}
	n, topic, err := a.nodeAction(rq, "baremetal:node:inject_nmi", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	if err := a.d.Conductor.InjectNMI(rq.Ctx(), topic, n.UUID); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusNoContent}, nil
}

// nodeVendorArgs are NodeVendorPassthruController._default's parameters.
var nodeVendorArgs = params(req("node_ident", uuidOrNameArg), req("method", strArg), opt("data", nil)).
	takesBody("data")

// nodeVendorPassthru is NodeVendorPassthruController: a GET whose last
// segment is "methods" is its methods action; any other verb or path is
// _default, a call of the node's vendor method.
func (a *API) nodeVendorPassthru(rq *Request) (*Response, error) {
	pos := rq.positional()
	if rq.HTTP.Method == http.MethodGet && len(pos) > 0 && pos[len(pos)-1] == "methods" {
		return a.nodeVendorMethods(rq, pos[:len(pos)-1])
	}
	b, err := nodeVendorArgs.bind(rq, pos...)
	if err != nil {
		return nil, err
	}
	n, topic, err := a.nodeAction(rq, "baremetal:node:vendor_passthru", b.ident("node_ident"))
	if err != nil {
		return nil, err
	}
	method := b.strOr("method", "")
	if method == "" {
		return nil, ironic.Errorf(ironic.ClientSideError, "Method not specified")
	}
	res, err := a.d.Conductor.VendorPassthru(rq.Ctx(), topic, n.UUID, method, rq.HTTP.Method, plain(b.body))
	if err != nil {
		return nil, err
	}
	return vendorResponse(res), nil
}

// vendorResponse is utils.vendor_passthru's answer: 202 for asynchronous
// methods (no body when they return nothing), 200 for synchronous ones,
// and an attached return value sent as it is.
func vendorResponse(res *rpc.VendorResult) *Response {
	if res == nil {
		res = &rpc.VendorResult{}
	}
	status := http.StatusOK
	if res.Async {
		status = http.StatusAccepted
	}
	if res.Attach {
		if s, ok := res.Return.(string); ok && s != "" {
			return &Response{Status: status, Text: s, ContentType: "application/octet-stream"}
		}
	}
	if res.Return == nil {
		if status == http.StatusAccepted {
			return &Response{Status: status}
		}
		return &Response{Status: status, Text: "null", ContentType: "application/json"}
	}
	return &Response{Status: status, Body: res.Return}
}
