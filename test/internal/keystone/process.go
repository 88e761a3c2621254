package keystone

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// stopGrace is how long a process group gets between SIGTERM and SIGKILL.
const stopGrace = 10 * time.Second

// process is a child started in its own session (setsid), so that its pid
// is also the id of its process group and stop reaches every descendant.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child is reaped
	err  error         // Wait's result; read after done
}

// spawn starts bin with args in k.dir, output appended to keystone.log
// (and k.log), with a minimal environment.
func (k *Keystone) spawn(bin string, args []string, env ...string) (*process, error) {
	logf, err := os.OpenFile(k.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	var out io.Writer = logf
	if k.log != nil {
		out = io.MultiWriter(logf, k.log)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = k.dir
	cmd.Env = append([]string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + k.dir,
		"LANG=C.UTF-8",
	}, env...)
	cmd.Stdout, cmd.Stderr = out, out
	// Own session and process group. Pdeathsig kills the child if the test
	// binary dies without stopping it (uwsgi's --no-orphans takes the worker
	// along). Strictly it fires when the forking OS thread exits, which Go
	// only does when a goroutine locked to its thread exits: do not Start
	// from such a goroutine.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	// Bounds Wait's copying to k.log should a stray descendant keep the pipe.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// stop sends SIGTERM to the process group, SIGKILL after grace, waits for
// the child and then for the rest of the group to be gone.
func (p *process) stop(grace time.Duration) {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	// Workers may outlive the master for a moment. The group id cannot be
	// reused while any member lives, so signalling it stays safe.
	for i := 0; i < 50 && syscall.Kill(-pgid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exited reports whether the child has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// startServer starts uwsgi serving keystone-wsgi-public: one process with
// one thread (SQLite and the in-process cache want exactly that).
func (k *Keystone) startServer() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc != nil && !k.proc.exited() {
		return nil
	}
	if err := portFree(k.port); err != nil {
		return err
	}
	args := []string{
		"--plugin", "python3",
		"--http-socket", "127.0.0.1:" + strconv.Itoa(k.port),
		"--wsgi-file", keystoneWSGI,
		"--master", "--processes", "1", "--threads", "1", "--lazy-apps",
		"--die-on-term", // SIGTERM stops rather than reloads
		"--no-orphans",  // the worker dies with the master
		"--need-app",
		"--buffer-size", "65535",
		"--skip-atexit-teardown",
		"--add-header", "Connection: close",
		"--env", "OS_KEYSTONE_CONFIG_DIR=" + k.dir,
		"--env", "OS_KEYSTONE_CONFIG_FILES=" + confName,
	}
	p, err := k.spawn(uwsgiBin, args)
	if err != nil {
		return err
	}
	k.proc = p
	return nil
}

// waitReady polls GET /v3 until it answers 200, the server exits or ctx
// ends.
func (k *Keystone) waitReady(ctx context.Context) (err error) {
	defer wrap(&err, "wait for %s", k.AuthURL())
	k.mu.Lock()
	p := k.proc
	k.mu.Unlock()
	if p == nil {
		return errors.New("not started")
	}
	probe := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	for {
		if k.answers(ctx, probe) {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("uwsgi exited (%w); log:\n%s", p.err, k.logTail())
		case <-ctx.Done():
			return fmt.Errorf("%w; log:\n%s", ctx.Err(), k.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// answers reports whether GET /v3 returns 200.
func (k *Keystone) answers(ctx context.Context, c *http.Client) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.AuthURL(), nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop stops Keystone: SIGTERM to its process group, SIGKILL after a
// grace period, and waits until the group is gone. Stopping a stopped
// Keystone does nothing.
func (k *Keystone) Stop() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc == nil {
		return nil
	}
	k.proc.stop(stopGrace)
	k.proc = nil
	return nil
}

// Restart stops Keystone if it runs, starts it again on the same port and
// state and waits until it answers. Keys are kept, so tokens issued before
// stay valid.
func (k *Keystone) Restart(ctx context.Context) (err error) {
	defer wrap(&err, "keystone: restart")
	if err := k.Stop(); err != nil {
		return err
	}
	if err := k.startServer(); err != nil {
		return err
	}
	if err := k.waitReady(ctx); err != nil {
		_ = k.Stop()
		return err
	}
	return nil
}

// Running reports whether the uwsgi process is alive (it may not answer
// yet).
func (k *Keystone) Running() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.proc != nil && !k.proc.exited()
}

// logTail is the end of keystone.log, for error messages.
func (k *Keystone) logTail() string {
	b, err := os.ReadFile(k.LogPath())
	if err != nil {
		return "(" + err.Error() + ")"
	}
	const n = 3000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// portFree fails when something already listens on 127.0.0.1:port.
func portFree(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("port %d is in use: %w", port, err)
	}
	return l.Close()
}
