package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
)

// wireRequest is one request as testdata/gen_wire.py records Ironic's
// agent_client sending it.
type wireRequest struct {
	Method      string  `json:"method"`
	URL         string  `json:"url"`
	Body        *string `json:"body"`
	ContentType string  `json:"content_type"`
}

// recorder is an agent answering every command with success and
// recording the requests.
type recorder struct {
	mu   sync.Mutex
	reqs []wireRequest
	post func(w http.ResponseWriter, body []byte)
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body *string
	if r.Method == http.MethodPost {
		s := string(data)
		body = &s
	}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, wireRequest{Method: r.Method, URL: "http://127.0.0.1:9999" + r.URL.RequestURI(), Body: body, ContentType: r.Header.Get("Content-Type")})
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, `{"commands": [{"command_name": "install_bootloader", "command_status": "SUCCEEDED", "command_result": null, "command_error": null}]}`)
		return
	}
	if rc.post != nil {
		rc.post(w, data)
		return
	}
	_, _ = io.WriteString(w, `{"command_status": "SUCCEEDED", "command_result": {}, "command_error": null}`)
}

func agentTask(url string) *fake.Task {
	return &fake.Task{Node: &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "fake-hardware",
		DriverInternalInfo: pyjson.DictOf("agent_url", url, "agent_secret_token", "tok en/+", "hardware_manager_version", pyjson.DictOf("generic", "1"))},
		PortList: []drivers.Port{{UUID: "p1", Address: "52:54:00:00:00:01"}}}
}

