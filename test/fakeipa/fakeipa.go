// Package fakeipa is a fake Ironic Python Agent: IPA's REST API (GET and
// POST /v1/commands/, with IPA's command results, its agent token check
// and its "Agent is busy" refusal) for the commands Ironic's direct
// deploy and in-band cleaning send, and IPA's lookup and heartbeat loop
// against an Ironic API (GET /v1/lookup, then POST /v1/heartbeat/<uuid>
// with callback_url, agent_token and agent_version at API version 1.62).
//
// Nothing touches a disk. write_image downloads the image from its URL
// and checks it against image_info's checksum (os_hash_algo/os_hash_value,
// else the MD5 checksum), failing as IPA does on a mismatch. A
// standby.power_off or standby.run_image "reboots" the agent: it forgets
// its token and commands, and looks its node up again, as a node booting
// the ramdisk anew would; so does rescue.finalize_rescue (IPA stops
// heartbeating once rescued, and lookups of a rescued node fail). So does a lookup handing out a new token (the
// conductor wiped the old one, which only happens around a reboot).
//
// Every command received is kept (Commands), so tests can assert what
// Ironic asked for.
package fakeipa

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5" //nolint:gosec // IPA's legacy image checksum
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Options configure an Agent.
type Options struct {
	// APIURL is Ironic's API endpoint (http://host:port), for lookup and
	// heartbeats; empty runs the command API only.
	APIURL string
	// MACs are the node's MAC addresses, sent as the lookup's addresses.
	MACs []string
	// NodeUUID, when set, is sent as the lookup's node_uuid.
	NodeUUID string
	// Interval is the time between heartbeats and lookup retries
	// (default 200 ms; IPA uses a fraction of heartbeat_timeout).
	Interval time.Duration
	// Version is agent_version (default "9.4.1").
	Version string
	// Listen is the command API's address (default 127.0.0.1:0).
	Listen string
	// HTTP sends lookups, heartbeats and image downloads (default a
	// client with a 10 s timeout).
	HTTP *http.Client
	// CommandDelay is how long an asynchronous command runs before it
	// finishes (default 50 ms), so Ironic sees it RUNNING first.
	CommandDelay time.Duration
	// FailSteps makes execute_*_step fail for these step names, with
	// "<step> failed on purpose" as the error details.
	FailSteps []string
	// Token is the agent token before any lookup (for an agent without
	// APIURL).
	Token string
	// Log receives what the agent does; nil discards.
	Log *slog.Logger
}

// Received is one command Ironic sent.
type Received struct {
	// Name is "<extension>.<command>".
	Name string
	// Params is the command's decoded parameters.
	Params map[string]any
	// Wait is the wait query parameter.
	Wait string
	// Token is the agent_token query parameter.
	Token string
	// Body is the request body as sent.
	Body []byte
}

// Agent is the fake IPA.
type Agent struct {
	opts Options
	ln   net.Listener
	srv  *http.Server

	mu       sync.Mutex
	token    string
	nodeUUID string
	results  []*result
	received []Received
	boots    int
	beats    int
}

// result is IPA's BaseCommandResult / AsyncCommandResult.
type result struct {
	ID      string `json:"id"`
	Name    string `json:"command_name"`
	Status  string `json:"command_status"`
	Error   any    `json:"command_error"`
	Result  any    `json:"command_result"`
	done    chan struct{}
	cmdName string
}

// New makes an agent; Start serves it.
func New(opts Options) *Agent {
	if opts.Interval <= 0 {
		opts.Interval = 200 * time.Millisecond
	}
	if opts.Version == "" {
		opts.Version = "9.4.1"
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.CommandDelay <= 0 {
		opts.CommandDelay = 50 * time.Millisecond
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Agent{opts: opts, token: opts.Token}
}

// Start listens and, with an APIURL, runs the lookup and heartbeat loop
// until ctx ends.
func (a *Agent) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.opts.Listen)
	if err != nil {
		return err
	}
	a.ln = ln
	a.srv = &http.Server{Handler: a, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = a.srv.Close()
	}()
	if a.opts.APIURL != "" {
		go a.loop(ctx)
	}
	return nil
}

