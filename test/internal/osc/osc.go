// Package osc runs the unmodified `openstack baremetal` CLI
// (python-openstackclient with python-ironicclient) against an endpoint,
// for the black-box tests under test/.
package osc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// CLI runs `openstack baremetal ...`.
type CLI struct {
	ctx context.Context
	bin string
	dir string
	env []string
	// prefix goes between the program and the arguments of every call.
	prefix []string
	// Timeout bounds one invocation.
	Timeout time.Duration
}

// New returns a runner that reaches endpoint without authentication at
// API version apiVersion. The environment is built from scratch (PATH only
// is inherited) so that no clouds.yaml, OS_* variable or proxy of the
// caller interferes; HOME is home, a private directory, which also keeps
// python-ironicclient's version cache private.
func New(ctx context.Context, bin, home, endpoint, apiVersion string) *CLI {
	return &CLI{
		ctx: ctx,
		bin: bin,
		dir: home,
		env: []string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + home,
			"LANG=C.UTF-8",
			"LC_ALL=C.UTF-8",
			"OS_AUTH_TYPE=none",
			"OS_ENDPOINT=" + endpoint,
			"OS_BAREMETAL_API_VERSION=" + apiVersion,
		},
		prefix:  []string{"baremetal"},
		Timeout: 60 * time.Second,
	}
}

// Endpoint is the endpoint the runner reaches.
func (b *CLI) Endpoint() string {
	for _, kv := range b.env {
		if v, ok := strings.CutPrefix(kv, "OS_ENDPOINT="); ok {
			return v
		}
	}
	return ""
}

// With returns a copy of b whose environment has set applied (a value ""
// removes the variable) and whose calls start with prefix.
func (b *CLI) With(set map[string]string, prefix ...string) *CLI {
	c := *b
	c.env = nil
	for _, kv := range b.env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			c.env = append(c.env, kv)
		}
	}
	for k, v := range set {
		if v != "" {
			c.env = append(c.env, k+"="+v)
		}
	}
	c.prefix = prefix
	return &c
}

// Result is the outcome of one CLI call.
type Result struct {
	Args           []string
	Stdout, Stderr string
	Code           int
}

func (r Result) String() string {
	return fmt.Sprintf("$ openstack %s\nexit status %d\nstdout:\n%s\nstderr:\n%s",
		strings.Join(r.Args, " "), r.Code, r.Stdout, r.Stderr)
}

// Exec runs the CLI once with args, bounded by Timeout. The error is for
// a CLI that could not be run or did not finish in time; an exit status
// is not an error.
func (b *CLI) Exec(args []string) (Result, error) {
	ctx, cancel := context.WithTimeout(b.ctx, b.Timeout)
	defer cancel()
	full := append(append([]string{}, b.prefix...), args...)
	cmd := exec.CommandContext(ctx, b.bin, full...)
	cmd.Env = b.env
	cmd.Dir = b.dir
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Args: full, Stdout: stdout.String(), Stderr: stderr.String()}
	if ctx.Err() != nil {
		return r, fmt.Errorf("openstack %s: no result within %s: %w", strings.Join(full, " "), b.Timeout, ctx.Err())
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.Code = exitErr.ExitCode()
	default:
		return r, fmt.Errorf("openstack %s: %w", strings.Join(full, " "), err)
	}
	return r, nil
}

// Run runs the CLI and fails t if it could not, or if the CLI rejected
// its own arguments (argparse's exit status 2: a bug in the test).
func (b *CLI) Run(t testing.TB, args ...string) Result {
	t.Helper()
	r, err := b.Exec(args)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if r.Code == 2 && strings.Contains(r.Stderr, "usage:") {
		t.Fatalf("the CLI rejected its arguments (test bug):\n%s", r)
	}
	return r
}

// OK runs the CLI, requires success and returns its standard output.
func (b *CLI) OK(t testing.TB, args ...string) string {
	t.Helper()
	r := b.Run(t, args...)
	if r.Code != 0 {
		t.Fatalf("command failed:\n%s", r)
	}
	return r.Stdout
}

// JSON runs the CLI with "-f json", requires success and decodes the
// output into v.
func (b *CLI) JSON(t testing.TB, v any, args ...string) {
	t.Helper()
	r := b.Run(t, append(args, "-f", "json")...)
	if r.Code != 0 {
		t.Fatalf("command failed:\n%s", r)
	}
	if err := json.Unmarshal([]byte(r.Stdout), v); err != nil {
		t.Fatalf("output is not the JSON expected (%v):\n%s", err, r)
	}
}

// Object is a decoded JSON object as the CLI prints it.
type Object = map[string]any

// Object runs a "show"-like command with -f json and returns the object.
func (b *CLI) Object(t testing.TB, args ...string) Object {
	t.Helper()
	var o Object
	b.JSON(t, &o, args...)
	return o
}

// Rows runs a "list"-like command with -f json and returns the rows.
func (b *CLI) Rows(t testing.TB, args ...string) []Object {
	t.Helper()
	var rows []Object
	b.JSON(t, &rows, args...)
	return rows
}

// Fails runs the CLI and requires it to fail with every one of wants in
// its standard error (the CLI prints Ironic's faultstring there).
func (b *CLI) Fails(t testing.TB, wants []string, args ...string) {
	t.Helper()
	r := b.Run(t, args...)
	if r.Code == 0 {
		t.Errorf("command succeeded, want failure with %q:\n%s", wants, r)
		return
	}
	for _, want := range wants {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r)
		}
	}
}
