package disk

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// need skips the test when a tool it checks against is missing
// (scripts/install-test-deps.sh installs them: qemu-utils, gdisk, fdisk,
// util-linux), unless IRONIC_TEST_REQUIRE_TOOLS=1.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("IRONIC_TEST_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s is required: %v", tool, err)
			}
			t.Skipf("%s not installed (scripts/install-test-deps.sh)", tool)
		}
	}
}

// run runs a command, bounded in time, and returns its stdout.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\n%s%s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// testManager is a Manager on the recorded sysfs tree and a temporary
// /dev of regular files, which never sleeps.
func testManager(t *testing.T, opts ...Option) (*Manager, string) {
	t.Helper()
	dev := t.TempDir()
	sleeps := 0
	opts = append([]Option{WithClock(time.Now, func(context.Context, time.Duration) error { sleeps++; return nil })}, opts...)
	m := New(Config{SysRoot: "testdata/sys", DevRoot: dev, TempDir: t.TempDir(), DownloadRetries: 2}, opts...)
	return m, dev
}

// makeDisk creates a regular file of size bytes as /dev/<name>.
func makeDisk(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
