package vm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic/agent/ramdisk"
	"github.com/goironic/ironic/test/internal/cluster"
)

// DeployRamdisk builds the deploy kernel and initramfs nodes boot to run
// our agent: ./cmd/ironic-agent built static as /init, Debian's kernel
// (apt-get download, cached as cmd/ironic-ramdisk caches it) and its
// modules, written into dir. Without apt-get or dpkg-deb t skips (fails
// with RequireEnv=1).
func DeployRamdisk(ctx context.Context, t testing.TB, dir string) ramdisk.Output {
	t.Helper()
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			cluster.Missing(t, RequireEnv, tool+" not installed (the deploy kernel is Debian's)")
		}
	}
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	agentBin := filepath.Join(dir, "ironic-agent")
	if err := ramdisk.BuildStatic(ctx, root, "./cmd/ironic-agent", agentBin); err != nil {
		t.Fatal(err)
	}
	init, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := ramdisk.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	k, err := ramdisk.KernelFetcher{Run: ramdisk.ExecRunner{}, CacheDir: cache}.Fetch(ctx, "")
	if err != nil {
		t.Fatalf("deploy kernel: %v", err)
	}
	out, err := ramdisk.Write(filepath.Join(dir, "deploy"), "deploy", k, ramdisk.Spec{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
