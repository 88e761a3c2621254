// Package ipmisim runs OpenIPMI's ipmi_sim (Debian's openipmi) as a BMC
// for tests: one simulated BMC on 127.0.0.1 with an administrator and a
// password, IPMI 1.5 and 2.0 (cipher suites 0-3; 17 is not supported),
// a temperature and a fan sensor, and a chassis-control script that
// keeps the power state and the boot device in files, so that a test
// reads the BMC's state as the simulator holds it. Every IPMI request
// the BMC receives is logged (ipmi_sim's "debug msg"): Requests returns
// them, with the bytes ipmi_sim's script interface drops (the boot
// flags' persistent and EFI bits). With Options.QEMU the host is a QEMU
// virtual machine attached to the simulator (-device ipmi-bmc-extern):
// power on really starts it.
//
// ipmi_sim answers chassis control "power diag" (NMI) and "bmc reset
// warm" with an error (Invalid data field, Invalid command), and has no
// SOL port unless one is configured: the tests see those as a real BMC
// without the feature.
package ipmisim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic/internal/freeport"
)

// Binary is the simulator.
const Binary = "ipmi_sim"

// RequireEnv, set to 1, turns a missing ipmi_sim or ipmitool into a
// failure (./test.sh installs openipmi and ipmitool).
const RequireEnv = "IRONIC_TEST_REQUIRE_IPMISIM"

// Options configure a BMC.
type Options struct {
	// Port is the UDP port on 127.0.0.1; zero picks a free one.
	Port int
	// User and Password are the administrator's (defaults "admin" and
	// "password").
	User, Password string
	// SoftOffDelay is how long the host takes to shut down after a soft
	// power off (chassis control 5); zero is at once.
	SoftOffDelay time.Duration
	// PowerOn starts the host powered on.
	PowerOn bool
	// QEMU makes the host a QEMU virtual machine (TCG, no disk) with an
	// ipmi-bmc-extern device connected back to the simulator: power on
	// starts it, power off stops it (ipmi_sim's startcmd and VM serial
	// interface), instead of the chassis-control script's file. The
	// boot device is then the simulator's own.
	QEMU bool
}

// QEMUBinary is the emulator a QEMU host runs.
const QEMUBinary = "qemu-system-x86_64"

// BMC is a running ipmi_sim.
type BMC struct {
	// Address and Port are where it listens (UDP).
	Address string
	Port    int
	// User and Password are the administrator's credentials.
	User, Password string
	// Dir holds the configuration, the state files and the log.
	Dir string

	qemu   bool
	vmPort int

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{}
	stopMu sync.Mutex
	paused bool
}

// Require skips t (or fails it when RequireEnv is 1) unless ipmi_sim
// and ipmitool are installed.
func Require(t testing.TB) {
	t.Helper()
	for _, bin := range []string{Binary, "ipmitool"} {
		if _, err := exec.LookPath(bin); err != nil {
			msg := fmt.Sprintf("%s is not installed (apt-get install openipmi ipmitool): %v", bin, err)
			if os.Getenv(RequireEnv) == "1" {
				t.Fatalf("%s=1: %s", RequireEnv, msg)
			}
			t.Skip(msg)
		}
	}
}

// Start runs a BMC for t, stopped when t ends.
func Start(t testing.TB, opts Options) *BMC {
	t.Helper()
	Require(t)
	b, err := start(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(b.Dir, "chassis.log"))
			t.Logf("ipmi_sim at %s:%d: chassis control calls:\n%s", b.Address, b.Port, log)
		}
	})
	return b
}

// FreeUDPPort returns a free UDP port on 127.0.0.1, outside the
// kernel's ephemeral range, where ipmitool's own sockets cannot take it.
func FreeUDPPort() (int, error) { return freeport.UDP() }

