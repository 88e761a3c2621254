// Package policy is Ironic's policy engine: the rule defaults of Ironic
// 21.4 (Defaults), oslo.policy's rule language and enforcement semantics
// (Enforcer), and the sample policy file (WriteSample).
//
// The enforcer reproduces oslo.policy 4.0 as Ironic configures it: rules
// from policy_file and policy_dirs override the registered defaults; with
// enforce_new_defaults off a rule that replaced a deprecated one is "new
// OR deprecated"; with enforce_scope on a token whose scope is not among
// the rule's scope_types is refused with oslo.policy's InvalidScope, which
// Ironic answers with a 500. Rules are parsed once, in New; Authorize and
// Check only evaluate.
//
// Credentials are those of Ironic's RequestContext.to_policy_values(),
// read from the ironic.RequestContext in the call's context. A target
// holds the attributes Ironic adds to its copy of those credentials
// (node.owner, node.lessee, allocation.owner), already rendered as
// Python's str() would: a Python None is the string "None", and a key
// Ironic leaves out must be absent.
package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/goironic/ironic"
)

// Config is the policy configuration, as ironic.conf sets it.
type Config struct {
	// EnforceScope is [oslo_policy] enforce_scope: refuse a token whose
	// scope (system, domain, project) is not among the rule's scope
	// types. Off, scope is not checked.
	EnforceScope bool
	// EnforceNewDefaults is [oslo_policy] enforce_new_defaults: off, a
	// rule with a deprecated predecessor also allows what the deprecated
	// check string allowed (unless the policy file overrides the rule).
	EnforceNewDefaults bool
	// PolicyFile is [oslo_policy] policy_file (Ironic's default:
	// "policy.yaml"). A relative name is looked up in ConfigDirs; a file
	// that is not found is no error, and then the defaults apply. When
	// the name is "policy.yaml" and no such file exists, "policy.json" is
	// used if found (oslo.policy's fallback), unless PolicyFileSet.
	// Empty: no file.
	PolicyFile string
	// PolicyFileSet says ironic.conf names policy_file explicitly
	// (option.Binder.IsSet): oslo.policy then never falls back to
	// policy.json.
	PolicyFileSet bool
	// PolicyDirs is [oslo_policy] policy_dirs (default ["policy.d"]):
	// directories, looked up like PolicyFile, whose files (sorted, not
	// hidden, not recursive) are applied over the policy file.
	PolicyDirs []string
	// ConfigDirs is the search path for relative PolicyFile and
	// PolicyDirs names, in order; SearchDirs builds oslo.config's.
	ConfigDirs []string
	// DefaultRule is [oslo_policy] policy_default_rule (oslo's default:
	// "default"): the rule used for a rule name that is not defined, when
	// a rule of that name is. Empty: none.
	DefaultRule string
	// AuthStrategy is [DEFAULT] auth_strategy. Ironic enforces policy
	// only with "keystone" (the default when empty): otherwise Authorize
	// allows everything and CheckPolicy is true, while Enforce still
	// evaluates (see Check).
	AuthStrategy string
	// ServiceRoleElevatedAccess and ServiceProjectName are [DEFAULT]
	// rbac_service_role_elevated_access and rbac_service_project_name:
	// when on, the credentials carry config.service_project_name, which
	// the default "service_role" rule compares with the project name.
	ServiceRoleElevatedAccess bool
	ServiceProjectName        string
}

// Enforcer evaluates Ironic's policy rules. It is safe for concurrent
// use; its rules do not change after New.
type Enforcer struct {
	cfg          Config
	rs           atomic.Pointer[ruleSet]
	enforceScope bool
	keystone     bool
	svcProject   string
	hasSvc       bool
	log          *slog.Logger
}

// ruleSet is the rules in force, replaced whole by Reload.
type ruleSet struct {
	rules       map[string]*entry
	defaultRule *entry // nil: no default rule
	files       []fileStamp
}

// entry is one rule as enforced: its check (the file's override, or the
// default with deprecation handling) and, for registered rules, what
// the scope check needs.
type entry struct {
	name       string
	check      *node
	registered bool
	scopeTypes []string
	// scopeMsg is oslo.policy's InvalidScope text up to the token's
	// scope: `"NAME": "DEFAULT CHECK" requires a scope of ['system'],
	// request was made with `.
	scopeMsg string
}

