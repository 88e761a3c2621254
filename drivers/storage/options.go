package storage

import "github.com/goironic/ironic/option"

// Bind reads [cinder]action_retries and action_retry_interval.
func (c *Config) Bind(b *option.Binder) {
	b.Int(&c.ActionRetries, "cinder", "action_retries")
	b.Seconds(&c.ActionRetryInterval, "cinder", "action_retry_interval")
}

// DefaultConfig is Ironic's defaults.
func DefaultConfig() Config { return option.Default[Config]() }
