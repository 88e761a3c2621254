package inspectorclient

import "github.com/goironic/ironic/option"

// Bind reads [inspector]'s keystoneauth options.
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "inspector")
}
