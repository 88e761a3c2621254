package apiv1

import (
	"context"
	"slices"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// conductorStore is the part of the database the conductors routes use.
// It also carries the reads and writes of the routes in misc*.go (lookup,
// heartbeat, allocations), which have no interface of their own in Store.
type conductorStore interface {
	ListConductors(ctx context.Context, o db.ListOpts) ([]models.Conductor, error)
	GetConductor(ctx context.Context, hostname string, onlineOnly bool) (*models.Conductor, error)
}

// defaultConductorFields are the fields of a non-detailed conductor list.
func defaultConductorFields() []string { return []string{"hostname", "conductor_group", "alive"} }

// routesConductors registers ConductorsController (API 1.49).
func (a *API) routesConductors(m *mux.Router) {
	a.handle(m, "/conductors", methods{"GET": a.listConductors})
	a.handle(m, "/conductors/{hostname}", methods{"GET": a.getConductor})
	a.handle(m, "/conductors/{hostname}/{fields}", methods{"GET": a.getConductor})
}

// listConductors is ConductorsController.get_all.
func (a *API) listConductors(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("marker", "limit", "sort_key", "sort_dir", "fields", "detail"); err != nil {
		return nil, err
	}
	p, err := miscParseListArgs(rq, true)
	if err != nil {
		return nil, err
	}
	pfields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
	detail, err := rq.Bool("detail")
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:conductor:get", nil); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.Conductors) {
		return nil, miscResourceNotFound()
	}
	if err := miscCheckAllowedFields(rq.Ver, pfields); err != nil {
		return nil, err
	}
	if err := miscCheckAllowedFields(rq.Ver, []string{p.sortKey}); err != nil {
		return nil, err
	}
	fields, err := returnFields(rq.Ver, pfields, detail, defaultConductorFields())
	if err != nil {
		return nil, err
	}
	limit, err := a.validateLimit(p.limit)
	if err != nil {
		return nil, err
	}
	if err := validateSortDir(p.sortDir); err != nil {
		return nil, err
	}
	if p.sortKey == "alive" || p.sortKey == "drivers" {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "The sort_key value %s is an invalid field for sorting", p.sortKey)
	}
	o := db.ListOpts{Limit: limit, SortKey: p.sortKey, SortDir: p.sortDir}
	if p.marker != nil {
		mc, err := a.d.Store.GetConductor(ctx, *p.marker, false)
		if err != nil {
			return nil, err
		}
		o.Marker = mc.ID
	}
	cs, err := a.d.Store.ListConductors(ctx, o)
	if err != nil {
		return nil, err
	}
	items := make([]pyjson.Object, 0, len(cs))
	for i := range cs {
		c := a.renderConductor(rq, &cs[i])
		if fields != nil {
			if err := miscCheckFields(fields, c); err != nil {
				return nil, err
			}
		}
		items = append(items, c)
	}
	var next any
	if len(cs) > 0 {
		args := p.nextArgs()
		if detail != nil {
			args = append(args, nextArg{"detail", detail})
		}
		next = nextLink(rq, "conductors", len(cs), limit, cs[len(cs)-1].Hostname, args, fields)
	}
	for i := range items {
		items[i] = miscSanitize(items[i], fields)
	}
	return OK(collection("conductors", items, next)), nil
}

// getConductor is ConductorsController.get_one; /conductors/<host>/<x>
// passes x as the fields argument, as pecan binds the extra segment.
func (a *API) getConductor(rq *Request) (*Response, error) {
	_, hasPositional := rq.Vars["fields"]
	allowed := []string{"fields"}
	if hasPositional {
		allowed = nil
	}
	if err := rq.CheckArgs(allowed...); err != nil {
		return nil, err
	}
	host := rq.Var("hostname")
	if !miscIsName(host) {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Expected name for hostname: %s", host)
	}
	fields, err := miscFieldsArg(rq)
	if err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:conductor:get", nil); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.Conductors) {
		return nil, miscResourceNotFound()
	}
	if err := miscCheckAllowedFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	c, err := a.d.Store.GetConductor(ctx, host, false)
	if err != nil {
		return nil, err
	}
	out := a.renderConductor(rq, c)
	if fields != nil {
		if err := miscCheckFields(fields, out); err != nil {
			return nil, err
		}
	}
	return OK(miscSanitize(out, fields)), nil
}

// renderConductor is conductor.convert_with_links before sanitizing. A
// conductor is alive when its last heartbeat is newer than
// [conductor]heartbeat_timeout.
func (a *API) renderConductor(rq *Request, c *models.Conductor) pyjson.Object {
	drivers := []any(c.Drivers)
	if drivers == nil {
		drivers = []any{}
	}
	alive := c.UpdatedAt.Valid() && a.d.Clock.Now().Sub(c.UpdatedAt.Time) <= a.heartbeatTimeout()
	return pyjson.Object{
		{Key: "created_at", Value: isoTime(c.CreatedAt)},
		{Key: "updated_at", Value: isoTime(c.UpdatedAt)},
		{Key: "hostname", Value: c.Hostname},
		{Key: "conductor_group", Value: c.ConductorGroup},
		{Key: "drivers", Value: drivers},
		{Key: "links", Value: selfLinks(rq.BaseURL(), "conductors", c.Hostname)},
		{Key: "alive", Value: alive},
	}
}

// checkAllowedFields is api_utils.check_allowed_fields (with
// check_allow_specify_fields): fields need 1.8, and a node field newer
// than the request is NotAcceptable, whatever the resource.
func miscCheckAllowedFields(v mv.Version, fields []string) error {
	if fields == nil {
		return nil
	}
	if !v.AtLeast(mv.FetchingSubsetOfFields) {
		return notAcceptable()
	}
	if slices.ContainsFunc(fields, func(f string) bool { return !nodeFieldAllowed(v, f) }) {
		return notAcceptable()
	}
	return nil
}

// resourceNotFound is exception.NotFound with its default message.
func miscResourceNotFound() error {
	return ironic.Errorf(ironic.NotFound, "Resource could not be found.")
}
