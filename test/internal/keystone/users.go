package keystone

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// account is a user, where it lives and what it gets.
type account struct {
	name     string
	password string
	domain   string   // name of the user's domain (and of its project's)
	project  string   // project the roles are on and tokens are scoped to; "" = system "all"
	roles    []string // roles granted on project (or system)
}

// accounts are the users Start provisions, "admin" (from bootstrap) first.
func accounts() []account {
	d, o := DefaultDomain, OtherDomain
	return []account{
		{"admin", AdminPassword, d, "admin", []string{"admin"}},
		{"ironic", ServicePassword, d, "service", []string{"admin", "service"}},
		{"system-admin", UserPassword, d, "", []string{"admin"}},
		{"system-member", UserPassword, d, "", []string{"member"}},
		{"system-reader", UserPassword, d, "", []string{"reader"}},
		{"demo-admin", UserPassword, d, "demo", []string{"admin"}},
		{"demo-member", UserPassword, d, "demo", []string{"member"}},
		{"demo-reader", UserPassword, d, "demo", []string{"reader"}},
		{"alt-member", UserPassword, d, "alt-demo", []string{"member"}},
		{"alt-reader", UserPassword, d, "alt-demo", []string{"reader"}},
		{"other-domain-member", UserPassword, o, "other-demo", []string{"member"}},
	}
}

// Users lists the names Token, Env and UserID accept: every provisioned
// user and the pseudo-user "admin-system".
func Users() []string {
	var names []string
	for _, a := range accounts() {
		names = append(names, a.name)
	}
	return append(names, "admin-system")
}

// lookup finds who's account; "admin-system" is admin scoped to the system.
func lookup(who string) (account, error) {
	name := who
	if who == "admin-system" {
		name = "admin"
	}
	for _, a := range accounts() {
		if a.name == name {
			if who == "admin-system" {
				a.project = ""
			}
			return a, nil
		}
	}
	return account{}, fmt.Errorf("keystone: unknown user %q (known: %v)", who, Users())
}

// Token issues a fresh token for who: scoped to its project, or to system
// "all" for the system-* users and "admin-system".
func (k *Keystone) Token(ctx context.Context, who string) (_ string, err error) {
	defer wrap(&err, "keystone: token for %s", who)
	a, err := lookup(who)
	if err != nil {
		return "", err
	}
	pc, err := k.providerClient()
	if err != nil {
		return "", err
	}
	client, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return "", err
	}
	opts := &tokens.AuthOptions{Username: a.name, Password: a.password, DomainName: a.domain}
	if a.project == "" {
		opts.Scope = tokens.Scope{System: true}
	} else {
		opts.Scope = tokens.Scope{ProjectName: a.project, DomainName: a.domain}
	}
	return tokens.Create(ctx, client, opts).ExtractTokenID()
}

// Revoke revokes token (DELETE /v3/auth/tokens, as admin). Validating it
// afterwards fails with 404.
func (k *Keystone) Revoke(ctx context.Context, token string) (err error) {
	defer wrap(&err, "keystone: revoke")
	return tokens.Revoke(ctx, k.admin, token).Err
}

// TokenInfo is what GET /v3/auth/tokens says about a token.
type TokenInfo struct {
	UserID      string
	UserName    string
	UserDomain  string // domain name
	ProjectID   string // "" unless project-scoped
	ProjectName string
	System      bool // scoped to system "all"
	Roles       []string
	IssuedAt    time.Time
	ExpiresAt   time.Time
}

// Validate asks Keystone (GET /v3/auth/tokens, as admin) about token. An
// invalid, expired or revoked token gives an error for which
// gophercloud.ResponseCodeIs(err, 404) holds.
func (k *Keystone) Validate(ctx context.Context, token string) (_ *TokenInfo, err error) {
	defer wrap(&err, "keystone: validate")
	var raw struct {
		User struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Domain struct {
				Name string `json:"name"`
			} `json:"domain"`
		} `json:"user"`
		Project *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"project"`
		System map[string]bool `json:"system"`
		Roles  []struct {
			Name string `json:"name"`
		} `json:"roles"`
		IssuedAt  time.Time `json:"issued_at"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := tokens.Get(ctx, k.admin, token).ExtractInto(&raw); err != nil {
		return nil, err
	}
	info := &TokenInfo{
		UserID: raw.User.ID, UserName: raw.User.Name, UserDomain: raw.User.Domain.Name,
		System: raw.System["all"], IssuedAt: raw.IssuedAt, ExpiresAt: raw.ExpiresAt,
	}
	if raw.Project != nil {
		info.ProjectID, info.ProjectName = raw.Project.ID, raw.Project.Name
	}
	for _, r := range raw.Roles {
		info.Roles = append(info.Roles, r.Name)
	}
	return info, nil
}

// Env is the environment for the openstack CLI (or any keystoneauth
// client) to authenticate as who: OS_AUTH_TYPE=password, OS_AUTH_URL,
// OS_USERNAME, OS_PASSWORD, OS_USER_DOMAIN_NAME, then OS_PROJECT_NAME and
// OS_PROJECT_DOMAIN_NAME, or OS_SYSTEM_SCOPE=all, and
// OS_IDENTITY_API_VERSION=3, OS_REGION_NAME, OS_INTERFACE=public. Append
// it to a base environment: for os/exec, later entries win. It panics for
// a user not in Users (a bug in the test).
func (k *Keystone) Env(who string) []string {
	a, err := lookup(who)
	if err != nil {
		panic(err)
	}
	env := []string{
		"OS_AUTH_TYPE=password",
		"OS_AUTH_URL=" + k.AuthURL(),
		"OS_IDENTITY_API_VERSION=3",
		"OS_REGION_NAME=" + Region,
		"OS_INTERFACE=public",
		"OS_USERNAME=" + a.name,
		"OS_PASSWORD=" + a.password,
		"OS_USER_DOMAIN_NAME=" + a.domain,
	}
	if a.project == "" {
		return append(env, "OS_SYSTEM_SCOPE=all")
	}
	return append(env, "OS_PROJECT_NAME="+a.project, "OS_PROJECT_DOMAIN_NAME="+a.domain)
}

// ApplicationCredential creates, as who (scoped to its project), an
// application credential named name with secret, holding who's roles on
// that project, and returns its ID.
func (k *Keystone) ApplicationCredential(ctx context.Context, who, name, secret string) (_ string, err error) {
	defer wrap(&err, "keystone: application credential %s for %s", name, who)
	a, err := lookup(who)
	if err != nil {
		return "", err
	}
	if a.project == "" {
		return "", fmt.Errorf("%s has no project: application credentials are project-scoped", who)
	}
	pc, err := k.providerClient()
	if err != nil {
		return "", err
	}
	opts := &tokens.AuthOptions{Username: a.name, Password: a.password, DomainName: a.domain,
		Scope: tokens.Scope{ProjectName: a.project, DomainName: a.domain}}
	if err := openstack.AuthenticateV3(ctx, pc, opts, gophercloud.EndpointOpts{}); err != nil {
		return "", err
	}
	client, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		return "", err
	}
	cred, err := applicationcredentials.Create(ctx, client, k.UserID(who),
		applicationcredentials.CreateOpts{Name: name, Secret: secret}).Extract()
	if err != nil {
		return "", err
	}
	return cred.ID, nil
}
