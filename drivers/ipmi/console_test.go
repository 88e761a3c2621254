package ipmi_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers/ipmi"
	"github.com/goironic/ironic/test/ipmisim"
)

// consolePorts is part of this package's test port range.
const consolePorts = "6510:6519"

func requireSocat(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/socat"); err != nil {
		t.Skip("socat is not installed (apt-get install socat)")
	}
}

// TestSocatConsole starts, reaches and stops an ipmitool-socat console
// against ipmi_sim: socat listens on a port of [console]port_range,
// runs "ipmitool ... sol activate" for a client (ipmi_sim has no SOL
// configured: the client reads ipmitool's error), and is gone after
// stop with its pid and password files and the port.
func TestSocatConsole(t *testing.T) {
	requireSocat(t)
	pidDir := filepath.Join(t.TempDir(), "pids")
	s := simSetup(t, func(c *ipmi.Config) {
		c.PortRange = consolePorts
		c.TerminalPIDDir = pidDir
		c.SocatAddress = "127.0.0.1"
	})
	bmc := ipmisim.Start(t, ipmisim.Options{})
	ctx := context.Background()
	tk := simTask(s, simNode(bmc))
	if err := s.socat.Validate(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if err := s.socat.StartConsole(ctx, tk); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = s.socat.StopConsole(ctx, tk)
		}
	}()
	port, ok := tk.DriverInternalInfo().Get("allocated_ipmi_terminal_port").(int)
	if !ok || port < 6510 || port >= 6519 {
		t.Fatalf("allocated port %v", tk.DriverInternalInfo().Get("allocated_ipmi_terminal_port"))
	}
	info, err := s.socat.GetConsole(ctx, tk)
	if err != nil || info["type"] != "socat" || info["url"] != "tcp://127.0.0.1:"+strconv.Itoa(port) {
		t.Errorf("GetConsole: %v %v", info, err)
	}
	pidFile := filepath.Join(pidDir, tk.NodeUUID()+".pid")
	pidText, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	pwFile := filepath.Join(s.cfg.TempDir, tk.NodeUUID()+".pw")
	if st, err := os.Stat(pwFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("password file: %v %v", st, err)
	}
	if pw, _ := os.ReadFile(pwFile); string(pw) != bmc.Password {
		t.Errorf("password file holds %q", pw)
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); len(args) != 5 || args[0] != "socat" || args[1] != "-T600" ||
		args[2] != "-L"+pidFile || args[3] != "TCP4-LISTEN:"+strconv.Itoa(port)+",bind=127.0.0.1,reuseaddr,fork,max-children=1" ||
		!strings.HasPrefix(args[4], `EXEC:"ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -p `) || !strings.HasSuffix(args[4], ` sol activate",pty,stderr`) ||
		!strings.Contains(args[4], "-f "+pwFile) {
		t.Errorf("socat runs %q", args)
	}

	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	out, _ := io.ReadAll(conn)
	conn.Close()
	// The client reaches the BMC: ipmitool asks it to activate the SOL
	// payload (App netfn 0x06, command 0x48), which ipmi_sim without a
	// SOL device refuses. (Whether the client reads ipmitool's error
	// before socat closes depends on how fast the child exits.)
	activated := false
	for deadline := time.Now().Add(10 * time.Second); !activated && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		reqs, _ := bmc.Requests()
		for _, r := range reqs {
			if r.NetFn == 0x06 && r.Cmd == 0x48 {
				activated = true
			}
		}
	}
	if !activated {
		t.Errorf("no SOL activation reached the BMC; the console client read %q", out)
	}

	if err := s.socat.StopConsole(ctx, tk); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := syscall.Kill(pid, 0); err == nil {
		// Our reaper may need a moment.
		time.Sleep(200 * time.Millisecond)
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("socat (%d) still runs", pid)
		}
	}
	for _, f := range []string{pidFile, pwFile} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, ok := tk.DriverInternalInfo().Lookup("allocated_ipmi_terminal_port"); ok {
		t.Errorf("the port is still allocated: %v", tk.DriverInternalInfo())
	}
	// Stopping a stopped console only warns.
	if err := s.socat.StopConsole(ctx, tk); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

