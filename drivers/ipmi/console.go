package ipmi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// consoleKind is how a console is served.
type consoleKind int

const (
	// socat serves "ipmitool sol activate" on a TCP port.
	socat consoleKind = iota
	// shellinabox serves it as a web terminal (shellinaboxd).
	shellinabox
)

// Console is an ipmitool serial-over-LAN console: "ipmitool-socat"
// (IPMISocatConsole) or "ipmitool-shellinabox" (IPMIShellinaboxConsole).
// The console process (socat, shellinaboxd) runs "ipmitool ... sol
// activate" for each client; its pid is kept in
// [console]terminal_pid_dir/<node>.pid and the node's IPMI password in
// [DEFAULT]tempdir/<node>.pw while it runs.
type Console struct {
	t     *tool
	ports *portPool
	kind  consoleKind
}

// GetProperties returns the IPMI driver_info keys and ipmi_terminal_port.
func (*Console) GetProperties() drivers.Properties { return consoleProperties() }

// Validate checks the IPMI driver_info, a terminal port (or a configured
// port range) and IPMI 2.0.
func (c *Console) Validate(ctx context.Context, task drivers.Task) error {
	info, err := c.t.parse(ctx, task)
	if err != nil {
		return err
	}
	if (info.TerminalPort == nil || *info.TerminalPort == 0) && c.t.cfg.PortRange == "" {
		return drivers.MissingParameter("Either missing 'ipmi_terminal_port' parameter in node's driver_info or [console]port_range is not configured")
	}
	if info.ProtocolVersion != "2.0" {
		return drivers.InvalidParameter("Serial over lan only works with IPMI protocol version 2.0. Check the 'ipmi_protocol_version' parameter in node's driver_info")
	}
	return nil
}

// StartConsole is start_console: a port allocated before is released, a
// new one taken from [console]port_range when the node has no
// ipmi_terminal_port, any SOL session the BMC holds is deactivated, then
// the console process is started (stopping an old one of the node) and
// watched until it runs.
func (c *Console) StartConsole(ctx context.Context, task drivers.Task) error {
	if err := c.releasePort(ctx, task); err != nil {
		return err
	}
	info, err := c.t.parse(ctx, task)
	if err != nil {
		return err
	}
	if info.TerminalPort == nil || *info.TerminalPort == 0 {
		host := ""
		if c.kind == socat {
			host = c.t.cfg.SocatAddress
		}
		port, err := c.ports.acquire(c.t.cfg.PortRange, host, c.t.cfg.Host)
		if err != nil {
			return err
		}
		task.DriverInternalInfo().Set("allocated_ipmi_terminal_port", port)
		if err := task.Save(ctx); err != nil {
			return err
		}
		p := int64(port)
		info.TerminalPort = &p
	}
	if err := c.solDeactivate(ctx, info); err != nil && !cannotRun(ctx, err) {
		return err
	}
	pwFile := filepath.Join(c.t.cfg.TempDir, task.NodeUUID()+".pw")
	if err := writePersistentPasswordFile(pwFile, info.Password); err != nil {
		return ironic.Errorf(ironic.PasswordFileFailedToCreate, "Failed to create the password file. %s", err)
	}
	cmd := strings.Join(c.t.args(info, pwFile), " ")
	if c.kind == shellinabox {
		cmd = fmt.Sprintf("/:%d:%d:HOME:%s", os.Getuid(), os.Getgid(), cmd)
	}
	cmd += " sol activate"
	if err := c.start(ctx, task.NodeUUID(), *info.TerminalPort, cmd); err != nil {
		if ironic.IsClass(err, ironic.ConsoleError) || ironic.IsClass(err, ironic.ConsoleSubprocessFailed) {
			_ = os.Remove(pwFile)
		}
		return err
	}
	return nil
}

