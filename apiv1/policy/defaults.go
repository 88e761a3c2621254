package policy

// Rule is one registered rule default of Ironic (oslo.policy's RuleDefault
// or DocumentedRuleDefault), as ironic.common.policy.list_policies()
// registers it.
type Rule struct {
	Name     string
	CheckStr string
	// Description is the help text the sample file shows.
	Description string
	// Operations are the API calls the rule guards; nil for a plain
	// RuleDefault (a base rule that other rules reference).
	Operations []Operation
	// ScopeTypes are the token scopes ("system", "project", "domain") the
	// rule is meant for; nil when the rule does not say.
	ScopeTypes []string
	// DeprecatedForRemoval marks a rule that is going away (with
	// DeprecatedReason and DeprecatedSince).
	DeprecatedForRemoval bool
	DeprecatedReason     string
	DeprecatedSince      string
	// Deprecated is the rule this one replaced: with enforce_new_defaults
	// off, the check is this rule's check OR the deprecated one.
	Deprecated *DeprecatedRule
}

// Operation is one API call a rule guards.
type Operation struct {
	Method string
	Path   string
}

// DeprecatedRule is the name and check string a rule had before Ironic's
// secure-RBAC defaults.
type DeprecatedRule struct {
	Name             string
	CheckStr         string
	DeprecatedReason string
	DeprecatedSince  string
}