// TestShellinaboxConsole runs the ipmitool-shellinabox console with a
// stand-in terminal daemon (shellinaboxd is not installed here): the
// command line is Ironic's and the daemon's pid is tracked; a missing
// daemon is ConsoleSubprocessFailed.
func TestShellinaboxConsole(t *testing.T) {
	dir := t.TempDir()
	terminal := filepath.Join(dir, "fake-shellinaboxd")
	argsFile := filepath.Join(dir, "args")
	script := `#!/bin/sh
printf '%s\n' "$@" > ` + argsFile + `
for a in "$@"; do case $a in --background=*) pidfile=${a#--background=} ;; esac; done
sleep 300 >/dev/null 2>&1 &
echo $! > "$pidfile"
`
	if err := os.WriteFile(terminal, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSetup(t, func(c *ipmi.Config) {
		c.Terminal = terminal
		c.TerminalPIDDir = dir
		c.Sleeper = ipmi.RealSleeper{}
		c.SubprocessCheckingInterval = 100 * time.Millisecond
	})
	ctx := context.Background()
	tk := s.task(node("ipmi_terminal_port", 6519))
	if err := s.shell.StartConsole(ctx, tk); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(argsFile)
	want := "-t\n-p\n6519\n--background=" + filepath.Join(dir, tk.NodeUUID()+".pid") + "\n-s\n/:" + strconv.Itoa(os.Getuid()) + ":" + strconv.Itoa(os.Getgid()) +
		":HOME:ipmitool -I lanplus -H 10.1.2.3 -L ADMINISTRATOR -p 6230 -U admin -f " + filepath.Join(s.cfg.TempDir, tk.NodeUUID()+".pw") + " sol activate\n"
	if string(args) != want {
		t.Errorf("shellinaboxd args:\n%s\nwant:\n%s", args, want)
	}
	// "sol deactivate" ran first, exit status 1 accepted.
	if got := s.runner.commands(); len(got) != 1 || !strings.HasSuffix(got[0], " sol deactivate") || s.runner.calls[0].Codes[1] != 1 {
		t.Errorf("commands %q", got)
	}
	info, err := s.shell.GetConsole(ctx, tk)
	if err != nil || info["type"] != "shellinabox" || info["url"] != "http://127.0.0.1:6519" {
		t.Errorf("GetConsole: %v %v", info, err)
	}
	pidText, _ := os.ReadFile(filepath.Join(dir, tk.NodeUUID()+".pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err := s.shell.StopConsole(ctx, tk); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		// It is our grandchild's orphan: init reaps it.
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z") {
			t.Errorf("the terminal daemon (%d) still runs", pid)
		}
	}

	missing := newSetup(t, func(c *ipmi.Config) { c.Terminal = filepath.Join(dir, "no-such-daemon"); c.TerminalPIDDir = dir })
	err = missing.shell.StartConsole(ctx, missing.task(node("ipmi_terminal_port", 6519)))
	if !ironic.IsClass(err, ironic.ConsoleSubprocessFailed) || !strings.HasPrefix(err.Error(), "Console subprocess failed to start. ") ||
		!strings.Contains(err.Error(), "\nCommand: "+filepath.Join(dir, "no-such-daemon")+" -t -p 6519 ") {
		t.Errorf("missing daemon: %v", err)
	}
	if _, err := os.Stat(filepath.Join(missing.cfg.TempDir, tk.NodeUUID()+".pw")); !os.IsNotExist(err) {
		t.Errorf("the password file is left after a failed start: %v", err)
	}
}

// TestConsolePortRange: ports come from [console]port_range in order,
// skip the ones in use, and run out with Ironic's error.
func TestConsolePortRange(t *testing.T) {
	requireSocat(t)
	busy, err := net.Listen("tcp", "127.0.0.1:6516")
	if err != nil {
		t.Skipf("port 6516 is taken: %v", err)
	}
	defer busy.Close()
	s := newSetup(t, func(c *ipmi.Config) {
		c.PortRange = "6516:6518"
		c.SocatAddress = "127.0.0.1"
		c.TerminalPIDDir = t.TempDir()
		c.Sleeper = ipmi.RealSleeper{}
		c.SubprocessCheckingInterval = 100 * time.Millisecond
	})
	ctx := context.Background()
	a := s.task(node())
	if err := s.socat.StartConsole(ctx, a); err != nil {
		t.Fatal(err)
	}
	defer s.socat.StopConsole(ctx, a) //nolint:errcheck // clean-up
	if got := a.DriverInternalInfo().Get("allocated_ipmi_terminal_port"); got != 6517 {
		t.Errorf("first console on %v, want 6517 (6516 is busy)", got)
	}
	b := s.task(node())
	b.Node.UUID = "2be26c0b-03f2-4d2e-ae87-c02d7f33c123"
	err = s.socat.StartConsole(ctx, b)
	if !ironic.IsClass(err, ironic.NoFreeIPMITerminalPorts) || err.Error() != "Unable to allocate a free port on host localhost for IPMI terminal, not enough free ports." {
		t.Errorf("second console: %v", err)
	}
	bad := newSetup(t, func(c *ipmi.Config) { c.PortRange = "7000:7000" })
	if err := bad.socat.StartConsole(ctx, bad.task(node())); !ironic.IsClass(err, ironic.InvalidParameterValue) ||
		err.Error() != "[console]port_range should be in the format <start>:<stop> and start < stop" {
		t.Errorf("empty range: %v", err)
	}
}
