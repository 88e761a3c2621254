package cluster

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/goironic/ironic/internal/freeport"
)

// Process is a program started by StartProcess: the leader of its own
// process group (Python's oslo.service launchers fork workers), its
// standard output and error appended to a log file. It gets SIGKILL if
// the test process dies, so that no server outlives the test.
type Process struct {
	// Log is the file the output goes to.
	Log  string
	pid  int
	done chan struct{} // closed once the process is reaped
	err  error         // Wait's result; read after done
}

// StartProcess runs bin with args, its output appended to logPath.
func StartProcess(bin string, args []string, logPath string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p := &Process{Log: logPath, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started the child ends:
		// keep this goroutine on its thread, blocked in Wait, for the
		// child's whole life. Unlock it afterwards: a goroutine that ends
		// locked ends its thread too, and that thread may have started
		// another test helper's child with Pdeathsig (Keystone's uwsgi),
		// which would die with it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer logFile.Close()
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends SIGTERM to the process group, SIGKILL after grace, and kills
// whatever is left of the group once the leader has exited. It returns
// the exit error of a process that had already ended, nil otherwise.
// Stopping a stopped process does nothing more.
func (p *Process) Stop(grace time.Duration) error {
	done, err := p.Exited()
	if !done {
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
			<-p.done
		}
	}
	// The group id cannot be reused while any member lives, so
	// signalling it stays safe.
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	return err
}

// Kill ends the process group with SIGKILL, as a crash or `kill -9`
// would, and waits until the leader has gone. A process that has already
// ended is left alone.
func (p *Process) Kill() error {
	if done, _ := p.Exited(); done {
		return nil
	}
	if err := syscall.Kill(-p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	<-p.done
	return nil
}

// LogTail returns the last n bytes of the log (all of it when n is
// negative).
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.Log)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return Tail(b, n)
}

// LogCount counts the occurrences of s in the log.
func (p *Process) LogCount(s string) int {
	b, _ := os.ReadFile(p.Log)
	return bytes.Count(b, []byte(s))
}

// Tail returns the last n bytes of b (all of it when n is negative).
func Tail(b []byte, n int) string {
	if n >= 0 && len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// FreePort returns a free TCP port on 127.0.0.1, outside the kernel's
// ephemeral range (package freeport says why).
func FreePort() (int, error) { return freeport.TCP() }

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