// StopConsole is stop_console: the console process is stopped, the
// password file removed, the BMC's SOL session deactivated (socat) and
// the allocated port released.
func (c *Console) StopConsole(ctx context.Context, task drivers.Task) error {
	var info *Info
	if c.kind == socat {
		var err error
		if info, err = c.t.parse(ctx, task); err != nil {
			return err
		}
	}
	err := c.stopProcess(ctx, task.NodeUUID())
	if ironic.IsClass(err, ironic.NoConsolePid) {
		c.t.cfg.Log.WarnContext(ctx, fmt.Sprintf("No console pid found for node %s while trying to stop %s console.", task.NodeUUID(), c.name()), "node", task.NodeUUID())
		err = nil
	}
	_ = os.Remove(filepath.Join(c.t.cfg.TempDir, task.NodeUUID()+".pw"))
	if err != nil {
		return err
	}
	if c.kind == socat {
		if err := c.solDeactivate(ctx, info); err != nil {
			return err
		}
	}
	return c.releasePort(ctx, task)
}

func (c *Console) name() string {
	if c.kind == socat {
		return "socat"
	}
	return "shellinabox"
}

// GetConsole returns {"type": "socat", "url": "tcp://<socat_address>:<port>"}
// or {"type": "shellinabox", "url": "http(s)://<my_ip>:<port>"}.
func (c *Console) GetConsole(ctx context.Context, task drivers.Task) (map[string]any, error) {
	info, err := c.t.parse(ctx, task)
	if err != nil {
		return nil, err
	}
	port := "None"
	if info.TerminalPort != nil {
		port = strconv.FormatInt(*info.TerminalPort, 10)
	}
	if c.kind == socat {
		return map[string]any{"type": "socat", "url": "tcp://" + wrapIPv6(c.t.cfg.SocatAddress) + ":" + port}, nil
	}
	scheme := "http"
	if c.t.cfg.TerminalCertDir != "" {
		scheme = "https"
	}
	return map[string]any{"type": "shellinabox", "url": scheme + "://" + wrapIPv6(c.t.cfg.MyIP) + ":" + port}, nil
}

// solDeactivate is _exec_stop_console: "sol deactivate", exit status 1
// (no session) accepted.
func (c *Console) solDeactivate(ctx context.Context, info *Info) error {
	_, _, err := c.t.exec(ctx, info, "sol deactivate", execOptions{exitCodes: []int{0, 1}})
	return err
}

// cannotRun reports whether err says ipmitool could not be started at
// all (Python's OSError, which start_console ignores).
func cannotRun(ctx context.Context, err error) bool {
	var ee *ExecError
	var te *TimeoutError
	var f *ironic.Fault
	return ctx.Err() == nil && !errors.As(err, &ee) && !errors.As(err, &te) && !errors.As(err, &f)
}

// releasePort is _release_allocated_port.
func (c *Console) releasePort(ctx context.Context, task drivers.Task) error {
	dii := task.DriverInternalInfo()
	v, ok := dii.Lookup("allocated_ipmi_terminal_port")
	if !ok {
		return nil
	}
	dii.Delete("allocated_ipmi_terminal_port")
	if !py.Truthy(v) {
		return nil
	}
	if err := task.Save(ctx); err != nil {
		return err
	}
	if n, ok := py.Int(v); ok {
		c.ports.release(int(n))
	}
	return nil
}

// pidDir is [console]terminal_pid_dir, or [DEFAULT]tempdir.
func (c *Console) pidDir() string {
	if c.t.cfg.TerminalPIDDir != "" {
		return c.t.cfg.TerminalPIDDir
	}
	return c.t.cfg.TempDir
}

func (c *Console) pidFile(node string) string { return filepath.Join(c.pidDir(), node+".pid") }

// readPid is _get_console_pid.
func (c *Console) readPid(node string) (int, error) {
	path := c.pidFile(node)
	b, err := os.ReadFile(path)
	if err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		if pid, perr := strconv.Atoi(strings.TrimSpace(line)); perr == nil {
			return pid, nil
		}
	}
	return 0, ironic.Errorf(ironic.NoConsolePid, "Could not find pid in pid file %s", path)
}

