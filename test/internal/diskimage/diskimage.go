// Package diskimage builds, for tests, the whole-disk image the
// end-to-end deploy writes: a raw disk (and its qcow2, through
// qemu-img) with an MBR (syslinux's mbr.bin), one bootable FAT
// partition holding SYSLINUX (Debian's syslinux installs it into the
// partition image with mtools, no mount, no root), Debian's kernel and
// a tiny initramfs whose /init is tinyinit: it prints the machine's
// SMBIOS UUID and its config drive's uuid to ttyS0 and powers off
// (Marker, ParseMarkers). The raw image is 20 MiB (kernel 8 MiB,
// initramfs 3 MiB), its qcow2 about 12 MiB.
//
// The kernel is Debian's linux-image-amd64 (its versioned package,
// fetched with apt-get download and unpacked with dpkg-deb into the
// cache directory agent/ramdisk uses, ~/.cache/goironic/kernels, so the
// two share one download); the initramfs is a newc archive written by
// Debian's cpio, gzip-compressed. Needed: syslinux, syslinux-common,
// mtools, dosfstools, fdisk (sfdisk), cpio, qemu-utils, genisoimage
// (scripts/install-test-deps.sh); Require skips a test without them.
package diskimage

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Tools are the commands Build and AddConfigDrive run.
var Tools = []string{"apt-get", "apt-cache", "dpkg-deb", "syslinux", "mcopy", "mkfs.fat", "sfdisk", "cpio", "qemu-img", "genisoimage", "go"}

// RequireEnv, set to 1, turns a missing tool into a failure.
const RequireEnv = "IRONIC_TEST_REQUIRE_QEMU"

// MBR is syslinux's master boot record (Debian syslinux-common).
const MBR = "/usr/lib/syslinux/mbr/mbr.bin"

// Modules are the kernel modules the initramfs loads (with their
// dependencies): the IDE/SATA disk of QEMU's pc machine, virtio disks,
// ISO 9660 for the config drive, and the e1000 NIC (goironic.serve=1).
var Modules = []string{"ata_piix", "sd_mod", "virtio_pci", "virtio_blk", "isofs", "e1000"}

// Require skips t (fails it when RequireEnv is 1) unless every tool is
// installed.
func Require(t testing.TB) {
	t.Helper()
	missing := []string{}
	for _, bin := range Tools {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin)
		}
	}
	if _, err := os.Stat(MBR); err != nil {
		missing = append(missing, MBR)
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("missing %v (scripts/install-test-deps.sh)", missing)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s=1: %s", RequireEnv, msg)
	}
	t.Skip(msg)
}

// Image is a built disk image.
type Image struct {
	// Raw and QCOW2 are the image in both formats.
	Raw, QCOW2 string
	// Kernel and Initrd are the files the image boots, usable as a
	// network-booted kernel and ramdisk too.
	Kernel, Initrd string
	// KernelVersion is Debian's, e.g. 6.1.0-57-amd64.
	KernelVersion string
}

// Options configure Build.
type Options struct {
	// Dir receives the files; it must exist.
	Dir string
	// CacheDir holds unpacked kernel packages; default
	// $XDG_CACHE_HOME/goironic/kernels.
	CacheDir string
	// KernelVersion picks linux-image-<version>; default the one
	// linux-image-amd64 depends on.
	KernelVersion string
	// Append is added to the kernel command line of the disk's boot
	// entry (after "console=ttyS0 panic=-1").
	Append string
}

// ForTest builds an image into a temporary directory of t.
func ForTest(ctx context.Context, t testing.TB) *Image {
	t.Helper()
	Require(t)
	img, err := Build(ctx, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// run runs a command and returns its output, with it in the error.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.Bytes())
	}
	return out.Bytes(), nil
}

// Build writes the image and its parts into opts.Dir.
func Build(ctx context.Context, opts Options) (*Image, error) {
	k, err := fetchKernel(ctx, opts.CacheDir, opts.KernelVersion)
	if err != nil {
		return nil, err
	}
	img := &Image{
		Raw: filepath.Join(opts.Dir, "disk.raw"), QCOW2: filepath.Join(opts.Dir, "disk.qcow2"),
		Kernel: filepath.Join(opts.Dir, "vmlinuz"), Initrd: filepath.Join(opts.Dir, "initrd"),
		KernelVersion: k.version,
	}
	raw, err := os.ReadFile(k.vmlinuz)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(img.Kernel, raw, 0o644); err != nil {
		return nil, err
	}
	if err := buildInitramfs(ctx, opts.Dir, k, img.Initrd); err != nil {
		return nil, err
	}
	if err := buildDisk(ctx, opts, img); err != nil {
		return nil, err
	}
	if _, err := run(ctx, "", nil, "qemu-img", "convert", "-f", "raw", "-O", "qcow2", img.Raw, img.QCOW2); err != nil {
		return nil, err
	}
	return img, nil
}

// kernel is an unpacked Debian kernel package.
type kernel struct {
	version, vmlinuz, modules string
}

var kernelDep = regexp.MustCompile(`Depends: (linux-image-[0-9][^\s]*)`)

// fetchKernel gets linux-image-<version> into the cache (the layout of
// agent/ramdisk.KernelFetcher: <cache>/<package>/root, marked done by
// <cache>/<package>/unpacked).
func fetchKernel(ctx context.Context, cacheDir, version string) (kernel, error) {
	if cacheDir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return kernel{}, err
		}
		cacheDir = filepath.Join(d, "goironic", "kernels")
	}
	if version == "" {
		out, err := run(ctx, "", nil, "apt-cache", "depends", "linux-image-amd64")
		if err != nil {
			return kernel{}, err
		}
		m := kernelDep.FindSubmatch(out)
		if m == nil {
			return kernel{}, fmt.Errorf("apt-cache depends linux-image-amd64 names no kernel (apt-get update?): %s", out)
		}
		version = strings.TrimPrefix(string(m[1]), "linux-image-")
	}
	pkg := "linux-image-" + version
	dir := filepath.Join(cacheDir, pkg)
	k := kernel{version: version,
		vmlinuz: filepath.Join(dir, "root", "boot", "vmlinuz-"+version),
		modules: filepath.Join(dir, "root", "lib", "modules", version)}
	if _, err := os.Stat(filepath.Join(dir, "unpacked")); err == nil {
		return k, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return kernel{}, err
	}
	if _, err := run(ctx, dir, nil, "apt-get", "download", pkg); err != nil {
		return kernel{}, err
	}
	debs, _ := filepath.Glob(filepath.Join(dir, pkg+"_*.deb"))
	if len(debs) == 0 {
		return kernel{}, fmt.Errorf("apt-get download %s left no .deb in %s", pkg, dir)
	}
	root := filepath.Join(dir, "root")
	_ = os.RemoveAll(root)
	if _, err := run(ctx, dir, nil, "dpkg-deb", "-x", debs[len(debs)-1], root); err != nil {
		return kernel{}, err
	}
	for _, d := range debs {
		_ = os.Remove(d)
	}
	if err := os.WriteFile(filepath.Join(dir, "unpacked"), []byte(pkg+"\n"), 0o644); err != nil {
		return kernel{}, err
	}
	return k, nil
}

