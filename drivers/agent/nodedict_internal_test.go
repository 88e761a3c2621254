package agent

import (
	"testing"

	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestSecureNodeDictKeepsOrder: the node the agent's commands carry is
// as_dict(secure=True): driver_info, driver_internal_info and
// instance_info keep their keys' order through the masking, and
// instance_info's configdrive, popped and set again, comes last.
func TestSecureNodeDictKeepsOrder(t *testing.T) {
	tk := &fake.Task{Node: &fake.Node{UUID: "n1", Driver: "fake-hardware",
		DriverInfo:         pyjson.DictOf("z_address", "10.0.0.1", "ipmi_password", "secret", "a_port", 623),
		DriverInternalInfo: pyjson.DictOf("agent_url", "http://10.0.0.2:9999", "agent_secret_token", "tok", "clean_steps", nil),
		InstanceInfo: pyjson.DictOf("configdrive", "H4sI", "root_gb", 10, "image_url", "http://x?temp_url_sig=abc",
			"capabilities", pyjson.DictOf("secure_boot", "true", "boot_option", "local")),
	}}
	for _, tc := range []struct {
		mask bool
		want string
	}{
		{true, `{"configdrive": "******"}`},
		{false, `{"configdrive": "H4sI"}`},
	} {
		d, err := nodeDict(tk, tc.mask)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range d {
			b, err := pyjson.Marshal(m.Value)
			if err != nil {
				t.Fatal(err)
			}
			got[m.Key] = string(b)
		}
		want := map[string]string{
			"driver_info":          `{"z_address": "10.0.0.1", "ipmi_password": "******", "a_port": 623}`,
			"driver_internal_info": `{"agent_url": "http://10.0.0.2:9999", "agent_secret_token": "******", "clean_steps": null}`,
			"instance_info": `{"root_gb": 10, "image_url": "http://x?temp_url_sig=abc", "capabilities": {"secure_boot": "true", "boot_option": "local"}, ` +
				tc.want[1:],
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("mask configdrive %v: %s\n got %s\nwant %s", tc.mask, k, got[k], w)
			}
		}
		if d[len(d)-1].Key != "instance_info" {
			t.Errorf("instance_info is not last (Python pops it and sets it again)")
		}
	}
	if tk.Node.InstanceInfo.Get("configdrive") != "H4sI" || tk.Node.DriverInfo.Get("ipmi_password") != "secret" {
		t.Error("the node's own dicts were masked")
	}
}
