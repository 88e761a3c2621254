package agent

import "github.com/goironic/ironic/option"

// Bind reads the options the agent-based interfaces use.
func (c *Config) Bind(b *option.Binder) {
	b.Bool(&c.ManageAgentBoot, "agent", "manage_agent_boot")
	b.String(&c.ImageDownloadSource, "agent", "image_download_source")
	b.String(&c.HTTPURL, "deploy", "http_url")
	b.String(&c.HTTPRoot, "deploy", "http_root")
	b.String(&c.HTTPImageSubdir, "deploy", "http_image_subdir")
	b.Bool(&c.FastTrack, "deploy", "fast_track")
	b.Seconds(&c.FastTrackTimeout, "deploy", "fast_track_timeout")
	b.Int(&c.PostDeployPowerStateRetries, "agent", "post_deploy_get_power_state_retries")
	b.Seconds(&c.PostDeployPowerStateRetryInterval, "agent", "post_deploy_get_power_state_retry_interval")
	b.String(&c.DeployLogsCollect, "agent", "deploy_logs_collect")
	b.String(&c.DeployLogsStorageBackend, "agent", "deploy_logs_storage_backend")
	b.String(&c.DeployLogsLocalPath, "agent", "deploy_logs_local_path")
	b.Bool(&c.StreamRawImages, "agent", "stream_raw_images")
	b.List(&c.FileURLAllowedPaths, "conductor", "file_url_allowed_paths")
	b.String(&c.DefaultEphemeralFormat, "pxe", "default_ephemeral_format")
	b.Bool(&c.ForceRawImages, "DEFAULT", "force_raw_images")
	b.String(&c.ImagesPath, "pxe", "images_path")
	b.List(&c.PermittedImageFormats, "conductor", "permitted_image_formats")
	b.String(&c.DefaultBootMode, "deploy", "default_boot_mode")
	b.Bool(&c.RequireRescuePasswordHashed, "conductor", "require_rescue_password_hashed")
	b.Bool(&c.AllowProvisioningInMaintenance, "conductor", "allow_provisioning_in_maintenance")
	b.OptionalInt(&c.EraseDevicesPriority, "deploy", "erase_devices_priority")
	b.OptionalInt(&c.EraseDevicesMetadataPriority, "deploy", "erase_devices_metadata_priority")
	b.Int(&c.ShredRandomOverwriteIterations, "deploy", "shred_random_overwrite_iterations")
	b.Bool(&c.ShredFinalOverwriteWithZeros, "deploy", "shred_final_overwrite_with_zeros")
	b.Bool(&c.ContinueIfDiskSecureEraseFails, "deploy", "continue_if_disk_secure_erase_fails")
	b.Bool(&c.EnableNVMeSecureErase, "deploy", "enable_nvme_secure_erase")
	b.Bool(&c.EnableATASecureErase, "deploy", "enable_ata_secure_erase")
	b.Int(&c.DiskErasureConcurrency, "deploy", "disk_erasure_concurrency")
	b.Bool(&c.EraseSkipReadOnly, "deploy", "erase_skip_read_only")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }

// Bind reads the [agent] options of the agent's command API client.
func (c *ClientConfig) Bind(b *option.Binder) {
	b.String(&c.APIVersion, "agent", "agent_api_version")
	b.Seconds(&c.CommandTimeout, "agent", "command_timeout")
	b.Int(&c.MaxCommandAttempts, "agent", "max_command_attempts")
	b.Int(&c.CommandWaitAttempts, "agent", "command_wait_attempts")
	b.Seconds(&c.CommandWaitInterval, "agent", "command_wait_interval")
	b.String(&c.VerifyCA, "agent", "verify_ca")
}

// DefaultClientConfig is Ironic's defaults.
func DefaultClientConfig() ClientConfig { return option.Default[ClientConfig]() }
