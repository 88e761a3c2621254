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
// The kernel and the initramfs are agent/ramdisk's: Debian's
// linux-image-amd64 fetched by its KernelFetcher (into the same cache,
// ~/.cache/goironic/kernels, so the two share one download), and the
// gzip-compressed newc archive its Spec.WriteInitramfs writes, with
// tinyinit as /init and the modules listed in agent/boot's ModuleList.
// Needed: syslinux, syslinux-common, mtools, dosfstools, fdisk
// (sfdisk), cpio (the test reads the archive back), qemu-utils,
// genisoimage (scripts/install-test-deps.sh); Require skips a test
// without them.
package diskimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goironic/ironic/agent/ramdisk"
)

// Tools are the commands Build and AddConfigDrive run, and cpio, with
// which the test reads the initramfs back.
var Tools = []string{"apt-get", "apt-cache", "dpkg-deb", "syslinux", "mcopy", "mkfs.fat", "sfdisk", "cpio", "qemu-img", "genisoimage", "go"}

// RequireEnv, set to 1, turns a missing tool into a failure.
const RequireEnv = "IRONIC_TEST_REQUIRE_QEMU"

// MBR is syslinux's master boot record (Debian syslinux-common).
const MBR = "/usr/lib/syslinux/mbr/mbr.bin"

// Modules are the kernel modules the initramfs loads (with their
// dependencies): the IDE/SATA disk of QEMU's pc machine, virtio disks,
// ISO 9660 for the config drive, and the e1000 NIC (goironic.serve=1).
// A subset of ramdisk.DefaultModules, to keep the image small.
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
	// Modules are the modules the initramfs loads, in load order.
	Modules []string
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

// TinyInit is the package of the initramfs's /init.
const TinyInit = "github.com/goironic/ironic/test/internal/diskimage/tinyinit"

// Build writes the image and its parts into opts.Dir. The kernel comes
// from agent/ramdisk's KernelFetcher and the initramfs from its
// Spec.WriteInitramfs (through ramdisk.Write), so the image boots the
// kernel and the module layout of the deploy ramdisk.
func Build(ctx context.Context, opts Options) (*Image, error) {
	k, boot, err := Boot(ctx, opts.Dir, opts.CacheDir, opts.KernelVersion, Modules)
	if err != nil {
		return nil, err
	}
	img := &Image{
		Raw: filepath.Join(opts.Dir, "disk.raw"), QCOW2: filepath.Join(opts.Dir, "disk.qcow2"),
		Kernel: boot.Kernel, Initrd: boot.Initramfs,
		KernelVersion: k.Version, Modules: boot.Manifest.Modules,
	}
	if err := buildDisk(ctx, opts, img); err != nil {
		return nil, err
	}
	if _, err := run(ctx, "", nil, "qemu-img", "convert", "-f", "raw", "-O", "qcow2", img.Raw, img.QCOW2); err != nil {
		return nil, err
	}
	return img, nil
}

// Boot writes into dir the kernel (Debian's, version kernelVersion or
// linux-image-amd64's, cached in cacheDir or ramdisk.DefaultCacheDir) and
// a tinyinit initramfs loading modules: the files Build's disk boots, or
// a boot ISO's (test/bootiso).
func Boot(ctx context.Context, dir, cacheDir, kernelVersion string, modules []string) (ramdisk.Kernel, ramdisk.Output, error) {
	if cacheDir == "" {
		d, err := ramdisk.DefaultCacheDir()
		if err != nil {
			return ramdisk.Kernel{}, ramdisk.Output{}, err
		}
		cacheDir = d
	}
	k, err := ramdisk.KernelFetcher{Run: ramdisk.ExecRunner{}, CacheDir: cacheDir}.Fetch(ctx, kernelVersion)
	if err != nil {
		return k, ramdisk.Output{}, err
	}
	initBin := filepath.Join(dir, "tinyinit")
	if err := ramdisk.BuildStatic(ctx, "", TinyInit, initBin); err != nil {
		return k, ramdisk.Output{}, err
	}
	initExe, err := os.ReadFile(initBin)
	if err != nil {
		return k, ramdisk.Output{}, err
	}
	if err := os.Remove(initBin); err != nil {
		return k, ramdisk.Output{}, err
	}
	boot, err := ramdisk.Write(dir, "boot", k, ramdisk.Spec{Init: initExe, Modules: modules})
	return k, boot, err
}

const (
	mib = 1 << 20
	// partStart and partSize place the boot partition.
	partStart = 1 * mib
	partSize  = 19 * mib
	// DiskSize is the raw image's size.
	DiskSize = partStart + partSize
)

// GrubEFI is the EFI loader the image's partition carries, when
// installed (grub-efi-amd64-bin), for UEFI boot.
const GrubEFI = "/usr/lib/grub/x86_64-efi/monolithic/grubx64.efi"

// buildDisk writes img.Raw: MBR boot code, a partition table with one
// active FAT16 partition of type 0xEF (the EFI system partition, which
// the agent's install_bootloader looks for as ironic_lib's
// find_efi_partition does: parted's "esp" flag), SYSLINUX, the kernel and the initramfs (and,
// with GrubEFI, GRUB as the partition's removable-media EFI loader).
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
	copies := map[string]string{img.Kernel: "::vmlinuz", img.Initrd: "::initrd", cfg: "::syslinux.cfg"}
	// UEFI too, when GRUB is there: the partition is also found by OVMF,
	// which runs the removable-media loader EFI/BOOT/BOOTX64.EFI
	// (Debian's monolithic GRUB, sourcing grub.cfg beside it).
	if _, err := os.Stat(GrubEFI); err == nil {
		if _, err := run(ctx, "", env, "mmd", "-i", part, "::EFI", "::EFI/BOOT"); err != nil {
			return err
		}
		grubCfg := filepath.Join(opts.Dir, "grub.cfg")
		gc := fmt.Sprintf("serial --unit=0 --speed=115200\nterminal_input serial\nterminal_output serial\nset timeout=0\n"+
			"linux /vmlinuz console=ttyS0 panic=-1 %s\ninitrd /initrd\nboot\n", opts.Append)
		if err := os.WriteFile(grubCfg, []byte(gc), 0o644); err != nil {
			return err
		}
		copies[GrubEFI], copies[grubCfg] = "::EFI/BOOT/BOOTX64.EFI", "::EFI/BOOT/grub.cfg"
	}
	for src, dst := range copies {
		if _, err := run(ctx, "", env, "mcopy", "-o", "-i", part, src, dst); err != nil {
			return err
		}
	}
	if err := writeAt(img.Raw, 0, nil, DiskSize, true); err != nil {
		return err
	}
	table := fmt.Sprintf("label: dos\nstart=%d, size=%d, type=ef, bootable\n", partStart/512, partSize/512)
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
