package agent

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/drivers/internal/py"
	"github.com/goironic/ironic/internal/pyjson"
)

// ClientConfig holds the [agent] options of Ironic's agent client.
type ClientConfig struct {
	// APIVersion is [agent]agent_api_version ("v1").
	APIVersion string
	// CommandTimeout is [agent]command_timeout: each request's timeout.
	CommandTimeout time.Duration
	// MaxCommandAttempts is [agent]max_command_attempts: how often a
	// request that can't connect is tried.
	MaxCommandAttempts int
	// CommandWaitAttempts and CommandWaitInterval are
	// [agent]command_wait_attempts and command_wait_interval: how a
	// polled command (install_bootloader) is waited for.
	CommandWaitAttempts int
	CommandWaitInterval time.Duration
	// VerifyCA is [agent]verify_ca: "True", "False" or a CA bundle path.
	VerifyCA string
	// HTTP, when set, sends every request (tests inject one); otherwise
	// a client is made per TLS verification setting.
	HTTP *http.Client
	// After waits between polls (time.After when nil).
	After func(time.Duration) <-chan time.Time
}

// Client is Ironic's agent_client.AgentClient: it sends commands to the
// Ironic Python Agent running on a node (POST {agent_url}/v1/commands/)
// and reads their statuses (GET {agent_url}/v1/commands/).
type Client struct {
	cfg ClientConfig
}

// NewClient returns a client with cfg (zero fields take the options'
// defaults, DefaultClientConfig).
func NewClient(cfg ClientConfig) *Client {
	def := DefaultClientConfig()
	if cfg.APIVersion == "" {
		cfg.APIVersion = def.APIVersion
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = def.CommandTimeout
	}
	if cfg.MaxCommandAttempts <= 0 {
		cfg.MaxCommandAttempts = def.MaxCommandAttempts
	}
	if cfg.CommandWaitAttempts <= 0 {
		cfg.CommandWaitAttempts = def.CommandWaitAttempts
	}
	if cfg.CommandWaitInterval <= 0 {
		cfg.CommandWaitInterval = def.CommandWaitInterval
	}
	if cfg.VerifyCA == "" {
		cfg.VerifyCA = def.VerifyCA
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	return &Client{cfg: cfg}
}

// Command is one command's status as the agent reports it
// (command_name, command_params, command_status, command_error,
// command_result).
type Command map[string]any

// Status is command_status: RUNNING, SUCCEEDED, FAILED, VERSION_MISMATCH.
func (c Command) Status() string { s, _ := c["command_status"].(string); return s }

// Name is command_name (without the extension).
func (c Command) Name() string { s, _ := c["command_name"].(string); return s }

// Result is command_result as a dictionary (nil otherwise).
func (c Command) Result() map[string]any { r, _ := c["command_result"].(map[string]any); return r }

// CommandError is Ironic's get_command_error: the command's error text.
func CommandError(c Command) string {
	e, ok := c["command_error"]
	if !ok || e == nil {
		return "Invalid agent response"
	}
	if m, ok := e.(map[string]any); ok {
		if d := m["details"]; py.Truthy(d) {
			return py.Str(d)
		}
		if d := m["message"]; py.Truthy(d) {
			return py.Str(d)
		}
		return py.Str(m)
	}
	return py.Str(e)
}

func (c *Client) commandURL(task drivers.Task) (string, error) {
	u := task.DriverInternalInfo()["agent_url"]
	if !py.Truthy(u) {
		return "", ironic.Errorf(ironic.AgentConnectionFailed, "Agent driver requires agent_url in driver_internal_info")
	}
	return fmt.Sprintf("%s/%s/commands/", py.Str(u), c.cfg.APIVersion), nil
}

// verify is _get_verify: driver_internal_info's agent_verify_ca, then
// driver_info's, then [agent]verify_ca; true, false or a CA file.
func (c *Client) verify(task drivers.Task) (any, error) {
	v, ok := task.DriverInternalInfo()["agent_verify_ca"]
	if !ok || v == nil {
		v, ok = task.DriverInfo()["agent_verify_ca"]
	}
	if !ok || v == nil {
		v = c.cfg.VerifyCA
	}
	if s, isStr := v.(string); isStr {
		b, err := deployutil.BoolFromString(s)
		if err == nil {
			return b, nil
		}
		if _, err := os.Stat(s); err != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Agent CA %s is neither a path nor a boolean", s)
		}
		return s, nil
	}
	return v, nil
}

