package keystone

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// defaultDomainID is the ID of the domain "Default" that bootstrap makes.
const defaultDomainID = "default"

// projectSpec is a project to create and the name of its domain.
type projectSpec struct{ name, domain string }

// projectSpecs are the projects besides bootstrap's "admin".
func projectSpecs() []projectSpec {
	return []projectSpec{
		{"service", DefaultDomain},
		{"demo", DefaultDomain},
		{"alt-demo", DefaultDomain},
		{"other-demo", OtherDomain},
	}
}

// provision creates, unless present, the roles, the second domain, the
// projects, the users and their role assignments, and points the catalog
// at baremetalURL and networkURL. It leaves k.admin, k.users and
// k.projects set. It lists each kind of object once and creates only
// what is missing: a request costs up to a few hundred milliseconds.
func (k *Keystone) provision(ctx context.Context, baremetalURL, networkURL string) (err error) {
	defer wrap(&err, "provision")
	if k.admin, err = k.adminClient(ctx); err != nil {
		return err
	}
	have, err := k.inventory(ctx)
	if err != nil {
		return err
	}
	roleIDs := map[string]string{}
	for _, name := range []string{"admin", "member", "reader", "service"} {
		if roleIDs[name], err = k.ensureRole(ctx, have, name); err != nil {
			return err
		}
	}
	domainIDs := map[string]string{DefaultDomain: defaultDomainID}
	if domainIDs[OtherDomain], err = k.ensureDomain(ctx, have, OtherDomain); err != nil {
		return err
	}
	k.projects = map[string]string{}
	for _, p := range append([]projectSpec{{"admin", DefaultDomain}}, projectSpecs()...) {
		if k.projects[p.name], err = k.ensureProject(ctx, have, p.name, domainIDs[p.domain]); err != nil {
			return err
		}
	}
	k.users = map[string]string{}
	for _, a := range accounts() {
		projectID := k.projects[a.project]
		id, err := k.ensureUser(ctx, have, a.name, a.password, domainIDs[a.domain], projectID)
		if err != nil {
			return err
		}
		k.users[a.name] = id
		for _, r := range a.roles {
			if err := k.grant(ctx, have, roleIDs[r], id, projectID); err != nil {
				return err
			}
		}
	}
	// Bootstrap makes admin a system admin too; make sure of it.
	if err := k.grant(ctx, have, roleIDs["admin"], k.users["admin"], ""); err != nil {
		return err
	}
	return k.SetCatalog(ctx, baremetalURL, networkURL)
}

// adminClient is an identity v3 client authenticated as admin on project
// admin that authenticates again when its token expires.
func (k *Keystone) adminClient(ctx context.Context) (*gophercloud.ServiceClient, error) {
	pc, err := k.providerClient()
	if err != nil {
		return nil, err
	}
	opts := &tokens.AuthOptions{
		Username:    "admin",
		Password:    AdminPassword,
		DomainID:    defaultDomainID,
		AllowReauth: true,
		Scope:       tokens.Scope{ProjectName: "admin", DomainID: defaultDomainID},
	}
	if err := openstack.AuthenticateV3(ctx, pc, opts, gophercloud.EndpointOpts{}); err != nil {
		return nil, fmt.Errorf("authenticate as admin: %w", err)
	}
	return openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
}

// providerClient is an unauthenticated client of this Keystone.
func (k *Keystone) providerClient() (*gophercloud.ProviderClient, error) {
	pc, err := openstack.NewClient(k.AuthURL())
	if err != nil {
		return nil, err
	}
	pc.HTTPClient = *k.http
	return pc, nil
}

// inventory is what Keystone has, keyed by name (global roles, domains),
// by "domainID/name" (projects, users) or by grantKey (assignments).
type inventory struct {
	roles, domains, projects, users map[string]string
	grants                          map[string]bool
}

func grantKey(roleID, userID, projectID string) string {
	return roleID + "/" + userID + "/" + projectID
}

