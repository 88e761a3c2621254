package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/freeport"

	"github.com/goironic/ironic/test/internal/cluster"
)

// TestAgentBinary runs cmd/ironic-agent as a host process (flags, no
// kernel parameters) against our all-in-one: a custom-agent deploy
// (the agent's deploy steps, then standby.power_off, which ends the
// process as a machine powering off would) needs no disk.
func TestAgentBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster.Build(t, cluster.AllInOne)
	dir := t.TempDir()
	bin := filepath.Join(dir, "ironic-agent")
	if err := cluster.GoBuild(ctx, bin, "github.com/goironic/ironic/cmd/ironic-agent"); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ironic.sqlite")
	svc := cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Dir: dir, LogTail: 4000,
		Config: func(port int) string {
			return strings.Replace(config(dir, db, port, true), "enabled_deploy_interfaces = direct,fake",
				"enabled_deploy_interfaces = custom-agent,direct,fake", 1)
		}})
	c := client{t: t, url: svc.URL}
	const mac = "52:54:00:12:34:67"
	n := c.call("POST", "/v1/nodes", map[string]any{"driver": "fake-hardware", "deploy_interface": "custom-agent", "boot_interface": "fake"})
	uuid := n["uuid"].(string)
	c.call("POST", "/v1/ports", map[string]any{"node_uuid": uuid, "address": mac})
	c.provision(uuid, map[string]any{"target": "manage"}, "manageable", 20*time.Second)
	c.call("PATCH", "/v1/nodes/"+uuid, []map[string]any{{"op": "add", "path": "/automated_clean", "value": false}})
	c.provision(uuid, map[string]any{"target": "provide"}, "available", 20*time.Second)

	port, err := freeport.TCP()
	if err != nil {
		t.Fatal(err)
	}
	cmdLog := filepath.Join(dir, "commands.jsonl")
	logFile := filepath.Join(dir, "agent.log")
	cmd := exec.CommandContext(ctx, bin, "-api-url", svc.URL, "-macs", mac, "-advertise-host", "127.0.0.1",
		"-advertise-port", fmt.Sprint(port), "-listen", fmt.Sprintf("127.0.0.1:%d", port),
		"-lookup-interval", "200ms", "-command-log", cmdLog, "-log-file", logFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		if err := <-exited; err != nil {
			t.Logf("agent process: %v", err)
		}
		if t.Failed() {
			data, _ := os.ReadFile(logFile)
			t.Logf("agent log:\n%s", cluster.Tail(data, 6000))
		}
	}()
	c.provision(uuid, map[string]any{"target": "active"}, "active", 60*time.Second)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("agent exit: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Errorf("the agent still runs after standby.power_off")
	}
	data, _ := os.ReadFile(cmdLog)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i := strings.Index(l, `"name":"`); i >= 0 {
			names = append(names, strings.SplitN(l[i+8:], `"`, 2)[0])
		}
	}
	if got, want := strings.Join(names, " "), "deploy.get_deploy_steps standby.power_off"; got != want {
		t.Errorf("commands %s, want %s", got, want)
	}
}