func (c *Client) httpClient(verify any) (*http.Client, error) {
	if c.cfg.HTTP != nil {
		return c.cfg.HTTP, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	switch v := verify.(type) {
	case bool:
		tc.InsecureSkipVerify = !v //nolint:gosec // the operator's [agent]verify_ca = False
	case string:
		pem, err := os.ReadFile(v)
		if err != nil {
			return nil, ironic.Errorf(ironic.InvalidParameterValue, "Agent CA %s is neither a path nor a boolean", v)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tc.RootCAs = pool
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tc, Proxy: http.ProxyFromEnvironment}}, nil
}

// isConnectionError is requests' ConnectionError, Timeout or SSLError:
// anything that kept the request from getting an answer.
func isConnectionError(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded)
}

// do sends one request with [agent]command_timeout.
func (c *Client) do(ctx context.Context, task drivers.Task, method, u string, body []byte) (*http.Response, []byte, error) {
	verify, err := c.verify(task)
	if err != nil {
		return nil, nil, err
	}
	hc, err := c.httpClient(verify)
	if err != nil {
		return nil, nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.CommandTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "*/*")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	return resp, data, nil
}

// Run is AgentClient._command: it sends method ("<extension>.<command>")
// with params and returns the agent's answer (the command's status).
// wait asks the agent to answer when the command is done; poll waits for
// it here afterwards ([agent]command_wait_*). A request that can't
// connect is tried [agent]max_command_attempts times, unless the agent
// reports the command as its last one, still running.
func (c *Client) Run(ctx context.Context, task drivers.Task, method string, params any, wait, poll bool) (Command, error) {
	var res Command
	var err error
	for attempt := 1; attempt <= c.cfg.MaxCommandAttempts; attempt++ {
		res, err = c.command(ctx, task, method, params, wait)
		if err == nil || !ironic.IsClass(err, ironic.AgentConnectionFailed) || ctx.Err() != nil {
			break
		}
	}
	if err != nil || !poll {
		return res, err
	}
	return c.waitForCommand(ctx, task, method)
}

func (c *Client) command(ctx context.Context, task drivers.Task, method string, params any, wait bool) (Command, error) {
	u, err := c.commandURL(task)
	if err != nil {
		return nil, err
	}
	body, err := pyjson.Marshal(pyjson.Object{{Key: "name", Value: method}, {Key: "params", Value: params}})
	if err != nil {
		return nil, err
	}
	q := url.Values{"wait": {fmt.Sprint(wait)}}
	if tok := task.DriverInternalInfo()["agent_secret_token"]; py.Truthy(tok) {
		q.Set("agent_token", py.Str(tok))
	}
	// requests writes params in insertion order: wait, then agent_token.
	query := "wait=" + url.QueryEscape(q.Get("wait"))
	if q.Has("agent_token") {
		query += "&agent_token=" + url.QueryEscape(q.Get("agent_token"))
	}
	full := u + "?" + query
	resp, data, err := c.do(ctx, task, http.MethodPost, full, body)
	var result Command
	if err != nil {
		if ironic.IsClass(err, ironic.InvalidParameterValue) {
			return nil, err
		}
		if !isConnectionError(err) {
			return nil, ironic.Errorf(ironic.IronicException, "Error invoking agent command %s for node %s. Error: %s", method, task.NodeUUID(), err)
		}
		result, err = c.handleTimeout(ctx, task, method, err)
		if err != nil {
			return nil, err
		}
		resp = nil
	} else if err := decodeJSON(data, &result); err != nil || result == nil {
		return nil, ironic.Errorf(ironic.IronicException,
			"Unable to decode response as JSON.\nRequest URL: %s\nRequest body: \"%s\"\nResponse status code: %d\nResponse: \"%s\"",
			u, body, resp.StatusCode, data)
	}
	if resp != nil && resp.StatusCode >= 400 {
		fs := py.Str(result["faultstring"])
		if resp.StatusCode == http.StatusConflict || strings.Contains(strings.ToLower(fs), "agent is busy") {
			return nil, ironic.Errorf(ironic.AgentInProgress, "Node %s command \"%s\" failed. Agent is presently executing a command. Error %s",
				task.NodeUUID(), method, fs)
		}
		return nil, ironic.Errorf(ironic.AgentAPIError, "Agent API for node %s returned HTTP status code %d with error: %s",
			task.NodeUUID(), resp.StatusCode, fs)
	}
	if err := raiseIfTypeError(task, result); err != nil {
		return nil, err
	}
	return result, nil
}