// SearchDirs returns the directories oslo.config's find_file searches
// for a relative policy file name, in order: the --config-dir
// directories, the directories of the --config-file files (last file
// first), then ~/.ironic, ~, /etc/ironic and /etc.
func SearchDirs(configDirs, configFiles []string) []string {
	var dirs []string
	for _, d := range configDirs {
		dirs = append(dirs, fixPath(d))
	}
	for i := len(configFiles) - 1; i >= 0; i-- {
		dirs = append(dirs, filepath.Dir(fixPath(configFiles[i])))
	}
	dirs = append(dirs, fixPath("~/.ironic"), fixPath("~"), "/etc/ironic", "/etc")
	return dirs
}

// fixPath is oslo.config's _fixpath: ~ expansion and an absolute path.
func fixPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// New builds an enforcer from Ironic's defaults and the configured policy
// file and directories. It fails when a policy file cannot be read or
// parsed (the error names the file and line) or holds a rule that is
// neither a string nor a list; a rule whose text oslo.policy cannot
// parse is logged and denies, as oslo.policy does.
func New(cfg Config, log *slog.Logger) (*Enforcer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Enforcer{
		cfg:          cfg,
		enforceScope: cfg.EnforceScope,
		keystone:     cfg.AuthStrategy == "" || cfg.AuthStrategy == "keystone",
		svcProject:   cfg.ServiceProjectName,
		hasSvc:       cfg.ServiceRoleElevatedAccess,
		log:          log,
	}
	rs, err := e.load(policyFiles(cfg))
	if err != nil {
		return nil, err
	}
	e.rs.Store(rs)
	return e, nil
}

// fileStamp identifies the content of one policy file as loaded.
type fileStamp struct {
	path    string
	size    int64
	modTime time.Time
}

// policyFiles finds the policy file and the files of the policy
// directories, in the order they apply, with their stamps. A directory
// entry that is not a directory is reported as an error stamp (size -1).
func policyFiles(cfg Config) []fileStamp {
	var files []fileStamp
	add := func(path string) {
		st, err := os.Stat(path)
		if err != nil {
			files = append(files, fileStamp{path: path, size: -1})
			return
		}
		files = append(files, fileStamp{path: path, size: st.Size(), modTime: st.ModTime()})
	}
	if cfg.PolicyFile != "" {
		path, ok := findFile(cfg.ConfigDirs, cfg.PolicyFile)
		if !ok && cfg.PolicyFile == "policy.yaml" && !cfg.PolicyFileSet {
			path, ok = findFile(cfg.ConfigDirs, "policy.json")
		}
		if ok {
			add(path)
		}
	}
	for _, d := range cfg.PolicyDirs {
		dir, ok := findFile(cfg.ConfigDirs, d)
		if !ok {
			continue
		}
		names, err := policyDirFiles(dir)
		if err != nil {
			files = append(files, fileStamp{path: dir, size: -1})
			continue
		}
		for _, f := range names {
			add(f)
		}
	}
	return files
}

