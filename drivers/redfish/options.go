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
	b.Seconds(&c.PowerStateChangeTimeout, "conductor", "power_state_change_timeout")
	b.Int(&c.ConnectionAttempts, "redfish", "connection_attempts")
	b.Seconds(&c.ConnectionRetryInterval, "redfish", "connection_retry_interval")
	b.Int(&c.ConnectionCacheSize, "redfish", "connection_cache_size")
	b.String(&c.AuthType, "redfish", "auth_type")
	b.Seconds(&c.RAIDConfigStatusInterval, "redfish", "raid_config_status_interval")
	b.Seconds(&c.RAIDConfigFailInterval, "redfish", "raid_config_fail_interval")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }
