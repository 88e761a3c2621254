package apiv1

import (
	"context"
	"slices"
	"time"

	"github.com/gorilla/mux"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/internal/pyjson"
	mv "github.com/goironic/ironic/microversions"
)

// driverStore is the part of the database the drivers routes use: the
// hardware types that live conductors registered, and their interfaces.
type driverStore interface {
	GetActiveHardwareTypeDict(ctx context.Context, useGroups bool, heartbeatTimeout time.Duration) (map[string][]string, error)
	ListHardwareTypeInterfaces(ctx context.Context, hardwareTypes []string, heartbeatTimeout time.Duration) ([]models.ConductorHardwareInterface, error)
}

// routesDrivers registers DriversController and its sub-controllers.
// Pecan's routing gives a few odd paths meaning: /drivers/<name>/<x> is a
// GET with fields=x; any verb on vendor_passthru is a passthru call; the
// sub-controllers reached without a driver name miss that argument; and
// the RAID controller answers 405 without an Allow header.
func (a *API) routesDrivers(m *mux.Router) {
	noName := func(args ...string) handlerFunc {
		return func(rq *Request) (*Response, error) {
			if err := rq.CheckArgs(args...); err != nil {
				return nil, err
			}
			return nil, miscMissingDriverName()
		}
	}
	anyVerb := func(h handlerFunc) methods {
		return methods{"GET": h, "POST": h, "PUT": h, "PATCH": h, "DELETE": h}
	}
	a.handle(m, "/drivers", methods{"GET": a.listDrivers})
	a.handle(m, "/drivers/properties", methods{"GET": noName()})
	a.handle(m, "/drivers/raid", methods{}, "")
	a.handle(m, "/drivers/raid/logical_disk_properties", methods{"GET": noName()}, "")
	a.handle(m, "/drivers/vendor_passthru", anyVerb(noName("method", "data")))
	a.handle(m, "/drivers/vendor_passthru/{rest:.+}", anyVerb(noName("method", "data")))
	a.handle(m, "/drivers/{driver}", methods{"GET": a.getDriver})
	a.handle(m, "/drivers/{driver}/properties", methods{"GET": a.driverProperties})
	a.handle(m, "/drivers/{driver}/raid", methods{}, "")
	a.handle(m, "/drivers/{driver}/raid/logical_disk_properties", methods{"GET": a.driverRAIDProperties}, "")
	a.handle(m, "/drivers/{driver}/raid/logical_disk_properties/{rest:.+}", methods{}, "")
	passthru := a.driverVendorPassthru
	a.handle(m, "/drivers/{driver}/vendor_passthru", anyVerb(passthru))
	// Only GET is the methods action; other verbs call a method "methods".
	named := func(rq *Request) (*Response, error) {
		rq.Vars["method"] = "methods"
		return passthru(rq)
	}
	a.handle(m, "/drivers/{driver}/vendor_passthru/methods", methods{"GET": a.driverVendorMethods,
		"POST": named, "PUT": named, "PATCH": named, "DELETE": named})
	a.handle(m, "/drivers/{driver}/vendor_passthru/{method}", anyVerb(passthru))
	a.handle(m, "/drivers/{driver}/{fields}", methods{"GET": a.getDriver})
}

// heartbeatTimeout is [conductor]heartbeat_timeout.
func (a *API) heartbeatTimeout() time.Duration {
	return time.Duration(a.cfg.HeartbeatTimeout) * time.Second
}

