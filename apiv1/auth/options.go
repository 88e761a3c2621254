package auth

import "github.com/goironic/ironic/option"

// Bind reads [DEFAULT]auth_strategy, http_basic_auth_user_file and
// [keystone_authtoken]. PublicRoutes is not an option.
func (c *Config) Bind(b *option.Binder) {
	b.String((*string)(&c.Strategy), "DEFAULT", "auth_strategy")
	b.String(&c.HTTPBasicAuthUserFile, "DEFAULT", "http_basic_auth_user_file")
	c.Keystone.Bind(b)
}

// Bind reads the [keystone_authtoken] options keystonemiddleware's
// auth_token reads, except memcached_servers: validated tokens are
// cached in-process.
func (c *KeystoneConfig) Bind(b *option.Binder) {
	const s = "keystone_authtoken"
	for _, o := range []struct {
		p    *string
		name string
	}{
		{&c.WWWAuthenticateURI, "www_authenticate_uri"},
		{&c.AuthType, "auth_type"}, {&c.AuthURL, "auth_url"},
		{&c.Username, "username"}, {&c.UserID, "user_id"}, {&c.Password, "password"},
		{&c.UserDomainName, "user_domain_name"}, {&c.UserDomainID, "user_domain_id"},
		{&c.ProjectName, "project_name"}, {&c.ProjectID, "project_id"},
		{&c.ProjectDomainName, "project_domain_name"}, {&c.ProjectDomainID, "project_domain_id"},
		{&c.SystemScope, "system_scope"}, {&c.Interface, "interface"}, {&c.RegionName, "region_name"},
		{&c.ServiceType, "service_type"},
		{&c.AppCredentialID, "application_credential_id"}, {&c.AppCredentialName, "application_credential_name"},
		{&c.AppCredentialSecret, "application_credential_secret"},
		{&c.CAFile, "cafile"}, {&c.CertFile, "certfile"}, {&c.KeyFile, "keyfile"},
	} {
		b.String(o.p, s, o.name)
	}
	b.Seconds(&c.TokenCacheTime, s, "token_cache_time")
	b.List(&c.ServiceTokenRoles, s, "service_token_roles")
	b.Bool(&c.ServiceTokenRolesRequired, s, "service_token_roles_required")
	b.Bool(&c.DelayAuthDecision, s, "delay_auth_decision")
	b.Bool(&c.IncludeServiceCatalog, s, "include_service_catalog")
	b.Seconds(&c.HTTPConnectTimeout, s, "http_connect_timeout")
	b.Int(&c.HTTPRequestMaxRetries, s, "http_request_max_retries")
	b.Bool(&c.Insecure, s, "insecure")
}