func start(dir string, opts Options) (*BMC, error) {
	if opts.User == "" {
		opts.User = "admin"
	}
	if opts.Password == "" {
		opts.Password = "password"
	}
	if opts.Port == 0 {
		p, err := FreeUDPPort()
		if err != nil {
			return nil, err
		}
		opts.Port = p
	}
	b := &BMC{Address: "127.0.0.1", Port: opts.Port, User: opts.User, Password: opts.Password, Dir: dir, done: make(chan struct{}), qemu: opts.QEMU}
	if opts.QEMU {
		p, err := freeport.TCP()
		if err != nil {
			return nil, err
		}
		b.vmPort = p
	}
	power := "0"
	if opts.PowerOn {
		power = "1"
	}
	files := map[string]string{
		"power":      power + "\n",
		"boot":       "default\n",
		"chassis.sh": chassisScript(opts.SoftOffDelay),
		"lan.conf":   b.lanConf(opts),
		"sim.emu":    emuCommands,
	}
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			return nil, err
		}
	}
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "ipmi_sim.log"))
	if err != nil {
		return nil, err
	}
	// Not -n: the console is what prints the message log. Its input is a
	// pipe held open until Stop (ipmi_sim quits at its end).
	cmd := exec.Command(Binary, "-c", filepath.Join(dir, "lan.conf"), "-f", filepath.Join(dir, "sim.emu"), "-s", state)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	b.cmd, b.stdin = cmd, stdin
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(b.done)
	}()
	if err := b.waitReady(10 * time.Second); err != nil {
		b.Stop()
		log, _ := os.ReadFile(filepath.Join(dir, "ipmi_sim.log"))
		return nil, fmt.Errorf("ipmi_sim on %s:%d: %w; log:\n%s", b.Address, b.Port, err, log)
	}
	return b, nil
}

// waitReady waits until ipmi_sim has run its command file.
func (b *BMC) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-b.done:
			return errors.New("exited")
		default:
		}
		log, _ := os.ReadFile(filepath.Join(b.Dir, "ipmi_sim.log"))
		if strings.Contains(string(log), "mc_enable 0x20") {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("not ready in time")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *BMC) lanConf(opts Options) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "name \"goironic%d\"\nset_working_mc 0x20\n", b.Port)
	sb.WriteString("  startlan 1\n")
	fmt.Fprintf(&sb, "    addr %s %d\n", b.Address, b.Port)
	sb.WriteString(`    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
`)
	if opts.QEMU {
		fmt.Fprintf(&sb, "  serial 15 127.0.0.1 %d codec VM\n", b.vmPort)
		fmt.Fprintf(&sb, "  startcmd \"%s -machine pc -accel tcg -m 64 -nodefaults -display none -no-reboot"+
			" -chardev socket,id=ipmi0,host=127.0.0.1,port=%d,reconnect=1"+
			" -device ipmi-bmc-extern,chardev=ipmi0,id=bmc0 -device isa-ipmi-bt,bmc=bmc0 -pidfile %s\"\n",
			QEMUBinary, b.vmPort, filepath.Join(b.Dir, "qemu.pid"))
		sb.WriteString("  startnow false\n  poweroff_wait 2\n  kill_wait 2\n")
	} else {
		fmt.Fprintf(&sb, "  chassis_control \"%s 0x20\"\n", filepath.Join(b.Dir, "chassis.sh"))
	}
	fmt.Fprintf(&sb, "  user 2 true %q %q admin 10 none md2 md5 straight\n", opts.User, opts.Password)
	return sb.String()
}

// chassisScript answers ipmi_sim's chassis control calls
// ("<dev> get power boot", "<dev> set power 1 ...") from and into the
// files power and boot of its directory, logging each call.
func chassisScript(softOffDelay time.Duration) string {
	return `#!/bin/sh
dir=$(dirname "$0")
echo "$*" >> "$dir/chassis.log"
shift
op=$1
shift
case $op in
get)
	for p in "$@"; do
		case $p in
		power) echo "power:$(cat "$dir/power")" ;;
		boot) echo "boot:$(cat "$dir/boot")" ;;
		*) echo "Invalid parameter: $p"; exit 1 ;;
		esac
	done ;;
set)
	while [ $# -gt 0 ]; do
		p=$1; v=$2; shift 2
		case $p in
		power) echo "$v" > "$dir/power" ;;
		boot) echo "$v" > "$dir/boot" ;;
		reset) ;;
		shutdown) (sleep ` + strconv.FormatFloat(softOffDelay.Seconds(), 'f', 3, 64) + `; echo 0 > "$dir/power") >/dev/null 2>&1 & ;;
		identify) shift ;;
		*) echo "Invalid parameter: $p"; exit 1 ;;
		esac
	done ;;
*) echo "Unknown operation: $op"; exit 1 ;;
esac
`
}

