package apiv1

import "github.com/goironic/ironic/option"

// Bind reads the options the API uses.
func (c *Config) Bind(b *option.Binder) {
	b.Bool(&c.EnforceNewDefaults, "oslo_policy", "enforce_new_defaults")
	b.String(&c.PublicEndpoint, "api", "public_endpoint")
	b.Int(&c.MaxLimit, "api", "max_limit")
	b.String(&c.PinReleaseVersion, "DEFAULT", "pin_release_version")
	b.String(&c.DefaultResourceClass, "DEFAULT", "default_resource_class")
	b.Int(&c.HeartbeatTimeout, "conductor", "heartbeat_timeout")
	b.Bool(&c.ProjectAdminCanManageOwnNodes, "api", "project_admin_can_manage_own_nodes")
	c.Ramdisk.Bind(b)
}

// Bind reads the options the ramdisk endpoints use.
func (c *RamdiskConfig) Bind(b *option.Binder) {
	b.Bool(&c.EnableEndpoints, "api", "enable_ramdisk_endpoints")
	b.Bool(&c.RestrictLookup, "api", "restrict_lookup")
	b.Bool(&c.FastTrack, "deploy", "fast_track")
	b.Int(&c.HeartbeatTimeout, "api", "ramdisk_heartbeat_timeout")
	b.String(&c.MetricsBackend, "metrics", "agent_backend")
	b.Bool(&c.MetricsPrependHost, "metrics", "agent_prepend_host")
	b.Bool(&c.MetricsPrependUUID, "metrics", "agent_prepend_uuid")
	b.Bool(&c.MetricsPrependHostRev, "metrics", "agent_prepend_host_reverse")
	b.String(&c.MetricsGlobalPrefix, "metrics", "agent_global_prefix")
	b.String(&c.StatsdHost, "metrics_statsd", "agent_statsd_host")
	b.Int(&c.StatsdPort, "metrics_statsd", "agent_statsd_port")
	b.Bool(&c.DisableDeepImageInspect, "conductor", "disable_deep_image_inspection")
	b.List(&c.PermittedImageFormats, "conductor", "permitted_image_formats")
	b.Bool(&c.EnableBIOSBootloaderInst, "agent", "enable_bios_bootloader_install")
}
