package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Environment variables that turn a missing dependency into a failure.
const (
	RequirePythonEnv = "IRONIC_TEST_REQUIRE_PYTHON"
	// SkipCLIEnv, set to 1, turns a missing openstack CLI into a skip.
	SkipCLIEnv = "IRONIC_TEST_SKIP_CLI"
)

// Missing fails t when the environment sets env to 1 (the dependency is
// expected, as test.sh says), and skips it otherwise.
func Missing(t testing.TB, env, msg string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf("%s=1: %s", env, msg)
	}
	t.Skip(msg)
}

// RequirePython skips or fails t (see Missing, with
// IRONIC_TEST_REQUIRE_PYTHON) unless PythonBin can import modules (a
// Python import list) from the Debian packages pkgs.
func RequirePython(t testing.TB, modules, pkgs string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, PythonBin, "-c", "import "+modules).CombinedOutput()
	if err != nil {
		Missing(t, RequirePythonEnv, fmt.Sprintf("%s cannot import %s (apt-get install %s): %v\n%s",
			PythonBin, modules, pkgs, err, Tail(out, 1500)))
	}
}

// RequireCLI returns the openstack CLI's path, or fails t (skips it when
// IRONIC_TEST_SKIP_CLI=1) when it is not installed.
func RequireCLI(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("openstack")
	if err != nil {
		if os.Getenv(SkipCLIEnv) == "1" {
			t.Skipf("the openstack CLI is not installed (%v) and %s=1", err, SkipCLIEnv)
		}
		t.Fatalf("the openstack CLI is not installed (%v); install python3-openstackclient and python3-ironicclient, or set %s=1", err, SkipCLIEnv)
	}
	return bin
}
