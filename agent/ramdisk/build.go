package ramdisk

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/goironic/ironic/agent/boot"
)

// Spec is what goes into an initramfs.
type Spec struct {
	// Init is the static binary that becomes /init (the agent).
	Init []byte
	// ModulesDir is the kernel's lib/modules/<version> directory and
	// KernelVersion its version; Modules the modules to load (default
	// DefaultModules), resolved with their dependencies.
	ModulesDir    string
	KernelVersion string
	Modules       []string
	// MTime is stamped on every entry (default: the Unix epoch), so that
	// the same inputs give the same bytes.
	MTime time.Time
}

// Manifest says what an initramfs holds.
type Manifest struct {
	Modules []string // module names in load order
	Paths   []string // every entry, in archive order
}

// Tree lays out the initramfs: the directories PID 1 mounts on, the
// device nodes the kernel opens before devtmpfs is mounted (the console
// for init's standard streams), /init, the modules and the list
// agent/boot loads them from (boot.ModuleList).
func (s Spec) Tree() (*Tree, Manifest, error) {
	if err := CheckStatic(s.Init); err != nil {
		return nil, Manifest{}, fmt.Errorf("/init: %w", err)
	}
	t := NewTree()
	for _, d := range []string{"dev", "proc", "sys", "run", "etc", "root", "mnt", "var", "var/log", "var/lib", "usr", "lib"} {
		t.Dir(d, 0o755)
	}
	t.Dir("tmp", 0o1777|os.ModeSticky)
	t.CharDev("dev/console", 0o600, 5, 1)
	t.CharDev("dev/null", 0o666, 1, 3)
	t.File("init", 0o755, s.Init)
	var m Manifest
	if s.ModulesDir != "" {
		want := s.Modules
		if want == nil {
			want = DefaultModules()
		}
		mt, err := OpenModuleTree(s.ModulesDir)
		if err != nil {
			return nil, Manifest{}, err
		}
		mods, err := mt.Resolve(want)
		if err != nil {
			return nil, Manifest{}, err
		}
		var list strings.Builder
		params := ModuleParams()
		for _, mod := range mods {
			p := path.Join("/lib/modules", s.KernelVersion, mod.Path)
			t.File(p, 0o644, mod.Data)
			if o := params[mod.Name]; o != "" {
				p += " " + o
			}
			fmt.Fprintln(&list, p)
			m.Modules = append(m.Modules, mod.Name)
		}
		t.File(boot.ModuleList, 0o644, []byte(list.String()))
	}
	m.Paths = t.Paths()
	return t, m, nil
}

// WriteInitramfs writes the gzip-compressed archive of s to w. The gzip
// header carries no name and no time.
func (s Spec) WriteInitramfs(w io.Writer) (Manifest, error) {
	t, m, err := s.Tree()
	if err != nil {
		return Manifest{}, err
	}
	mtime := s.MTime
	if mtime.IsZero() {
		mtime = time.Unix(0, 0)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return Manifest{}, err
	}
	if err := t.WriteCPIO(zw, mtime); err != nil {
		return Manifest{}, err
	}
	if err := zw.Close(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// CheckStatic fails unless b is an x86-64 ELF executable with no
// program interpreter and no shared libraries: the only kind that runs
// as /init in a ramdisk without a libc.
func CheckStatic(b []byte) error {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not an ELF executable: %w", err)
	}
	if f.Machine != elf.EM_X86_64 || (f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN) {
		return fmt.Errorf("not an x86-64 executable (%s, %s)", f.Machine, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked (has a program interpreter); build it with CGO_ENABLED=0")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return fmt.Errorf("needs shared libraries %v; build it with CGO_ENABLED=0", libs)
	}
	return nil
}

// BuildStatic builds the Go main package pkg (run from dir) into out as
// a static, stripped, reproducible executable (CGO_ENABLED=0,
// -trimpath, no VCS stamp).
func BuildStatic(ctx context.Context, dir, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// Output is a deploy kernel and ramdisk written by Write.
type Output struct {
	Kernel, Initramfs         string
	KernelSize, InitramfsSize int64
	Manifest                  Manifest
}

// Write writes <dir>/<name>.kernel (a copy of k's vmlinuz) and
// <dir>/<name>.initramfs (s, with k's modules), the files to serve as
// a node's driver_info deploy_kernel and deploy_ramdisk.
func Write(dir, name string, k Kernel, s Spec) (Output, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Output{}, err
	}
	s.ModulesDir, s.KernelVersion = k.ModulesDir, k.Version
	o := Output{Kernel: filepath.Join(dir, name+".kernel"), Initramfs: filepath.Join(dir, name+".initramfs")}
	vmlinuz, err := os.ReadFile(k.Vmlinuz)
	if err != nil {
		return Output{}, err
	}
	if err := writeAtomic(o.Kernel, func(w io.Writer) error { _, err := w.Write(vmlinuz); return err }); err != nil {
		return Output{}, err
	}
	if err := writeAtomic(o.Initramfs, func(w io.Writer) error {
		m, err := s.WriteInitramfs(w)
		o.Manifest = m
		return err
	}); err != nil {
		return Output{}, err
	}
	for _, f := range []struct {
		p string
		n *int64
	}{{o.Kernel, &o.KernelSize}, {o.Initramfs, &o.InitramfsSize}} {
		fi, err := os.Stat(f.p)
		if err != nil {
			return Output{}, err
		}
		*f.n = fi.Size()
	}
	return o, nil
}

func writeAtomic(p string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fill(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}
