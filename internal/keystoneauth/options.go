package keystoneauth

import "github.com/goironic/ironic/option"

// Bind reads the keystoneauth options of section ([neutron], [cinder],
// ...): the auth plugin's, the session's and the adapter's.
func (o *Options) Bind(b *option.Binder, section string) {
	o.BindSession(b, section)
	for _, s := range []struct {
		p    *string
		name string
	}{
		{&o.ServiceType, "service_type"}, {&o.ServiceName, "service_name"}, {&o.RegionName, "region_name"},
		{&o.EndpointOverride, "endpoint_override"},
	} {
		b.String(s.p, section, s.name)
	}
	b.List(&o.ValidInterfaces, section, "valid_interfaces")
}

// BindSession reads the auth plugins' and the session's options of
// section, for a client that finds its service by itself (json-rpc):
// sections without the adapter's options.
func (o *Options) BindSession(b *option.Binder, section string) {
	for _, s := range []struct {
		p    *string
		name string
	}{
		{&o.AuthType, "auth_type"}, {&o.AuthURL, "auth_url"},
		{&o.Username, "username"}, {&o.UserID, "user_id"}, {&o.Password, "password"},
		{&o.ProjectName, "project_name"}, {&o.ProjectID, "project_id"},
		{&o.UserDomainName, "user_domain_name"}, {&o.UserDomainID, "user_domain_id"},
		{&o.ProjectDomainName, "project_domain_name"}, {&o.ProjectDomainID, "project_domain_id"},
		{&o.SystemScope, "system_scope"},
		{&o.AppCredentialID, "application_credential_id"}, {&o.AppCredentialName, "application_credential_name"},
		{&o.AppCredentialSecret, "application_credential_secret"},
		{&o.CAFile, "cafile"}, {&o.CertFile, "certfile"}, {&o.KeyFile, "keyfile"},
	} {
		b.String(s.p, section, s.name)
	}
	b.Bool(&o.Insecure, section, "insecure")
	b.Seconds(&o.Timeout, section, "timeout")
}
