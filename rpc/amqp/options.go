package amqp

import "github.com/goironic/ironic/option"

// Bind reads oslo.messaging's options that the transport uses.
func (c *Config) Bind(b *option.Binder) {
	b.String(&c.TransportURL, "DEFAULT", "transport_url")
	b.String(&c.Exchange, "DEFAULT", "control_exchange")
	b.Seconds(&c.ResponseTimeout, "DEFAULT", "rpc_response_timeout")
	b.Int(&c.Executors, "DEFAULT", "executor_thread_pool_size")
	b.Seconds(&c.RetryInterval, "oslo_messaging_rabbit", "rabbit_retry_interval")
	b.Seconds(&c.RetryBackoff, "oslo_messaging_rabbit", "rabbit_retry_backoff")
	b.Seconds(&c.IntervalMax, "oslo_messaging_rabbit", "rabbit_interval_max")
	b.Seconds(&c.TransientQueuesTTL, "oslo_messaging_rabbit", "rabbit_transient_queues_ttl")
	b.Seconds(&c.HeartbeatTimeoutThreshold, "oslo_messaging_rabbit", "heartbeat_timeout_threshold")
	b.Bool(&c.SSL, "oslo_messaging_rabbit", "ssl")
	b.String(&c.SSLCAFile, "oslo_messaging_rabbit", "ssl_ca_file")
	b.String(&c.SSLCertFile, "oslo_messaging_rabbit", "ssl_cert_file")
	b.String(&c.SSLKeyFile, "oslo_messaging_rabbit", "ssl_key_file")
	b.String(&c.SSLVersion, "oslo_messaging_rabbit", "ssl_version")
	b.Bool(&c.SSLEnforceHostnameVerification, "oslo_messaging_rabbit", "ssl_enforce_hostname_verification")
	b.Bool(&c.SSLEnforceFIPSMode, "oslo_messaging_rabbit", "ssl_enforce_fips_mode")
}

// DefaultConfig is oslo.messaging's defaults, as Ironic sets them.
func DefaultConfig() Config { return option.Default[Config]() }
