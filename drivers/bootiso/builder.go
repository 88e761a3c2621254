package bootiso

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/kdomanski/iso9660"

	"github.com/goironic/ironic/internal/isoimage"
)

// The tree 21.4 lays out.
const (
	isolinuxBin = "isolinux/isolinux.bin"
	isolinuxCfg = "isolinux/isolinux.cfg"
	ldlinuxC32  = "isolinux/ldlinux.c32"
	efibootImg  = "boot/grub/efiboot.img"
	bootCatalog = "boot.catalog"
)

// ldlinuxDirs are where 21.4 looks for ldlinux.c32 when
// [DEFAULT]ldlinux_c32 is unset.
var ldlinuxDirs = []string{"/usr/lib/syslinux/modules/bios", "/usr/share/syslinux"}

// DefaultGrubEFI is the GRUB the builder puts on the ESP it makes itself:
// Debian's grub-efi-amd64-bin's monolithic image (every module built in,
// its early configuration sourcing $cmdpath/grub.cfg).
const DefaultGrubEFI = "/usr/lib/grub/x86_64-efi/monolithic/grubx64.efi"

// Builder builds boot ISOs.
type Builder struct {
	cfg Config
	log *slog.Logger
	// Now stamps the volume (time.Now when nil).
	Now func() time.Time
	// GrubEFI is the EFI binary of the ESP the builder makes when the Spec
	// and [DEFAULT]esp_image name none (DefaultGrubEFI when empty).
	GrubEFI string
}

// New returns a builder reading cfg.
func New(cfg Config, log *slog.Logger) *Builder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Builder{cfg: cfg, log: log}
}

// ImageCreationFailed is 21.4's exception.ImageCreationFailed: "Failed to
// create a iso image. Error: ...".
type ImageCreationFailed struct{ Err error }

func (e *ImageCreationFailed) Error() string {
	return fmt.Sprintf("Failed to create a iso image. Error: %v", e.Err)
}

func (e *ImageCreationFailed) Unwrap() error { return e.Err }

// ironicMessage is an error whose text is 21.4's, capital letter and all.
type ironicMessage string

func (m ironicMessage) Error() string { return string(m) }

const (
	errNeitherOrBoth    ironicMessage = "Neither deploy ISO nor ESP image configured or both of them configured"
	errNoESPInDeployISO ironicMessage = "Deploy iso didn't contain efiboot.img or grub.cfg"
)

