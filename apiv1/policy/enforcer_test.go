package policy

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goironic/ironic"
)

func ctxWith(rc *ironic.RequestContext) context.Context {
	return ironic.WithRequestContext(context.Background(), rc)
}

var (
	systemReader = &ironic.RequestContext{UserID: "u", Roles: []string{"reader"}, SystemScope: "all"}
	systemAdmin  = &ironic.RequestContext{UserID: "u", Roles: []string{"admin", "member", "reader"}, SystemScope: "all"}
	projectAdmin = &ironic.RequestContext{UserID: "u", ProjectID: "p1", Roles: []string{"admin", "member", "reader"}}
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustNew(t *testing.T, cfg Config) *Enforcer {
	t.Helper()
	e, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAuthorizeFaults checks the faults Ironic's API answers with, as
// the reference returned them: HTTPForbidden (403) for a denied rule,
// oslo.policy's InvalidScope (the reference's 500, 403 here: see
// errors.go; its text naming the registered default) under enforce_scope, and a 500 for an unregistered rule.
func TestAuthorizeFaults(t *testing.T) {
	e := mustNew(t, Config{EnforceScope: true})
	err := e.Authorize(ctxWith(systemReader), "baremetal:chassis:create", nil)
	f := ironic.AsFault(err)
	if f.Class != ironic.HTTPForbidden || f.HTTPStatus() != 403 ||
		f.Message != "Access was denied to the following resource: baremetal:chassis:create" {
		t.Errorf("denied: %#v", f)
	}
	reader := &ironic.RequestContext{UserID: "u", ProjectID: "demo", Roles: []string{"reader"}}
	f = ironic.AsFault(e.Authorize(ctxWith(reader), "baremetal:chassis:create", nil))
	if f.Class != ironic.InvalidScope || f.HTTPStatus() != 403 ||
		f.Message != `"baremetal:chassis:create": "role:admin and system_scope:all" requires a scope of ['system'], request was made with project scope.` {
		t.Errorf("scope: %#v", f)
	}
	f = ironic.AsFault(e.Authorize(ctxWith(reader), "baremetal:conductor:get", nil))
	if f.Message != `"baremetal:conductor:get": "(role:reader and system_scope:all) or (role:service and system_scope:all) or rule:service_role" requires a scope of ['system'], request was made with project scope.` {
		t.Errorf("scope: %#v", f)
	}
	domain := &ironic.RequestContext{UserID: "u", DomainID: "d", Roles: []string{"admin"}}
	f = ironic.AsFault(e.Authorize(ctxWith(domain), "baremetal:node:get", map[string]string{"node.owner": "None"}))
	if !strings.HasSuffix(f.Message, "requires a scope of ['system', 'project'], request was made with domain scope.") {
		t.Errorf("domain scope: %#v", f)
	}
	f = ironic.AsFault(e.Authorize(ctxWith(systemAdmin), "baremetal:no:such", nil))
	if f.HTTPStatus() != 500 || f.Message != "Policy baremetal:no:such has not been registered" {
		t.Errorf("unregistered: %#v", f)
	}
	if err := e.Authorize(ctxWith(systemAdmin), "baremetal:chassis:create", nil); err != nil {
		t.Errorf("system admin: %v", err)
	}
}

// TestNoKeystone is Ironic without keystone (auth_strategy noauth or
// http_basic): authorize() and check_policy() always allow, but
// policy.check still evaluates, with whatever the request's headers
// made of the context.
func TestNoKeystone(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "policy.yaml", `"show_instance_secrets": "role:admin"`)
	for _, strategy := range []string{"noauth", "http_basic"} {
		e := mustNew(t, Config{AuthStrategy: strategy, PolicyFile: "policy.yaml", ConfigDirs: []string{dir}})
		anon := ctxWith(&ironic.RequestContext{})
		if err := e.Authorize(anon, "baremetal:node:create", nil); err != nil {
			t.Errorf("%s: Authorize: %v", strategy, err)
		}
		if !e.Check(anon, "baremetal:volume:view_target_properties", nil) || !e.CheckPolicy(anon, "baremetal:node:get:filter_threshold", nil) {
			t.Errorf("%s: check_policy rules must pass", strategy)
		}
		if e.Check(anon, "show_password", nil) || e.Check(anon, "baremetal:node:get:last_error", nil) {
			t.Errorf("%s: policy.check rules must be evaluated", strategy)
		}
		if e.Check(anon, "show_instance_secrets", nil) || !e.Check(ctxWith(&ironic.RequestContext{Roles: []string{"admin"}}), "show_instance_secrets", nil) {
			t.Errorf("%s: the override of show_instance_secrets must apply", strategy)
		}
	}
	e := mustNew(t, Config{})
	if e.Check(ctxWith(&ironic.RequestContext{}), "baremetal:volume:view_target_properties", nil) {
		t.Error("keystone: view_target_properties must be evaluated")
	}
}

func TestPolicyFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"syntax.yaml", "\"a\": \"role:x\"\n\"b\": \"role:y\n", "syntax.yaml: yaml: line 2: found unexpected end of stream"},
		{"indent.yaml", "a: role:x\n  b: role:y\n", "indent.yaml: yaml: line 2: mapping values are not allowed in this context"},
		{"number.yaml", "a: role:x\nb: 12\n", `number.yaml: line 2: rule "b" is neither a string nor a list`},
		{"list.yaml", "- a\n- b\n", "list.yaml: line 1: the policy file is not a mapping of rule names to rules"},
		{"badlist.yaml", "a: [[1]]\n", `badlist.yaml: line 1: rule "a": a check in the list syntax is not a string`},
		{"bool.yaml", "a: yes\n", `bool.yaml: line 1: rule "a" is a YAML 1.1 boolean, neither a string nor a list`},
		{"tag.yaml", "a: !foo role:x\n", `tag.yaml: line 1: rule "a" is neither a string nor a list`},
		{"bad.json", "{\"a\": \"role:x\",\n \"b\" \"c\"}\n", "bad.json: yaml: line 1: did not find expected ',' or '}'"},
	} {
		writeFile(t, dir, tc.name, tc.content)
		_, err := New(Config{PolicyFile: tc.name, ConfigDirs: []string{dir}}, nil)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tc.want)) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	writeFile(t, dir, "notadir", "x")
	if _, err := New(Config{PolicyDirs: []string{"notadir"}, ConfigDirs: []string{dir}}, nil); err == nil {
		t.Error("a policy_dirs entry that is a file must fail")
	}
}

