package ipmi_test

import (
	"context"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/goironic/ironic/test/ipmisim"
)

// simSetup is the ipmitool interfaces running the real ipmitool against
// ipmi_sim, paced by the real clock: one second between commands to a
// BMC, three seconds of retries.
func simSetup(t *testing.T, configure ...func(*ipmi.Config)) *setup {
	t.Helper()
	ipmisim.Require(t)
	s := &setup{}
	cfg := ipmi.DefaultConfig()
	cfg.TempDir = t.TempDir()
	cfg.MinCommandInterval = time.Second
	cfg.CommandRetryTimeout = 3 * time.Second
	cfg.PowerStateChangeTimeout = 10 * time.Second
	cfg.Log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for _, c := range configure {
		c(&cfg)
	}
	s.use(cfg)
	return s
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// simNode is a node whose BMC is b (cipher suite 3: ipmi_sim has no 17,
// and naming one spares ipmitool's cipher suite discovery).
func simNode(b *ipmisim.BMC, extra ...any) *pyjson.Dict {
	return pyjson.DictOf(append([]any{"ipmi_address", b.Address, "ipmi_port", strconv.Itoa(b.Port),
		"ipmi_username", b.User, "ipmi_password", b.Password, "ipmi_cipher_suite", "3"}, extra...)...)
}

func simTask(s *setup, info *pyjson.Dict) *fake.Task {
	tk := s.task(info)
	tk.Node.ProvisionState = states.Manageable
	return tk
}

// TestPowerAgainstIPMISim: power on, off, reboot, soft power off and
// soft reboot change the simulator's power, each waited for by polling.
func TestPowerAgainstIPMISim(t *testing.T) {
	t.Parallel()
	s := simSetup(t)
	bmc := ipmisim.Start(t, ipmisim.Options{SoftOffDelay: 2 * time.Second})
	ctx := context.Background()
	tk := simTask(s, simNode(bmc))
	step := func(what string, err error, wantOn bool) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if bmc.PowerOn() != wantOn {
			t.Fatalf("%s: the BMC's power is on=%v", what, bmc.PowerOn())
		}
		st, err := s.power.GetPowerState(ctx, tk)
		want := states.PowerOff
		if wantOn {
			want = states.PowerOn
		}
		if err != nil || st != want {
			t.Fatalf("%s: power state %q %v, want %q", what, st, err, want)
		}
	}
	step("power on", s.power.SetPowerState(ctx, tk, states.PowerOn, 0), true)
	step("power off", s.power.SetPowerState(ctx, tk, states.PowerOff, 0), false)
	step("reboot from off", s.power.Reboot(ctx, tk, 0), true)
	step("reboot from on", s.power.Reboot(ctx, tk, 0), true)
	start := time.Now()
	step("soft power off", s.power.SetPowerState(ctx, tk, states.SoftPowerOff, 0), false)
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("soft power off returned after %s, before the host was off", took)
	}
	step("power on", s.power.SetPowerState(ctx, tk, states.PowerOn, 0), true)
	step("soft reboot", s.power.SetPowerState(ctx, tk, states.SoftRebooting, 0), true)
	reqs, err := bmc.Requests()
	if err != nil {
		t.Fatal(err)
	}
	var controls []string
	for _, r := range reqs {
		if r.NetFn == 0x00 && r.Cmd == 0x02 {
			controls = append(controls, r.String())
		}
	}
	want := []string{
		"netfn 0x00 cmd 0x02 data 01 -> 0x00", // on
		"netfn 0x00 cmd 0x02 data 00 -> 0x00", // off
		"netfn 0x00 cmd 0x02 data 01 -> 0x00", // reboot from off: on only
		"netfn 0x00 cmd 0x02 data 00 -> 0x00", // reboot: off
		"netfn 0x00 cmd 0x02 data 01 -> 0x00", // and on
		"netfn 0x00 cmd 0x02 data 05 -> 0x00", // soft off
		"netfn 0x00 cmd 0x02 data 01 -> 0x00", // on
		"netfn 0x00 cmd 0x02 data 05 -> 0x00", // soft reboot: soft off
		"netfn 0x00 cmd 0x02 data 01 -> 0x00", // and on
	}
	if strings.Join(controls, "\n") != strings.Join(want, "\n") {
		t.Errorf("chassis controls the BMC received:\n%s\nwant:\n%s", strings.Join(controls, "\n"), strings.Join(want, "\n"))
	}
}