// load parses the policy files over Ironic's defaults into a rule set.
func (e *Enforcer) load(files []fileStamp) (*ruleSet, error) {
	cfg, log := e.cfg, e.log
	rs := &ruleSet{rules: map[string]*entry{}, files: files}
	fileRules := map[string]*node{}
	var fileOrder []string
	for _, f := range files {
		if f.size < 0 {
			if st, err := os.Stat(f.path); err == nil && st.IsDir() {
				return nil, fmt.Errorf("policy directory %s cannot be read", f.path)
			}
			return nil, fmt.Errorf("policy path %s is not a readable file or directory", f.path)
		}
		rules, order, err := loadPolicyFile(f.path, log)
		if err != nil {
			return nil, err
		}
		for _, name := range order {
			if _, ok := fileRules[name]; !ok {
				fileOrder = append(fileOrder, name)
			}
			fileRules[name] = rules[name]
		}
		log.Debug("loaded policy file", "path", f.path, "rules", len(order))
	}
	if len(files) == 0 && cfg.PolicyFile != "" {
		log.Debug("The policy file could not be found", "policy_file", cfg.PolicyFile)
	}

	for _, name := range fileOrder {
		rs.rules[name] = &entry{name: name, check: fileRules[name]}
	}
	for _, def := range Defaults() {
		check, problem := parseRule(def.CheckStr)
		if problem != "" {
			log.Error(problem, "rule", def.Name)
		}
		if def.Deprecated != nil {
			check = deprecatedCheck(&def, check, fileRules, cfg.EnforceNewDefaults, log)
		}
		en := rs.rules[def.Name]
		if en == nil {
			en = &entry{name: def.Name, check: check}
			rs.rules[def.Name] = en
		}
		en.registered = true
		if len(def.ScopeTypes) > 0 {
			en.scopeTypes = def.ScopeTypes
			en.scopeMsg = `"` + def.Name + `": "` + def.CheckStr + `" requires a scope of ` +
				pyListRepr(def.ScopeTypes) + ", request was made with "
		}
	}
	if cfg.DefaultRule != "" {
		rs.defaultRule = rs.rules[cfg.DefaultRule]
	}
	rs.link(log)
	return rs, nil
}

// Reload re-reads the policy files when they changed (a file added,
// removed, resized or touched), as oslo.policy does on every check, and
// reports whether it did. On an error the rules in force stay.
func (e *Enforcer) Reload() (bool, error) {
	files := policyFiles(e.cfg)
	if slices.Equal(files, e.rs.Load().files) {
		return false, nil
	}
	rs, err := e.load(files)
	if err != nil {
		return false, err
	}
	e.rs.Store(rs)
	return true, nil
}

// Watch calls Reload every interval until ctx ends, logging what it
// does: oslo.policy notices an edited policy file at the next check;
// here within interval. It returns nil when ctx ends.
func (e *Enforcer) Watch(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			switch changed, err := e.Reload(); {
			case err != nil:
				e.log.ErrorContext(ctx, "policy files not reloaded; the previous rules stay in force", "error", err)
			case changed:
				e.log.InfoContext(ctx, "policy files reloaded")
			}
		}
	}
}

// deprecatedCheck is oslo.policy's _handle_deprecated_rule for a rule
// the policy files do not override: an override of the deprecated name
// (other than "rule:NEW") replaces the new default; with
// enforce_new_defaults off, a changed default also allows what the
// deprecated check string allowed.
func deprecatedCheck(def *Rule, check *node, fileRules map[string]*node, enforceNew bool, log *slog.Logger) *node {
	dep := def.Deprecated
	if _, overridden := fileRules[def.Name]; overridden {
		return check
	}
	if old, ok := fileRules[dep.Name]; ok && dep.Name != def.Name {
		log.Warn("Policy overrides a deprecated rule name", "deprecated", dep.Name, "rule", def.Name)
		if old.op != opRule || old.match.src != def.Name {
			return old
		}
	}
	if !enforceNew && dep.CheckStr != def.CheckStr {
		old, problem := parseRule(dep.CheckStr)
		if problem != "" {
			log.Error(problem, "rule", dep.Name)
		}
		return &node{op: opOr, kids: []*node{check, old}}
	}
	return check
}

// link binds every rule:NAME to its rule (or to the default rule when
// NAME is undefined), and logs, like oslo.policy's check_rules, rules
// that reference undefined rules or take part in a cycle.
func (e *ruleSet) link(log *slog.Logger) {
	var undefined []string
	names := make([]string, 0, len(e.rules))
	for name := range e.rules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		missing := false
		walk(e.rules[name].check, func(n *node) {
			if n.op != opRule {
				return
			}
			if r := e.rules[n.match.src]; r != nil {
				n.ref = r.check
				return
			}
			missing = true
			if e.defaultRule != nil {
				n.ref = e.defaultRule.check
			}
		})
		if missing {
			undefined = append(undefined, name)
		}
	}
	if len(undefined) > 0 {
		log.Warn("Policies reference a rule that is not defined", "policies", undefined)
	}
	var cyclic []string
	for _, name := range names {
		if hasCycle(e.rules[name].check, nil) {
			cyclic = append(cyclic, name)
		}
	}
	if len(cyclic) > 0 {
		log.Warn("Policies are part of a cyclical reference", "policies", cyclic)
	}
	for _, name := range names {
		walk(e.rules[name].check, func(n *node) {
			switch {
			case n.op == opHTTP:
				log.Warn("Remote (http/https) policy checks are not supported: the check denies", "rule", name, "check", n.String())
			case (n.op == opRole || n.op == opGeneric) && n.match.bad:
				log.Warn("Unsupported format in policy check: the check denies", "rule", name, "check", n.String())
			}
		})
	}
}