// inventory lists roles, domains, projects, users and role assignments.
func (k *Keystone) inventory(ctx context.Context) (*inventory, error) {
	have := &inventory{
		roles: map[string]string{}, domains: map[string]string{},
		projects: map[string]string{}, users: map[string]string{}, grants: map[string]bool{},
	}
	rolePages, err := roles.List(k.admin, nil).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list roles: %w", err)
	}
	rs, err := roles.ExtractRoles(rolePages)
	if err != nil {
		return nil, fmt.Errorf("list roles: %w", err)
	}
	for _, r := range rs {
		if r.DomainID == "" {
			have.roles[r.Name] = r.ID
		}
	}
	domainPages, err := domains.List(k.admin, nil).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list domains: %w", err)
	}
	ds, err := domains.ExtractDomains(domainPages)
	if err != nil {
		return nil, fmt.Errorf("list domains: %w", err)
	}
	for _, d := range ds {
		have.domains[d.Name] = d.ID
	}
	projectPages, err := projects.List(k.admin, nil).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	ps, err := projects.ExtractProjects(projectPages)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	for _, p := range ps {
		have.projects[p.DomainID+"/"+p.Name] = p.ID
	}
	userPages, err := users.List(k.admin, nil).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	us, err := users.ExtractUsers(userPages)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	for _, u := range us {
		have.users[u.DomainID+"/"+u.Name] = u.ID
	}
	grantPages, err := roles.ListAssignments(k.admin, nil).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list role assignments: %w", err)
	}
	gs, err := roles.ExtractRoleAssignments(grantPages)
	if err != nil {
		return nil, fmt.Errorf("list role assignments: %w", err)
	}
	for _, g := range gs {
		if g.User.ID != "" && (g.Scope.Project.ID != "" || g.Scope.System != nil && g.Scope.System.All) {
			have.grants[grantKey(g.Role.ID, g.User.ID, g.Scope.Project.ID)] = true
		}
	}
	return have, nil
}

func (k *Keystone) ensureRole(ctx context.Context, have *inventory, name string) (string, error) {
	if id := have.roles[name]; id != "" {
		return id, nil
	}
	r, err := roles.Create(ctx, k.admin, roles.CreateOpts{Name: name}).Extract()
	if err != nil {
		return "", fmt.Errorf("create role %s: %w", name, err)
	}
	have.roles[name] = r.ID
	return r.ID, nil
}

func (k *Keystone) ensureDomain(ctx context.Context, have *inventory, name string) (string, error) {
	if id := have.domains[name]; id != "" {
		return id, nil
	}
	d, err := domains.Create(ctx, k.admin, domains.CreateOpts{Name: name, Description: "RBAC tests: a second domain"}).Extract()
	if err != nil {
		return "", fmt.Errorf("create domain %s: %w", name, err)
	}
	have.domains[name] = d.ID
	return d.ID, nil
}

func (k *Keystone) ensureProject(ctx context.Context, have *inventory, name, domainID string) (string, error) {
	if id := have.projects[domainID+"/"+name]; id != "" {
		return id, nil
	}
	p, err := projects.Create(ctx, k.admin, projects.CreateOpts{Name: name, DomainID: domainID, Description: "goironic tests"}).Extract()
	if err != nil {
		return "", fmt.Errorf("create project %s: %w", name, err)
	}
	have.projects[domainID+"/"+name] = p.ID
	return p.ID, nil
}

// ensureUser returns the ID of user name in domainID, creating it with
// password and default project defaultProjectID when missing. An existing
// user's password is not touched: changing it would revoke its tokens.
func (k *Keystone) ensureUser(ctx context.Context, have *inventory, name, password, domainID, defaultProjectID string) (string, error) {
	if id := have.users[domainID+"/"+name]; id != "" {
		return id, nil
	}
	u, err := users.Create(ctx, k.admin, users.CreateOpts{
		Name: name, Password: password, DomainID: domainID, DefaultProjectID: defaultProjectID,
	}).Extract()
	if err != nil {
		return "", fmt.Errorf("create user %s: %w", name, err)
	}
	have.users[domainID+"/"+name] = u.ID
	return u.ID, nil
}

// grant assigns roleID to userID on projectID, or on the system when
// projectID is "", unless it is already.
func (k *Keystone) grant(ctx context.Context, have *inventory, roleID, userID, projectID string) error {
	key := grantKey(roleID, userID, projectID)
	if have.grants[key] {
		return nil
	}
	opts := roles.AssignOpts{UserID: userID, ProjectID: projectID, System: projectID == ""}
	if err := roles.Assign(ctx, k.admin, roleID, opts).ExtractErr(); err != nil {
		return fmt.Errorf("grant role %s to user %s on %q: %w", roleID, userID, projectID, err)
	}
	have.grants[key] = true
	return nil
}