// TestPolicyFileLookup checks where a relative policy_file is found
// (the search directories in order, the policy.json fallback of the
// default name) and that a missing file is no error.
func TestPolicyFileLookup(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	writeFile(t, second, "policy.yaml", `"baremetal:chassis:create": "role:reader"`)
	e := mustNew(t, Config{PolicyFile: "policy.yaml", ConfigDirs: []string{first, second}})
	reader := ctxWith(&ironic.RequestContext{Roles: []string{"reader"}})
	if !e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("policy.yaml in the second directory was not used")
	}
	writeFile(t, first, "policy.yaml", `"baremetal:chassis:create": "!"`)
	e = mustNew(t, Config{PolicyFile: "policy.yaml", ConfigDirs: []string{first, second}})
	if e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("the first directory's policy.yaml must win")
	}
	e = mustNew(t, Config{PolicyFile: filepath.Join(second, "policy.yaml"), ConfigDirs: []string{first}})
	if !e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("an absolute policy_file was not used")
	}
	third := t.TempDir()
	writeFile(t, third, "policy.json", `{"baremetal:chassis:create": "role:reader"}`)
	e = mustNew(t, Config{PolicyFile: "policy.yaml", ConfigDirs: []string{third}})
	if !e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("policy.json was not used in place of a missing policy.yaml")
	}
	e = mustNew(t, Config{PolicyFile: "policy.yaml", PolicyFileSet: true, ConfigDirs: []string{third}})
	if e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("policy.json must not replace a policy.yaml named in ironic.conf")
	}
	e = mustNew(t, Config{PolicyFile: "custom.yaml", ConfigDirs: []string{third}})
	if e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("policy.json must only replace the default name")
	}
	if _, err := New(Config{PolicyFile: "missing.yaml", PolicyDirs: []string{"policy.d"}, ConfigDirs: []string{first}}, nil); err != nil {
		t.Errorf("a missing policy file: %v", err)
	}
}

