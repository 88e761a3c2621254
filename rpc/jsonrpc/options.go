package jsonrpc

import "github.com/goironic/ironic/option"

// Bind reads the server's [json_rpc] options and [DEFAULT]auth_strategy.
func (c *ServerConfig) Bind(b *option.Binder) {
	b.String(&c.AuthStrategy, "json_rpc", "auth_strategy")
	b.String(&c.DefaultAuthStrategy, "DEFAULT", "auth_strategy")
	b.String(&c.HTTPBasicAuthUserFile, "json_rpc", "http_basic_auth_user_file")
	b.List(&c.AllowedRoles, "json_rpc", "allowed_roles")
	b.Bool(&c.UseSSL, "json_rpc", "use_ssl")
}

// Bind reads the client's [json_rpc] options and [DEFAULT]auth_strategy.
// Timeout ([DEFAULT]rpc_response_timeout) is the wiring's. Of the
// keystoneauth options the table lists under [json_rpc], tenant_id and
// tenant_name (v2 only), collect_timing and split_loggers are not read.
func (c *ClientConfig) Bind(b *option.Binder) {
	const s = "json_rpc"
	b.Int(&c.Port, s, "port")
	b.String(&c.AuthStrategy, s, "auth_strategy")
	b.String(&c.DefaultAuthStrategy, "DEFAULT", "auth_strategy")
	b.Bool(&c.UseSSL, s, "use_ssl")
	b.String(&c.Username, s, "http_basic_username")
	b.String(&c.Password, s, "http_basic_password")
	c.Session.Section = s // for keystoneauth's messages
	c.Session.BindSession(b, s)
	// The password plugin's options the other sections do not read.
	for _, f := range []struct {
		p    *string
		name string
	}{
		{&c.Session.DomainName, "domain_name"}, {&c.Session.DomainID, "domain_id"},
		{&c.DefaultDomainID, "default_domain_id"}, {&c.DefaultDomainName, "default_domain_name"},
		{&c.TrustID, "trust_id"},
	} {
		b.String(f.p, s, f.name)
	}
}
