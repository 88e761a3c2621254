package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunOnHost runs the agent as a host process would (flags, no
// kernel parameters) against a fake Ironic: it looks up with the MACs
// given, heartbeats with its callback URL, serves the command API and
// records commands in the command log.
func TestRunOnHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var mu sync.Mutex
	var beats []map[string]any
	beat := make(chan struct{}, 10)
	ironic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/lookup" && r.URL.Query().Get("addresses") == "52:54:00:aa:bb:cc":
			fmt.Fprint(w, `{"node":{"uuid":"6d3c1a0e-7f43-4a8e-9c55-0d6c3d2b1a00"},"config":{"heartbeat_timeout":300,"agent_token":"`+strings.Repeat("x", 32)+`"}}`)
		case r.URL.Path == "/v1/heartbeat/6d3c1a0e-7f43-4a8e-9c55-0d6c3d2b1a00":
			var b map[string]any
			_ = json.NewDecoder(r.Body).Decode(&b)
			mu.Lock()
			beats = append(beats, b)
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			beat <- struct{}{}
		default:
			http.NotFound(w, r)
		}
	}))
	defer ironic.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmdLog := filepath.Join(dir, "commands.jsonl")
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-api-url", ironic.URL, "-macs", "52:54:00:aa:bb:cc", "-advertise-host", "127.0.0.1",
			"-advertise-port", fmt.Sprint(port), "-listen", fmt.Sprintf("127.0.0.1:%d", port), "-command-log", cmdLog,
			"-ironic-api-version", "1.82", "-log-file", filepath.Join(dir, "agent.log")}, false, &stderr)
	}()
	select {
	case <-beat:
	case err := <-done:
		t.Fatalf("agent ended: %v\n%s", err, stderr.String())
	case <-ctx.Done():
		t.Fatalf("no heartbeat\n%s", stderr.String())
	}
	mu.Lock()
	b := beats[0]
	mu.Unlock()
	if b["callback_url"] != fmt.Sprintf("http://127.0.0.1:%d", port) || b["agent_token"] != strings.Repeat("x", 32) || b["agent_version"] != "9.4.1" {
		t.Errorf("heartbeat %v", b)
	}
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/commands/?wait=true&agent_token=%s", port, strings.Repeat("x", 32)),
		"application/json", strings.NewReader(`{"name":"standby.get_partition_uuids","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("command: %d", resp.StatusCode)
	}
	// The fake answered the heartbeat; the agent logs it once it reads
	// the answer.
	var agentLog []byte
	for range 100 {
		if agentLog, _ = os.ReadFile(filepath.Join(dir, "agent.log")); strings.Contains(string(agentLog), "heartbeat successful") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(string(agentLog), "heartbeat successful") {
		t.Errorf("agent log %q", agentLog)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	if data, _ := os.ReadFile(cmdLog); !strings.Contains(string(data), `"name":"standby.get_partition_uuids"`) {
		t.Errorf("command log %q", data)
	}
}

// TestRunBadFlags: a flag error is an error, not a run.
func TestRunBadFlags(t *testing.T) {
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"-advertise-port", "x"}, false, &stderr); err == nil {
		t.Fatal("no error")
	}
}
