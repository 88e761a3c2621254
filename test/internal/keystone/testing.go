package keystone

import (
	"context"
	"os"
	"strings"
	"testing"
)

// requireEnv makes a missing Keystone fail tests instead of skipping them.
const requireEnv = "IRONIC_TEST_REQUIRE_KEYSTONE"

// ForTest starts a Keystone for t, stopped (and its state removed, when
// o.Dir is "") by t.Cleanup; if t failed, the end of keystone.log is
// logged first. When Keystone is not installed it skips t, or fails it
// when IRONIC_TEST_REQUIRE_KEYSTONE=1.
func ForTest(t testing.TB, o Options) *Keystone {
	t.Helper()
	if err := Installed(); err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%v (%s=1)", err, requireEnv)
		}
		t.Skip(err)
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(t.Context(), StartTimeout)
	defer cancel()
	k, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("keystone log (%s), end:\n%s", k.LogPath(), strings.TrimSpace(k.logTail()))
		}
		if err := k.Stop(); err != nil {
			t.Errorf("keystone: stop: %v", err)
		}
	})
	return k
}