// listDrivers is DriversController.get_all.
func (a *API) listDrivers(rq *Request) (*Response, error) {
	if err := rq.CheckArgs("type", "detail", "fields"); err != nil {
		return nil, err
	}
	typ, err := strArg(rq, "type")
	if err != nil {
		return nil, err
	}
	detail, err := rq.Bool("detail")
	if err != nil {
		return nil, err
	}
	fields, err := stringList(rq, "fields")
	if err != nil {
		return nil, err
	}
	if len(fields) > 0 && detail != nil && *detail {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Can not specify ?detail=True and fields in the same request.")
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:driver:get", nil); err != nil {
		return nil, err
	}
	if (detail != nil || typ != nil) && !rq.Ver.AtLeast(mv.DynamicDrivers) {
		return nil, ironic.Errorf(ironic.NotAcceptable, "Request not acceptable. The minimal required API version should be 1.%d", int(mv.DynamicDrivers))
	}
	if err := miscCheckDriverFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	if typ != nil && *typ != "classic" && *typ != "dynamic" {
		return nil, ironic.Errorf(ironic.Invalid, `"type" filter must be one of "classic" or "dynamic", if specified.`)
	}
	ctx := rq.Ctx()
	hwTypes := map[string][]string{}
	if typ == nil || *typ == "dynamic" {
		// Ironic supports no classic drivers since Rocky.
		if hwTypes, err = a.d.Store.GetActiveHardwareTypeDict(ctx, false, a.heartbeatTimeout()); err != nil {
			return nil, err
		}
	}
	names := miscSortedKeys(hwTypes)
	isDetail := detail != nil && *detail
	var ifaces []models.ConductorHardwareInterface
	if isDetail && rq.Ver.AtLeast(mv.DynamicDrivers) && len(names) > 0 {
		if ifaces, err = a.d.Store.ListHardwareTypeInterfaces(ctx, names, a.heartbeatTimeout()); err != nil {
			return nil, err
		}
	}
	out := make([]pyjson.Object, 0, len(names))
	for _, name := range names {
		var own []models.ConductorHardwareInterface
		for _, i := range ifaces {
			if i.HardwareType == name {
				own = append(own, i)
			}
		}
		d, err := miscRenderDriver(rq, name, hwTypes[name], isDetail, own, fields)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return OK(pyjson.Object{{Key: "drivers", Value: out}}), nil
}

// getDriver is DriversController.get_one; /drivers/<name>/<x> passes x as
// the fields argument, as pecan binds the extra path segment.
func (a *API) getDriver(rq *Request) (*Response, error) {
	name := rq.Var("driver")
	allowed := []string{"fields"}
	if _, positional := rq.Vars["fields"]; positional {
		allowed = nil
	}
	if err := rq.CheckArgs(allowed...); err != nil {
		return nil, err
	}
	fields, err := miscFieldsArg(rq)
	if err != nil {
		return nil, err
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:driver:get", nil); err != nil {
		return nil, err
	}
	if err := miscCheckDriverFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	hwTypes, err := a.d.Store.GetActiveHardwareTypeDict(ctx, false, a.heartbeatTimeout())
	if err != nil {
		return nil, err
	}
	hosts, ok := hwTypes[name]
	if !ok {
		return nil, miscDriverNotFound(name)
	}
	var ifaces []models.ConductorHardwareInterface
	if rq.Ver.AtLeast(mv.DynamicDrivers) {
		if ifaces, err = a.d.Store.ListHardwareTypeInterfaces(ctx, []string{name}, a.heartbeatTimeout()); err != nil {
			return nil, err
		}
	}
	d, err := miscRenderDriver(rq, name, hosts, true, ifaces, fields)
	if err != nil {
		return nil, err
	}
	return OK(d), nil
}

// driverProperties is DriversController.properties.
func (a *API) driverProperties(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	name := rq.Var("driver")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:driver:get_properties", nil); err != nil {
		return nil, err
	}
	topic, err := a.topicForDriver(ctx, name)
	if err != nil {
		return nil, err
	}
	props, err := a.d.Conductor.GetDriverProperties(ctx, topic, name)
	if err != nil {
		return nil, err
	}
	return OK(miscStringMap(props)), nil
}

