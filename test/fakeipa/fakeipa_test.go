package fakeipa_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/agent"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/test/fakeipa"
)

// TestCommandsWithIronicsClient drives the fake agent with our
// implementation of Ironic's agent client: steps, a write_image that
// downloads and verifies the image, status polling, the busy refusal,
// the token check and the reboot on power off.
func TestCommandsWithIronicsClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	image := []byte("not really a disk image")
	sum := sha256.Sum256(image)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(image) }))
	defer files.Close()

	a := fakeipa.New(fakeipa.Options{Token: "secret", CommandDelay: 20 * time.Millisecond})
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c := agent.NewClient(agent.ClientConfig{CommandTimeout: 5 * time.Second, CommandWaitInterval: 10 * time.Millisecond})
	tk := &fake.Task{Node: &fake.Node{UUID: "n1", Driver: "fake-hardware",
		DriverInternalInfo: pyjson.DictOf("agent_url", a.URL(), "agent_secret_token", "secret")}}

	res, err := c.GetSteps(ctx, tk, drivers.DeployStep)
	if err != nil || res.Status() != "SUCCEEDED" || res.Result().Get("deploy_steps") == nil {
		t.Fatalf("get_deploy_steps: %v %v", res, err)
	}
	step := pyjson.Object{{Key: "interface", Value: "deploy"}, {Key: "step", Value: "write_image"},
		{Key: "args", Value: pyjson.Object{{Key: "image_info", Value: pyjson.Object{
			{Key: "id", Value: "img"}, {Key: "urls", Value: []any{files.URL + "/img"}},
			{Key: "os_hash_algo", Value: "sha256"}, {Key: "os_hash_value", Value: hex.EncodeToString(sum[:])}}}}}}
	res, err = c.ExecuteStep(ctx, tk, drivers.DeployStep, step)
	if err != nil || res.Status() != "RUNNING" {
		t.Fatalf("execute_deploy_step: %v %v", res, err)
	}
	if _, err := c.PowerOff(ctx, tk); !ironic.IsClass(err, ironic.AgentInProgress) {
		t.Errorf("command while busy: %v", err)
	}
	var last agent.Command
	for i := 0; i < 100; i++ {
		if last, err = c.LastCommandStatus(ctx, tk, "deploy.execute_deploy_step"); err != nil {
			t.Fatal(err)
		}
		if last.Status() != "RUNNING" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if last.Status() != "SUCCEEDED" || last.Result().Get("deploy_step") == nil {
		t.Errorf("write_image: %v", last)
	}

	// A wrong checksum fails the command as IPA does.
	step[2].Value.(pyjson.Object)[0].Value.(pyjson.Object)[3].Value = "00"
	if _, err := c.ExecuteStep(ctx, tk, drivers.DeployStep, step); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if last, _ = c.LastCommandStatus(ctx, tk, "deploy.execute_deploy_step"); last.Status() != "RUNNING" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if last.Status() != "FAILED" || agent.CommandError(last)[:40] != "Image failed to verify against checksum." {
		t.Errorf("bad checksum: %v", last)
	}

	if res, err := c.InstallBootloader(ctx, tk, "root", "uefi", nil, nil, false); err != nil || res.Status() != "SUCCEEDED" {
		t.Errorf("install_bootloader: %v %v", res, err)
	}

	tk.Node.DriverInternalInfo.Set("agent_secret_token", "wrong")
	if _, err := c.Sync(ctx, tk); !ironic.IsClass(err, ironic.AgentAPIError) ||
		err.Error() != "Agent API for node n1 returned HTTP status code 401 with error: 401 Unauthorized: Token invalid." {
		t.Errorf("wrong token: %v", err)
	}
	tk.Node.DriverInternalInfo.Set("agent_secret_token", "secret")
	if res, err := c.PowerOff(ctx, tk); err != nil || res.Status() != "RUNNING" {
		t.Fatalf("power_off: %v %v", res, err)
	}
	// The agent is gone with its token once it has powered off.
	time.Sleep(100 * time.Millisecond)
	if _, err := c.Sync(ctx, tk); !ironic.IsClass(err, ironic.AgentAPIError) {
		t.Errorf("after power off: %v", err)
	}
	names := []string{}
	for _, r := range a.Commands() {
		names = append(names, r.Name)
	}
	want := "[deploy.get_deploy_steps deploy.execute_deploy_step standby.power_off deploy.execute_deploy_step image.install_bootloader standby.sync standby.power_off standby.sync]"
	if got := fmtList(names); got != want {
		t.Errorf("received %s\nwant %s", got, want)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
