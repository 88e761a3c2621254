package policy

import "github.com/goironic/ironic/option"

// Bind reads [oslo_policy] and the [DEFAULT] options the rules use.
// ConfigDirs is not an option: the caller sets it (SearchDirs).
func (c *Config) Bind(b *option.Binder) {
	b.Bool(&c.EnforceScope, "oslo_policy", "enforce_scope")
	b.Bool(&c.EnforceNewDefaults, "oslo_policy", "enforce_new_defaults")
	b.String(&c.PolicyFile, "oslo_policy", "policy_file")
	c.PolicyFileSet = b.IsSet("oslo_policy", "policy_file")
	b.List(&c.PolicyDirs, "oslo_policy", "policy_dirs")
	b.String(&c.DefaultRule, "oslo_policy", "policy_default_rule")
	b.String(&c.AuthStrategy, "DEFAULT", "auth_strategy")
	b.Bool(&c.ServiceRoleElevatedAccess, "DEFAULT", "rbac_service_role_elevated_access")
	b.String(&c.ServiceProjectName, "DEFAULT", "rbac_service_project_name")
}
