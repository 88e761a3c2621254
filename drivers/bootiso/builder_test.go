package bootiso

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"
)

// readISO returns the files of an ISO by their Rock Ridge paths.
func readISO(t *testing.T, p string) (label string, files map[string][]byte) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := iso9660.OpenImage(f)
	if err != nil {
		t.Fatal(err)
	}
	label, _ = img.Label()
	root, err := img.RootDir()
	if err != nil {
		t.Fatal(err)
	}
	files = map[string][]byte{}
	var walk func(d *iso9660.File, at string)
	walk = func(d *iso9660.File, at string) {
		kids, err := d.GetChildren()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kids {
			if k.IsDir() {
				walk(k, at+k.Name()+"/")
				continue
			}
			b, err := io.ReadAll(k.Reader())
			if err != nil {
				t.Fatal(err)
			}
			files[at+k.Name()] = b
		}
	}
	walk(root, "")
	return label, files
}

func TestLabelAndTree(t *testing.T) {
	needIsolinux(t)
	f := newFixture(t)
	s := f.spec("bios", "")
	s.InjectFiles = map[string][]byte{"etc/extra": []byte("x")}
	out := filepath.Join(f.dir, "b.iso")
	if err := testBuilder().Build(context.Background(), out, s); err != nil {
		t.Fatal(err)
	}
	label, files := readISO(t, out)
	if label != "VMEDIA_BOOT_ISO" {
		t.Errorf("label %q without openstack/ files, want VMEDIA_BOOT_ISO", label)
	}
	for _, p := range []string{"vmlinuz", "initrd", "isolinux/isolinux.bin", "isolinux/ldlinux.c32", "isolinux/isolinux.cfg", "boot.catalog", "etc/extra"} {
		if _, ok := files[p]; !ok {
			t.Errorf("%s missing from %v", p, files)
		}
	}
	if got, want := string(files["isolinux/isolinux.cfg"]), "default boot\n\nlabel boot\nkernel /vmlinuz\nappend initrd=/initrd text console=ttyS0 ipa-api-url=http://192.0.2.1:6385 boot_method=vmedia --"; got != want {
		t.Errorf("isolinux.cfg = %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	f := newFixture(t)
	b := testBuilder()
	out := filepath.Join(f.dir, "x.iso")
	for name, c := range map[string]struct {
		spec Spec
		want string
	}{
		"no kernel":      {Spec{Ramdisk: f.ramdisk}, "needs a kernel"},
		"missing kernel": {Spec{Kernel: filepath.Join(f.dir, "nope"), Ramdisk: f.ramdisk}, "no such file"},
		"both":           {Spec{BootMode: "uefi", Kernel: f.kernel, Ramdisk: f.ramdisk, ESPImage: f.esp, DeployISO: f.esp}, "Neither deploy ISO nor ESP image configured or both of them configured"},
		"bad deploy ISO": {Spec{BootMode: "uefi", Kernel: f.kernel, Ramdisk: f.ramdisk, DeployISO: f.kernel}, "deploy ISO"},
	} {
		err := b.Build(context.Background(), out, c.spec)
		var ice *ImageCreationFailed
		if !errors.As(err, &ice) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "Failed to create a iso image. Error: ") {
			t.Errorf("%s: %v, want ImageCreationFailed with %q", name, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s left behind", name, out)
		}
	}
	cfg := DefaultConfig()
	cfg.IsolinuxBin = testIsolinux
	cfg.IsolinuxConfigTemplate = filepath.Join(f.dir, "t.template")
	if err := os.WriteFile(cfg.IsolinuxConfigTemplate, []byte("{% if x %}kernel {{ kernel }}{% endif %}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(cfg, nil).Build(context.Background(), out, f.spec("bios", "")); err == nil || !strings.Contains(err.Error(), "Jinja") {
		t.Errorf("a template with statements: %v", err)
	}
}

func TestRender(t *testing.T) {
	got, err := render("a {{ x }} b {{y}} c {{ unknown }}\n", map[string]string{"x": "1", "y": "{{ 2 }}"})
	if err != nil || got != "a 1 b {{ 2 }} c " {
		t.Errorf("render = %q, %v", got, err)
	}
	if _, err := render("{{ x | upper }}", nil); err == nil {
		t.Error("a filter accepted")
	}
}

// TestDeployISO: 21.4's deploy_iso path takes the deploy ISO's
// efiboot.img and puts grub.cfg where the deploy ISO had its own.
func TestDeployISO(t *testing.T) {
	f := newFixture(t)
	b := testBuilder()
	b.cfg.GrubConfigPath = "EFI/debian/grub.cfg"
	deploy := filepath.Join(f.dir, "deploy.iso")
	if err := b.Build(context.Background(), deploy, f.spec("uefi", "")); err != nil {
		t.Fatal(err)
	}
	b.cfg.GrubConfigPath = "EFI/BOOT/grub.cfg"
	out := filepath.Join(f.dir, "boot.iso")
	s := f.spec("uefi", "")
	s.ESPImage, s.DeployISO = "", deploy
	if err := b.Build(context.Background(), out, s); err != nil {
		t.Fatal(err)
	}
	_, files := readISO(t, out)
	esp, _ := os.ReadFile(f.esp)
	if !bytes.Equal(files["boot/grub/efiboot.img"], esp) {
		t.Error("efiboot.img is not the deploy ISO's")
	}
	if !strings.Contains(string(files["EFI/debian/grub.cfg"]), "linuxefi /vmlinuz console=ttyS0") {
		t.Errorf("grub.cfg not at the deploy ISO's path: %v", keys(files))
	}
	if _, ok := files["EFI/BOOT/grub.cfg"]; ok {
		t.Error("grub.cfg also at grub_config_path")
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestOwnESP: with no ESP configured, the ISO carries a FAT16 ESP with
// GRUB as EFI/BOOT/BOOTX64.EFI and a grub.cfg that finds this ISO by the
// UUID blkid (and GRUB) give it. test/bootiso boots it.
func TestOwnESP(t *testing.T) {
	needTools(t, "mtype", "blkid")
	f := newFixture(t)
	b := testBuilder()
	b.GrubEFI = f.kernel // any bytes: the test reads them back
	s := f.spec("uefi", "")
	s.ESPImage = ""
	out := filepath.Join(f.dir, "own.iso")
	if err := b.Build(context.Background(), out, s); err != nil {
		t.Fatal(err)
	}
	_, files := readISO(t, out)
	esp := filepath.Join(f.dir, "esp-out.img")
	if err := os.WriteFile(esp, files["boot/grub/efiboot.img"], 0o644); err != nil {
		t.Fatal(err)
	}
	mtype := func(p string) []byte {
		cmd := exec.Command("mtype", "-i", esp, "::"+p)
		cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		o, err := cmd.Output()
		if err != nil {
			t.Fatalf("mtype %s: %v", p, err)
		}
		return o
	}
	kernel, _ := os.ReadFile(f.kernel)
	if !bytes.Equal(mtype("EFI/BOOT/BOOTX64.EFI"), kernel) {
		t.Error("BOOTX64.EFI is not GRUB's binary")
	}
	uuid := strings.TrimSpace(run(t, "blkid", "-p", "-s", "UUID", "-o", "value", out))
	want := "search --no-floppy --fs-uuid --set=root " + uuid + "\nset prefix=($root)/EFI/BOOT\nconfigfile ($root)/EFI/BOOT/grub.cfg\n"
	if got := string(mtype("EFI/BOOT/GRUB.CFG")); got != want {
		t.Errorf("ESP grub.cfg = %q, want %q", got, want)
	}
	b.GrubEFI = filepath.Join(f.dir, "nope.efi")
	if err := b.Build(context.Background(), out, s); err == nil || !strings.Contains(err.Error(), "grub-efi-amd64-bin") {
		t.Errorf("missing GRUB: %v", err)
	}
}
