package conf

import (
	"context"
	"log/slog"
	"strings"

	"github.com/goironic/ironic/option"
)

// Config is a loaded configuration: the files read, what they set, and
// the values components bind their options from (Binder). It holds no
// option values of its own: the component that reads an option binds it
// onto its own Config field.
//
// A Config is built by Load or FromArgs; its Binder is used at start-up
// by one goroutine.
type Config struct {
	files          []string
	set            []string // known options the files or the command line set, canonical keys
	ignored        []string
	deprecatedUsed []string
	values         *option.Values
	binder         *option.Binder
}

// Values returns the option values of this configuration.
func (c *Config) Values() *option.Values { return c.values }

// Binder returns the Binder of this configuration: every component a
// process builds binds its options through it (option.Binder.For), so
// that its Read and Effective cover the whole process.
func (c *Config) Binder() *option.Binder {
	if c.binder == nil {
		c.binder = option.NewBinder(c.values)
	}
	return c.binder
}

// Files returns the configuration files that were read, in order.
func (c *Config) Files() []string { return append([]string(nil), c.files...) }

// Ignored returns the options the files set that no version of Ironic
// knows, as sorted, de-duplicated "section.option" strings. They are
// accepted and have no effect; they are usually typos or options of
// plugins this service does not have.
func (c *Config) Ignored() []string { return append([]string(nil), c.ignored...) }

// NotImplemented returns the options Ironic knows that the files or the
// command line set but that are not among implemented (the options the
// components of this service bind, sorted "section.name" keys, as
// option.Binder.Read returns them), as sorted "section.option" strings.
func (c *Config) NotImplemented(implemented []string) []string {
	impl := make(map[string]bool, len(implemented))
	for _, k := range implemented {
		impl[k] = true
	}
	var out []string
	for _, k := range c.set {
		if !impl[k] {
			out = append(out, k)
		}
	}
	return out
}

// Deprecated returns the deprecated option names the files used, as
// "old.name (use section.name)" strings.
func (c *Config) Deprecated() []string { return append([]string(nil), c.deprecatedUsed...) }

// IsSet tells whether a file or the command line set the option (under
// its current or a deprecated name). Defaults, including the all-in-one
// defaults, do not count.
func (c *Config) IsSet(section, name string) bool { return c.values.IsSet(section, name) }

// Report logs, once, what a service should tell the operator about its
// configuration: the files read, and the ignored, not implemented (see
// NotImplemented) and deprecated options the files set.
func (c *Config) Report(ctx context.Context, log *slog.Logger, implemented []string) {
	if len(c.files) == 0 {
		log.InfoContext(ctx, "no configuration file read, using defaults")
	} else {
		log.InfoContext(ctx, "configuration read", "files", strings.Join(c.files, ", "))
	}
	if len(c.ignored) > 0 {
		log.WarnContext(ctx, "ignoring unknown configuration options", "options", strings.Join(c.ignored, ", "))
	}
	if ni := c.NotImplemented(implemented); len(ni) > 0 {
		log.WarnContext(ctx, "configuration options not implemented by this service have no effect", "options", strings.Join(ni, ", "))
	}
	if len(c.deprecatedUsed) > 0 {
		log.WarnContext(ctx, "deprecated configuration option names in use", "options", strings.Join(c.deprecatedUsed, ", "))
	}
}