// stubNodeAndPorts replaces params.node and each of params.ports by the
// placeholders gen_wire.py's stand-ins write, so that the rest of the
// body compares byte for byte.
func stubNodeAndPorts(t *testing.T, body string) string {
	t.Helper()
	v, err := pyjson.DecodeOrdered([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(pyjson.Object)
	params, _ := o.Get("params")
	po := params.(pyjson.Object)
	for i := range po {
		switch po[i].Key {
		case "node":
			po[i].Value = "NODE"
		case "ports":
			ports := po[i].Value.([]any)
			for j := range ports {
				ports[j] = "PORT"
			}
		}
	}
	out, err := pyjson.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestClientWire sends each command Ironic's deploy interfaces use and
// compares the requests with those Ironic's agent_client sends
// (testdata/wire_golden.json, recorded by testdata/gen_wire.py): method,
// URL with wait and agent_token, Content-Type and body, except that the
// node and port dictionaries are compared separately.
func TestClientWire(t *testing.T) {
	data, err := os.ReadFile("testdata/wire_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string][]wireRequest
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	c := agent.NewClient(agent.ClientConfig{HTTP: srv.Client(), CommandWaitInterval: time.Millisecond})
	ctx := context.Background()
	tk := agentTask(srv.URL)
	step := pyjson.Object{{Key: "interface", Value: "deploy"}, {Key: "step", Value: "write_image"}, {Key: "priority", Value: 80},
		{Key: "args", Value: pyjson.Object{{Key: "image_info", Value: pyjson.Object{{Key: "id", Value: "x"}}}}}}
	cstep := pyjson.Object{{Key: "interface", Value: "deploy"}, {Key: "step", Value: "erase_devices_metadata"}, {Key: "priority", Value: 99}}
	calls := map[string]func() error{
		"get_deploy_steps":    func() error { _, err := c.GetSteps(ctx, tk, drivers.DeployStep); return err },
		"execute_deploy_step": func() error { _, err := c.ExecuteStep(ctx, tk, drivers.DeployStep, step); return err },
		"get_clean_steps":     func() error { _, err := c.GetSteps(ctx, tk, drivers.CleanStep); return err },
		"execute_clean_step":  func() error { _, err := c.ExecuteStep(ctx, tk, drivers.CleanStep, cstep); return err },
		"get_partition_uuids": func() error { _, err := c.GetPartitionUUIDs(ctx, tk); return err },
		"install_bootloader": func() error {
			_, err := c.InstallBootloader(ctx, tk, "r-uuid", "uefi", "e-uuid", nil, false)
			return err
		},
		"power_off":           func() error { _, err := c.PowerOff(ctx, tk); return err },
		"sync":                func() error { _, err := c.Sync(ctx, tk); return err },
		"reboot":              func() error { _, err := c.Reboot(ctx, tk); return err },
		"get_commands_status": func() error { _, err := c.CommandsStatus(ctx, tk, true); return err },
	}
	if len(calls) != len(golden) {
		t.Fatalf("%d calls, %d in the golden file", len(calls), len(golden))
	}
	for name, want := range golden {
		rec.reqs = nil
		if err := calls[name](); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := rec.reqs
		for i := range got {
			if got[i].Body != nil && strings.Contains(*got[i].Body, `"node": `) {
				s := stubNodeAndPorts(t, *got[i].Body)
				got[i].Body = &s
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-ironic +ours):\n%s", name, diff)
		}
	}
}

// TestClientErrors maps the agent's refusals and connection failures to
// Ironic's exceptions and messages.
func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	c := agent.NewClient(agent.ClientConfig{HTTP: srv.Client(), CommandTimeout: 2 * time.Second})
	tk := agentTask(srv.URL)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		class  ironic.Class
		msg    string
	}{
		{"busy", 409, `{"faultstring": "Agent is busy"}`, ironic.AgentInProgress,
			`Node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 command "standby.power_off" failed. Agent is presently executing a command. Error Agent is busy`},
		{"busy 400", 400, `{"faultstring": "agent is busy with foo"}`, ironic.AgentInProgress,
			`Node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 command "standby.power_off" failed. Agent is presently executing a command. Error agent is busy with foo`},
		{"invalid", 400, `{"faultstring": "Invalid command"}`, ironic.AgentAPIError,
			"Agent API for node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 returned HTTP status code 400 with error: Invalid command"},
		{"type error", 200, `{"command_status": "FAILED", "command_error": {"type": "TypeError", "code": 500, "message": "bad", "details": "unexpected argument"}}`,
			ironic.AgentAPIError, "Agent API for node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 returned HTTP status code 500 with error: unexpected argument"},
		{"not json", 200, `oops`, ironic.IronicException, "Unable to decode response as JSON.\nRequest URL: " + srv.URL + "/v1/commands/\nRequest body: \"{\"name\": \"standby.power_off\", \"params\": {}}\"\nResponse status code: 200\nResponse: \"oops\""},
	} {
		rec.post = func(w http.ResponseWriter, _ []byte) {
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}
		_, err := c.PowerOff(ctx, tk)
		if !ironic.IsClass(err, tc.class) || err.Error() != tc.msg {
			t.Errorf("%s: %v, want %s: %s", tc.name, err, tc.class, tc.msg)
		}
	}
	// A failed command is an answer, not an error: callers read its status.
	rec.post = func(w http.ResponseWriter, _ []byte) {
		_, _ = io.WriteString(w, `{"command_status": "FAILED", "command_error": {"type": "CommandExecutionError", "details": "disk on fire"}}`)
	}
	res, err := c.PowerOff(ctx, tk)
	if err != nil || res.Status() != "FAILED" || agent.CommandError(res) != "disk on fire" {
		t.Errorf("failed command: %v %v", res, err)
	}

	// Nothing listens: three attempts, then AgentConnectionFailed.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	tk.Node.DriverInternalInfo.Set("agent_url", url)
	_, err = c.PowerOff(ctx, tk)
	if !ironic.IsClass(err, ironic.AgentConnectionFailed) ||
		!strings.HasPrefix(err.Error(), "Connection to agent failed: Failed to connect to the agent running on node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 for invoking command standby.power_off. Error: ") {
		t.Errorf("no agent: %v", err)
	}
	tk.Node.DriverInternalInfo.Delete("agent_url")
	if _, err := c.PowerOff(ctx, tk); err == nil || err.Error() != "Agent driver requires agent_url in driver_internal_info" {
		t.Errorf("no agent_url: %v", err)
	}
}

// TestClientPollTimeout: a polled command that never finishes times out
// after [agent]command_wait_attempts.
func TestClientPollTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, `{"commands": [{"command_name": "install_bootloader", "command_status": "RUNNING"}]}`)
			return
		}
		_, _ = io.WriteString(w, `{"command_status": "RUNNING"}`)
	}))
	defer srv.Close()
	waits := 0
	c := agent.NewClient(agent.ClientConfig{HTTP: srv.Client(), CommandWaitAttempts: 3, After: func(time.Duration) <-chan time.Time {
		waits++
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}})
	_, err := c.InstallBootloader(context.Background(), agentTask(srv.URL), "r", "bios", nil, nil, false)
	if !ironic.IsClass(err, ironic.AgentCommandTimeout) || err.Error() != "Timeout executing command image.install_bootloader on node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123" || waits != 2 {
		t.Errorf("%v after %d waits", err, waits)
	}
}
