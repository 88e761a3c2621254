package policy

import (
	"strings"

	"github.com/goironic/ironic"
)

// maxDepth bounds rule:NAME indirections. A cycle ("a": "rule:b",
// "b": "rule:a") recurses until Python's RecursionError (a 500); here it
// fails closed.
const maxDepth = 64

// evalCtx is one evaluation: the caller (oslo.policy's creds, from the
// request context as Ironic's RequestContext.to_policy_values() builds
// them) and the target. It lives on the caller's stack.
type evalCtx struct {
	rc *ironic.RequestContext
	// target holds what Ironic adds to dict(cdict): node.owner,
	// node.lessee, allocation.owner, ... as Python's str() renders them.
	target map[string]string
	// svcProject is config.service_project_name, present when
	// rbac_service_role_elevated_access is on.
	svcProject    string
	hasSvcProject bool
	depth         int
}

func (n *node) eval(c *evalCtx) bool {
	switch n.op {
	case opTrue:
		return true
	case opAnd:
		for _, k := range n.kids {
			if !k.eval(c) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range n.kids {
			if k.eval(c) {
				return true
			}
		}
		return false
	case opNot:
		return !n.kids[0].eval(c)
	case opRule:
		if n.ref == nil || c.depth >= maxDepth {
			return false
		}
		c.depth++
		ok := n.ref.eval(c)
		c.depth--
		return ok
	case opRole:
		m, ok := n.match.render(c)
		if !ok {
			return false
		}
		for _, r := range c.rc.Roles {
			if r == m || strings.EqualFold(r, m) {
				return true
			}
		}
		return false
	case opGeneric:
		m, ok := n.match.render(c)
		if !ok {
			return false
		}
		if n.isLiteral {
			return m == n.literal
		}
		return c.credMatches(n.path, m)
	}
	return false // opFalse, opHTTP
}

// render is "match % target": false when a key is missing.
func (t *template) render(c *evalCtx) (string, bool) {
	switch {
	case t.bad:
		return "", false
	case t.single != "":
		return c.targetValue(t.single)
	case t.parts == nil:
		return t.lit, true
	}
	var b strings.Builder
	for _, p := range t.parts {
		if !p.isKey {
			b.WriteString(p.text)
			continue
		}
		v, ok := c.targetValue(p.text)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// targetValue is str(target[key]) for Ironic's target, dict(cdict)
// updated with the object's attributes.
func (c *evalCtx) targetValue(key string) (string, bool) {
	if v, ok := c.target[key]; ok {
		return v, true
	}
	return c.credValue(key, false)
}

// pyNone is how Python's str() renders None, in creds and targets.
const pyNone = "None"

func pyStr(s string) string {
	if s == "" {
		return pyNone
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// credValue is str(creds[key]) for the scalar policy values of Ironic's
// RequestContext.to_policy_values(); withSystem adds the "system" key
// oslo.policy puts into creds (not into the target) for system-scoped
// callers. Lists render as Python's repr.
func (c *evalCtx) credValue(key string, withSystem bool) (string, bool) {
	rc := c.rc
	switch key {
	case "user_id":
		return pyStr(rc.UserID), true
	case "user_domain_id":
		return pyStr(rc.UserDomainID), true
	case "system_scope":
		return pyStr(rc.SystemScope), true
	case "domain_id":
		return pyStr(rc.DomainID), true
	case "project_id":
		return pyStr(rc.ProjectID), true
	case "project_domain_id":
		return pyStr(rc.ProjectDomainID), true
	case "project_name":
		return pyStr(rc.ProjectName), true
	case "is_admin_project":
		return pyBool(rc.IsAdminProject == nil || *rc.IsAdminProject), true
	case "is_public_api":
		return pyBool(rc.IsPublicAPI), true
	case "service_user_id", "service_user_domain_id", "service_project_id", "service_project_domain_id":
		// Not carried by our RequestContext: always None.
		return pyNone, true
	case "roles":
		return pyListRepr(rc.Roles), true
	case "service_roles":
		return pyListRepr(rc.ServiceRoles), true
	case "config.service_project_name":
		if c.hasSvcProject {
			return c.svcProject, true
		}
	case "system":
		if withSystem && rc.SystemScope != "" {
			return rc.SystemScope, true
		}
	}
	return "", false
}

// credMatches is GenericCheck's _find_in_dict over the creds: the kind's
// first segment names a policy value; a list matches when any element
// equals the match. Policy values hold no dictionaries, so a longer path
// never matches.
func (c *evalCtx) credMatches(path []string, match string) bool {
	if len(path) != 1 {
		return false
	}
	switch path[0] {
	case "roles":
		for _, r := range c.rc.Roles {
			if r == match {
				return true
			}
		}
		return false
	case "service_roles":
		for _, r := range c.rc.ServiceRoles {
			if r == match {
				return true
			}
		}
		return false
	}
	v, ok := c.credValue(path[0], true)
	return ok && v == match
}

// pyListRepr is Python's repr of a list of str.
func pyListRepr(l []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyStrRepr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyStrRepr is Python's repr of a str (printable ASCII and the common
// escapes).
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// tokenScope is the scope oslo.policy's _enforce_scope sees: system when
// the token is system-scoped, domain when domain-scoped, else project.
func tokenScope(rc *ironic.RequestContext) string {
	switch {
	case rc.SystemScope != "":
		return "system"
	case rc.DomainID != "":
		return "domain"
	}
	return "project"
}