// SetCatalog points the "baremetal" and "network" services' public,
// internal and admin endpoints (region RegionOne) at the given URLs. An
// empty URL removes that service from the catalog, so the catalog is what
// Options would have made.
func (k *Keystone) SetCatalog(ctx context.Context, baremetalURL, networkURL string) (err error) {
	defer wrap(&err, "keystone: catalog")
	if err := k.setEndpoints(ctx, "baremetal", "ironic", baremetalURL); err != nil {
		return err
	}
	return k.setEndpoints(ctx, "network", "neutron", networkURL)
}

// SetService points service type stype's (named name) public, internal
// and admin endpoints (region RegionOne) at url, or removes the service
// when url is "": for services Options doesn't name ("image", ...).
func (k *Keystone) SetService(ctx context.Context, stype, name, url string) (err error) {
	defer wrap(&err, "keystone: catalog")
	return k.setEndpoints(ctx, stype, name, url)
}

// setEndpoints makes service type stype (named name) have exactly one
// endpoint per interface, at url; with url "", the service is deleted
// (with its endpoints).
func (k *Keystone) setEndpoints(ctx context.Context, stype, name, url string) error {
	svc, err := k.service(ctx, stype, name, url != "")
	if err != nil || svc == "" {
		return err
	}
	if url == "" {
		if err := services.Delete(ctx, k.admin, svc).ExtractErr(); err != nil {
			return fmt.Errorf("delete %s service: %w", stype, err)
		}
		return nil
	}
	url = strings.TrimRight(url, "/")
	pages, err := endpoints.List(k.admin, endpoints.ListOpts{ServiceID: svc}).AllPages(ctx)
	if err != nil {
		return fmt.Errorf("list %s endpoints: %w", stype, err)
	}
	all, err := endpoints.ExtractEndpoints(pages)
	if err != nil {
		return fmt.Errorf("list %s endpoints: %w", stype, err)
	}
	for _, iface := range []gophercloud.Availability{gophercloud.AvailabilityPublic, gophercloud.AvailabilityInternal, gophercloud.AvailabilityAdmin} {
		var eps []endpoints.Endpoint
		for _, ep := range all {
			if ep.Availability == iface {
				eps = append(eps, ep)
			}
		}
		if len(eps) == 0 {
			opts := endpoints.CreateOpts{Availability: iface, Region: Region, URL: url, ServiceID: svc}
			if err := endpoints.Create(ctx, k.admin, opts).Err; err != nil {
				return fmt.Errorf("create %s %s endpoint: %w", stype, iface, err)
			}
			continue
		}
		if eps[0].URL != url || eps[0].RegionID != Region {
			opts := endpoints.UpdateOpts{URL: url, Region: Region}
			if err := endpoints.Update(ctx, k.admin, eps[0].ID, opts).Err; err != nil {
				return fmt.Errorf("update %s %s endpoint: %w", stype, iface, err)
			}
		}
		if err := k.deleteEndpoints(ctx, eps[1:]); err != nil {
			return err
		}
	}
	return nil
}

func (k *Keystone) deleteEndpoints(ctx context.Context, eps []endpoints.Endpoint) error {
	for _, ep := range eps {
		if err := endpoints.Delete(ctx, k.admin, ep.ID).ExtractErr(); err != nil {
			return fmt.Errorf("delete endpoint %s (%s): %w", ep.ID, ep.URL, err)
		}
	}
	return nil
}

// service returns the ID of the service of type stype, creating it (as
// name) when create is set; "" when it neither exists nor was created.
func (k *Keystone) service(ctx context.Context, stype, name string, create bool) (string, error) {
	pages, err := services.List(k.admin, services.ListOpts{ServiceType: stype}).AllPages(ctx)
	if err != nil {
		return "", fmt.Errorf("list %s services: %w", stype, err)
	}
	found, err := services.ExtractServices(pages)
	if err != nil {
		return "", fmt.Errorf("list %s services: %w", stype, err)
	}
	if len(found) > 0 {
		return found[0].ID, nil
	}
	if !create {
		return "", nil
	}
	s, err := services.Create(ctx, k.admin, services.CreateOpts{Type: stype, Name: name}).Extract()
	if err != nil {
		return "", fmt.Errorf("create %s service: %w", stype, err)
	}
	return s.ID, nil
}
