package ipmi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/goironic/ironic/drivers/internal/py"
)

// Runner runs a command to its end: Ironic's utils.execute. The ipmitool
// interfaces run every ipmitool (and the console's sol deactivate)
// through it, so tests can record and answer the command lines.
type Runner interface {
	// Run runs argv[0] (looked up in PATH) with argv[1:] and returns its
	// standard output and error. An exit status not in opts.ExitCodes
	// (only 0 when empty) is an *ExecError; a command still running after
	// opts.Timeout (when positive), or when ctx ends, is killed and
	// reported as a *TimeoutError or ctx's error; a command that cannot
	// start is any other error.
	Run(ctx context.Context, argv []string, opts RunOptions) (stdout, stderr string, err error)
}

// RunOptions qualify one Run.
type RunOptions struct {
	// Timeout kills the command after this long (zero: no limit).
	Timeout time.Duration
	// ExitCodes are the accepted exit statuses; empty means 0 only.
	ExitCodes []int
}

// ExecError is a command that exited with an unexpected status (oslo's
// ProcessExecutionError); its text is Python's.
type ExecError struct {
	Argv           []string
	ExitCode       int
	Stdout, Stderr string
}

// Error is str(ProcessExecutionError).
func (e *ExecError) Error() string {
	return fmt.Sprintf("Unexpected error while running command.\nCommand: %s\nExit code: %d\nStdout: %s\nStderr: %s",
		strings.Join(e.Argv, " "), e.ExitCode, py.Repr(e.Stdout), py.Repr(e.Stderr))
}

// TimeoutError is a command killed after its timeout (Python's
// subprocess.TimeoutExpired).
type TimeoutError struct {
	Argv    []string
	Timeout time.Duration
}

// Error is str(TimeoutExpired).
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("Command '%s' timed out after %d seconds", py.Repr(e.Argv), int(e.Timeout.Seconds()))
}

// ExecRunner runs commands as processes of this host.
type ExecRunner struct{}

// Run starts argv and waits for it, killing it on timeout or when ctx
// ends.
func (ExecRunner) Run(ctx context.Context, argv []string, opts RunOptions) (string, string, error) {
	if len(argv) == 0 {
		return "", "", errors.New("ipmi: empty command")
	}
	runCtx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...) //nolint:gosec // the command lines Ironic runs
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return out.String(), errOut.String(), nil
	}
	if ctx.Err() != nil {
		return out.String(), errOut.String(), ctx.Err()
	}
	if runCtx.Err() != nil {
		return out.String(), errOut.String(), &TimeoutError{Argv: argv, Timeout: opts.Timeout}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code := exit.ExitCode()
		codes := opts.ExitCodes
		if len(codes) == 0 {
			codes = []int{0}
		}
		if slices.Contains(codes, code) {
			return out.String(), errOut.String(), nil
		}
		return out.String(), errOut.String(), &ExecError{Argv: argv, ExitCode: code, Stdout: out.String(), Stderr: errOut.String()}
	}
	return out.String(), errOut.String(), err
}
