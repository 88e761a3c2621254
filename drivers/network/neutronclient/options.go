package neutronclient

import "github.com/goironic/ironic/option"

// Bind reads [neutron]: the keystoneauth options and the adapter's
// retries.
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "neutron")
	b.Int(&c.ConnectRetries, "neutron", "connect_retries")
	b.Seconds(&c.ConnectRetryDelay, "neutron", "connect_retry_delay")
	b.Int(&c.StatusCodeRetries, "neutron", "status_code_retries")
	b.Seconds(&c.StatusCodeRetryDelay, "neutron", "status_code_retry_delay")
}
