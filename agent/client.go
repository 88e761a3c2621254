package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Ironic API versions the agent's requests depend on, as IPA's
// ironic_api_client.
var (
	minIronicVersion      = apiVersion{1, 31}
	agentVersionVersion   = apiVersion{1, 36}
	agentTokenVersion     = apiVersion{1, 62}
	agentVerifyCAVersion  = apiVersion{1, 68}
	maxKnownIronicVersion = agentVerifyCAVersion
)

type apiVersion struct{ major, minor int }

func (v apiVersion) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

func (v apiVersion) less(o apiVersion) bool {
	return v.major < o.major || v.major == o.major && v.minor < o.minor
}

func minVersion(a, b apiVersion) apiVersion {
	if a.less(b) {
		return a
	}
	return b
}

func parseVersion(s string) (apiVersion, bool) {
	maj, min, ok := strings.Cut(s, ".")
	if !ok {
		return apiVersion{}, false
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	return apiVersion{a, b}, err1 == nil && err2 == nil
}

// ironicClient is IPA's APIClient: lookups and heartbeats with IPA's
// headers and API versions.
type ironicClient struct {
	cfg     *Config
	log     *slog.Logger
	version *apiVersion
	// lockPause is IPA's lookup_lock_pause: 5, 10, then 30 s after 409s.
	lockPause time.Duration
}

func (c *ironicClient) request(ctx context.Context, method, path string, body any, version *apiVersion) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.cfg.APIURL, "/")+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.GlobalRequestID != "" {
		req.Header.Set("X-OpenStack-Request-ID", c.cfg.GlobalRequestID)
	}
	if version != nil {
		req.Header.Set("X-OpenStack-Ironic-API-Version", version.String())
	}
	return c.cfg.HTTP.Do(req)
}

// ironicVersion is _get_ironic_api_version: the configured version, else
// the API root's default_version, else 1.31.
func (c *ironicClient) ironicVersion(ctx context.Context) apiVersion {
	if c.version != nil {
		return *c.version
	}
	if c.cfg.IronicAPIVersion != "" {
		if v, ok := parseVersion(c.cfg.IronicAPIVersion); ok {
			c.version = &v
			return v
		}
		c.log.WarnContext(ctx, "cannot parse the Ironic API version, discovering it", "version", c.cfg.IronicAPIVersion)
	}
	resp, err := c.request(ctx, http.MethodGet, "/", nil, nil)
	if err == nil {
		defer resp.Body.Close()
		var root struct {
			DefaultVersion struct {
				Version string `json:"version"`
			} `json:"default_version"`
		}
		if err = json.NewDecoder(resp.Body).Decode(&root); err == nil {
			if v, ok := parseVersion(root.DefaultVersion.Version); ok {
				c.version = &v
				return v
			}
			err = fmt.Errorf("no default_version in %s's root", c.cfg.APIURL)
		}
	}
	c.log.WarnContext(ctx, "cannot discover the Ironic API versions, using the minimum", "version", minIronicVersion, "error", err)
	return minIronicVersion
}

// errorText is _error_from_response.
func errorText(resp *http.Response) string {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var body map[string]any
	if json.Unmarshal(data, &body) != nil {
		return fmt.Sprintf("Error %d: %s", resp.StatusCode, data)
	}
	inner := body
	if em, ok := body["error_message"]; ok {
		switch v := em.(type) {
		case map[string]any:
			inner = v
		case string:
			inner = map[string]any{}
			_ = json.Unmarshal([]byte(v), &inner)
		}
	}
	for _, k := range []string{"faultstring", "title"} {
		if s, ok := inner[k].(string); ok && s != "" {
			return fmt.Sprintf("Error %d: %s", resp.StatusCode, s)
		}
	}
	return fmt.Sprintf("Error %d: %s", resp.StatusCode, data)
}

// errConflict is a heartbeat Ironic refused with 409 (the node is locked).
var errConflict = errors.New("conflict heartbeating")

// heartbeat is APIClient.heartbeat.
func (c *ironicClient) heartbeat(ctx context.Context, node, callbackURL, token string) error {
	v := c.ironicVersion(ctx)
	body := map[string]any{"callback_url": callbackURL}
	if !v.less(agentTokenVersion) {
		if token == "" {
			body["agent_token"] = nil
		} else {
			body["agent_token"] = token
		}
	}
	if !v.less(agentVersionVersion) {
		body["agent_version"] = Version
	}
	// agent_verify_ca is sent only with a generated TLS certificate
	// (IPA's auto-TLS), which this agent does not make.
	hv := minVersion(maxKnownIronicVersion, v)
	resp, err := c.request(ctx, http.MethodPost, "/v1/heartbeat/"+url.PathEscape(node), body, &hv)
	if err != nil {
		return fmt.Errorf("error heartbeating to agent API: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusAccepted:
		return nil
	case http.StatusConflict:
		return fmt.Errorf("%w: %s", errConflict, errorText(resp))
	default:
		return fmt.Errorf("error heartbeating to agent API: %s", errorText(resp))
	}
}

// lookupContent is the lookup answer IPA uses.
type lookupContent struct {
	Node   map[string]any `json:"node"`
	Config map[string]any `json:"config"`
}

// doLookup is _do_lookup: nil content (and a reason) means retry.
func (c *ironicClient) doLookup(ctx context.Context, macs []string, nodeUUID string) (*lookupContent, error) {
	q := url.Values{"addresses": {strings.Join(macs, ",")}}
	if nodeUUID != "" {
		q.Set("node_uuid", nodeUUID)
	}
	v := minVersion(c.ironicVersion(ctx), agentTokenVersion)
	resp, err := c.request(ctx, http.MethodGet, "/v1/lookup?"+q.Encode(), nil, &v)
	if err != nil {
		return nil, fmt.Errorf("error detected while attempting to perform lookup with %s: %w", c.cfg.APIURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusConflict {
		switch c.lockPause {
		case 0:
			c.lockPause = 5 * time.Second
		case 5 * time.Second:
			c.lockPause = 10 * time.Second
		case 10 * time.Second:
			c.lockPause = 30 * time.Second
		}
		text := errorText(resp)
		c.log.WarnContext(ctx, "Ironic answered the lookup with a conflict: the node is locked", "pause", c.lockPause, "error", text)
		select {
		case <-ctx.Done():
		case <-c.cfg.Clock.After(c.lockPause):
		}
		return nil, errors.New(text)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed looking up node with addresses %q at %s: %s", q.Get("addresses"), c.cfg.APIURL, errorText(resp))
	}
	var raw map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		return nil, fmt.Errorf("error decoding response: %w", err)
	}
	node, _ := raw["node"].(map[string]any)
	if _, ok := node["uuid"].(string); !ok {
		return nil, fmt.Errorf("got invalid node data in the lookup answer: %v", raw)
	}
	cfg, ok := raw["config"].(map[string]any)
	if !ok {
		hb, ok := raw["heartbeat_timeout"]
		if !ok {
			return nil, fmt.Errorf("got invalid heartbeat from the API: %v", raw)
		}
		cfg = map[string]any{"heartbeat_timeout": hb}
	}
	return &lookupContent{Node: node, Config: cfg}, nil
}

// lookup is lookup_node: _do_lookup retried with a random exponential
// back-off (tenacity's wait_random_exponential between LookupInterval
// and MaxLookupInterval) until LookupTimeout.
func (a *Agent) lookup(ctx context.Context) (*lookupContent, error) {
	macs := a.cfg.MACs
	if len(macs) == 0 {
		inv, err := a.inventory(ctx)
		if err != nil {
			return nil, err
		}
		macs = inventoryMACs(inv)
	}
	start := a.cfg.Clock.Now()
	for attempt := 0; ; attempt++ {
		content, err := a.client.doLookup(ctx, macs, a.cfg.NodeUUID)
		if err == nil {
			return content, nil
		}
		a.log.WarnContext(ctx, "lookup failed, retrying", "error", err)
		if a.cfg.Clock.Now().Sub(start) >= a.cfg.LookupTimeout {
			return nil, newRESTError("LookupNodeError", 500, "Error getting configuration from Ironic", "Could not look up node info. Check logs for details.")
		}
		// wait_random_exponential: uniform(0, min(max, multiplier*2^n)),
		// at least min.
		hi := math.Min(a.cfg.MaxLookupInterval.Seconds(), a.cfg.LookupInterval.Seconds()*math.Pow(2, float64(attempt)))
		wait := time.Duration(a.cfg.Rand() * hi * float64(time.Second))
		wait = max(wait, a.cfg.LookupInterval)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-a.cfg.Clock.After(wait):
		}
	}
}

// processLookup is process_lookup_data: the node, the heartbeat timeout
// and the agent token.
func (a *Agent) processLookup(ctx context.Context, c *lookupContent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.node = c.Node
	a.hbTimeout, _ = c.Config["heartbeat_timeout"].(float64)
	a.log.InfoContext(ctx, "lookup succeeded", "node", c.Node["uuid"])
	if req, _ := c.Config["agent_token_required"].(bool); req {
		a.tokenRequired = true
	}
	token, _ := c.Config["agent_token"].(string)
	switch {
	case token == "":
	case len(token) >= 32:
		a.token = token
	case token == "******":
		a.log.WarnContext(ctx, "the agent token has already been retrieved: IPA may not operate as intended")
		if a.token == "" && a.tokenRequired {
			a.log.ErrorContext(ctx, "Ironic requires agent tokens but we have none: this is likely fatal")
		}
	default:
		a.log.InfoContext(ctx, "an invalid token was received")
	}
}

func (a *Agent) nodeUUID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, _ := a.node["uuid"].(string)
	return s
}

// callbackURL is _get_agent_url.
func (a *Agent) callbackURL() string {
	host := a.cfg.AdvertiseHost
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("http://%s:%d", host, a.cfg.AdvertisePort)
}

// heartbeatLoop is IronicPythonAgentHeartbeater.run: the first
// heartbeat at once, then one every heartbeat_timeout × uniform(0.3,
// 0.6), checked at least every ForcedHeartbeatGap; a finished command
// forces one, but not sooner than ForcedHeartbeatGap after the last.
func (a *Agent) heartbeatLoop(ctx context.Context) {
	var interval time.Duration
	var previous time.Time
	forced := false
	for {
		// A finished command only sets a flag, looked at by the next
		// check (IPA's heartbeat_forced).
		select {
		case <-a.forced:
			forced = true
		default:
		}
		now := a.cfg.Clock.Now()
		if previous.IsZero() || now.Sub(previous) > interval || forced && now.Sub(previous) > a.cfg.ForcedHeartbeatGap {
			a.mu.Lock()
			token, timeout := a.token, a.hbTimeout
			a.mu.Unlock()
			err := a.client.heartbeat(ctx, a.nodeUUID(), a.callbackURL(), token)
			switch {
			case err == nil:
				a.log.InfoContext(ctx, "heartbeat successful")
				forced = false
				previous = a.cfg.Clock.Now()
			case errors.Is(err, errConflict):
				a.log.WarnContext(ctx, "conflict error sending heartbeat", "error", err)
			default:
				a.log.ErrorContext(ctx, "error sending heartbeat", "error", err)
			}
			if previous.IsZero() {
				previous = time.Unix(0, 1)
			}
			mult := 0.3 + 0.3*a.cfg.Rand()
			interval = time.Duration(timeout * mult * float64(time.Second))
			a.log.DebugContext(ctx, "sleeping before next heartbeat", "interval", interval)
		}
		select {
		case <-ctx.Done():
			return
		case <-a.cfg.Clock.After(wait(interval, a.cfg.ForcedHeartbeatGap)):
		}
	}
}

// wait is the time to the next check: min(interval, gap), but never
// zero (a lookup without heartbeat_timeout would otherwise spin).
func wait(interval, gap time.Duration) time.Duration {
	if interval <= 0 {
		return gap
	}
	return min(interval, gap)
}
