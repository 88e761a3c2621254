package pxe

import (
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/option"
)

// Bind reads the options the boot interfaces use.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.HTTPURL, "deploy", "http_url")
	b.String(&c.HTTPRoot, "deploy", "http_root")
	deployutil.BindAgentImages(b, &c.DeployKernel, &c.DeployRamdisk, &c.RescueKernel, &c.RescueRamdisk)
	b.Bool(&c.AutomatedClean, "conductor", "automated_clean")
	b.String(&c.KickstartTemplate, "anaconda", "default_ks_template")
	b.String(&c.DefaultBootMode, "deploy", "default_boot_mode")
	b.Bool(&c.IPXEUseSwift, "pxe", "ipxe_use_swift")
	b.String(&c.TFTPMasterPath, "pxe", "tftp_master_path")
	b.List(&c.FileURLAllowedPaths, "conductor", "file_url_allowed_paths")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }

// Bind reads the options the iPXE scripts use.
func (c *ScriptConfig) Bind(b *option.Binder) {
	b.String(&c.HTTPURL, "deploy", "http_url")
	b.String(&c.KernelAppendParams, "pxe", "kernel_append_params")
	b.Int(&c.IPXETimeout, "pxe", "ipxe_timeout")
	b.String(&c.APIURL, "service_catalog", "endpoint_override")
	b.Bool(&c.Debug, "DEFAULT", "debug")
	deployutil.BindAgentImages(b, &c.DeployKernel, &c.DeployRamdisk, &c.RescueKernel, &c.RescueRamdisk)
	b.Bool(&c.NetbootFallback, "pxe", "enable_netboot_fallback")
	b.Bool(&c.IPXEUseSwift, "pxe", "ipxe_use_swift")
}
