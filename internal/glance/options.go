package glance

import "github.com/goironic/ironic/option"

// Bind reads [glance]: the keystoneauth options and every [glance] option
// Ironic 21.4's GlanceImageService reads.
func (c *Config) Bind(b *option.Binder) {
	c.Options.Bind(b, "glance")
	b.String(&c.SwiftTempURLKey, "glance", "swift_temp_url_key")
	b.Int(&c.SwiftTempURLDuration, "glance", "swift_temp_url_duration")
	b.Bool(&c.SwiftTempURLCacheEnabled, "glance", "swift_temp_url_cache_enabled")
	b.Int(&c.SwiftTempURLExpectedDownloadStartDelay, "glance", "swift_temp_url_expected_download_start_delay")
	b.String(&c.SwiftEndpointURL, "glance", "swift_endpoint_url")
	b.String(&c.SwiftAPIVersion, "glance", "swift_api_version")
	b.String(&c.SwiftAccount, "glance", "swift_account")
	b.String(&c.SwiftAccountPrefix, "glance", "swift_account_prefix")
	b.String(&c.SwiftContainer, "glance", "swift_container")
	b.Int(&c.SwiftStoreMultipleContainersSeed, "glance", "swift_store_multiple_containers_seed")
	b.Int(&c.NumRetries, "glance", "num_retries")
}
