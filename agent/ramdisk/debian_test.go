package ramdisk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeApt answers apt-cache and plays apt-get download and dpkg-deb -x
// on the file system, recording the commands.
type fakeApt struct {
	calls   []string
	depends string
	fail    string
}

func (f *fakeApt) Run(_ context.Context, dir, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	if name == f.fail {
		return nil, errors.New("E: Unable to locate package")
	}
	switch name {
	case "apt-cache":
		return []byte(f.depends), nil
	case "apt-get":
		return nil, os.WriteFile(filepath.Join(dir, args[1]+"_6.1.1-1_amd64.deb"), []byte("deb"), 0o644)
	case "dpkg-deb":
		root := args[2]
		v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(args[1]), "linux-image-"), "_6.1.1-1_amd64.deb")
		for _, d := range []string{filepath.Join(root, "lib", "modules", v, "kernel"), filepath.Join(root, "boot")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, err
			}
		}
		return nil, os.WriteFile(filepath.Join(root, "boot", "vmlinuz-"+v), []byte("bzImage"), 0o644)
	}
	return nil, errors.New("unexpected command " + name)
}

func TestKernelFetcher(t *testing.T) {
	cache := t.TempDir()
	apt := &fakeApt{depends: "linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n"}
	f := KernelFetcher{Run: apt, CacheDir: cache}
	k, err := f.Fetch(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "linux-image-6.1.0-57-amd64")
	want := Kernel{Version: "6.1.0-57-amd64", Package: "linux-image-6.1.0-57-amd64",
		Vmlinuz: filepath.Join(dir, "root/boot/vmlinuz-6.1.0-57-amd64"), ModulesDir: filepath.Join(dir, "root/lib/modules/6.1.0-57-amd64")}
	if d := cmp.Diff(want, k); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(apt.calls) != 3 || apt.calls[0] != "apt-cache depends linux-image-amd64" || apt.calls[1] != "apt-get download linux-image-6.1.0-57-amd64" ||
		!regexp.MustCompile(`^dpkg-deb -x \S+/linux-image-6\.1\.0-57-amd64\.tmp-\d+/linux-image-6\.1\.0-57-amd64_6\.1\.1-1_amd64\.deb \S+\.tmp-\d+/root$`).MatchString(apt.calls[2]) {
		t.Errorf("commands: %q", apt.calls)
	}
	if _, err := os.Stat(k.Vmlinuz); err != nil {
		t.Error(err)
	}
	if debs, _ := filepath.Glob(filepath.Join(cache, "*", "*.deb")); len(debs) != 0 {
		t.Errorf("package kept after unpacking: %v", debs)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*")); len(left) != 1 {
		t.Errorf("cache holds %v, want the one package directory", left)
	}
	// A second fetch of that version uses the cache: no command at all.
	apt.calls = nil
	if k2, err := f.Fetch(context.Background(), "6.1.0-57-amd64"); err != nil || k2 != k || len(apt.calls) != 0 {
		t.Errorf("cached fetch: %+v %v, commands %v", k2, err, apt.calls)
	}
}

func TestKernelFetcherErrors(t *testing.T) {
	apt := &fakeApt{depends: "linux-image-amd64\n"}
	_, err := KernelFetcher{Run: apt, CacheDir: t.TempDir()}.Fetch(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "no linux-image-* dependency") || !strings.Contains(err.Error(), "apt-get update") {
		t.Errorf("no dependency: %v", err)
	}
	apt = &fakeApt{fail: "apt-get"}
	_, err = KernelFetcher{Run: apt, CacheDir: t.TempDir()}.Fetch(context.Background(), "9.9.9-amd64")
	if err == nil || !strings.Contains(err.Error(), "downloading linux-image-9.9.9-amd64: E: Unable to locate package") {
		t.Errorf("download failure: %v", err)
	}
}

func TestParseKernelDepends(t *testing.T) {
	for out, want := range map[string]string{
		"linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n":                                        "linux-image-6.1.0-57-amd64",
		"linux-image-amd64\n |Depends: linux-image-6.1.0-58-amd64\n  Depends: linux-image-6.1.0-57-amd64\n": "linux-image-6.1.0-58-amd64",
		"linux-image-amd64\n  Depends: <linux-image-virtual>\n":                                             "",
		"": "",
	} {
		if got := parseKernelDepends([]byte(out)); got != want {
			t.Errorf("parseKernelDepends(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestCheckStatic(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	// The test binary is static unless cgo linked it; either way the
	// check must agree with whether it has an interpreter.
	err = CheckStatic(b)
	dynamic := strings.Contains(string(b[:min(len(b), 4096)]), "/lib64/ld-linux")
	if dynamic != (err != nil) {
		t.Errorf("CheckStatic = %v, interpreter present: %v", err, dynamic)
	}
	if err := CheckStatic([]byte("#!/bin/sh\n")); err == nil || !strings.Contains(err.Error(), "not an ELF") {
		t.Errorf("script: %v", err)
	}
	ls, err := os.ReadFile("/bin/ls")
	if err == nil {
		if err := CheckStatic(ls); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
			t.Errorf("/bin/ls (dynamic): %v", err)
		}
	}
}
