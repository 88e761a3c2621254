package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// CommandTimeout bounds one command run to completion (ironic-dbsync).
const CommandTimeout = 2 * time.Minute

// Deployment is the services of one test that share a directory and an
// ironic.conf: ironic-api and conductors on one database and broker,
// ours and Python's mixed, or one implementation's all-in-one after the
// other's on the same database.
type Deployment struct {
	T   testing.TB
	Ctx context.Context
	// Dir holds every service's ironic.conf and log.
	Dir string
	// Config is what every service's ironic.conf starts from.
	Config INI
	// StartTimeout and StopGrace are the services' (see Spec).
	StartTimeout, StopGrace time.Duration
}

// NewDeployment returns an empty deployment with base as its
// configuration and a new directory of t's.
func NewDeployment(ctx context.Context, t testing.TB, base INI) *Deployment {
	return &Deployment{T: t, Ctx: ctx, Dir: t.TempDir(), Config: base}
}

// WriteConfig writes the deployment's configuration with over on top as
// <Dir>/<name>.conf and returns its path.
func (d *Deployment) WriteConfig(name string, over ...INI) string {
	d.T.Helper()
	path := filepath.Join(d.Dir, name+".conf")
	if err := os.WriteFile(path, []byte(d.Config.Merged(over...).String()), 0o644); err != nil {
		d.T.Fatal(err)
	}
	return path
}

// Start starts prog as host ([DEFAULT]host; it also names the service's
// files) with the deployment's configuration and over on top. A program
// that serves the API gets a free [api]port and is waited for; a
// conductor is not (see Service.WaitLog and Deployment.WaitConductor).
func (d *Deployment) Start(prog Program, host string, over ...INI) *Service {
	d.T.Helper()
	return d.StartOn(prog, host, 0, over...)
}

// StartOn is Start with the API on port (zero takes a free one): a test
// restarts a killed API where its clients expect it.
func (d *Deployment) StartOn(prog Program, host string, port int, over ...INI) *Service {
	d.T.Helper()
	return Start(d.Ctx, d.T, Spec{
		Program: prog, Name: host, Dir: d.Dir, Port: port, StartTimeout: d.StartTimeout, StopGrace: d.StopGrace,
		Config: func(port int) string {
			own := INI{"DEFAULT": {"host": host}}
			if port != 0 {
				own["api"] = map[string]string{"port": strconv.Itoa(port)}
			}
			return d.Config.Merged(append(over, own)...).String()
		},
	})
}

// WaitLog waits until s has logged text at least n times, failing the test
// if s exits first.
func (d *Deployment) WaitLog(s *Service, text string, n int, timeout time.Duration) {
	d.T.Helper()
	Eventually(d.Ctx, d.T, timeout, fmt.Sprintf("%s logs %q %d times", s, text, n), func() (bool, string) {
		s.RequireRunning(d.T)
		got := s.LogCount(text)
		return got >= n, fmt.Sprintf("%d times", got)
	})
}

// Result is the outcome of a command run to completion.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs prog with args to completion (at most CommandTimeout) in its
// own process group, all of which is killed at the timeout. A non-zero
// exit is a Result; a command that cannot run or does not end ends t.
func Run(ctx context.Context, t testing.TB, prog Program, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	bin, argv := prog.command(t, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.Code = exit.ExitCode()
	default:
		t.Fatalf("%s %s: %v\nstderr: %s", prog, strings.Join(args, " "), err, Tail(stderr.Bytes(), 3000))
	}
	return r
}

// DBSync runs prog (ours or Python's ironic-dbsync) with the deployment's
// configuration and command, and fails the test unless it succeeds.
func (d *Deployment) DBSync(prog Program, command string) {
	d.T.Helper()
	if r := Run(d.Ctx, d.T, prog, "--config-file", d.WriteConfig("dbsync"), command); r.Code != 0 {
		d.T.Fatalf("%s %s: exit %d\nstdout: %s\nstderr: %s", prog, command, r.Code, r.Stdout, Tail([]byte(r.Stderr), 3000))
	}
}
