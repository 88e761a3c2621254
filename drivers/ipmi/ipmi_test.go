package ipmi_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/states"
)

func task(info map[string]any) *fake.Task {
	return &fake.Task{Node: &fake.Node{UUID: "u", Driver: "ipmi", DriverInfo: info}}
}

func TestParseDriverInfo(t *testing.T) {
	info, err := ipmi.ParseDriverInfo(task(map[string]any{
		"ipmi_address": "10.0.0.1", "ipmi_port": "623", "ipmi_bridging": "dual",
		"ipmi_target_channel": "1", "ipmi_target_address": "2", "ipmi_transit_channel": "3", "ipmi_transit_address": "4",
	}), ipmi.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Address != "10.0.0.1" || info.DestPort == nil || *info.DestPort != 623 || info.PrivLevel != "ADMINISTRATOR" || info.ProtocolVersion != "2.0" {
		t.Errorf("parsed %+v", info)
	}
	_, err = ipmi.ParseDriverInfo(task(map[string]any{"ipmi_address": "a", "ipmi_bridging": "single",
		"ipmi_target_channel": "1", "ipmi_target_address": "2"}), ipmi.Config{NoBridging: true})
	if !ironic.IsClass(err, ironic.InvalidParameterValue) ||
		err.Error() != "Value for ipmi_bridging is provided as single, but IPMI bridging is not supported by the IPMI utility installed on host. Ensure ipmitool version is > 1.8.11" {
		t.Errorf("bridging without support: %v", err)
	}
	// The terminal port allocated by the conductor counts.
	tk := task(map[string]any{"ipmi_address": "a"})
	tk.Node.DriverInternalInfo = map[string]any{"allocated_ipmi_terminal_port": "x"}
	if _, err := ipmi.ParseDriverInfo(tk, ipmi.Config{}); err == nil || err.Error() != `ipmi_terminal_port "x" is not a valid port.` {
		t.Errorf("allocated port: %v", err)
	}
}

func TestConsoleAndActions(t *testing.T) {
	ctx := context.Background()
	impls := ipmi.Implementations(ipmi.Config{ConsolePortRange: "10000:20000"})
	var console drivers.ConsoleInterface
	var power drivers.PowerInterface
	for _, im := range impls {
		switch x := im.Impl.(type) {
		case drivers.ConsoleInterface:
			console = x
		case drivers.PowerInterface:
			power = x
		}
	}
	tk := task(map[string]any{"ipmi_address": "a"})
	if err := console.Validate(ctx, tk); err != nil {
		t.Errorf("console with a port range: %v", err)
	}
	// Talking to the BMC is not implemented: never a pretended success.
	if _, err := power.GetPowerState(ctx, tk); !ironic.IsClass(err, ironic.IronicException) {
		t.Errorf("GetPowerState: %v", err)
	}
	if err := power.SetPowerState(ctx, task(nil), states.PowerOn, 0); !ironic.IsClass(err, ironic.MissingParameterValue) {
		t.Errorf("SetPowerState without address: %v", err)
	}
}

func TestVendorValidate(t *testing.T) {
	v := &ipmi.Vendor{}
	err := v.Validate(context.Background(), task(map[string]any{"ipmi_address": "a"}), "send_raw", "POST", map[string]any{})
	if !ironic.IsClass(err, ironic.MissingParameterValue) || err.Error() != "Parameter raw_bytes (string of bytes) was not specified." {
		t.Errorf("send_raw: %v", err)
	}
	if err := v.Validate(context.Background(), task(map[string]any{"ipmi_address": "a"}), "bmc_reset", "POST", nil); err != nil {
		t.Errorf("bmc_reset: %v", err)
	}
}