// emuCommands set up the BMC: the MC, its SEL, a temperature sensor
// (48 degrees C) and a fan sensor (2400 RPM) with their SDRs (as
// OpenIPMI's sdrcomp compiles them), scanning enabled, and the message
// log.
const emuCommands = `debug msg
mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02
sel_enable 0x20 50 0x0a
sensor_add 0x20 0 1 0x01 0x01
main_sdr_add 0x20 0x01 0x00 0x51 0x01 0x31 0x20 0x00 0x01 0x07 0x01 0x45 0x00 0x01 0x01 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x01 0x00 0x00 0x01 0x00 0x00 0x01 0x01 0x00 0x00 0x00 0x00 0x00 0xff 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xc6 0x4d 0x42 0x54 0x65 0x6d 0x70
sensor_set_value 0x20 0 1 0x30 0
sensor_set_threshold 0x20 0 1 settable 111000 0xa0 0x90 0x70 00 00 00
sensor_set_event_support 0x20 0 1 enable scanning per-state 000111111000000 000111111000000 000111111000000 000111111000000
sensor_add 0x20 0 2 0x04 0x01
main_sdr_add 0x20 0x02 0x00 0x51 0x01 0x2f 0x20 0x00 0x02 0x07 0x01 0x45 0x00 0x04 0x01 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x12 0x00 0x00 0x32 0x00 0x00 0x01 0x01 0x00 0x00 0x00 0x00 0x00 0xff 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xc4 0x46 0x61 0x6e 0x31
sensor_set_value 0x20 0 2 0x30 0
sensor_set_event_support 0x20 0 2 enable scanning per-state 000000000000000 000000000000000 000000000000000 000000000000000
mc_enable 0x20
`

// Stop ends the simulator (resuming it first if paused); stopping twice
// does nothing more.
func (b *BMC) Stop() {
	b.stopMu.Lock()
	defer b.stopMu.Unlock()
	select {
	case <-b.done:
		return
	default:
	}
	if b.paused {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGCONT)
		b.paused = false
	}
	_ = b.stdin.Close()
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.done
	}
	// Children (a startcmd VM) go with the group.
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
}

// Pause stops the simulator's process (SIGSTOP): the BMC stops
// answering, as a hung BMC does. Resume continues it.
func (b *BMC) Pause() {
	b.stopMu.Lock()
	defer b.stopMu.Unlock()
	_ = syscall.Kill(b.cmd.Process.Pid, syscall.SIGSTOP)
	b.paused = true
}

// Resume continues a paused simulator.
func (b *BMC) Resume() {
	b.stopMu.Lock()
	defer b.stopMu.Unlock()
	_ = syscall.Kill(b.cmd.Process.Pid, syscall.SIGCONT)
	b.paused = false
}

// PowerOn reports the host's power as the chassis-control script keeps
// it, or, for a QEMU host, whether its VM runs.
func (b *BMC) PowerOn() bool {
	if b.qemu {
		return b.VMPid() != 0
	}
	v, _ := os.ReadFile(filepath.Join(b.Dir, "power"))
	return strings.TrimSpace(string(v)) == "1"
}

