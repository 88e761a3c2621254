package swift

import "github.com/goironic/ironic/option"

// Bind reads [swift]: the keystoneauth options and swift_max_retries.
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "swift")
	b.Int(&c.MaxRetries, "swift", "swift_max_retries")
}