// raiseIfTypeError is _raise_if_typeerror: an agent that choked on the
// command's arguments.
func raiseIfTypeError(task drivers.Task, result Command) error {
	e, ok := result["command_error"].(map[string]any)
	if !ok || e["type"] != "TypeError" {
		return nil
	}
	return ironic.Errorf(ironic.AgentAPIError, "Agent API for node %s returned HTTP status code %s with error: %s",
		task.NodeUUID(), py.Str(e["code"]), CommandError(result))
}

// handleTimeout is _handle_timeout_on_command_execution: the agent may
// have received the command and failed to answer; if its last command is
// this one, still running, that is the answer.
func (c *Client) handleTimeout(ctx context.Context, task drivers.Task, method string, cause error) (Command, error) {
	cmd, err := c.statusIfLastCommandMatches(ctx, task, method)
	if err != nil || cmd == nil {
		return nil, ironic.Errorf(ironic.AgentConnectionFailed, "Connection to agent failed: Failed to connect to the agent running on node %s for invoking command %s. Error: %s",
			task.NodeUUID(), method, cause)
	}
	return cmd, nil
}

func shortName(method string) string {
	if _, after, ok := strings.Cut(method, "."); ok {
		return after
	}
	return method
}

func (c *Client) statusIfLastCommandMatches(ctx context.Context, task drivers.Task, method string) (Command, error) {
	cmds, err := c.CommandsStatus(ctx, task, true)
	if err != nil || len(cmds) == 0 {
		return nil, err
	}
	last := cmds[len(cmds)-1]
	if last.Name() != shortName(method) || last.Status() != "RUNNING" {
		return nil, nil
	}
	return last, nil
}