// driverRAIDProperties is DriverRaidController.logical_disk_properties.
func (a *API) driverRAIDProperties(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	name := rq.Var("driver")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:driver:get_raid_logical_disk_properties", nil); err != nil {
		return nil, err
	}
	if !rq.Ver.AtLeast(mv.RAIDConfig) {
		return nil, notAcceptable()
	}
	topic, err := a.topicForDriver(ctx, name)
	if err != nil {
		return nil, err
	}
	props, err := a.d.Conductor.GetRAIDLogicalDiskProperties(ctx, topic, name)
	if err != nil {
		// RAID is a standard interface that a driver may lack: 404.
		return nil, miscAsStatus(err, ironic.UnsupportedDriverExtension, 404)
	}
	return OK(miscStringMap(props)), nil
}

// driverVendorMethods is DriverPassthruController.methods.
func (a *API) driverVendorMethods(rq *Request) (*Response, error) {
	if err := rq.CheckArgs(); err != nil {
		return nil, err
	}
	name := rq.Var("driver")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:driver:vendor_passthru", nil); err != nil {
		return nil, err
	}
	topic, err := a.topicForDriver(ctx, name)
	if err != nil {
		return nil, err
	}
	ms, err := a.d.Conductor.GetDriverVendorPassthruMethods(ctx, topic, name)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(ms))
	for k, m := range ms {
		out[k] = pyjson.Object{
			{Key: "http_methods", Value: m.HTTPMethods},
			{Key: "async", Value: m.Async},
			{Key: "description", Value: m.Description},
			{Key: "attach", Value: m.Attach},
			{Key: "require_exclusive_lock", Value: m.RequireExclusiveLock},
		}
	}
	return OK(out), nil
}

// driverVendorPassthru is DriverPassthruController._default: any verb on
// /drivers/<name>/vendor_passthru[/<method>] calls a driver-level vendor
// method; the body is the method's data.
func (a *API) driverVendorPassthru(rq *Request) (*Response, error) {
	if isIPXEConfig(rq) {
		return a.driverIPXEConfig(rq)
	}
	method, data, err := passthruMethod(rq)
	if err != nil {
		return nil, err
	}
	name := rq.Var("driver")
	ctx := rq.Ctx()
	if err := a.d.Policy.Authorize(ctx, "baremetal:driver:vendor_passthru", nil); err != nil {
		return nil, err
	}
	topic, err := a.topicForDriver(ctx, name)
	if err != nil {
		return nil, err
	}
	if method == "" {
		return nil, ironic.Errorf(ironic.ClientSideError, "Method not specified")
	}
	res, err := a.d.Conductor.DriverVendorPassthru(ctx, topic, name, method, rq.HTTP.Method, plain(data))
	if err != nil {
		return nil, err
	}
	return vendorResponse(res), nil
}

// topicForDriver is rpcapi.get_topic_for_driver: a random live conductor
// running the hardware type. Ironic's ring names an unknown type with
// "The driver '<name>' is unknown." (and "No conductors registered." when
// there are no conductors at all).
func (a *API) topicForDriver(ctx context.Context, name string) (string, error) {
	topic, err := a.d.Conductor.TopicForDriver(ctx, name)
	if err != nil {
		if f := ironic.AsFault(err); f.Class == ironic.DriverNotFound && f.Message != "No conductors registered." {
			return "", ironic.Errorf(ironic.DriverNotFound, "The driver '%s' is unknown.", name)
		}
		return "", err
	}
	return topic, nil
}

func miscDriverNotFound(name string) error {
	return ironic.Errorf(ironic.DriverNotFound, "Could not find the following driver(s) or hardware type(s): %s.", name)
}

func miscMissingDriverName() error {
	return ironic.Errorf(ironic.MissingParameterValue, "Missing mandatory parameter: driver_name")
}

// checkDriverFieldsAllowed is _check_allow_driver_fields: ?fields= on
// drivers needs 1.77.
func miscCheckDriverFields(v mv.Version, fields []string) error {
	if fields != nil && !v.AtLeast(mv.DriverFieldsSelector) {
		return notAcceptable()
	}
	return nil
}

func miscSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func miscStringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