// walk visits n and its operands (not the rules it references).
func walk(n *node, f func(*node)) {
	f(n)
	for _, k := range n.kids {
		walk(k, f)
	}
}

// hasCycle is oslo.policy's _cycle_check.
func hasCycle(n *node, seen []*node) bool {
	if n.op == opRule && n.ref != nil {
		if slices.Contains(seen, n.ref) {
			return true
		}
		if hasCycle(n.ref, append(slices.Clip(seen), n.ref)) {
			return true
		}
	}
	for _, k := range n.kids {
		if hasCycle(k, seen) {
			return true
		}
	}
	return false
}

// findFile is oslo.config's find_file: the first existing dir/name (an
// absolute name is used as it is).
func findFile(dirs []string, name string) (string, bool) {
	if filepath.IsAbs(name) {
		_, err := os.Stat(name)
		return name, err == nil
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// policyDirFiles lists a policy directory as oslo.policy walks it: the
// files directly in it, sorted, without hidden ones.
func policyDirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("policy directory %s: %w", dir, err)
	}
	var files []string
	for _, en := range entries {
		if en.IsDir() || strings.HasPrefix(en.Name(), ".") {
			continue
		}
		if en.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, en.Name())); err != nil || st.IsDir() {
				continue
			}
		}
		files = append(files, filepath.Join(dir, en.Name()))
	}
	sort.Strings(files)
	return files, nil
}

// loadPolicyFile parses a policy file, YAML or JSON, into checks, with
// the rule names in file order.
func loadPolicyFile(path string, log *slog.Logger) (map[string]*node, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("policy file %s: %w", path, err)
	}
	rules, order, err := parsePolicyData(data, log)
	if err != nil {
		return nil, nil, fmt.Errorf("policy file %s: %w", path, err)
	}
	return rules, order, nil
}

// parsePolicyData is oslo.policy's parse_file_contents and Rules.load: a
// mapping of rule names to rules in the policy language (a string; an
// empty or null rule allows everything) or in the old list syntax.
// Duplicate names keep the last, as PyYAML and json do.
func parsePolicyData(data []byte, log *slog.Logger) (map[string]*node, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	rules := map[string]*node{}
	var order []string
	if len(doc.Content) == 0 {
		return rules, order, nil // an empty file
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return rules, order, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("line %d: the policy file is not a mapping of rule names to rules", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		name := k.Value
		var check *node
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			check = newNode(opTrue)
		case v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Style == 0 && isYAML11Bool(v.Value):
			// PyYAML reads yes/no/on/off as booleans, which oslo.policy
			// cannot use: Ironic fails every check then.
			return nil, nil, fmt.Errorf("line %d: rule %q is a YAML 1.1 boolean, neither a string nor a list", v.Line, name)
		case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
			var problem string
			check, problem = parseRule(v.Value)
			if problem != "" {
				log.Error(problem, "rule", name, "line", v.Line)
			}
		case v.Kind == yaml.SequenceNode:
			list, err := listRule(v)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: rule %q: %w", v.Line, name, err)
			}
			check = parseListRule(list)
		default:
			return nil, nil, fmt.Errorf("line %d: rule %q is neither a string nor a list", v.Line, name)
		}
		if _, dup := rules[name]; !dup {
			order = append(order, name)
		}
		rules[name] = check
	}
	return rules, order, nil
}

// isYAML11Bool reports whether a plain scalar is a boolean to PyYAML.
func isYAML11Bool(s string) bool {
	switch s {
	case "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF":
		return true
	}
	return false
}