// CommandsStatus is get_commands_status: every command the agent ran
// since it started, oldest first. retry tries a connection failure
// [agent]max_command_attempts times.
func (c *Client) CommandsStatus(ctx context.Context, task drivers.Task, retry bool) ([]Command, error) {
	u, err := c.commandURL(task)
	if err != nil {
		return nil, err
	}
	attempts := 1
	if retry {
		attempts = c.cfg.MaxCommandAttempts
	}
	var data []byte
	for attempt := 1; ; attempt++ {
		_, data, err = c.do(ctx, task, http.MethodGet, u, nil)
		if err == nil {
			break
		}
		if ironic.IsClass(err, ironic.InvalidParameterValue) {
			return nil, err
		}
		if !isConnectionError(err) {
			return nil, ironic.Errorf(ironic.IronicException, "%s", err)
		}
		if attempt >= attempts || ctx.Err() != nil {
			return nil, ironic.Errorf(ironic.AgentConnectionFailed,
				"Connection to agent failed: Failed to connect to the agent running on node %s to collect commands status. Error: %s", task.NodeUUID(), err)
		}
	}
	var body struct {
		Commands []Command `json:"commands"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return nil, ironic.Errorf(ironic.IronicException, "Unable to decode the agent's commands status as JSON: %s", err)
	}
	return body.Commands, nil
}

// LastCommandStatus is get_last_command_status: the latest status of
// method, or nil when the agent never ran it.
func (c *Client) LastCommandStatus(ctx context.Context, task drivers.Task, method string) (Command, error) {
	cmds, err := c.CommandsStatus(ctx, task, true)
	if err != nil {
		return nil, err
	}
	name := shortName(method)
	for i := len(cmds) - 1; i >= 0; i-- {
		if cmds[i].Name() == name {
			return cmds[i], nil
		}
	}
	return nil, nil
}

// waitForCommand is _wait_for_command: method's status is polled
// [agent]command_wait_attempts times, [agent]command_wait_interval apart,
// until it no longer runs.
func (c *Client) waitForCommand(ctx context.Context, task drivers.Task, method string) (Command, error) {
	for attempt := 1; ; attempt++ {
		res, err := c.LastCommandStatus(ctx, task, method)
		if err != nil {
			return nil, err
		}
		if res != nil && res.Status() != "RUNNING" {
			if err := raiseIfTypeError(task, res); err != nil {
				return nil, err
			}
			return res, nil
		}
		if attempt >= c.cfg.CommandWaitAttempts {
			return nil, ironic.Errorf(ironic.AgentCommandTimeout, "Timeout executing command %s on node %s", method, task.NodeUUID())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.cfg.After(c.cfg.CommandWaitInterval):
		}
	}
}

// The commands Ironic's deploy interfaces send.

// GetSteps is get_clean_steps / get_deploy_steps (wait=true).
func (c *Client) GetSteps(ctx context.Context, task drivers.Task, phase drivers.StepPhase) (Command, error) {
	node, ports, err := nodeAndPorts(task, true)
	if err != nil {
		return nil, err
	}
	params := pyjson.Object{{Key: "node", Value: node}, {Key: "ports", Value: ports}}
	return c.Run(ctx, task, fmt.Sprintf("%s.get_%s_steps", phase, phase), params, true, false)
}

// ExecuteStep is execute_clean_step / execute_deploy_step (asynchronous).
func (c *Client) ExecuteStep(ctx context.Context, task drivers.Task, phase drivers.StepPhase, step any) (Command, error) {
	node, ports, err := nodeAndPorts(task, phase == drivers.CleanStep)
	if err != nil {
		return nil, err
	}
	params := pyjson.Object{
		{Key: "step", Value: step},
		{Key: "node", Value: node},
		{Key: "ports", Value: ports},
		{Key: string(phase) + "_version", Value: task.DriverInternalInfo()["hardware_manager_version"]},
	}
	return c.Run(ctx, task, fmt.Sprintf("%s.execute_%s_step", phase, phase), params, false, false)
}

// GetPartitionUUIDs is standby.get_partition_uuids (wait=true).
func (c *Client) GetPartitionUUIDs(ctx context.Context, task drivers.Task) (Command, error) {
	return c.Run(ctx, task, "standby.get_partition_uuids", pyjson.Object{}, true, false)
}

// InstallBootloader is image.install_bootloader (polled); an agent
// refusing target_boot_mode is asked again without it, unless a UEFI
// software RAID needs it.
func (c *Client) InstallBootloader(ctx context.Context, task drivers.Task, rootUUID any, bootMode string, efiUUID, prepUUID any, softwareRAID bool) (Command, error) {
	params := pyjson.Object{{Key: "root_uuid", Value: rootUUID}, {Key: "efi_system_part_uuid", Value: efiUUID},
		{Key: "prep_boot_part_uuid", Value: prepUUID}, {Key: "target_boot_mode", Value: bootMode}}
	res, err := c.Run(ctx, task, "image.install_bootloader", params, false, true)
	if err == nil || !ironic.IsClass(err, ironic.AgentAPIError) || (bootMode == drivers.BootModeUEFI && softwareRAID) {
		return res, err
	}
	return c.Run(ctx, task, "image.install_bootloader", params[:3], false, true)
}

// PowerOff is standby.power_off.
func (c *Client) PowerOff(ctx context.Context, task drivers.Task) (Command, error) {
	return c.Run(ctx, task, "standby.power_off", pyjson.Object{}, false, false)
}

// Reboot is standby.run_image.
func (c *Client) Reboot(ctx context.Context, task drivers.Task) (Command, error) {
	return c.Run(ctx, task, "standby.run_image", pyjson.Object{}, false, false)
}

// Sync is standby.sync (wait=true).
func (c *Client) Sync(ctx context.Context, task drivers.Task) (Command, error) {
	return c.Run(ctx, task, "standby.sync", pyjson.Object{}, true, false)
}

// decodeJSON decodes with numbers kept as written (json.Number).
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