func TestSearchDirs(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	got := SearchDirs([]string{"/etc/ironic/ironic.conf.d"}, []string{"/a/one.conf", "/b/two.conf"})
	want := []string{"/etc/ironic/ironic.conf.d", "/b", "/a", filepath.Join(home, ".ironic"), home, "/etc/ironic", "/etc"}
	if !equalStrings(got, want) {
		t.Errorf("SearchDirs = %q, want %q", got, want)
	}
}

// TestUnsupportedChecks: remote http(s) checks and %-formats other than
// %(key)s deny (and are logged at load); cycles deny instead of
// recursing forever.
func TestUnsupportedChecks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "policy.yaml", `
"baremetal:chassis:get": "http://127.0.0.1:1/check or role:nobody"
"baremetal:chassis:create": "role:%(x)d"
"a": "rule:b"
"b": "rule:a or role:zzz"
"baremetal:chassis:delete": "rule:a"
"baremetal:chassis:update": "(role:admin"
`)
	var logs bytes.Buffer
	e, err := New(Config{PolicyFile: "policy.yaml", ConfigDirs: []string{dir}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"baremetal:chassis:get", "baremetal:chassis:create", "baremetal:chassis:delete", "baremetal:chassis:update"} {
		if e.Enforce(ctxWith(systemAdmin), rule, map[string]string{"x": "1"}) {
			t.Errorf("%s allowed", rule)
		}
	}
	for _, want := range []string{"Remote (http/https) policy checks are not supported", "Unsupported format in policy check",
		"Policies are part of a cyclical reference", "Failed to understand rule (role:admin"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

func TestPyLiteral(t *testing.T) {
	for kind, want := range map[string]string{
		"True": "True", "None": "None", "'x'": "x", `"y"`: "y", "1": "1", "-1": "-1", "+1": "1", "--2": "2",
		"1_000": "1000", "0x10": "16", "0o10": "8", "0b11": "3", "1.50": "1.5", "1e3": "1000.0", "1e16": "1e+16",
		"0.0001": "0.0001", "0.00001": "1e-05", ".5": "0.5", "00": "0", "-0": "0",
	} {
		got, ok := pyLiteral(kind)
		if !ok || got != want {
			t.Errorf("pyLiteral(%q) = %q, %v; want %q", kind, got, ok, want)
		}
	}
	for _, kind := range []string{"project_id", "true", "007", "1_", "'a\\'b'", "inf", "1j", "[1]"} {
		if got, ok := pyLiteral(kind); ok {
			t.Errorf("pyLiteral(%q) = %q, want no literal", kind, got)
		}
	}
}

func TestTemplate(t *testing.T) {
	c := &evalCtx{rc: &ironic.RequestContext{ProjectID: "p", Roles: []string{"a", "b'c"}}, target: map[string]string{"node.owner": "o"}}
	for src, want := range map[string]string{
		"plain": "plain", "%(node.owner)s": "o", "x-%(node.owner)s-%(project_id)s": "x-o-p", "100%%": "100%",
		"%(roles)s": `['a', "b'c"]`, "%(user_id)s": "None", "%(is_admin_project)s": "True",
	} {
		tp := parseTemplate(src)
		if got, ok := tp.render(c); !ok || got != want {
			t.Errorf("render(%q) = %q, %v; want %q", src, got, ok, want)
		}
	}
	for _, src := range []string{"%(missing)s", "%(system)s", "%s", "%(x)d", "50%"} {
		tp := parseTemplate(src)
		if got, ok := tp.render(c); ok {
			t.Errorf("render(%q) = %q, want a failed check", src, got)
		}
	}
}

// BenchmarkAuthorize measures the API's most frequent checks: node:get
// on an owned node (a project member, through the long default check
// string with its deprecated OR), and a denied system-only rule.
func BenchmarkAuthorize(b *testing.B) {
	e, err := New(Config{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	target := map[string]string{"node.owner": "p1", "node.lessee": "p2"}
	member := ctxWith(&ironic.RequestContext{UserID: "u", ProjectID: "p2", ProjectName: "proj", Roles: []string{"member", "reader"}})
	b.Run("node-get-lessee-allowed", func(b *testing.B) {
		for b.Loop() {
			if err := e.Authorize(member, "baremetal:node:get", target); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("node-get-system-reader", func(b *testing.B) {
		ctx := ctxWith(systemReader)
		for b.Loop() {
			if err := e.Authorize(ctx, "baremetal:node:get", target); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chassis-create-denied", func(b *testing.B) {
		for b.Loop() {
			if err := e.Authorize(member, "baremetal:chassis:create", nil); err == nil {
				b.Fatal("allowed")
			}
		}
	})
	srbac, err := New(Config{EnforceScope: true, EnforceNewDefaults: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("srbac-node-update-owner", func(b *testing.B) {
		owner := ctxWith(projectAdmin)
		t := map[string]string{"node.owner": "p1"}
		for b.Loop() {
			if err := srbac.Authorize(owner, "baremetal:node:update", t); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestReload: an edited policy file takes effect at the next Reload; a
// broken edit keeps the rules in force; an unchanged file is not
// re-read.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "policy.yaml", `"baremetal:chassis:create": "role:reader"`)
	e := mustNew(t, Config{PolicyFile: "policy.yaml", ConfigDirs: []string{dir}})
	reader := ctxWith(&ironic.RequestContext{Roles: []string{"reader"}})
	if changed, err := e.Reload(); changed || err != nil {
		t.Errorf("unchanged file: %v, %v", changed, err)
	}
	writeFile(t, dir, "policy.yaml", `"baremetal:chassis:create": "!" # edited`)
	if changed, err := e.Reload(); !changed || err != nil {
		t.Errorf("edited file: %v, %v", changed, err)
	}
	if e.Enforce(reader, "baremetal:chassis:create", nil) {
		t.Error("the edit did not take effect")
	}
	writeFile(t, dir, "policy.yaml", `"baremetal:chassis:create": [unclosed, "role:reader"`)
	if _, err := e.Reload(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("broken file: %v", err)
	}
	admin := ctxWith(&ironic.RequestContext{Roles: []string{"admin"}})
	if e.Enforce(admin, "baremetal:chassis:create", nil) {
		t.Error("a broken edit must keep the previous rules")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if changed, err := e.Reload(); !changed || err != nil {
		t.Errorf("removed file: %v, %v", changed, err)
	}
	if !e.Enforce(admin, "baremetal:chassis:create", nil) {
		t.Error("without the file the default (new OR deprecated: an admin) applies")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Watch(ctx, time.Millisecond); err != nil {
		t.Error(err)
	}
}

// TestConcurrentReload checks (under -race) that checks may run while
// Reload replaces the rules.
func TestConcurrentReload(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "policy.yaml", `"baremetal:chassis:get": "role:reader"`)
	e := mustNew(t, Config{PolicyFile: "policy.yaml", ConfigDirs: []string{dir}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := ctxWith(systemReader)
		for i := 0; i < 2000; i++ {
			_ = e.Authorize(ctx, "baremetal:chassis:get", nil)
		}
	}()
	for i := 0; i < 20; i++ {
		writeFile(t, dir, "policy.yaml", `"baremetal:chassis:get": "role:reader or role:x`+strings.Repeat("x", i)+`"`)
		if _, err := e.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	<-done
}
