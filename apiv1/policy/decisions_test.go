package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goironic/ironic"
)

// decisions is testdata/decisions.json, written by tools/decisions.py
// from Python Ironic's enforcer.
type decisions struct {
	Rules      []string                      `json:"rules"`
	ExtraRules []string                      `json:"extra_rules"`
	Personas   map[string]persona            `json:"personas"`
	Targets    map[string]map[string]*string `json:"targets"`
	Modes      []decisionMode                `json:"modes"`
	Parses     []struct{ Rule, Str string }  `json:"parses"`
}

// persona holds the RequestContext arguments of one caller.
type persona struct {
	UserID          string   `json:"user_id"`
	ProjectID       string   `json:"project_id"`
	ProjectName     string   `json:"project_name"`
	ProjectDomainID string   `json:"project_domain_id"`
	UserDomainID    string   `json:"user_domain_id"`
	DomainID        string   `json:"domain_id"`
	SystemScope     string   `json:"system_scope"`
	Roles           []string `json:"roles"`
	IsAdmin         bool     `json:"is_admin"`
	IsPublicAPI     bool     `json:"is_public_api"`
	IsAdminProject  *bool    `json:"is_admin_project"`
}

func (p persona) context() *ironic.RequestContext {
	return &ironic.RequestContext{
		UserID: p.UserID, ProjectID: p.ProjectID, ProjectName: p.ProjectName,
		ProjectDomainID: p.ProjectDomainID, UserDomainID: p.UserDomainID, DomainID: p.DomainID,
		SystemScope: p.SystemScope, Roles: p.Roles, IsAdmin: p.IsAdmin, IsPublicAPI: p.IsPublicAPI,
		IsAdminProject: p.IsAdminProject,
	}
}

type decisionMode struct {
	Name                      string                       `json:"name"`
	EnforceScope              bool                         `json:"enforce_scope"`
	EnforceNewDefaults        bool                         `json:"enforce_new_defaults"`
	PolicyFile                string                       `json:"policy_file"`
	PolicyDirs                []string                     `json:"policy_dirs"`
	DefaultRule               *string                      `json:"default_rule"`
	ServiceRoleElevatedAccess bool                         `json:"service_role_elevated_access"`
	ServiceProjectName        *string                      `json:"service_project_name"`
	Decisions                 map[string]map[string]string `json:"decisions"`
	Enforce                   map[string]map[string]string `json:"enforce"`
}

func (m decisionMode) config() Config {
	cfg := Config{
		EnforceScope: m.EnforceScope, EnforceNewDefaults: m.EnforceNewDefaults,
		PolicyFile: "no-such-policy.yaml", PolicyDirs: m.PolicyDirs, ConfigDirs: []string{"testdata"},
		DefaultRule: "default", ServiceRoleElevatedAccess: m.ServiceRoleElevatedAccess,
		ServiceProjectName: "service",
	}
	if m.PolicyFile != "" {
		cfg.PolicyFile = m.PolicyFile
	}
	if m.DefaultRule != nil {
		cfg.DefaultRule = *m.DefaultRule
	}
	if m.ServiceProjectName != nil {
		cfg.ServiceProjectName = *m.ServiceProjectName
	}
	return cfg
}

func loadDecisions(t testing.TB) *decisions {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "decisions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d decisions
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// targetOf renders a Python target's extras as Ironic's str() sees
// them: None is "None".
func targetOf(py map[string]*string) map[string]string {
	t := make(map[string]string, len(py))
	for k, v := range py {
		if v == nil {
			t[k] = "None"
		} else {
			t[k] = *v
		}
	}
	return t
}

// TestDecisions replays every answer of Python Ironic's enforcer: every
// registered rule through Authorize (allowed, HTTPForbidden or
// InvalidScope) and Check, and the policy files' own rules through
// Enforce, for every persona, target and configuration.
func TestDecisions(t *testing.T) {
	d := loadDecisions(t)
	if len(d.Rules) != len(Defaults()) {
		t.Fatalf("decisions.json has %d rules, Defaults() %d: regenerate it", len(d.Rules), len(Defaults()))
	}
	for i, r := range Defaults() {
		if d.Rules[i] != r.Name {
			t.Fatalf("rule %d: decisions.json has %s, Defaults() %s", i, d.Rules[i], r.Name)
		}
	}
	for _, m := range d.Modes {
		t.Run(m.Name, func(t *testing.T) {
			e, err := New(m.config(), nil)
			if err != nil {
				t.Fatal(err)
			}
			count, bad := 0, 0
			for pname, p := range d.Personas {
				ctx := ironic.WithRequestContext(context.Background(), p.context())
				for tname, pt := range d.Targets {
					target := targetOf(pt)
					want := m.Decisions[pname][tname]
					for i, rule := range d.Rules {
						count++
						got := outcome(e.Authorize(ctx, rule, target))
						if got != want[i] {
							bad++
							if bad <= 30 {
								t.Errorf("%s %s on %s: Authorize %c, Python %c", rule, pname, tname, got, want[i])
							}
						}
						if check := e.Enforce(ctx, rule, target); check != (want[i] == 'A') {
							bad++
							if bad <= 30 {
								t.Errorf("%s %s on %s: Enforce %v, Python %c", rule, pname, tname, check, want[i])
							}
						}
					}
					wantEnf := m.Enforce[pname][tname]
					for i, rule := range d.ExtraRules {
						count++
						got := e.Enforce(ctx, rule, target)
						if got != (wantEnf[i] == '1') {
							bad++
							if bad <= 30 {
								t.Errorf("%s %s on %s: Enforce %v, Python %c", rule, pname, tname, got, wantEnf[i])
							}
						}
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d decisions differ", bad, count)
			}
			t.Logf("%d decisions", count)
		})
	}
}

// outcome is one character of decisions.json for Authorize's result.
func outcome(err error) byte {
	switch {
	case err == nil:
		return 'A'
	case ironic.IsClass(err, ironic.HTTPForbidden):
		return 'F'
	case ironic.IsClass(err, ironic.InvalidScope):
		return 'S'
	}
	return '?'
}

// TestParses checks the parser's trees against oslo.policy's, printed.
func TestParses(t *testing.T) {
	for _, p := range loadDecisions(t).Parses {
		n, _ := parseRule(p.Rule)
		if got := n.String(); got != p.Str {
			t.Errorf("parse %q: %s, oslo.policy %s", p.Rule, got, p.Str)
		}
	}
}
