package cinderclient

import "github.com/goironic/ironic/option"

// Bind reads [cinder]: the keystoneauth options, retries and
// status_code_retries.
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "cinder")
	b.Int(&c.Retries, "cinder", "retries")
	b.Int(&c.StatusCodeRetries, "cinder", "status_code_retries")
}