// moduleOrder returns the files of names and their dependencies (read
// from each module's .modinfo "depends="), dependencies first.
func moduleOrder(modDir string, names []string) ([]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(modDir, "kernel"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n, ok := strings.CutSuffix(d.Name(), ".ko"); ok {
			files[strings.ReplaceAll(n, "-", "_")] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var order []string
	seen := map[string]bool{}
	var visit func(name string) error
	visit = func(name string) error {
		name = strings.ReplaceAll(name, "-", "_")
		if seen[name] {
			return nil
		}
		seen[name] = true
		p, ok := files[name]
		if !ok {
			return fmt.Errorf("module %s not in %s (built in modules need no file: drop it from Modules)", name, modDir)
		}
		deps, err := moduleDepends(p)
		if err != nil {
			return err
		}
		for _, d := range deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		order = append(order, p)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func moduleDepends(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := f.Section(".modinfo")
	if s == nil {
		return nil, fmt.Errorf("%s: no .modinfo", path)
	}
	data, err := s.Data()
	if err != nil {
		return nil, err
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok && len(v) > 0 {
			return strings.Split(string(v), ","), nil
		}
	}
	return nil, nil
}

// buildInitramfs writes the gzip-compressed newc archive: /init (tinyinit, built static
// here), /lib/modules/*.ko and /lib/modules/order, /dev.
func buildInitramfs(ctx context.Context, dir string, k kernel, out string) error {
	tree := filepath.Join(dir, "initramfs")
	for _, d := range []string{"dev", "proc", "sys", "mnt", "lib/modules"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			return err
		}
	}
	if _, err := run(ctx, "", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64"}, "go", "build", "-trimpath",
		"-ldflags=-s -w", "-o", filepath.Join(tree, "init"), "github.com/goironic/ironic/test/internal/diskimage/tinyinit"); err != nil {
		return err
	}
	mods, err := moduleOrder(k.modules, Modules)
	if err != nil {
		return err
	}
	var names []string
	for _, m := range mods {
		raw, err := os.ReadFile(m)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tree, "lib", "modules", filepath.Base(m)), raw, 0o644); err != nil {
			return err
		}
		names = append(names, filepath.Base(m))
	}
	if err := os.WriteFile(filepath.Join(tree, "lib", "modules", "order"), []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	list, err := run(ctx, tree, nil, "find", ".", "-mindepth", "1")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0")
	cmd.Dir = tree
	cmd.Stdin = bytes.NewReader(list)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = zw, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cpio: %w: %s", err, stderr.Bytes())
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

const (
	mib = 1 << 20
	// partStart and partSize place the boot partition.
	partStart = 1 * mib
	partSize  = 19 * mib
	// DiskSize is the raw image's size.
	DiskSize = partStart + partSize
)

// buildDisk writes img.Raw: MBR boot code, a partition table with one
// active FAT16 partition, SYSLINUX, the kernel and the initramfs.
func buildDisk(ctx context.Context, opts Options, img *Image) error {
	part := filepath.Join(opts.Dir, "boot.fat")
	_ = os.Remove(part)
	if _, err := run(ctx, "", nil, "mkfs.fat", "-C", "-n", "GOIRONIC", part, fmt.Sprint(partSize/1024)); err != nil {
		return err
	}
	if _, err := run(ctx, "", nil, "syslinux", "--install", part); err != nil {
		return err
	}
	cfg := filepath.Join(opts.Dir, "syslinux.cfg")
	conf := fmt.Sprintf("SERIAL 0 115200\nDEFAULT goironic\nPROMPT 0\nTIMEOUT 0\nLABEL goironic\n  LINUX /vmlinuz\n  INITRD /initrd\n  APPEND console=ttyS0 panic=-1 %s\n", opts.Append)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		return err
	}
	env := []string{"MTOOLS_SKIP_CHECK=1"}
	for src, dst := range map[string]string{img.Kernel: "::vmlinuz", img.Initrd: "::initrd", cfg: "::syslinux.cfg"} {
		if _, err := run(ctx, "", env, "mcopy", "-o", "-i", part, src, dst); err != nil {
			return err
		}
	}
	if err := writeAt(img.Raw, 0, nil, DiskSize, true); err != nil {
		return err
	}
	table := fmt.Sprintf("label: dos\nstart=%d, size=%d, type=6, bootable\n", partStart/512, partSize/512)
	if err := sfdisk(ctx, img.Raw, table); err != nil {
		return err
	}
	mbr, err := os.ReadFile(MBR)
	if err != nil {
		return err
	}
	if len(mbr) > 440 {
		return fmt.Errorf("%s: %d bytes, more than MBR boot code's 440", MBR, len(mbr))
	}
	if err := writeAt(img.Raw, 0, mbr, 0, false); err != nil {
		return err
	}
	fat, err := os.ReadFile(part)
	if err != nil {
		return err
	}
	if err := writeAt(img.Raw, partStart, fat, 0, false); err != nil {
		return err
	}
	return os.Remove(part)
}

func sfdisk(ctx context.Context, disk, script string, args ...string) error {
	cmd := exec.CommandContext(ctx, "sfdisk", append(append([]string{"--no-reread", "--no-tell-kernel", "-q"}, args...), disk)...)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sfdisk %s: %w\n%s", disk, err, out)
	}
	return nil
}

// writeAt writes data at off of path (created when create is set, then
// sized to size).
func writeAt(path string, off int64, data []byte, size int64, create bool) error {
	flags := os.O_WRONLY
	if create {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if create {
		if err := f.Truncate(size); err != nil {
			return err
		}
	}
	if _, err := f.WriteAt(data, off); err != nil {
		return err
	}
	return f.Close()
}

// ConfigDrive builds a config drive ISO (volume label config-2, Rock
// Ridge and Joliet, as Ironic's build_configdrive makes it with
// genisoimage) holding openstack/latest/meta_data.json with metaData.
func ConfigDrive(ctx context.Context, dir string, metaData map[string]any) (string, error) {
	tree := filepath.Join(dir, "configdrive")
	latest := filepath.Join(tree, "openstack", "latest")
	if err := os.MkdirAll(latest, 0o755); err != nil {
		return "", err
	}
	raw, err := json.Marshal(metaData)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(latest, "meta_data.json"), raw, 0o644); err != nil {
		return "", err
	}
	iso := filepath.Join(dir, "configdrive.iso")
	if _, err := run(ctx, "", nil, "genisoimage", "-quiet", "-o", iso, "-ldots", "-allow-lowercase", "-allow-multidot",
		"-l", "-publisher", "goironic", "-J", "-r", "-V", "config-2", tree); err != nil {
		return "", err
	}
	return iso, nil
}

// AddConfigDrive appends to the raw disk a primary partition holding
// the ISO, as IPA does on an MBR disk with room after the image: the
// file grows to fit.
func AddConfigDrive(ctx context.Context, disk, iso string) error {
	isoRaw, err := os.ReadFile(iso)
	if err != nil {
		return err
	}
	st, err := os.Stat(disk)
	if err != nil {
		return err
	}
	start := (st.Size() + mib - 1) / mib * mib
	size := (int64(len(isoRaw)) + mib - 1) / mib * mib
	if err := os.Truncate(disk, start+size); err != nil {
		return err
	}
	if err := sfdisk(ctx, disk, fmt.Sprintf("start=%d, size=%d, type=83\n", start/512, size/512), "--append"); err != nil {
		return err
	}
	return writeAt(disk, start, isoRaw, 0, false)
}

// SHA256 is the hex SHA-256 of a file (an image's os_hash_value).
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
