package inspector

import "github.com/goironic/ironic/option"

// Bind reads [inspector] (the interface's options; the client's are
// inspectorclient's), [inventory]data_backend, and for fast track
// [deploy]fast_track and [service_catalog]endpoint_override.
func (c *Config) Bind(b *option.Binder) {
	b.Seconds(&c.StatusCheckPeriod, "inspector", "status_check_period")
	b.String(&c.ExtraKernelParams, "inspector", "extra_kernel_params")
	b.Bool(&c.PowerOff, "inspector", "power_off")
	b.String(&c.CallbackEndpointOverride, "inspector", "callback_endpoint_override")
	b.Bool(&c.RequireManagedBoot, "inspector", "require_managed_boot")
	b.String(&c.DataBackend, "inventory", "data_backend")
	b.Bool(&c.FastTrack, "deploy", "fast_track")
	b.String(&c.APIURL, "service_catalog", "endpoint_override")
}