// Build writes the boot ISO of spec to out: 21.4's
// create_isolinux_image_for_bios (spec.BootMode other than "uefi") or
// create_esp_image_for_uefi. Errors are *ImageCreationFailed; out is
// removed on failure.
func (b *Builder) Build(ctx context.Context, out string, spec Spec) (err error) {
	defer func() {
		if err != nil {
			var ice *ImageCreationFailed
			if !errors.As(err, &ice) {
				err = &ImageCreationFailed{Err: err}
			}
		}
	}()
	if spec.Kernel == "" || spec.Ramdisk == "" {
		return errors.New("a boot ISO needs a kernel and a ramdisk")
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	t := now().UTC()
	files := []isoimage.File{{Path: "vmlinuz", Source: spec.Kernel}, {Path: "initrd", Source: spec.Ramdisk}}
	files = append(files, injected(spec.InjectFiles)...)
	label := "VMEDIA_BOOT_ISO"
	for p := range spec.InjectFiles {
		if strings.HasPrefix(p, "openstack/") {
			label = "config-2"
		}
	}
	params := strings.Join(spec.KernelParams, " ")
	o := isoimage.Options{VolumeID: label, Publisher: spec.PublisherID, Application: "GOIRONIC BOOT ISO", UpperCase: true, Now: t}
	if spec.BootMode == "uefi" {
		uefi, err := b.uefiFiles(spec, params, t)
		if err != nil {
			return err
		}
		files = append(files, uefi.files...)
		o.Boot = &isoimage.ElTorito{Catalog: bootCatalog, ID: spec.PublisherID,
			Entries: []isoimage.BootEntry{{Platform: isoimage.PlatformEFI, Path: uefi.esp}}}
	} else {
		bios, err := b.biosFiles(params)
		if err != nil {
			return err
		}
		files = append(files, bios...)
		// 21.4 passes str(publisher_id): "None" when there is none.
		if o.Publisher == "" {
			o.Publisher = "None"
		}
		o.Joliet = true
		o.Boot = &isoimage.ElTorito{Catalog: bootCatalog, ID: o.Publisher, Entries: []isoimage.BootEntry{
			{Platform: isoimage.PlatformX86, Path: isolinuxBin, LoadSectors: 4, InfoTable: true}}}
	}
	b.log.DebugContext(ctx, "building a boot ISO", "path", out, "boot_mode", spec.BootMode, "label", label, "files", len(files))
	return writeFile(ctx, out, files, o)
}

// injected are spec's InjectFiles, sorted by path.
func injected(m map[string][]byte) []isoimage.File {
	fs := make([]isoimage.File, 0, len(m))
	for p, d := range m {
		fs = append(fs, isoimage.File{Path: p, Data: d})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	return fs
}

func writeFile(ctx context.Context, out string, files []isoimage.File, o isoimage.Options) (err error) {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(out)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := isoimage.Write(ctx, w, files, o); err != nil {
		return err
	}
	return w.Flush()
}

// biosFiles are isolinux's: isolinux.bin, ldlinux.c32 and the isolinux.cfg
// rendered from [DEFAULT]isolinux_config_template.
func (b *Builder) biosFiles(params string) ([]isoimage.File, error) {
	fs := []isoimage.File{{Path: isolinuxBin, Source: b.cfg.IsolinuxBin}}
	ldlinux := b.cfg.LdlinuxC32
	if ldlinux == "" {
		for _, d := range ldlinuxDirs {
			if fi, err := os.Stat(path.Join(d, "ldlinux.c32")); err == nil && fi.Mode().IsRegular() {
				ldlinux = path.Join(d, "ldlinux.c32")
				break
			}
		}
	}
	if ldlinux != "" {
		fs = append(fs, isoimage.File{Path: ldlinuxC32, Source: ldlinux})
	}
	cfg, err := renderFile(b.cfg.IsolinuxConfigTemplate, map[string]string{"kernel": "/vmlinuz", "ramdisk": "/initrd", "kernel_params": params})
	if err != nil {
		return nil, err
	}
	return append(fs, isoimage.File{Path: isolinuxCfg, Data: []byte(cfg)}), nil
}

type uefiTree struct {
	files []isoimage.File
	// esp is the ESP image's path in the tree.
	esp string
}

// uefiFiles are the ESP image and grub.cfg: from the deploy ISO (its
// efiboot.img and the path of its grub.cfg), the ESP image given, or
// (beyond 21.4) an ESP the builder makes with GRUB.
func (b *Builder) uefiFiles(spec Spec, params string, t time.Time) (uefiTree, error) {
	var u uefiTree
	grubPath := strings.TrimLeft(b.cfg.GrubConfigPath, " /")
	esp := spec.ESPImage
	switch {
	case spec.DeployISO != "" && esp != "":
		return u, errNeitherOrBoth
	case spec.DeployISO != "":
		img, espPath, gp, err := fromDeployISO(spec.DeployISO)
		if err != nil {
			return u, err
		}
		u.files, u.esp, grubPath = []isoimage.File{{Path: espPath, Data: img}}, espPath, gp
	case esp == "" && b.cfg.ESPImage != "":
		if strings.Contains(b.cfg.ESPImage, "://") {
			return u, fmt.Errorf("[DEFAULT]esp_image %s must be fetched by the caller", b.cfg.ESPImage)
		}
		esp = b.cfg.ESPImage
		fallthrough
	case esp != "":
		u.files, u.esp = []isoimage.File{{Path: efibootImg, Source: esp}}, efibootImg
	default:
		img, err := b.makeESP(grubPath, t)
		if err != nil {
			return u, err
		}
		u.files, u.esp = []isoimage.File{{Path: efibootImg, Data: img}}, efibootImg
	}
	cfg, err := renderFile(b.cfg.GrubConfigTemplate, map[string]string{"linux": "/vmlinuz", "initrd": "/initrd", "kernel_params": params})
	if err != nil {
		return u, err
	}
	u.files = append(u.files, isoimage.File{Path: grubPath, Data: []byte(cfg)})
	return u, nil
}

// isoUUID is the UUID GRUB (and blkid) give an ISO 9660 volume: its
// modification time, which isoimage writes as t in UTC.
func isoUUID(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%02d", t.Format("2006-01-02-15-04-05"), t.Nanosecond()/10000000)
}

// makeESP is an ESP holding GRUB as the removable-media loader
// (EFI/BOOT/BOOTX64.EFI) and the grub.cfg its early configuration sources
// from the ESP ($cmdpath/grub.cfg): it finds the ISO by its UUID (unique
// to this build's time stamp) and reads the ISO's grub.cfg at grubPath.
func (b *Builder) makeESP(grubPath string, t time.Time) ([]byte, error) {
	grub := b.GrubEFI
	if grub == "" {
		grub = DefaultGrubEFI
	}
	efi, err := os.ReadFile(grub)
	if err != nil {
		return nil, fmt.Errorf("no ESP image configured, and GRUB for one is missing (Debian's grub-efi-amd64-bin): %w", err)
	}
	cfg := fmt.Sprintf("search --no-floppy --fs-uuid --set=root %s\nset prefix=($root)/%s\nconfigfile ($root)/%s\n",
		isoUUID(t), path.Dir(grubPath), grubPath)
	return writeFAT16([]fatFile{
		{Path: "EFI/BOOT/BOOTX64.EFI", Data: efi},
		{Path: "EFI/BOOT/GRUB.CFG", Data: []byte(cfg)},
	}, "ESP", uint32(t.Unix()), t)
}

// fromDeployISO is 21.4's _get_deploy_iso_files: the deploy ISO's
// efiboot.img (its bytes and path) and the path of its grub.cfg, the last
// of each a top-down walk finds.
func fromDeployISO(p string) (img []byte, espPath, grubPath string, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, "", "", err
	}
	defer f.Close()
	iso, err := iso9660.OpenImage(f)
	if err != nil {
		return nil, "", "", fmt.Errorf("reading the deploy ISO: %w", err)
	}
	root, err := iso.RootDir()
	if err != nil {
		return nil, "", "", fmt.Errorf("reading the deploy ISO: %w", err)
	}
	var esp *iso9660.File
	type dir struct {
		f    *iso9660.File
		path string
	}
	queue := []dir{{root, ""}}
	for len(queue) > 0 && len(queue) < 10000 {
		d := queue[0]
		queue = queue[1:]
		kids, err := d.f.GetChildren()
		if err != nil {
			return nil, "", "", fmt.Errorf("reading the deploy ISO: %w", err)
		}
		for _, k := range kids {
			kp := path.Join(d.path, k.Name())
			switch {
			case k.IsDir():
				queue = append(queue, dir{k, kp})
			case k.Name() == "efiboot.img":
				esp, espPath = k, kp
			case k.Name() == "grub.cfg":
				grubPath = kp
			}
		}
	}
	if esp == nil || grubPath == "" {
		return nil, "", "", errNoESPInDeployISO
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, esp.Reader()); err != nil {
		return nil, "", "", fmt.Errorf("reading the deploy ISO: %w", err)
	}
	return buf.Bytes(), espPath, grubPath, nil
}
