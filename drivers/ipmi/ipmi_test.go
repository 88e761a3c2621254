package ipmi_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/ipmi"
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

// TestPasswordNeverOnArgvOrLogs: the password reaches ipmitool only in
// a 0600 file, removed after each command, and never a log line.
func TestPasswordNeverOnArgvOrLogs(t *testing.T) {
	var logs strings.Builder
	s := newSetup(t, func(c *ipmi.Config) {
		c.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	fail := true
	s.runner.answer = func(c call) (string, string, error) {
		if fail {
			fail = false
			return "", "boom\n", &ipmi.ExecError{Argv: c.Argv, ExitCode: 1, Stderr: "boom\n"}
		}
		return "Chassis Power is on\n", "", nil
	}
	if _, err := s.power.GetPowerState(context.Background(), s.task(node("ipmi_password", "Sup3r-Secret"))); err != nil {
		t.Fatal(err)
	}
	for _, c := range s.runner.calls {
		if strings.Contains(c.String(), "Sup3r-Secret") || c.Password != "Sup3r-Secret" || c.Mode != 0o600 {
			t.Errorf("call %s: password %q mode %v", c, c.Password, c.Mode)
		}
	}
	if len(s.runner.calls) != 2 {
		t.Errorf("%d calls, want a retry", len(s.runner.calls))
	}
	if strings.Contains(logs.String(), "Sup3r-Secret") || !strings.Contains(logs.String(), "IPMI Error encountered, retrying") {
		t.Errorf("logs:\n%s", logs.String())
	}
	left, _ := os.ReadDir(s.cfg.TempDir)
	if len(left) != 0 {
		t.Errorf("files left in tempdir: %v", left)
	}
}

// TestGateIsPerBMC: commands to one BMC wait min_command_interval after
// the last one ended and never overlap; another BMC is not held up.
func TestGateIsPerBMC(t *testing.T) {
	s := newSetup(t)
	ctx := context.Background()
	a := s.task(node())
	b := s.task(node("ipmi_address", "10.9.9.9"))
	if _, err := s.power.GetPowerState(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.power.GetPowerState(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got := s.clock.slept(); len(got) != 0 {
		t.Errorf("slept %v for two BMCs", got)
	}
	s.clock.advance(2 * time.Second)
	if _, err := s.power.GetPowerState(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := s.clock.slept(); len(got) != 1 || got[0] != 3*time.Second {
		t.Errorf("slept %v, want the rest of min_command_interval (3s)", got)
	}

	// While BMC a hangs in a command, b answers and a second command to
	// a waits its turn.
	release := make(chan struct{})
	entered := make(chan string, 4)
	s.runner.answer = func(c call) (string, string, error) {
		entered <- c.Argv[4]
		if c.Argv[4] == "10.1.2.3" {
			<-release
		}
		return "Chassis Power is on\n", "", nil
	}
	done := make(chan error, 2)
	go func() { _, err := s.power.GetPowerState(ctx, a); done <- err }()
	if got := <-entered; got != "10.1.2.3" {
		t.Fatalf("first command to %s", got)
	}
	go func() { _, err := s.power.GetPowerState(ctx, a); done <- err }()
	if _, err := s.power.GetPowerState(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got := <-entered; got != "10.9.9.9" {
		t.Errorf("while a hangs, %s ran", got)
	}
	select {
	case got := <-entered:
		t.Errorf("a second command reached %s while the first hangs", got)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	// A cancelled context frees a waiter.
	block := make(chan struct{})
	s.runner.answer = func(c call) (string, string, error) { <-block; return "", "", nil }
	go func() { _, _ = s.power.GetPowerState(ctx, a) }()
	time.Sleep(20 * time.Millisecond)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.power.GetPowerState(cctx, a); !ironic.IsClass(err, ironic.IPMIFailure) {
		t.Errorf("cancelled waiter: %v", err)
	}
	close(block)
}

// TestZeroMinCommandInterval: with [ipmi]min_command_interval = 0 a
// failing command is tried command_retry_timeout times (one per second
// of it), where Ironic divides by zero and fails every command.
func TestZeroMinCommandInterval(t *testing.T) {
	s := newSetup(t, func(c *ipmi.Config) {
		c.MinCommandInterval = 0
		c.CommandRetryTimeout = 3 * time.Second
	})
	s.runner.answer = func(c call) (string, string, error) {
		return "", "Node busy\n", &ipmi.ExecError{Argv: c.Argv, ExitCode: 1, Stderr: "Node busy\n"}
	}
	_, err := s.power.GetPowerState(context.Background(), s.task(node()))
	if !ironic.IsClass(err, ironic.IPMIFailure) || len(s.runner.calls) != 3 || len(s.clock.slept()) != 0 {
		t.Errorf("%v after %d calls, slept %v", err, len(s.runner.calls), s.clock.slept())
	}
	if got := s.runner.calls[0].String(); !strings.Contains(got, " -R 1 -N 0 ") {
		t.Errorf("command %s", got)
	}
}

// TestSingleAttempt: under drivers.SingleAttempt a failing command runs
// once, where it would be retried until command_retry_timeout.
func TestSingleAttempt(t *testing.T) {
	s := newSetup(t, func(c *ipmi.Config) {
		c.MinCommandInterval = 0
		c.CommandRetryTimeout = 3 * time.Second
	})
	s.runner.answer = func(c call) (string, string, error) {
		return "", "Node busy\n", &ipmi.ExecError{Argv: c.Argv, ExitCode: 1, Stderr: "Node busy\n"}
	}
	_, err := s.power.GetPowerState(drivers.SingleAttempt(context.Background()), s.task(node()))
	if !ironic.IsClass(err, ironic.IPMIFailure) || len(s.runner.calls) != 1 {
		t.Errorf("%v after %d calls, want 1", err, len(s.runner.calls))
	}
}
