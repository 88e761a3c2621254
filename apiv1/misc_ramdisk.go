package apiv1

import (
	"net/http"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
	"github.com/goironic/ironic/rpc"
	"github.com/goironic/ironic/states"
)

// RamdiskConfig holds the options the ramdisk endpoints (/lookup and
// /heartbeat) read, named as in ironic.conf.
type RamdiskConfig struct {
	// EnableEndpoints is [api]enable_ramdisk_endpoints.
	EnableEndpoints bool
	// RestrictLookup is [api]restrict_lookup: lookups only for nodes in
	// the states where a ramdisk runs.
	RestrictLookup bool
	// FastTrack is [deploy]fast_track, the default of a node's
	// driver_info["fast_track"].
	FastTrack bool
	// HeartbeatTimeout is [api]ramdisk_heartbeat_timeout, sent to the agent.
	HeartbeatTimeout int
	// The agent's metrics settings: [metrics]agent_backend,
	// agent_prepend_host, agent_prepend_uuid, agent_prepend_host_reverse,
	// agent_global_prefix (empty means None) and [metrics_statsd]
	// agent_statsd_host, agent_statsd_port.
	MetricsBackend           string
	MetricsPrependHost       bool
	MetricsPrependUUID       bool
	MetricsPrependHostRev    bool
	MetricsGlobalPrefix      string
	StatsdHost               string
	StatsdPort               int
	DisableDeepImageInspect  bool     // [conductor]disable_deep_image_inspection
	PermittedImageFormats    []string // [conductor]permitted_image_formats
	EnableBIOSBootloaderInst bool     // [agent]enable_bios_bootloader_install
}

// ramdiskConfig is the ramdisk configuration in force (Config.Ramdisk).
func (a *API) ramdiskConfig() RamdiskConfig { return a.cfg.Ramdisk }

// The parameters of LookupController.get_all and HeartbeatController.post.
var (
	lookupArgs    = params(opt("addresses", stringListArg), opt("node_uuid", uuidArg))
	heartbeatArgs = params(req("node_ident", uuidOrNameArg), req("callback_url", strArg),
		opt("agent_version", strArg), opt("agent_token", strArg), opt("agent_verify_ca", strArg),
		opt("agent_status", strArg), opt("agent_status_message", strArg))
)

// lookupReturnFields are the node fields a lookup returns.
func lookupReturnFields() []string {
	return []string{"uuid", "properties", "instance_info", "driver_internal_info"}
}

// ramdiskGate is the start of both ramdisk handlers: the endpoints may be
// disabled, and they exist from 1.22.
func (a *API) ramdiskGate(rq *Request) error {
	if !a.ramdiskConfig().EnableEndpoints {
		path, _, _ := strings.Cut(rq.HTTP.RequestURI, "?")
		return ironic.Errorf(ironic.HTTPForbidden, "Access was denied to the following resource: %s", path)
	}
	if !rq.Ver.AtLeast(mv.LookupHeartbeat) {
		return resourceNotFound()
	}
	return nil
}

// lookup is LookupController.get_all: the deploy ramdisk finds its node by
// MAC addresses or UUID. Every failure to find an eligible node is the
// same 404, so that the answer does not tell which nodes exist.
func (a *API) lookup(rq *Request) (*Response, error) {
	b, err := lookupArgs.bind(rq)
	if err != nil {
		return nil, err
	}
	addresses, nodeUUID := b.list("addresses"), b.str("node_uuid")
	if err := a.ramdiskGate(rq); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:driver:ipa_lookup", nil); err != nil {
		return nil, err
	}
	var valid, invalid []string
	for _, addr := range addresses {
		if mac, ok := normalizeMAC(addr); ok {
			valid = append(valid, mac)
		} else {
			invalid = append(invalid, addr)
		}
	}
	if len(invalid) > 0 {
		a.d.Log.WarnContext(ctx, "invalid MAC addresses are ignored by the lookup",
			"addresses", strings.Join(invalid, ", "), "node_uuid", pyStr(nodeUUID))
	}
	if len(valid) == 0 && nodeUUID == nil {
		return nil, ironic.Errorf(ironic.IncompleteLookup, "At least one of 'addresses' and 'node_uuid' parameters is required")
	}
	var n *models.Node
	if nodeUUID != nil {
		n, err = a.d.Store.GetNodeByUUID(ctx, *nodeUUID)
	} else {
		n, err = a.d.Store.GetNodeByPortAddresses(ctx, valid)
	}
	if err != nil {
		if ironic.IsClass(err, ironic.NodeNotFound) || ironic.IsClass(err, ironic.NotFound) {
			a.d.Log.ErrorContext(ctx, "no node has been found during lookup", "error", err)
			return nil, resourceNotFound()
		}
		return nil, err
	}
	cfg := a.ramdiskConfig()
	if cfg.RestrictLookup {
		ok, err := lookupAllowed(cfg, n)
		if err != nil {
			return nil, err
		}
		if !ok {
			a.d.Log.ErrorContext(ctx, "lookup is not allowed for the node in its provision state",
				"node", n.UUID, "state", optStr(n.ProvisionState))
			return nil, resourceNotFound()
		}
	}
	if rq.Ver.AtLeast(mv.AgentToken) {
		topic, err := a.d.Conductor.TopicFor(ctx, n)
		if err != nil {
			return nil, as400(err, ironic.NoValidHost)
		}
		// The conductor hands out the agent token (get_node_with_token).
		if n, err = a.d.Conductor.GetNodeWithToken(ctx, topic, n.UUID); err != nil {
			return nil, err
		}
	}
	nr := a.newNodeRenderer(rq, lookupReturnFields())
	node, err := nr.render(ctx, n)
	if err != nil {
		return nil, err
	}
	return OK(pyjson.Object{
		{Key: "node", Value: node},
		{Key: "config", Value: agentConfig(cfg, n.DriverInternalInfo["agent_secret_token"])},
	}), nil
}