// listRule reads the old list-of-lists syntax: a list whose elements are
// lists of check strings, or bare check strings.
func listRule(v *yaml.Node) ([][]string, error) {
	var out [][]string
	for _, inner := range v.Content {
		switch {
		case inner.Kind == yaml.ScalarNode && inner.Tag == "!!str":
			if inner.Value != "" {
				out = append(out, []string{inner.Value})
			}
		case inner.Kind == yaml.SequenceNode:
			var and []string
			for _, c := range inner.Content {
				if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
					return nil, errors.New("a check in the list syntax is not a string")
				}
				and = append(and, c.Value)
			}
			out = append(out, and)
		default:
			return nil, errors.New("the list syntax wants lists of check strings")
		}
	}
	return out, nil
}

// Authorize is ironic.common.policy.authorize: it fails with
// HTTPForbidden (403, "Access was denied to the following resource:
// RULE") when rule denies the caller, with oslo.policy's InvalidScope
// (which Ironic answers with a 500) when scope is enforced and the
// token's scope is not the rule's, and with a 500 for a rule Ironic does
// not register. Without keystone authentication it allows everything.
func (e *Enforcer) Authorize(ctx context.Context, rule string, target map[string]string) error {
	if !e.keystone {
		return nil
	}
	en := e.rs.Load().rules[rule]
	if en == nil || !en.registered {
		return &ironic.Fault{Class: ironic.IronicException, Message: "Policy " + rule + " has not been registered"}
	}
	rc := ironic.FromContext(ctx)
	if e.enforceScope && en.scopeTypes != nil {
		if scope := tokenScope(rc); !slices.Contains(en.scopeTypes, scope) {
			return &ironic.Fault{Class: ironic.InvalidScope, Message: en.scopeMsg + scope + " scope."}
		}
	}
	c := evalCtx{rc: rc, target: target, svcProject: e.svcProject, hasSvcProject: e.hasSvc}
	if en.check.eval(&c) {
		return nil
	}
	if e.log.Enabled(ctx, slog.LevelInfo) {
		e.log.InfoContext(ctx, "Rejecting authorization: "+rule+" is disallowed by policy",
			"rule", rule, "request_id", rc.RequestID)
	}
	return &ironic.Fault{Class: ironic.HTTPForbidden, Message: "Access was denied to the following resource: " + rule}
}

// Enforce is oslo.policy's Enforcer.enforce as Ironic's policy.check
// calls it: true when rule allows the caller. An undefined rule falls
// back to the default rule, else denies; a token of the wrong scope is
// denied when scope is enforced. It evaluates whatever the auth
// strategy.
func (e *Enforcer) Enforce(ctx context.Context, rule string, target map[string]string) bool {
	rs := e.rs.Load()
	en, named := rs.rules[rule]
	if !named {
		if en = rs.defaultRule; en == nil {
			return false
		}
	}
	rc := ironic.FromContext(ctx)
	if e.enforceScope && named && en.scopeTypes != nil {
		if !slices.Contains(en.scopeTypes, tokenScope(rc)) {
			return false
		}
	}
	c := evalCtx{rc: rc, target: target, svcProject: e.svcProject, hasSvcProject: e.hasSvc}
	return en.check.eval(&c)
}

// CheckPolicy is Ironic's policy.check_policy (and the API's
// check_policy_true): Enforce under keystone authentication, true
// otherwise.
func (e *Enforcer) CheckPolicy(ctx context.Context, rule string, target map[string]string) bool {
	return !e.keystone || e.Enforce(ctx, rule, target)
}

// Check evaluates rule without failing, choosing between Ironic's two
// helpers as Ironic 21.4 does for that rule: the node field masking
// rules (show_password, show_instance_secrets and
// baremetal:node:get:{last_error,reservation,driver_internal_info,
// driver_info}) go through policy.check (Enforce, evaluated even without
// keystone); every other rule through check_policy (CheckPolicy).
func (e *Enforcer) Check(ctx context.Context, rule string, target map[string]string) bool {
	switch rule {
	case "show_password", "show_instance_secrets",
		"baremetal:node:get:last_error", "baremetal:node:get:reservation",
		"baremetal:node:get:driver_internal_info", "baremetal:node:get:driver_info":
		return e.Enforce(ctx, rule, target)
	}
	return e.CheckPolicy(ctx, rule, target)
}