// stopProcess is console_utils._stop_console: SIGTERM to the pid of the
// node's pid file, SIGKILL if it still lives after [console]kill_timeout,
// and the pid file removed.
func (c *Console) stopProcess(ctx context.Context, node string) error {
	defer os.Remove(c.pidFile(node))
	pid, err := c.readPid(node)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			c.t.cfg.Log.WarnContext(ctx, fmt.Sprintf("Console process for node %s is not running but pid file exists.", node), "node", node)
			return nil
		}
		return ironic.Errorf(ironic.ConsoleError, "Could not stop the console for node '%s'. Reason: %s.", node, err)
	}
	attempts := int(c.t.cfg.KillTimeout / (200 * time.Millisecond))
	for attempt := 0; attempt < attempts && running(pid); attempt++ {
		if attempt == attempts-1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		c.t.cfg.Log.DebugContext(ctx, fmt.Sprintf("Waiting for the console process with PID %d to exit. Node: %s.", pid, node), "node", node)
		if err := c.t.cfg.Sleeper.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// running reports whether pid names a live process (a zombie is not).
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesized command name.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// start is start_socat_console or start_shellinabox_console.
func (c *Console) start(ctx context.Context, node string, port int64, consoleCmd string) error {
	if err := c.stopProcess(ctx, node); err != nil && !ironic.IsClass(err, ironic.NoConsolePid) {
		return err
	}
	dir := c.pidDir()
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			msg := fmt.Sprintf("Cannot create directory '%s' for console PID file. Reason: %s.", dir, err)
			c.t.cfg.Log.ErrorContext(ctx, msg, "node", node)
			return ironic.Errorf(ironic.ConsoleError, "%s", msg)
		}
	}
	pidFile := c.pidFile(node)
	var args []string
	if c.kind == socat {
		args = []string{"socat"}
		if secs := seconds(c.t.cfg.TerminalTimeout); secs > 0 {
			args = append(args, fmt.Sprintf("-T%d", secs))
		}
		args = append(args, "-L"+pidFile)
		host := c.t.cfg.SocatAddress
		if a, err := netip.ParseAddr(host); err == nil && a.Is6() && !a.Is4In6() {
			args = append(args, fmt.Sprintf("TCP6-LISTEN:%d,bind=[%s],reuseaddr,fork,max-children=1", port, host))
		} else {
			args = append(args, fmt.Sprintf("TCP4-LISTEN:%d,bind=%s,reuseaddr,fork,max-children=1", port, host))
		}
		// Ironic quotes the whole command (shlex.quote), which socat
		// 1.7 takes for one word: it tries to run a program called
		// "ipmitool -I ... sol activate" and every client gets nothing.
		// Each word is quoted instead.
		words := strings.Split(consoleCmd, " ")
		for i, w := range words {
			words[i] = shellQuote(w)
		}
		args = append(args, fmt.Sprintf("EXEC:\"%s\",pty,stderr", strings.Join(words, " ")))
	} else {
		args = []string{c.t.cfg.Terminal}
		if c.t.cfg.TerminalCertDir != "" {
			args = append(args, "-c", c.t.cfg.TerminalCertDir)
		} else {
			args = append(args, "-t")
		}
		args = append(args, "-p", strconv.FormatInt(port, 10), "--background="+pidFile, "-s", consoleCmd)
	}
	command := strings.Join(args, " ")
	c.t.cfg.Log.DebugContext(ctx, "Running subprocess: "+command, "node", node)
	proc, err := startProcess(args, c.kind == shellinabox)
	if err != nil {
		msg := fmt.Sprintf("%s\nCommand: %s", err, command)
		c.t.cfg.Log.WarnContext(ctx, msg, "node", node)
		return ironic.Errorf(ironic.ConsoleSubprocessFailed, "Console subprocess failed to start. %s", msg)
	}
	expiration := c.t.cfg.Clock.Now().Add(c.t.cfg.SubprocessTimeout)
	for {
		exited, code := proc.exited()
		switch {
		case c.kind == socat && !exited && c.processUp(node):
			return nil
		case c.kind == shellinabox && exited && code == 0 && c.processUp(node):
			return nil
		case exited && c.kind == socat:
			msg := fmt.Sprintf("Command: %s.\nExit code: %d.\nStderr: %s", command, code, py.BytesRepr(proc.stderr()))
			c.t.cfg.Log.ErrorContext(ctx, msg, "node", node)
			return ironic.Errorf(ironic.ConsoleSubprocessFailed, "Console subprocess failed to start. %s", msg)
		case exited:
			msg := fmt.Sprintf("Timeout or error while waiting for console subprocess to start for node: %s.\nCommand: %s.\nExit code: %d.\nStdout: %s\nStderr: %s",
				node, command, code, py.BytesRepr(proc.stdout()), py.BytesRepr(proc.stderr()))
			c.t.cfg.Log.WarnContext(ctx, msg, "node", node)
			return ironic.Errorf(ironic.ConsoleSubprocessFailed, "Console subprocess failed to start. %s", msg)
		case c.t.cfg.Clock.Now().After(expiration):
			msg := fmt.Sprintf("Timeout while waiting for console subprocess to start for node %s.", node)
			if c.kind == shellinabox {
				msg = fmt.Sprintf("Timeout or error while waiting for console subprocess to start for node: %s.\nCommand: %s.\n", node, command)
			}
			c.t.cfg.Log.ErrorContext(ctx, msg, "node", node)
			return ironic.Errorf(ironic.ConsoleSubprocessFailed, "Console subprocess failed to start. %s", msg)
		}
		if err := c.t.cfg.Sleeper.Sleep(ctx, c.t.cfg.SubprocessCheckingInterval); err != nil {
			return err
		}
	}
}

