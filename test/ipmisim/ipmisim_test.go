package ipmisim_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/test/ipmisim"
)

// ipmitool runs one ipmitool command against b.
func ipmitool(t *testing.T, b *ipmisim.BMC, args ...string) (string, error) {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(b.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	argv := append([]string{"-I", "lanplus", "-H", b.Address, "-p", strconv.Itoa(b.Port), "-U", b.User, "-f", pw, "-L", "ADMINISTRATOR", "-C", "3", "-R", "1", "-N", "1"}, args...)
	out, err := exec.CommandContext(ctx, "ipmitool", argv...).Output()
	return string(out), err
}

// TestBMC drives the simulator with ipmitool: power and boot device are
// the chassis-control script's files, the boot flags come from the
// message log.
func TestBMC(t *testing.T) {
	b := ipmisim.Start(t, ipmisim.Options{SoftOffDelay: 300 * time.Millisecond})
	if out, err := ipmitool(t, b, "power", "status"); err != nil || out != "Chassis Power is off\n" {
		t.Fatalf("power status: %q %v", out, err)
	}
	if _, err := ipmitool(t, b, "power", "on"); err != nil || !b.PowerOn() {
		t.Fatalf("power on: %v, power %v", err, b.PowerOn())
	}
	if _, err := ipmitool(t, b, "power", "soft"); err != nil {
		t.Fatal(err)
	}
	if !b.PowerOn() {
		t.Errorf("soft power off was at once, want after the delay")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.WaitPower(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ipmitool(t, b, "raw", "0x00", "0x08", "0x05", "0xe0", "0x04", "0x00", "0x00", "0x00"); err != nil {
		t.Fatal(err)
	}
	if got := b.BootDevice(); got != "pxe" {
		t.Errorf("boot device %q, want pxe", got)
	}
	flags, ok, err := b.LastBootFlags()
	if err != nil || !ok || !flags.Valid || !flags.Persistent || !flags.EFI || flags.Selector != 0x04 {
		t.Errorf("boot flags %+v %v %v", flags, ok, err)
	}
	out, err := ipmitool(t, b, "sdr", "-v")
	if err != nil || !strings.Contains(out, "Sensor Reading        : 48 (+/- 0) degrees C") || !strings.Contains(out, "Fan1") {
		t.Errorf("sdr -v: %v\n%s", err, out)
	}
	if _, err := ipmitool(t, b, "power", "diag"); err == nil {
		t.Errorf("power diag succeeded; ipmi_sim has no NMI")
	}
	reqs, err := b.Requests()
	if err != nil {
		t.Fatal(err)
	}
	var diag *ipmisim.Request
	for i := range reqs {
		if r := reqs[i]; r.NetFn == 0x00 && r.Cmd == 0x02 && len(r.Data) == 1 && r.Data[0] == 0x04 {
			diag = &reqs[i]
		}
	}
	if diag == nil || diag.Completion != 0xcc {
		t.Errorf("chassis control diag interrupt: %v; requests: %v", diag, reqs)
	}
	b.Pause()
	start := time.Now()
	if _, err := ipmitool(t, b, "power", "status"); err == nil {
		t.Errorf("a paused BMC answered")
	}
	t.Logf("a paused BMC fails ipmitool in %s", time.Since(start).Round(time.Millisecond))
	b.Resume()
	if _, err := ipmitool(t, b, "power", "status"); err != nil {
		t.Errorf("resumed BMC: %v", err)
	}
}

// TestQEMUHost: with a QEMU host, power on starts the VM (its
// ipmi-bmc-extern device connects back to ipmi_sim) and power off ends
// it.
func TestQEMUHost(t *testing.T) {
	if _, err := exec.LookPath(ipmisim.QEMUBinary); err != nil {
		t.Skipf("%s is not installed: %v", ipmisim.QEMUBinary, err)
	}
	b := ipmisim.Start(t, ipmisim.Options{QEMU: true})
	if out, err := ipmitool(t, b, "power", "status"); err != nil || out != "Chassis Power is off\n" {
		t.Fatalf("power status: %q %v", out, err)
	}
	if _, err := ipmitool(t, b, "power", "on"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.WaitPower(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("VM pid %d", b.VMPid())
	if out, err := ipmitool(t, b, "power", "status"); err != nil || out != "Chassis Power is on\n" {
		t.Errorf("power status with the VM running: %q %v", out, err)
	}
	if _, err := ipmitool(t, b, "power", "off"); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitPower(ctx, false); err != nil {
		t.Fatal(err)
	}
	if out, err := ipmitool(t, b, "power", "status"); err != nil || out != "Chassis Power is off\n" {
		t.Errorf("power status after power off: %q %v", out, err)
	}
}
