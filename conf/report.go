package conf

import (
	"context"
	"log/slog"
	"strings"
)

// Files returns the configuration files that were read, in order.
func (c *Config) Files() []string { return append([]string(nil), c.files...) }

// Ignored returns the options the files set that no version of Ironic
// knows, as sorted, de-duplicated "section.option" strings. They are
// accepted and have no effect; they are usually typos or options of
// plugins this service does not have.
func (c *Config) Ignored() []string { return append([]string(nil), c.ignored...) }

// NotImplemented returns the options Ironic knows and the files set, but
// that this service does not act on, as sorted "section.option" strings.
func (c *Config) NotImplemented() []string { return append([]string(nil), c.notImplemented...) }

// Deprecated returns the deprecated option names the files used, as
// "old.name (use section.name)" strings.
func (c *Config) Deprecated() []string { return append([]string(nil), c.deprecatedUsed...) }

// IsSet tells whether a file or the command line set the option (under
// its current or a deprecated name). Defaults, including the all-in-one
// defaults, do not count.
func (c *Config) IsSet(section, name string) bool {
	_, ok := c.set[normalizeSection(section)+"."+name]
	return ok
}

// Report logs, once, what a service should tell the operator about its
// configuration: the files read, and the ignored, not implemented and
// deprecated options the files set.
func (c *Config) Report(ctx context.Context, log *slog.Logger) {
	if len(c.files) == 0 {
		log.InfoContext(ctx, "no configuration file read, using defaults")
	} else {
		log.InfoContext(ctx, "configuration read", "files", strings.Join(c.files, ", "))
	}
	if len(c.ignored) > 0 {
		log.WarnContext(ctx, "ignoring unknown configuration options", "options", strings.Join(c.ignored, ", "))
	}
	if len(c.notImplemented) > 0 {
		log.WarnContext(ctx, "configuration options not implemented by this service have no effect", "options", strings.Join(c.notImplemented, ", "))
	}
	if len(c.deprecatedUsed) > 0 {
		log.WarnContext(ctx, "deprecated configuration option names in use", "options", strings.Join(c.deprecatedUsed, ", "))
	}
}

// InterfaceNames returns Ironic's hardware interface types in the order
// Ironic lists them.
func InterfaceNames() []string {
	return []string{"bios", "boot", "console", "deploy", "inspect", "management",
		"network", "power", "raid", "rescue", "storage", "vendor"}
}

// InterfaceConfig is the driver-related configuration as plain data, so
// that the drivers package does not depend on this one.
type InterfaceConfig struct {
	// EnabledHardwareTypes is [DEFAULT]enabled_hardware_types.
	EnabledHardwareTypes []string
	// Enabled maps an interface type ("boot", ...) to its
	// enabled_<type>_interfaces. An empty list means the option is unset
	// and, as in Ironic, the enabled implementations are the first
	// supported implementation of each enabled hardware type (upstream's
	// default for management and power).
	Enabled map[string][]string
	// Default maps an interface type to default_<type>_interface; types
	// without a configured default are absent, meaning "the first
	// implementation supported by the node's hardware type that is
	// enabled".
	Default map[string]string
}

// Interfaces returns the enabled hardware types and interfaces.
func (c *Config) Interfaces() InterfaceConfig {
	d := &c.Default
	enabled := map[string][]string{
		"bios":       d.EnabledBIOSInterfaces,
		"boot":       d.EnabledBootInterfaces,
		"console":    d.EnabledConsoleInterfaces,
		"deploy":     d.EnabledDeployInterfaces,
		"inspect":    d.EnabledInspectInterfaces,
		"management": d.EnabledManagementInterfaces,
		"network":    d.EnabledNetworkInterfaces,
		"power":      d.EnabledPowerInterfaces,
		"raid":       d.EnabledRAIDInterfaces,
		"rescue":     d.EnabledRescueInterfaces,
		"storage":    d.EnabledStorageInterfaces,
		"vendor":     d.EnabledVendorInterfaces,
	}
	defaults := map[string]string{
		"bios":       d.DefaultBIOSInterface,
		"boot":       d.DefaultBootInterface,
		"console":    d.DefaultConsoleInterface,
		"deploy":     d.DefaultDeployInterface,
		"inspect":    d.DefaultInspectInterface,
		"management": d.DefaultManagementInterface,
		"network":    d.DefaultNetworkInterface,
		"power":      d.DefaultPowerInterface,
		"raid":       d.DefaultRAIDInterface,
		"rescue":     d.DefaultRescueInterface,
		"storage":    d.DefaultStorageInterface,
		"vendor":     d.DefaultVendorInterface,
	}
	out := InterfaceConfig{
		EnabledHardwareTypes: append([]string{}, d.EnabledHardwareTypes...),
		Enabled:              make(map[string][]string, len(enabled)),
		Default:              make(map[string]string, len(defaults)),
	}
	for k, v := range enabled {
		out.Enabled[k] = append([]string{}, v...)
	}
	for k, v := range defaults {
		if v != "" {
			out.Default[k] = v
		}
	}
	return out
}
