package agent

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestWriteImageStepGolden compares the in-band write_image step (and its
// image_info) with the one Ironic's AgentDeploy.write_image builds for
// the same node (testdata/write_image_golden.json, recorded by
// testdata/gen_write_image.py), byte for byte as json.dumps writes it.
func TestWriteImageStepGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/write_image_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]struct {
		Node struct {
			InstanceInfo       json.RawMessage `json:"instance_info"`
			DriverInternalInfo *pyjson.Dict    `json:"driver_internal_info"`
			DriverInfo         *pyjson.Dict    `json:"driver_info"`
			Properties         *pyjson.Dict    `json:"properties"`
		} `json:"node"`
		StepJSON string `json:"step_json"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	for name, g := range golden {
		ii, err := pyjson.DecodeDict(g.Node.InstanceInfo)
		if err != nil {
			t.Fatal(err)
		}
		tk := &fake.Task{Node: &fake.Node{UUID: "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", Driver: "fake-hardware",
			Interfaces:   map[drivers.Kind]string{drivers.Deploy: "direct"},
			InstanceInfo: ii, DriverInternalInfo: g.Node.DriverInternalInfo, DriverInfo: g.Node.DriverInfo, Properties: g.Node.Properties}}
		got, err := pyjson.Marshal(cfg.writeImageStep(tk))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != g.StepJSON {
			t.Errorf("%s:\n got %s\nwant %s", name, got, g.StepJSON)
		}
	}
}
