package apiv1

import (
	"context"

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

// ConductorsController's parameters (conductors page by host name).
var (
	conductorListArgs = params(paging(nameArg)...).and(opt("fields", stringListArg), opt("detail", boolArg))
	conductorGetArgs  = params(req("hostname", nameArg), opt("fields", stringListArg))
)

// listConductors is ConductorsController.get_all.
func (a *API) listConductors(rq *Request) (*Response, error) {
	b, err := conductorListArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	detail := b.boolean("detail")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:conductor:get", nil); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.Conductors) {
		return nil, resourceNotFound()
	}
	if err := checkConductorFields(rq.Ver, b.list("fields")); err != nil {
		return nil, err
	}
	if err := checkConductorFields(rq.Ver, []string{b.strOr("sort_key", "id")}); err != nil {
		return nil, err
	}
	fields, err := returnFields(rq.Ver, b.list("fields"), detail, defaultConductorFields())
	if err != nil {
		return nil, err
	}
	pg, err := a.page(b)
	if err != nil {
		return nil, err
	}
	o, err := pg.listOpts(sortKeyFirst, []string{"alive", "drivers"}, func(marker string) (int64, error) {
		mc, err := a.d.Store.GetConductor(ctx, marker, false)
		if err != nil {
			return 0, err
		}
		return mc.ID, nil
	})
	if err != nil {
		return nil, err
	}
	cs, err := a.d.Store.ListConductors(ctx, o)
	if err != nil {
		return nil, err
	}
	items := make([]pyjson.Object, 0, len(cs))
	for i := range cs {
		c := a.renderConductor(rq, &cs[i])
		if err := checkFields(fields, c); err != nil {
			return nil, err
		}
		items = append(items, c)
	}
	var next any
	if len(cs) > 0 {
		next = nextLink(rq, "conductors", len(cs), pg.limit, cs[len(cs)-1].Hostname, pg.nextArgs(detail), fields)
	}
	for i := range items {
		items[i] = keepFields(items[i], fields)
	}
	return OK(collection("conductors", items, next)), nil
}

// getConductor is ConductorsController.get_one; /conductors/<host>/<x>
// passes x as the fields argument, as pecan binds the extra segment.
func (a *API) getConductor(rq *Request) (*Response, error) {
	b, err := conductorGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	host, fields := b.ident("hostname"), b.list("fields")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:conductor:get", nil); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.Conductors) {
		return nil, resourceNotFound()
	}
	if err := checkConductorFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	c, err := a.d.Store.GetConductor(ctx, host, false)
	if err != nil {
		return nil, err
	}
	out := a.renderConductor(rq, c)
	if err := checkFields(fields, out); err != nil {
		return nil, err
	}
	return OK(keepFields(out, fields)), nil
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

// checkConductorFields is check_allow_specify_fields and
// check_allowed_fields: fields need 1.8, and a node field newer than the
// request is NotAcceptable, whatever the resource.
func checkConductorFields(v mv.Version, fields []string) error {
	if err := checkFieldsVersion(v, fields); err != nil {
		return err
	}
	return checkNodeFieldsAllowed(v, fields)
}