// lookupAllowed is LookupController.lookup_allowed: with fast track a
// ramdisk may also run in enroll, manageable and available.
func lookupAllowed(cfg RamdiskConfig, n *models.Node) (bool, error) {
	fast := cfg.FastTrack
	if v, ok := n.DriverInfo["fast_track"]; ok && v != nil {
		if b, isBool := v.(bool); isBool {
			fast = b
		} else {
			b, err := parseBool("value of fast_track", pyStr(v))
			if err != nil {
				return false, err
			}
			fast = b
		}
	}
	if fast {
		return states.FastTrackLookupAllowed(models.Deref(n.ProvisionState)), nil
	}
	return states.LookupAllowed(models.Deref(n.ProvisionState)), nil
}

// agentConfig is ramdisk.config: the settings a lookup hands the agent.
func agentConfig(cfg RamdiskConfig, token any) pyjson.Object {
	var prefix any
	if cfg.MetricsGlobalPrefix != "" {
		prefix = cfg.MetricsGlobalPrefix
	}
	formats := cfg.PermittedImageFormats
	if formats == nil {
		formats = []string{}
	}
	return pyjson.Object{
		{Key: "metrics", Value: pyjson.Object{
			{Key: "backend", Value: cfg.MetricsBackend},
			{Key: "prepend_host", Value: cfg.MetricsPrependHost},
			{Key: "prepend_uuid", Value: cfg.MetricsPrependUUID},
			{Key: "prepend_host_reverse", Value: cfg.MetricsPrependHostRev},
			{Key: "global_prefix", Value: prefix},
		}},
		{Key: "metrics_statsd", Value: pyjson.Object{
			{Key: "statsd_host", Value: cfg.StatsdHost},
			{Key: "statsd_port", Value: cfg.StatsdPort},
		}},
		{Key: "heartbeat_timeout", Value: cfg.HeartbeatTimeout},
		{Key: "agent_token", Value: token},
		{Key: "agent_token_required", Value: true},
		{Key: "disable_deep_image_inspection", Value: cfg.DisableDeepImageInspect},
		{Key: "permitted_image_formats", Value: formats},
		{Key: "enable_bios_bootloader_install", Value: cfg.EnableBIOSBootloaderInst},
	}
}

// heartbeat is HeartbeatController.post: the agent reports in. Arguments
// come from the path, the query and the keys of a JSON body, as pecan binds
// them (POST /v1/heartbeat with node_ident in the body is a heartbeat too).
func (a *API) heartbeat(rq *Request) (*Response, error) {
	b, err := heartbeatArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	ident := b.ident("node_ident")
	vals := make(map[string]*string, len(heartbeatArgs.params))
	for _, p := range heartbeatArgs.params {
		vals[p.name] = b.str(p.name)
	}
	if err := a.ramdiskGate(rq); err != nil {
		return nil, err
	}
	set := func(k string) bool { return vals[k] != nil && *vals[k] != "" }
	if set("agent_version") && !rq.Ver.AtLeast(mv.AgentVersionHeartbeat) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, `Field "agent_version" not recognised`)
	}
	if (set("agent_status") || set("agent_status_message")) && !rq.Ver.AtLeast(mv.HeartbeatStatus) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, `Fields "agent_status" and "agent_status_message" not recognised.`)
	}
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:node:ipa_heartbeat", nil); err != nil {
		return nil, err
	}
	if vals["agent_verify_ca"] != nil && !rq.Ver.AtLeast(mv.HeartbeatVerifyCa) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, `Field "agent_verify_ca" not recognised in this version`)
	}
	n, err := a.findNode(rq, ident)
	if err != nil {
		return nil, err
	}
	callback := pyStr(vals["callback_url"])
	if agentURL, ok := n.DriverInternalInfo["agent_url"]; ok && agentURL != nil && pyStr(agentURL) != callback {
		a.d.Log.ErrorContext(ctx, "heartbeat with an unexpected callback URL is not processed",
			"node", n.UUID, "url", callback)
		return nil, ironic.Errorf(ironic.Invalid, `Detected change in ramdisk provided "callback_url"`)
	}
	token := vals["agent_token"]
	if token == nil {
		a.d.Log.ErrorContext(ctx, "agent heartbeat received without an agent token", "node", ident)
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Agent token is required for heartbeat processing.")
	}
	if st := vals["agent_status"]; st != nil {
		switch *st {
		case "start", "end", "error":
		default:
			a.d.Log.ErrorContext(ctx, "agent heartbeat has an invalid agent status", "node", ident, "agent_status", *st)
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Agent status is invalid. Valid states are start,end,error.")
		}
	}
	topic, err := a.d.Conductor.TopicFor(ctx, n)
	if err != nil {
		return nil, as400(err, ironic.NoValidHost)
	}
	// The conductor checks the agent's version and token.
	hb := rpc.Heartbeat{
		CallbackURL:        callback,
		AgentToken:         token,
		AgentVerifyCA:      vals["agent_verify_ca"],
		AgentStatus:        vals["agent_status"],
		AgentStatusMessage: vals["agent_status_message"],
	}
	if v := vals["agent_version"]; v != nil {
		hb.AgentVersion = v
	}
	if err := a.d.Conductor.Heartbeat(ctx, topic, n.UUID, hb); err != nil {
		return nil, err
	}
	return &Response{Status: http.StatusAccepted}, nil
}
