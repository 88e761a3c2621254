package ipmi_test

import (
	"context"
	"testing"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// TestBridgingNeedsSupport: an ipmitool without bridging options (its
// probes fail) fails validation of bridged nodes with Ironic's message.
func TestBridgingNeedsSupport(t *testing.T) {
	s := newSetup(t)
	s.runner.noProbes = true
	err := s.power.Validate(context.Background(), s.task(pyjson.DictOf("ipmi_address", "a", "ipmi_bridging", "single", "ipmi_target_channel", "1", "ipmi_target_address", "2")))
	if !ironic.IsClass(err, ironic.InvalidParameterValue) ||
		err.Error() != "Value for ipmi_bridging is provided as single, but IPMI bridging is not supported by the IPMI utility installed on host. Ensure ipmitool version is > 1.8.11" {
		t.Errorf("bridging without support: %v", err)
	}
	// Nor are timing options passed.
	if _, err := s.power.GetPowerState(context.Background(), s.task(node())); err != nil {
		t.Fatal(err)
	}
	if got := s.runner.commands(); len(got) != 1 || got[0] != "ipmitool -I lanplus -H 10.1.2.3 -L ADMINISTRATOR -p 6230 -U admin -f <pwfile> power status" {
		t.Errorf("commands %q", got)
	}
}

// TestAllocatedTerminalPort: the port the conductor allocated counts as
// the terminal port, and is validated.
func TestAllocatedTerminalPort(t *testing.T) {
	s := newSetup(t)
	tk := s.task(pyjson.DictOf("ipmi_address", "a"))
	tk.Node.DriverInternalInfo = pyjson.DictOf("allocated_ipmi_terminal_port", "x")
	if err := s.power.Validate(context.Background(), tk); err == nil || err.Error() != `ipmi_terminal_port "x" is not a valid port.` {
		t.Errorf("allocated port: %v", err)
	}
}

func TestVendorValidate(t *testing.T) {
	s := newSetup(t)
	v := s.vendor
	err := v.Validate(context.Background(), s.task(pyjson.DictOf("ipmi_address", "a")), "send_raw", "POST", map[string]any{})
	if !ironic.IsClass(err, ironic.MissingParameterValue) || err.Error() != "Parameter raw_bytes (string of bytes) was not specified." {
		t.Errorf("send_raw: %v", err)
	}
	if err := v.Validate(context.Background(), s.task(pyjson.DictOf("ipmi_address", "a")), "bmc_reset", "POST", nil); err != nil {
		t.Errorf("bmc_reset: %v", err)
	}
	if _, err := v.Call(context.Background(), s.task(node()), "nope", "POST", nil); !ironic.IsClass(err, ironic.InvalidParameterValue) {
		t.Errorf("unknown method: %v", err)
	}
}
