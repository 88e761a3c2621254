package split

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// batchTimeout bounds one batch of CLI commands.
const batchTimeout = 5 * time.Minute

// batch runs the unmodified `openstack` CLI once, in its interactive mode,
// with cmds (each after "baremetal") as its input, one a line, and
// returns the lines it printed on standard output except its "Waiting
// for provision state" progress lines. Any output on standard error is
// an error: the interactive mode prints a failed command's error there and
// carries on with the next one.
//
// One Python process for many commands: starting the CLI costs well over
// a CPU-second, which for a few hundred commands would make the test's
// run time that of the CLI's start-up. The environment is built as
// test/internal/osc builds it (no clouds.yaml, no OS_* of the caller).
// Arguments must not need quoting.
func batch(ctx context.Context, bin, endpoint string, cmds [][]string) ([]string, error) {
	home, err := os.MkdirTemp("", "goironic-split-cli-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	var in strings.Builder
	for _, c := range cmds {
		for _, a := range c {
			if a == "" || strings.ContainsAny(a, " \t\n'\"\\#;|&<>") {
				return nil, fmt.Errorf("batch: argument %q needs quoting", a)
			}
		}
		fmt.Fprintf(&in, "baremetal %s\n", strings.Join(c, " "))
	}
	ctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"OS_AUTH_TYPE=none",
		"OS_ENDPOINT=" + endpoint,
		"OS_BAREMETAL_API_VERSION=" + cliVersion,
	}
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(in.String())
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	report := func(what string) error {
		return fmt.Errorf("openstack (interactive) %s\ninput:\n%s\nstdout:\n%s\nstderr:\n%s", what, in.String(), stdout.String(), stderr.String())
	}
	switch {
	case ctx.Err() != nil:
		return nil, report(fmt.Sprintf("did not finish within %s", batchTimeout))
	case err != nil:
		return nil, report(err.Error())
	case strings.TrimSpace(stderr.String()) != "":
		return nil, report("reported an error")
	}
	var lines []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "Waiting for provision state") {
			continue
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// configDrive is a config drive as Nova sends it: a gzipped,
// base64-encoded image (here of arbitrary bytes; the fake deploy
// interface does not read it).
func configDrive(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(bytes.Repeat([]byte("goironic split config drive\n"), 64)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
