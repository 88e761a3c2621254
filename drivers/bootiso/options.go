package bootiso

import "github.com/goironic/ironic/option"

// Config is what the builder reads of ironic.conf.
type Config struct {
	// IsolinuxBin is [DEFAULT]isolinux_bin: the BIOS ISO's boot image
	// (Debian's isolinux: /usr/lib/ISOLINUX/isolinux.bin).
	IsolinuxBin string
	// LdlinuxC32 is [DEFAULT]ldlinux_c32; empty looks in
	// /usr/lib/syslinux/modules/bios and /usr/share/syslinux, as 21.4 does.
	LdlinuxC32 string
	// IsolinuxConfigTemplate and GrubConfigTemplate are
	// [DEFAULT]isolinux_config_template and grub_config_template. A path
	// that does not exist under the default's directory ($pybasedir/common,
	// Python Ironic's) is served by the copies of 21.4's templates built
	// into the binary.
	IsolinuxConfigTemplate, GrubConfigTemplate string
	// GrubConfigPath is [DEFAULT]grub_config_path: where the UEFI ISO holds
	// its grub.cfg.
	GrubConfigPath string
	// ESPImage is [DEFAULT]esp_image: a local EFI System Partition image,
	// used when the Spec names neither an ESP image nor a deploy ISO.
	ESPImage string
}

// Bind reads the options the builder uses.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.IsolinuxBin, "DEFAULT", "isolinux_bin")
	b.String(&c.LdlinuxC32, "DEFAULT", "ldlinux_c32")
	b.String(&c.IsolinuxConfigTemplate, "DEFAULT", "isolinux_config_template")
	b.String(&c.GrubConfigTemplate, "DEFAULT", "grub_config_template")
	b.String(&c.GrubConfigPath, "DEFAULT", "grub_config_path")
	b.String(&c.ESPImage, "DEFAULT", "esp_image")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }
