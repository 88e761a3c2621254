package drivers

import "github.com/goironic/ironic/option"

// Bind reads enabled_hardware_types and, for every kind,
// enabled_<kind>_interfaces and default_<kind>_interface from [DEFAULT].
// Upstream leaves enabled_management_interfaces and
// enabled_power_interfaces unset by default: they stay nil, which the
// registry computes from the enabled hardware types.
func (c *Config) Bind(b *option.Binder) {
	b.List(&c.EnabledHardwareTypes, "DEFAULT", "enabled_hardware_types")
	c.Enabled = make(map[string][]string, len(Kinds()))
	c.Default = map[string]string{}
	for _, k := range Kinds() {
		var enabled []string
		b.List(&enabled, "DEFAULT", "enabled_"+string(k)+"_interfaces")
		c.Enabled[string(k)] = enabled
		var def string
		b.String(&def, "DEFAULT", "default_"+string(k)+"_interface")
		if def != "" {
			c.Default[string(k)] = def
		}
	}
}

// DefaultConfig is Ironic 21.4's default configuration.
func DefaultConfig() Config { return option.Default[Config]() }
