// Package bootiso_test boots the ISOs drivers/bootiso builds in QEMU
// (TCG): BIOS through SeaBIOS and isolinux, UEFI through OVMF and GRUB
// on the ESP the builder makes itself. The kernel is the deploy
// ramdisk's (agent/ramdisk's Debian kernel) and the initramfs's /init is
// test/internal/diskimage's tinyinit, which prints the kernel command
// line and the uuid of the config-2 drive it finds (the CD itself: the
// ISO carries openstack/latest/meta_data.json) on the serial console.
// Skipped without QEMU/OVMF/isolinux/GRUB unless
// IRONIC_TEST_REQUIRE_QEMU=1.
package bootiso_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic/drivers/bootiso"
	"github.com/goironic/ironic/test/internal/cluster"
	"github.com/goironic/ironic/test/internal/diskimage"
)

func TestMain(m *testing.M) { cluster.Main(m) }

const (
	isolinux = "/usr/lib/ISOLINUX/isolinux.bin"
	ovmfCode = "/usr/share/OVMF/OVMF_CODE.fd"
	ovmfVars = "/usr/share/OVMF/OVMF_VARS.fd"
	// vmTimeout bounds one boot (under TCG on 2 shared cores BIOS takes
	// ~25 s, UEFI 40 s to 2 min).
	vmTimeout = 300 * time.Second
)

func require(t *testing.T) {
	t.Helper()
	var missing []string
	for _, bin := range []string{"qemu-system-x86_64", "apt-get", "dpkg-deb", "go"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin)
		}
	}
	for _, f := range []string{isolinux, ovmfCode, ovmfVars, bootiso.DefaultGrubEFI} {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		cluster.Missing(t, diskimage.RequireEnv, "missing "+strings.Join(missing, ", ")+" (scripts/install-test-deps.sh)")
	}
}

// TestBoot builds a boot ISO per boot mode and boots it from QEMU's
// CD-ROM: the kernel must come up with the ISO's kernel parameters and
// find the ISO's meta_data.json on the config-2 CD.
func TestBoot(t *testing.T) {
	require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	// The deploy kernel and a tinyinit initramfs with the CD-ROM's modules.
	_, boot, err := diskimage.Boot(ctx, dir, "", "", []string{"ata_piix", "sr_mod", "isofs"})
	if err != nil {
		t.Fatal(err)
	}
	const uuid = "6f1b9b3e-8a45-4cf4-9d0e-5b1e1c2d3a4f"
	for _, mode := range []string{"bios", "uefi"} {
		t.Run(mode, func(t *testing.T) {
			cfg := bootiso.DefaultConfig()
			cfg.IsolinuxBin = isolinux
			b := bootiso.New(cfg, nil)
			iso := filepath.Join(t.TempDir(), "boot.iso")
			params := []string{"console=ttyS0", "panic=-1", "goironic.bootiso=" + mode, "ipa-api-url=http://192.0.2.1:6385"}
			start := time.Now()
			err := b.Build(ctx, iso, bootiso.Spec{BootMode: mode, Kernel: boot.Kernel, Ramdisk: boot.Initramfs, KernelParams: params,
				InjectFiles: map[string][]byte{"openstack/latest/meta_data.json": []byte(`{"uuid": "` + uuid + `"}`)},
				PublisherID: "0c5cd8a6-26ee-4d4b-9c55-6f0b1ef1d1c6"})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("built the %s ISO in %s", mode, time.Since(start))
			console := runVM(ctx, t, mode, iso)
			m, ok := diskimage.Find(console, "BOOTED")
			if !ok {
				t.Fatalf("the kernel did not come up; console:\n%s", tail(console))
			}
			// isolinux.cfg and grub.cfg (21.4's templates) put the
			// parameters between their own words and "--".
			if want := " " + strings.Join(params, " ") + " --"; !strings.Contains(" "+m.Cmdline, want) {
				t.Errorf("kernel command line %q, want the ISO's %q", m.Cmdline, want)
			}
			t.Logf("%s: /proc/cmdline = %s", mode, m.Cmdline)
			if d, ok := diskimage.Find(console, "DEPLOYED"); !ok || d.ConfigDriveUUID != uuid {
				t.Errorf("the config-2 CD's meta_data.json was not read; console:\n%s", tail(console))
			}
		})
	}
}

// runVM boots iso from the CD-ROM until tinyinit reports what it found
// (or vmTimeout), and returns the serial console.
func runVM(ctx context.Context, t *testing.T, mode, iso string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, vmTimeout)
	defer cancel()
	dir := t.TempDir()
	serial := filepath.Join(dir, "console.log")
	args := []string{"-machine", "pc,accel=tcg", "-m", "512", "-nographic", "-no-reboot", "-nodefaults",
		"-serial", "file:" + serial, "-cdrom", iso, "-boot", "d", "-net", "none"}
	if mode == "uefi" {
		vars := filepath.Join(dir, "OVMF_VARS.fd")
		b, err := os.ReadFile(ovmfVars)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vars, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-drive", "if=pflash,format=raw,readonly=on,file="+ovmfCode,
			"-drive", "if=pflash,format=raw,file="+vars)
	}
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		timedOut := ctx.Err() != nil // before ours: the deadline
		cancel()
		if err := <-exited; err != nil && timedOut {
			t.Logf("qemu killed at %s: %v", vmTimeout, err)
		}
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			exited <- err
			b, _ := os.ReadFile(serial)
			t.Logf("qemu ended after %s: %v %s", time.Since(start), err, out.String())
			return string(b)
		case <-tick.C:
			b, _ := os.ReadFile(serial)
			if bytes.Contains(b, []byte("GOIRONIC-DEPLOYED")) || bytes.Contains(b, []byte("GOIRONIC-NO-CONFIGDRIVE")) {
				t.Logf("%s: tinyinit reported after %s", mode, time.Since(start))
				return string(b)
			}
		}
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}