// TestManagementAgainstIPMISim: boot devices (UEFI raw bytes with the
// persistent and EFI flags, legacy chassis bootdev), the boot device
// read back, sensors, NMI, raw bytes and BMC resets, as the simulator
// sees them.
func TestManagementAgainstIPMISim(t *testing.T) {
	t.Parallel()
	s := simSetup(t)
	bmc := ipmisim.Start(t, ipmisim.Options{})
	ctx := context.Background()
	tk := simTask(s, simNode(bmc))
	check := func(what string, wantDevice string, want ipmisim.BootFlags) {
		t.Helper()
		if got := bmc.BootDevice(); got != wantDevice {
			t.Errorf("%s: the BMC's boot device is %q, want %q", what, got, wantDevice)
		}
		flags, ok, err := bmc.LastBootFlags()
		if err != nil || !ok || flags != want {
			t.Errorf("%s: boot flags %+v (%v, %v), want %+v", what, flags, ok, err, want)
		}
	}
	if err := s.mgmt.SetBootDevice(ctx, tk, drivers.BootDevicePXE, false); err != nil {
		t.Fatal(err)
	}
	check("uefi pxe once", "pxe", ipmisim.BootFlags{Valid: true, EFI: true, Selector: 0x04})
	if err := s.mgmt.SetBootDevice(ctx, tk, drivers.BootDeviceDisk, true); err != nil {
		t.Fatal(err)
	}
	check("uefi disk persistent", "default", ipmisim.BootFlags{Valid: true, Persistent: true, EFI: true, Selector: 0x08})
	if err := s.mgmt.SetBootDevice(ctx, tk, drivers.BootDeviceCDROM, true); err != nil {
		t.Fatal(err)
	}
	check("uefi cdrom persistent", "cdrom", ipmisim.BootFlags{Valid: true, Persistent: true, EFI: true, Selector: 0x14})
	legacy := simTask(s, simNode(bmc))
	legacy.Node.InstanceInfo = pyjson.DictOf("deploy_boot_mode", "bios")
	if err := s.mgmt.SetBootDevice(ctx, legacy, drivers.BootDevicePXE, true); err != nil {
		t.Fatal(err)
	}
	check("legacy pxe persistent", "pxe", ipmisim.BootFlags{Valid: true, Persistent: true, Selector: 0x04})
	bd, err := s.mgmt.GetBootDevice(ctx, tk)
	if err != nil || bd.Device != drivers.BootDevicePXE || bd.Persistent == nil || *bd.Persistent {
		// ipmi_sim answers the device but never the persistence.
		t.Errorf("GetBootDevice: %+v %v", bd, err)
	}
	reqs, _ := bmc.Requests()
	timeouts := 0
	for _, r := range reqs {
		if r.NetFn == 0x00 && r.Cmd == 0x08 && r.String() == "netfn 0x00 cmd 0x08 data 03 08 -> 0x00" {
			timeouts++
		}
	}
	if timeouts != 4 {
		t.Errorf("the boot flag timeout was disabled %d times, want before each of the 4 changes", timeouts)
	}

	sensors, err := s.mgmt.GetSensorsData(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	temp, _ := sensors["Temperature"].(*pyjson.Dict)
	fan, _ := sensors["Fan"].(*pyjson.Dict)
	if temp == nil || fan == nil {
		t.Fatalf("sensors %v", sensors)
	}
	mb, _ := temp.Get("MBTemp (0x1)").(*pyjson.Dict)
	if mb == nil || mb.Get("Sensor Reading") != "48 (+/- 0) degrees C" {
		t.Errorf("temperature sensor %v", temp)
	}
	if f, _ := fan.Get("Fan1 (0x2)").(*pyjson.Dict); f == nil || f.Get("Sensor Reading") != "2400 (+/- 0) RPM" {
		t.Errorf("fan sensor %v", fan)
	}

	// ipmi_sim refuses the diagnostic interrupt: Ironic's IPMIFailure.
	if err := s.mgmt.InjectNMI(ctx, tk); !ironic.IsClass(err, ironic.IPMIFailure) || err.Error() != "IPMI call failed: power diag." {
		t.Errorf("InjectNMI: %v", err)
	}
	if _, err := s.vendor.Call(ctx, tk, "send_raw", "POST", map[string]any{"raw_bytes": "0x06 0x01"}); err != nil {
		t.Errorf("send_raw Get Device ID: %v", err)
	}
	if _, err := s.vendor.Call(ctx, tk, "bmc_reset", "POST", map[string]any{"warm": false}); err != nil {
		t.Errorf("cold BMC reset: %v", err)
	}
	// ipmi_sim has no warm reset.
	if _, err := s.vendor.Call(ctx, tk, "bmc_reset", "POST", map[string]any{"warm": true}); !ironic.IsClass(err, ironic.IPMIFailure) || err.Error() != "IPMI call failed: bmc reset warm." {
		t.Errorf("warm BMC reset: %v", err)
	}
	vendor, err := s.mgmt.DetectVendor(ctx, tk)
	if err != nil || vendor != "montavista software, inc." {
		t.Errorf("DetectVendor: %q %v", vendor, err)
	}
	reqs, _ = bmc.Requests()
	var seen []string
	for _, r := range reqs {
		switch {
		case r.NetFn == 0x00 && r.Cmd == 0x02 && len(r.Data) == 1 && r.Data[0] == 0x04:
			seen = append(seen, "diag interrupt "+strconv.Itoa(int(r.Completion)))
		case r.NetFn == 0x06 && r.Cmd == 0x02:
			seen = append(seen, "cold reset")
		}
	}
	// A failure is retried ([ipmi]use_ipmitool_retries is false) while
	// command_retry_timeout lasts: how many tries fit depends on how fast
	// ipmitool runs here (the count is pinned with a fake clock by the
	// argv goldens), so only "tried, then the cold reset" is checked.
	n := 0
	for n < len(seen) && seen[n] == "diag interrupt 204" {
		n++
	}
	if n < 1 || !slices.Equal(seen[n:], []string{"cold reset"}) {
		t.Errorf("the BMC received %v", seen)
	}
}

// TestDefaultCipherSuiteAgainstIPMISim: a node naming no cipher suite
// works too (ipmitool discovers one).
func TestDefaultCipherSuiteAgainstIPMISim(t *testing.T) {
	t.Parallel()
	s := simSetup(t)
	bmc := ipmisim.Start(t, ipmisim.Options{PowerOn: true})
	tk := simTask(s, pyjson.DictOf("ipmi_address", bmc.Address, "ipmi_port", bmc.Port, "ipmi_username", bmc.User, "ipmi_password", bmc.Password))
	if st, err := s.power.GetPowerState(context.Background(), tk); err != nil || st != states.PowerOn {
		t.Errorf("power state %q %v", st, err)
	}
}

// TestFailingBMCs: a wrong password, an address where no BMC listens and
// a BMC that stopped answering give Ironic's IPMIFailure after bounded
// retries; a hung ipmitool is killed after [ipmi]command_retry_timeout.
func TestFailingBMCs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bmc := ipmisim.Start(t, ipmisim.Options{})
	t.Run("wrong-password", func(t *testing.T) {
		s := simSetup(t)
		start := time.Now()
		tk := simTask(s, simNode(bmc, "ipmi_password", "wrong"))
		_, err := s.power.GetPowerState(ctx, tk)
		if !ironic.IsClass(err, ironic.IPMIFailure) || err.Error() != "IPMI call failed: power status." {
			t.Errorf("GetPowerState: %v", err)
		}
		err = s.power.SetPowerState(ctx, tk, states.PowerOn, 0)
		if !ironic.IsClass(err, ironic.IPMIFailure) || err.Error() != "IPMI call failed: power on." {
			t.Errorf("SetPowerState: %v", err)
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("took %s", took)
		}
		if bmc.PowerOn() {
			t.Errorf("powered on with a wrong password")
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		s := simSetup(t)
		port, err := ipmisim.FreeUDPPort()
		if err != nil {
			t.Fatal(err)
		}
		tk := simTask(s, pyjson.DictOf("ipmi_address", "127.0.0.1", "ipmi_port", port, "ipmi_password", "x", "ipmi_cipher_suite", 3))
		start := time.Now()
		_, err = s.power.GetPowerState(ctx, tk)
		took := time.Since(start)
		if !ironic.IsClass(err, ironic.IPMIFailure) {
			t.Errorf("GetPowerState: %v", err)
		}
		// Three tries (3 s / 1 s), each -R 1 -N 1 (about 2 s).
		if took < 3*time.Second || took > 12*time.Second {
			t.Errorf("gave up after %s", took)
		}
	})
	t.Run("hung-bmc-killed", func(t *testing.T) {
		// ipmitool -N 5 would wait 10 s for a hung BMC; kill_on_timeout
		// ends "power status" after command_retry_timeout (2 s).
		s := simSetup(t, func(c *ipmi.Config) {
			c.MinCommandInterval = 5 * time.Second
			c.CommandRetryTimeout = 2 * time.Second
		})
		tk := simTask(s, simNode(bmc))
		bmc.Pause()
		defer bmc.Resume()
		start := time.Now()
		_, err := s.power.GetPowerState(ctx, tk)
		took := time.Since(start)
		if !ironic.IsClass(err, ironic.IPMIFailure) || took > 5*time.Second {
			t.Errorf("GetPowerState of a hung BMC: %v after %s", err, took)
		}
	})
}

// TestPowerStartsAVM: with ipmi_sim in front of a QEMU virtual machine
// (ipmi-bmc-extern), power on really starts the VM, reboot starts a new
// one and power off ends it.
func TestPowerStartsAVM(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath(ipmisim.QEMUBinary); err != nil {
		t.Skipf("%s is not installed: %v", ipmisim.QEMUBinary, err)
	}
	s := simSetup(t)
	bmc := ipmisim.Start(t, ipmisim.Options{QEMU: true})
	ctx := context.Background()
	tk := simTask(s, simNode(bmc))
	if err := s.power.SetPowerState(ctx, tk, states.PowerOn, 0); err != nil {
		t.Fatal(err)
	}
	first := bmc.VMPid()
	if first == 0 {
		t.Fatal("powered on, but no VM runs")
	}
	if err := s.power.Reboot(ctx, tk, 0); err != nil {
		t.Fatal(err)
	}
	second := bmc.VMPid()
	if second == 0 || second == first {
		t.Errorf("after reboot the VM is %d (was %d)", second, first)
	}
	if err := s.power.SetPowerState(ctx, tk, states.PowerOff, 0); err != nil {
		t.Fatal(err)
	}
	if pid := bmc.VMPid(); pid != 0 {
		t.Errorf("powered off, but VM %d runs", pid)
	}
	if st, err := s.power.GetPowerState(ctx, tk); err != nil || st != states.PowerOff {
		t.Errorf("power state %q %v", st, err)
	}
}