// VMPid is the pid of a QEMU host's running VM, 0 when it runs none.
func (b *BMC) VMPid() int {
	v, err := os.ReadFile(filepath.Join(b.Dir, "qemu.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(v)))
	if err != nil || syscall.Kill(pid, 0) != nil {
		return 0
	}
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return 0
	}
	return pid
}

// SetPower changes the host's power behind the BMC's back (the host
// turned itself off, say).
func (b *BMC) SetPower(on bool) error {
	v := "0\n"
	if on {
		v = "1\n"
	}
	return os.WriteFile(filepath.Join(b.Dir, "power"), []byte(v), 0o644)
}

// BootDevice is the boot device the chassis-control script was last
// given: "default" (the disk, and the start), "pxe", "cdrom", "bios" or
// "none" (ipmi_sim's names of the selector's values).
func (b *BMC) BootDevice() string {
	v, _ := os.ReadFile(filepath.Join(b.Dir, "boot"))
	return strings.TrimSpace(string(v))
}

// Request is one IPMI request the BMC received and its answer.
type Request struct {
	NetFn, Cmd byte
	Data       []byte
	// Completion is the answer's completion code (0 is success).
	Completion byte
}

// String renders a request as "netfn 0x00 cmd 0x08 data 05 e0 04 00 00
// 00 -> 0x00".
func (r Request) String() string {
	data := make([]string, len(r.Data))
	for i, d := range r.Data {
		data[i] = fmt.Sprintf("%02x", d)
	}
	return fmt.Sprintf("netfn 0x%02x cmd 0x%02x data %s -> 0x%02x", r.NetFn, r.Cmd, strings.Join(data, " "), r.Completion)
}

// Requests returns the requests the BMC answered so far, in order,
// without the session set-up (application netfn 0x06 requests of
// sessions and channels are kept: Get Device ID, cold reset, ...).
func (b *BMC) Requests() ([]Request, error) {
	f, err := os.Open(filepath.Join(b.Dir, "ipmi_sim.log"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		// The console ends its lines with "\n\r".
		lines = append(lines, strings.Trim(sc.Text(), "\r"))
	}
	var out []Request
	for i := 0; i < len(lines); i++ {
		if !strings.HasSuffix(lines[i], "Receive message:") || i+3 >= len(lines) {
			continue
		}
		var r Request
		var channel int
		if _, err := fmt.Sscanf(strings.TrimSpace(lines[i+1]), "channel=%d netfn=0x%x cmd=0x%x", &channel, &r.NetFn, &r.Cmd); err != nil {
			continue
		}
		r.Data = hexBytes(lines[i+3])
		for j := i + 4; j < len(lines) && j < i+8; j++ {
			if strings.HasPrefix(lines[j], "Response message:") && j+1 < len(lines) {
				if resp := hexBytes(lines[j+1]); len(resp) > 0 {
					r.Completion = resp[0]
				}
				break
			}
		}
		if channel == 0 {
			continue // ipmi_sim's own start-up requests
		}
		out = append(out, r)
	}
	return out, nil
}

func hexBytes(line string) []byte {
	var out []byte
	for _, f := range strings.Fields(line) {
		v, err := strconv.ParseUint(f, 16, 8)
		if err != nil {
			return nil
		}
		out = append(out, byte(v))
	}
	return out
}

// BootFlags is the last boot flags parameter (Set System Boot Options,
// parameter 5) the BMC received.
type BootFlags struct {
	// Valid, Persistent and EFI are the flag bits of the first data
	// byte.
	Valid, Persistent, EFI bool
	// Selector is the device selector byte (0x04 PXE, 0x08 disk, 0x14
	// CD/DVD, 0x18 BIOS setup, 0x0c safe mode).
	Selector byte
}

// LastBootFlags returns the boot flags last set, false when none was.
func (b *BMC) LastBootFlags() (BootFlags, bool, error) {
	reqs, err := b.Requests()
	if err != nil {
		return BootFlags{}, false, err
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if r.NetFn == 0x00 && r.Cmd == 0x08 && len(r.Data) >= 3 && r.Data[0]&0x7f == 5 {
			f := r.Data[1]
			return BootFlags{Valid: f&0x80 != 0, Persistent: f&0x40 != 0, EFI: f&0x20 != 0, Selector: r.Data[2]}, true, nil
		}
	}
	return BootFlags{}, false, nil
}

// WaitPower waits (bounded by ctx) until the host's power is on.
func (b *BMC) WaitPower(ctx context.Context, on bool) error {
	for b.PowerOn() != on {
		select {
		case <-ctx.Done():
			return fmt.Errorf("power of %s:%d is not %v: %w", b.Address, b.Port, on, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
