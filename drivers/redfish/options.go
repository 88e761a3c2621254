package redfish

import (
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/option"
)

// Bind reads the [redfish] options the interfaces use, and the
// [conductor] ones Ironic's redfish modules read: the agent image
// defaults and automated_clean (virtual media validation) and
// power_state_change_timeout (waiting for a power state).
func (c *Config) Bind(b *option.Binder) {
	deployutil.BindAgentImages(b, &c.DeployKernel, &c.DeployRamdisk, &c.RescueKernel, &c.RescueRamdisk)
	b.Bool(&c.AutomatedClean, "conductor", "automated_clean")
	b.List(&c.FileURLAllowedPaths, "conductor", "file_url_allowed_paths")
	b.Seconds(&c.PowerStateChangeTimeout, "conductor", "power_state_change_timeout")
	b.Int(&c.ConnectionAttempts, "redfish", "connection_attempts")
	b.Seconds(&c.ConnectionRetryInterval, "redfish", "connection_retry_interval")
	b.Int(&c.ConnectionCacheSize, "redfish", "connection_cache_size")
	b.String(&c.AuthType, "redfish", "auth_type")
	b.Seconds(&c.RAIDConfigStatusInterval, "redfish", "raid_config_status_interval")
	b.Seconds(&c.RAIDConfigFailInterval, "redfish", "raid_config_fail_interval")
	b.String(&c.KernelAppendParams, "redfish", "kernel_append_params")
	b.Bool(&c.UseSwift, "redfish", "use_swift")
	b.String(&c.SwiftContainer, "redfish", "swift_container")
	b.Int(&c.SwiftObjectExpiry, "redfish", "swift_object_expiry_timeout")
	b.Int(&c.FilePermission, "redfish", "file_permission")
	b.String(&c.HTTPRoot, "deploy", "http_root")
	b.String(&c.HTTPURL, "deploy", "http_url")
	b.String(&c.ExternalHTTPURL, "deploy", "external_http_url")
	b.String(&c.ExternalCallbackURL, "deploy", "external_callback_url")
	b.String(&c.RamdiskImageDownloadSource, "deploy", "ramdisk_image_download_source")
	b.String(&c.DefaultBootMode, "deploy", "default_boot_mode")
	b.String(&c.APIURL, "service_catalog", "endpoint_override")
	b.String(&c.Bootloader, "conductor", "bootloader")
	b.String(&c.APICAFile, "agent", "api_ca_file")
	b.Bool(&c.Debug, "DEFAULT", "debug")
	b.String(&c.TempDir, "DEFAULT", "tempdir")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }
