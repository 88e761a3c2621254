package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
)

type clock time.Time

func (c clock) Now() time.Time { return time.Time(c) }

func impl[T any](t *testing.T, cfg agent.Config, k drivers.Kind, name string) T {
	t.Helper()
	for _, im := range agent.Implementations(cfg) {
		if im.Kind == k && im.Name == name {
			return im.Impl.(T)
		}
	}
	t.Fatalf("no %s %s", k, name)
	var zero T
	return zero
}

func TestPowerValidate(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	cfg := agent.DefaultConfig()
	cfg.Clock = clock(now)
	p := impl[drivers.PowerInterface](t, cfg, drivers.Power, "agent")
	node := &fake.Node{UUID: "u", Driver: "manual-management", DriverInfo: pyjson.DictOf()}
	tk := &fake.Task{Node: node}
	if err := p.Validate(ctx, tk); err == nil || err.Error() != "Fast track mode must be enabled to use the agent power interface" {
		t.Errorf("without fast track: %v", err)
	}
	node.DriverInfo.Set("fast_track", "maybe")
	if err := p.Validate(ctx, tk); !ironic.IsClass(err, ironic.InvalidParameterValue) {
		t.Errorf("bad fast_track: %v", err)
	}
	node.DriverInfo.Set("fast_track", "yes")
	if err := p.Validate(ctx, tk); err == nil || err.Error() != "Agent seems offline for node u, the agent power interface cannot be used" {
		t.Errorf("no agent: %v", err)
	}
	node.DriverInternalInfo = pyjson.DictOf("agent_url", "http://10.0.0.5:9999", "agent_last_heartbeat", now.Add(-time.Minute).Format("2006-01-02T15:04:05.000000"))
	if err := p.Validate(ctx, tk); err != nil {
		t.Errorf("live agent: %v", err)
	}
	node.DriverInternalInfo.Set("agent_last_heartbeat", now.Add(-10*time.Minute).Format("2006-01-02T15:04:05.000000"))
	if err := p.Validate(ctx, tk); err == nil {
		t.Error("stale heartbeat accepted")
	}
	if p.(drivers.PowerSyncer).SupportsPowerSync(ctx, tk) {
		t.Error("agent power claims power sync")
	}
}

func TestRescueValidate(t *testing.T) {
	ctx := context.Background()
	cfg := agent.DefaultConfig()
	cfg.ManageAgentBoot = false
	r := impl[drivers.RescueInterface](t, cfg, drivers.Rescue, "agent")
	node := &fake.Node{UUID: "u", Driver: "ipmi"}
	tk := &fake.Task{Node: node}
	if err := r.Validate(ctx, tk); !ironic.IsClass(err, ironic.MissingParameterValue) ||
		err.Error() != "Node u is missing 'instance_info/rescue_password'. It is required for rescuing node." {
		t.Errorf("no password: %v", err)
	}
	node.InstanceInfo = pyjson.DictOf("rescue_password", "  ")
	if err := r.Validate(ctx, tk); !ironic.IsClass(err, ironic.InvalidParameterValue) {
		t.Errorf("blank password: %v", err)
	}
	node.InstanceInfo.Set("rescue_password", "secret")
	if err := r.Validate(ctx, tk); err != nil {
		t.Errorf("password: %v", err)
	}
}

func TestDeployValidateHTTPProvisioning(t *testing.T) {
	ctx := context.Background()
	cfg := agent.DefaultConfig() // no [deploy]http_url
	d := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "direct")
	node := &fake.Node{UUID: "u", Driver: "fake-hardware", InstanceInfo: pyjson.DictOf("image_source", "file:///images/x.img")}
	err := d.Validate(ctx, &fake.Task{Node: node})
	want := "Node u failed to validate http provisoning. Some configuration options were missing. Missing are: ['[deploy]http_url']"
	if !ironic.IsClass(err, ironic.MissingParameterValue) || err.Error() != want {
		t.Errorf("file image without http_url: %v", err)
	}
	custom := impl[drivers.DeployInterface](t, cfg, drivers.Deploy, "custom-agent")
	if err := custom.Validate(ctx, &fake.Task{Node: &fake.Node{UUID: "u"}}); err != nil {
		t.Errorf("custom-agent needs no image: %v", err)
	}
}
