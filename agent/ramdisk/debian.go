package ramdisk

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Runner runs a command in dir and returns its standard output; the
// error carries its standard error.
type Runner interface {
	Run(ctx context.Context, dir, name string, args ...string) ([]byte, error)
}

// ExecRunner runs commands with os/exec.
type ExecRunner struct{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Kernel is an unpacked kernel: its image and its modules directory.
type Kernel struct {
	Version    string // e.g. 6.1.0-57-amd64
	Package    string // the Debian package it came from
	Vmlinuz    string // path of boot/vmlinuz-<version>
	ModulesDir string // path of lib/modules/<version>
}

// KernelFetcher gets Debian's kernel package into a cache directory
// without installing it: apt-cache resolves the versioned package,
// apt-get download fetches it, dpkg-deb -x unpacks it.
type KernelFetcher struct {
	Run      Runner
	CacheDir string
}

// DefaultCacheDir is where fetched kernels are kept:
// $XDG_CACHE_HOME/goironic/kernels (~/.cache/goironic/kernels).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "goironic", "kernels"), nil
}

// MetaPackage is the package whose dependency names the current kernel.
const MetaPackage = "linux-image-amd64"

// Fetch returns the kernel of version (as in linux-image-<version>), or
// of the version linux-image-amd64 depends on when version is empty.
// An unpacked package already in the cache is reused.
func (f KernelFetcher) Fetch(ctx context.Context, version string) (Kernel, error) {
	pkg := "linux-image-" + version
	if version == "" {
		out, err := f.Run.Run(ctx, "", "apt-cache", "depends", MetaPackage)
		if err != nil {
			return Kernel{}, fmt.Errorf("resolving %s (run apt-get update first): %w", MetaPackage, err)
		}
		if pkg = parseKernelDepends(out); pkg == "" {
			return Kernel{}, fmt.Errorf("resolving %s: no linux-image-* dependency in apt-cache's answer (run apt-get update first): %q", MetaPackage, out)
		}
		version = strings.TrimPrefix(pkg, "linux-image-")
	}
	dir := filepath.Join(f.CacheDir, pkg)
	k := Kernel{
		Version: version, Package: pkg,
		Vmlinuz:    filepath.Join(dir, "root", "boot", "vmlinuz-"+version),
		ModulesDir: filepath.Join(dir, "root", "lib", "modules", version),
	}
	if _, err := os.Stat(filepath.Join(dir, "unpacked")); err == nil {
		return k, nil
	}
	// Download and unpack beside the cache entry, then rename it into
	// place, so that another build fetching the same kernel at the same
	// time never sees half a tree.
	if err := os.MkdirAll(f.CacheDir, 0o755); err != nil {
		return Kernel{}, err
	}
	tmp, err := os.MkdirTemp(f.CacheDir, pkg+".tmp-")
	if err != nil {
		return Kernel{}, err
	}
	defer os.RemoveAll(tmp)
	if _, err := f.Run.Run(ctx, tmp, "apt-get", "download", pkg); err != nil {
		return Kernel{}, fmt.Errorf("downloading %s: %w", pkg, err)
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, pkg+"_*.deb"))
	if len(debs) == 0 {
		return Kernel{}, fmt.Errorf("downloading %s: no .deb in %s", pkg, tmp)
	}
	if _, err := f.Run.Run(ctx, tmp, "dpkg-deb", "-x", debs[len(debs)-1], filepath.Join(tmp, "root")); err != nil {
		return Kernel{}, fmt.Errorf("unpacking %s: %w", pkg, err)
	}
	for _, p := range []string{k.Vmlinuz, k.ModulesDir} {
		rel, _ := filepath.Rel(dir, p)
		if _, err := os.Stat(filepath.Join(tmp, rel)); err != nil {
			return Kernel{}, fmt.Errorf("%s: %w", pkg, err)
		}
	}
	// The package is of no use once unpacked.
	for _, d := range debs {
		_ = os.Remove(d)
	}
	if err := os.WriteFile(filepath.Join(tmp, "unpacked"), []byte(pkg+"\n"), 0o644); err != nil {
		return Kernel{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "unpacked")); serr == nil {
			return k, nil // another build got there first
		}
		// A leftover of an interrupted fetch (older layouts): replace it.
		_ = os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			return Kernel{}, err
		}
	}
	return k, nil
}

// parseKernelDepends finds "Depends: linux-image-<version>" in
// apt-cache depends's output.
func parseKernelDepends(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		l = strings.TrimPrefix(l, "|")
		if v, ok := strings.CutPrefix(l, "Depends: "); ok && strings.HasPrefix(v, "linux-image-") {
			return strings.Fields(v)[0]
		}
	}
	return ""
}