// processUp reports whether the node's pid file names a live process.
func (c *Console) processUp(node string) bool {
	pid, err := c.readPid(node)
	return err == nil && running(pid)
}

// consoleProcess is a started console process, reaped when it ends.
type consoleProcess struct {
	done           chan struct{}
	code           int
	out, errOutput *lockedBuffer
}

// startProcess starts args in this process's group (so that it ends
// with the conductor's group, as Ironic's Popen children do), capturing
// its standard error (and output, for daemons that report there).
func startProcess(args []string, captureStdout bool) (*consoleProcess, error) {
	cmd := exec.Command(args[0], args[1:]...) //nolint:gosec // Ironic's console command lines
	p := &consoleProcess{done: make(chan struct{}), out: &lockedBuffer{}, errOutput: &lockedBuffer{}}
	cmd.Stderr = p.errOutput
	if captureStdout {
		cmd.Stdout = p.out
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		p.code = 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			p.code = exit.ExitCode()
		}
		close(p.done)
	}()
	return p, nil
}

func (p *consoleProcess) exited() (bool, int) {
	select {
	case <-p.done:
		return true, p.code
	default:
		return false, 0
	}
}

func (p *consoleProcess) stdout() []byte { return p.out.bytes() }
func (p *consoleProcess) stderr() []byte { return p.errOutput.bytes() }

// lockedBuffer is a buffer a process writes while the caller reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// shellQuote is Python's shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// wrapIPv6 is Ironic's utils.wrap_ipv6.
func wrapIPv6(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil && a.Is6() {
		return "[" + ip + "]"
	}
	return ip
}

// writePersistentPasswordFile is make_persistent_password_file: path
// replaced by a 0600 file holding password (a NUL byte when empty).
func writePersistentPasswordFile(path, password string) error {
	if password == "" {
		password = "\x00"
	}
	_ = os.Remove(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(password)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}

// portPool is console_utils' ALLOCATED_PORTS: the console ports this
// conductor handed out.
type portPool struct {
	mu        sync.Mutex
	allocated map[int]bool
}

func newPortPool() *portPool { return &portPool{allocated: map[int]bool{}} }

// acquire is acquire_port: the first port of [console]port_range neither
// handed out nor bound on host ([DEFAULT]host when empty).
func (p *portPool) acquire(portRange, host, defaultHost string) (int, error) {
	from, to, ok := strings.Cut(portRange, ":")
	start, err1 := strconv.Atoi(from)
	stop, err2 := strconv.Atoi(to)
	if !ok || err1 != nil || err2 != nil || start >= stop {
		return 0, drivers.InvalidParameter("[console]port_range should be in the format <start>:<stop> and start < stop")
	}
	if host == "" {
		host = defaultHost
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for port := start; port < stop; port++ {
		if p.allocated[port] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		_ = l.Close()
		p.allocated[port] = true
		return port, nil
	}
	return 0, ironic.Errorf(ironic.NoFreeIPMITerminalPorts, "Unable to allocate a free port on host %s for IPMI terminal, not enough free ports.", defaultHost)
}

func (p *portPool) release(port int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.allocated, port)
}
