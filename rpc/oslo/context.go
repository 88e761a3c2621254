package oslo

import (
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/internal/rawjson"
)

// The request context travels as one "_context_<key>" member per item of
// Ironic's RequestContext.to_dict() (oslo.context 5.0 plus
// auth_token_info), in that order.

func appendOptStr(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return pyjson.AppendString(dst, s)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// UserIdentity is oslo.context's user_identity: "user project domain
// user_domain project_domain" with "-" for what is unset.
func UserIdentity(rc *ironic.RequestContext) string {
	return strings.Join([]string{
		dashIfEmpty(rc.UserID), dashIfEmpty(rc.ProjectID), dashIfEmpty(rc.DomainID),
		dashIfEmpty(rc.UserDomainID), dashIfEmpty(rc.ProjectDomainID),
	}, " ")
}

func appendContext(dst []byte, rc *ironic.RequestContext) []byte {
	if rc == nil {
		rc = &ironic.RequestContext{}
	}
	kv := func(k string) {
		dst = append(dst, `, "_context_`...)
		dst = append(dst, k...)
		dst = append(dst, `": `...)
	}
	kv("user")
	dst = appendOptStr(dst, rc.UserID)
	kv("project_id")
	dst = appendOptStr(dst, rc.ProjectID)
	kv("system_scope")
	dst = appendOptStr(dst, rc.SystemScope)
	kv("project")
	dst = appendOptStr(dst, rc.ProjectID)
	kv("domain")
	dst = appendOptStr(dst, rc.DomainID)
	kv("user_domain")
	dst = appendOptStr(dst, rc.UserDomainID)
	kv("project_domain")
	dst = appendOptStr(dst, rc.ProjectDomainID)
	kv("is_admin")
	dst = appendBool(dst, rc.IsAdmin)
	kv("read_only")
	dst = appendBool(dst, rc.ReadOnly)
	kv("show_deleted")
	dst = appendBool(dst, rc.ShowDeleted)
	kv("auth_token")
	dst = appendOptStr(dst, rc.AuthToken)
	kv("request_id")
	dst = appendOptStr(dst, rc.RequestID)
	kv("global_request_id")
	dst = appendOptStr(dst, rc.GlobalRequest)
	kv("resource_uuid")
	dst = appendOptStr(dst, rc.ResourceUUID)
	kv("roles")
	roles := rc.Roles
	if roles == nil {
		roles = []string{}
	}
	dst, _ = pyjson.Append(dst, roles)
	kv("user_identity")
	dst = pyjson.AppendString(dst, UserIdentity(rc))
	kv("is_admin_project")
	dst = appendBool(dst, rc.IsAdminProject == nil || *rc.IsAdminProject)
	kv("auth_token_info")
	if rc.AuthTokenInfo == nil {
		dst = append(dst, "null"...)
	} else {
		dst, _ = pyjson.Append(dst, rc.AuthTokenInfo)
	}
	return dst
}

// decodeContext rebuilds the request context from a message's _context_*
// members, as RequestContext.from_dict does (unknown keys are ignored).
func decodeContext(o rawjson.Object) (*ironic.RequestContext, error) {
	rc := &ironic.RequestContext{}
	var project, projectID string
	for _, m := range o {
		key, ok := strings.CutPrefix(m.Key, "_context_")
		if !ok {
			continue
		}
		var err error
		str := func(p *string) {
			var s *string
			if s, err = rawjson.DecodeOptString(m.Raw); s != nil {
				*p = *s
			}
		}
		boolean := func(p *bool) {
			if rawjson.IsNull(m.Raw) {
				return
			}
			*p, err = rawjson.DecodeBool(m.Raw)
		}
		switch key {
		case "user", "user_id":
			str(&rc.UserID)
		case "project_id", "tenant":
			str(&projectID)
		case "project":
			str(&project)
		case "system_scope":
			str(&rc.SystemScope)
		case "domain", "domain_id":
			str(&rc.DomainID)
		case "user_domain", "user_domain_id":
			str(&rc.UserDomainID)
		case "project_domain", "project_domain_id":
			str(&rc.ProjectDomainID)
		case "is_admin":
			boolean(&rc.IsAdmin)
		case "read_only":
			boolean(&rc.ReadOnly)
		case "show_deleted":
			boolean(&rc.ShowDeleted)
		case "auth_token":
			str(&rc.AuthToken)
		case "request_id":
			str(&rc.RequestID)
		case "global_request_id":
			str(&rc.GlobalRequest)
		case "resource_uuid":
			str(&rc.ResourceUUID)
		case "user_name":
			str(&rc.UserName)
		case "project_name":
			str(&rc.ProjectName)
		case "roles":
			rc.Roles, err = rawjson.DecodeStrings(m.Raw)
		case "is_admin_project":
			if !rawjson.IsNull(m.Raw) {
				var b bool
				if b, err = rawjson.DecodeBool(m.Raw); err == nil && !b {
					rc.IsAdminProject = &b
				}
			}
		case "auth_token_info":
			// The root package holds it as a map (it imports no
			// internal package): Keystone's order is not kept.
			var d *pyjson.Dict
			if d, err = rawjson.DecodeDict(m.Raw); err == nil {
				rc.AuthTokenInfo = d.Map()
			}
		}
		if err != nil {
			return nil, fmt.Errorf("oslo: context %s: %w", key, err)
		}
	}
	rc.ProjectID = projectID
	if rc.ProjectID == "" {
		rc.ProjectID = project
	}
	return rc, nil
}

// AppendContextDict writes rc as RequestContext.to_dict() does: the
// members of a message's _context_* keys, as one JSON object (json-rpc
// sends it as the "context" parameter).
func AppendContextDict(dst []byte, rc *ironic.RequestContext) []byte {
	members := appendContext(nil, rc)
	dst = append(dst, '{')
	first := true
	for _, m := range splitContext(append(append([]byte("{"), members[2:]...), '}')) {
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = pyjson.AppendString(dst, strings.TrimPrefix(m.Key, "_context_"))
		dst = append(dst, ": "...)
		dst = append(dst, m.Raw...)
	}
	return append(dst, '}')
}

func splitContext(b []byte) rawjson.Object {
	// appendContext writes valid JSON; an error cannot happen.
	o, _ := rawjson.SplitObject(b)
	return o
}

// DecodeContextDict reads a context written by RequestContext.to_dict().
func DecodeContextDict(raw []byte) (*ironic.RequestContext, error) {
	o, err := rawjson.SplitObject(raw)
	if err != nil {
		return nil, err
	}
	prefixed := make(rawjson.Object, len(o))
	for i, m := range o {
		prefixed[i] = rawjson.Member{Key: "_context_" + m.Key, Raw: m.Raw}
	}
	return decodeContext(prefixed)
}