// URL is the agent's callback URL (http://host:port).
func (a *Agent) URL() string { return "http://" + a.ln.Addr().String() }

// Commands returns the commands received so far, oldest first.
func (a *Agent) Commands() []Received {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Received(nil), a.received...)
}

// Boots is how often the agent started anew (lookups that gave it a new
// token).
func (a *Agent) Boots() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.boots
}

// Heartbeats is how many heartbeats Ironic accepted.
func (a *Agent) Heartbeats() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.beats
}

func (a *Agent) loop(ctx context.Context) {
	t := time.NewTicker(a.opts.Interval)
	defer t.Stop()
	for {
		a.tick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tick looks the node up when the agent has no token, then heartbeats.
func (a *Agent) tick(ctx context.Context) {
	a.mu.Lock()
	token, node := a.token, a.nodeUUID
	a.mu.Unlock()
	if token == "" {
		var err error
		if node, token, err = a.lookup(ctx); err != nil || token == "" {
			return
		}
	}
	body, _ := json.Marshal(map[string]string{"callback_url": a.URL(), "agent_token": token, "agent_version": a.opts.Version})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.opts.APIURL+"/v1/heartbeat/"+node, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-OpenStack-Ironic-API-Version", "1.62")
	resp, err := a.opts.HTTP.Do(req)
	if err != nil {
		a.opts.Log.WarnContext(ctx, "heartbeat failed", "error", err)
		return
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted {
		a.mu.Lock()
		a.beats++
		a.mu.Unlock()
		return
	}
	a.opts.Log.InfoContext(ctx, "heartbeat refused", "status", resp.StatusCode, "body", string(data))
	if strings.Contains(string(data), "agent token") || strings.Contains(string(data), "callback_url") {
		// The conductor no longer knows our token: look up again.
		a.mu.Lock()
		if a.token == token {
			a.token = ""
		}
		a.mu.Unlock()
	}
}

// lookup is IPA's _do_lookup; a new token means a fresh boot.
func (a *Agent) lookup(ctx context.Context) (string, string, error) {
	q := "addresses=" + strings.Join(a.opts.MACs, ",")
	if a.opts.NodeUUID != "" {
		q += "&node_uuid=" + a.opts.NodeUUID
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.opts.APIURL+"/v1/lookup?"+q, nil)
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-OpenStack-Ironic-API-Version", "1.62")
	resp, err := a.opts.HTTP.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("lookup: HTTP %d", resp.StatusCode)
	}
	var body struct {
		Node struct {
			UUID string `json:"uuid"`
		} `json:"node"`
		Config struct {
			AgentToken string `json:"agent_token"`
		} `json:"config"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return "", "", err
	}
	tok := body.Config.AgentToken
	if tok == "" || tok == "******" {
		// Someone else holds the token; a real agent would give up.
		return "", "", errors.New("lookup: no agent token")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if tok != a.token {
		a.boots++
		a.results = nil
	}
	a.token, a.nodeUUID = tok, body.Node.UUID
	a.opts.Log.InfoContext(ctx, "looked up", "node", a.nodeUUID)
	return a.nodeUUID, tok, nil
}

// reboot forgets the token and commands, as a node powering off or
// rebooting out of the ramdisk does.
func (a *Agent) reboot() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.token = ""
	a.results = nil
}

// ServeHTTP is IPA's API: GET /v1/commands/ and POST /v1/commands/.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case path == "/commands/" && r.Method == http.MethodGet:
		a.mu.Lock()
		out := make([]*result, len(a.results))
		copy(out, a.results)
		a.mu.Unlock()
		list := make([]any, len(out))
		for i, res := range out {
			list[i] = res.snapshot(&a.mu)
		}
		writeJSON(w, http.StatusOK, map[string]any{"commands": list})
	case path == "/commands/" && r.Method == http.MethodPost:
		a.runCommand(w, r)
	default:
		writeJSON(w, http.StatusNotFound, fault(http.StatusNotFound, "404 Not Found: The requested URL was not found on the server."))
	}
}

func (res *result) snapshot(mu *sync.Mutex) map[string]any {
	mu.Lock()
	defer mu.Unlock()
	return map[string]any{"id": res.ID, "command_name": res.Name, "command_status": res.Status,
		"command_error": res.Error, "command_result": res.Result}
}

// fault is IPA's WSME-like error body.
func fault(code int, msg string) map[string]any {
	fc := "Client"
	if code >= 500 {
		fc = "Server"
	}
	return map[string]any{"faultcode": fc, "faultstring": msg}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// cmdError is IPA's RESTError serialization.
func cmdError(typ, msg, details string) map[string]any {
	return map[string]any{"type": typ, "code": 500, "message": msg, "details": details}
}

func (a *Agent) runCommand(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name   string         `json:"name"`
		Params map[string]any `json:"params"`
	}
	raw, _ := io.ReadAll(r.Body)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil || body.Name == "" || body.Params == nil {
		writeJSON(w, http.StatusBadRequest, fault(400, "400 Bad Request: Missing or invalid name or params"))
		return
	}
	q := r.URL.Query()
	a.mu.Lock()
	a.received = append(a.received, Received{Name: body.Name, Params: body.Params, Wait: q.Get("wait"), Token: q.Get("agent_token"), Body: raw})
	if a.token == "" || q.Get("agent_token") != a.token {
		a.mu.Unlock()
		writeJSON(w, http.StatusUnauthorized, fault(401, "401 Unauthorized: Token invalid."))
		return
	}
	if n := len(a.results); n > 0 && a.results[n-1].Status == "RUNNING" {
		a.mu.Unlock()
		writeJSON(w, http.StatusConflict, fault(409, "Agent is busy"))
		return
	}
	ext, cmd, _ := strings.Cut(body.Name, ".")
	res := &result{ID: uuid.NewString(), Name: cmd, Status: "RUNNING", done: make(chan struct{}), cmdName: body.Name}
	run, isSync, known := a.command(ext, cmd, body.Params)
	if !known {
		a.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, fault(400, fmt.Sprintf("Invalid command: Unknown command: %s", body.Name)))
		return
	}
	a.results = append(a.results, res)
	a.mu.Unlock()
	finish := func() {
		out, cerr := run()
		a.mu.Lock()
		if cerr != nil {
			res.Status, res.Error = "FAILED", cerr
		} else {
			res.Status, res.Result = "SUCCEEDED", out
		}
		a.mu.Unlock()
		close(res.done)
	}
	if isSync {
		finish()
	} else {
		go func() {
			time.Sleep(a.opts.CommandDelay)
			finish()
		}()
	}
	if q.Get("wait") == "true" {
		<-res.done
	}
	writeJSON(w, http.StatusOK, res.snapshot(&a.mu))
	if body.Name == "standby.power_off" || body.Name == "standby.run_image" || body.Name == "rescue.finalize_rescue" {
		go func() {
			<-res.done
			a.reboot()
		}()
	}
}

// command returns how to run ext.cmd and whether it is synchronous
// (IPA's @sync_command) or asynchronous (@async_command).
func (a *Agent) command(ext, cmd string, params map[string]any) (func() (any, any), bool, bool) {
	ok := func(v any) func() (any, any) { return func() (any, any) { return v, nil } }
	switch ext + "." + cmd {
	case "deploy.get_deploy_steps":
		return ok(map[string]any{"deploy_steps": map[string]any{"GenericHardwareManager": deploySteps()},
			"hardware_manager_version": map[string]any{"generic_hardware_manager": "1.1"}}), true, true
	case "clean.get_clean_steps":
		return ok(map[string]any{"clean_steps": map[string]any{"GenericHardwareManager": cleanSteps()},
			"hardware_manager_version": map[string]any{"generic_hardware_manager": "1.1"}}), true, true
	case "deploy.execute_deploy_step", "clean.execute_clean_step":
		return func() (any, any) { return a.executeStep(ext, params) }, false, true
	case "standby.get_partition_uuids":
		return ok(map[string]any{"root uuid": "0x12345678", "efi system partition uuid": nil, "PReP Boot partition uuid": nil}), true, true
	case "image.install_bootloader":
		return ok(nil), false, true
	case "standby.power_off", "standby.run_image":
		return ok(nil), false, true
	case "standby.sync":
		return ok(nil), true, true
	case "rescue.finalize_rescue":
		// IPA writes the password and stops heartbeating: the node is
		// rescued.
		return ok(nil), true, true
	case "log.collect_system_logs":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte("fake ironic-python-agent logs\n"))
		_ = zw.Close()
		return ok(map[string]any{"system_logs": base64.StdEncoding.EncodeToString(buf.Bytes())}), true, true
	}
	return nil, false, false
}

// executeStep is deploy.execute_deploy_step / clean.execute_clean_step.
func (a *Agent) executeStep(ext string, params map[string]any) (any, any) {
	step, _ := params["step"].(map[string]any)
	name, _ := step["step"].(string)
	for _, f := range a.opts.FailSteps {
		if f == name {
			return nil, cmdError("CommandExecutionError", "Command execution failed", name+" failed on purpose")
		}
	}
	var stepResult any
	if ext == "deploy" && name == "write_image" {
		args, _ := step["args"].(map[string]any)
		info, _ := args["image_info"].(map[string]any)
		if err := a.download(info); err != nil {
			return nil, err
		}
	}
	return map[string]any{ext + "_result": stepResult, ext + "_step": step}, nil
}

// download fetches image_info's first URL and verifies its checksum, as
// IPA's ImageDownload does.
func (a *Agent) download(info map[string]any) any {
	urls, _ := info["urls"].([]any)
	if len(urls) == 0 {
		return cmdError("ImageDownloadError", "Error downloading image", "no image URL")
	}
	u, _ := urls[0].(string)
	resp, err := a.opts.HTTP.Get(u)
	if err != nil {
		return cmdError("ImageDownloadError", "Error downloading image", fmt.Sprintf("Download of image %v failed: %v", info["id"], err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return cmdError("ImageDownloadError", "Error downloading image",
			fmt.Sprintf("Download of image %v failed: URL: %s; time: 0 seconds. Error: Received status code %d from %s, expected 200",
				info["id"], u, resp.StatusCode, u))
	}
	var h hash.Hash
	want, _ := info["os_hash_value"].(string)
	switch info["os_hash_algo"] {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	case "md5":
		h = md5.New() //nolint:gosec
	default:
		h = md5.New() //nolint:gosec
		want, _ = info["checksum"].(string)
	}
	if _, err := io.Copy(h, resp.Body); err != nil {
		return cmdError("ImageDownloadError", "Error downloading image", err.Error())
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(want) {
		return cmdError("ImageChecksumError", "Error verifying image checksum",
			fmt.Sprintf("Image failed to verify against checksum. location: %v; image ID: %v; image checksum: %s; verification checksum: %s",
				info["id"], info["id"], got, want))
	}
	return nil
}

// deploySteps is GenericHardwareManager.get_deploy_steps (the ones Ironic
// can call without a RAID or file configuration).
func deploySteps() []any {
	return []any{
		map[string]any{"step": "erase_devices_metadata", "priority": 0, "interface": "deploy", "reboot_requested": false},
		map[string]any{"step": "apply_configuration", "priority": 0, "interface": "raid", "reboot_requested": false,
			"argsinfo": map[string]any{"raid_config": map[string]any{"description": "The RAID configuration to apply.", "required": true}}},
		map[string]any{"step": "write_image", "priority": 0, "interface": "deploy", "reboot_requested": false},
	}
}

// cleanSteps is GenericHardwareManager.get_clean_steps (a subset).
func cleanSteps() []any {
	return []any{
		map[string]any{"step": "erase_devices", "priority": 10, "interface": "deploy", "reboot_requested": false, "abortable": true},
		map[string]any{"step": "erase_devices_metadata", "priority": 99, "interface": "deploy", "reboot_requested": false, "abortable": true},
		map[string]any{"step": "erase_pstore", "priority": 0, "interface": "deploy", "reboot_requested": false, "abortable": true},
		map[string]any{"step": "delete_configuration", "priority": 0, "interface": "raid", "reboot_requested": false, "abortable": true},
	}
}
