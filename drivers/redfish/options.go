package redfish

import (
	"github.com/goironic/ironic/drivers/internal/deployutil"
	"github.com/goironic/ironic/option"
)

// Bind reads the [conductor] options the virtual media boot interface's
// validation uses.
func (c *Config) Bind(b *option.Binder) {
	deployutil.BindAgentImages(b, &c.DeployKernel, &c.DeployRamdisk, &c.RescueKernel, &c.RescueRamdisk)
	b.Bool(&c.AutomatedClean, "conductor", "automated_clean")
}

// DefaultConfig is Ironic's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }
