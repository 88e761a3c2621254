package apiv1

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"time"

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

// DriversController's parameters, and those of its sub-controllers.
var (
	driverListArgs   = params(opt("type", strArg), opt("detail", boolArg), opt("fields", stringListArg))
	driverGetArgs    = params(req("driver_name", strArg), opt("fields", stringListArg))
	driverNameArgs   = params(req("driver_name", strArg))
	driverVendorArgs = params(req("driver_name", strArg), req("method", strArg), opt("data", nil)).takesBody("data")
)

// heartbeatTimeout is [conductor]heartbeat_timeout.
func (a *API) heartbeatTimeout() time.Duration {
	return time.Duration(a.cfg.HeartbeatTimeout) * time.Second
}

// listDrivers is DriversController.get_all.
func (a *API) listDrivers(rq *Request) (*Response, error) {
	b, err := driverListArgs.bind(rq)
	if err != nil {
		return nil, err
	}
	typ, detail, fields := b.str("type"), b.boolean("detail"), b.list("fields")
	if len(fields) > 0 && detail != nil && *detail {
		return nil, ironic.Errorf(ironic.InvalidParameterValue, "Can not specify ?detail=True and fields in the same request.")
	}
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:driver:get", nil); err != nil {
		return nil, err
	}
	if (detail != nil || typ != nil) && !rq.Ver.AtLeast(mv.DynamicDrivers) {
		return nil, ironic.Errorf(ironic.NotAcceptable, "Request not acceptable. The minimal required API version should be 1.%d", int(mv.DynamicDrivers))
	}
	if err := checkDriverFields(rq.Ver, fields); err != nil {
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
	names := slices.Sorted(maps.Keys(hwTypes))
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
		d, err := renderDriver(rq, name, hwTypes[name], isDetail, own, fields)
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
	b, err := driverGetArgs.bind(rq, rq.positional()...)
	if err != nil {
		return nil, err
	}
	name, fields := b.ident("driver_name"), b.list("fields")
	if err := a.d.Policy.Authorize(rq.Ctx(), "baremetal:driver:get", nil); err != nil {
		return nil, err
	}
	if err := checkDriverFields(rq.Ver, fields); err != nil {
		return nil, err
	}
	ctx := rq.Ctx()
	hwTypes, err := a.d.Store.GetActiveHardwareTypeDict(ctx, false, a.heartbeatTimeout())
	if err != nil {
		return nil, err
	}
	hosts, ok := hwTypes[name]
	if !ok {
		return nil, driverNotFound(name)
	}
	var ifaces []models.ConductorHardwareInterface
	if rq.Ver.AtLeast(mv.DynamicDrivers) {
		if ifaces, err = a.d.Store.ListHardwareTypeInterfaces(ctx, []string{name}, a.heartbeatTimeout()); err != nil {
			return nil, err
		}
	}
	d, err := renderDriver(rq, name, hosts, true, ifaces, fields)
	if err != nil {
		return nil, err
	}
	return OK(d), nil
}

// driverRead is how the driver reads that take the driver_name argument
// alone start: the argument, the policy, a version check (nil for none),
// then the topic of a conductor running the driver.
func (a *API) driverRead(rq *Request, positional []string, policy string, check func() error) (name, topic string, err error) {
	b, err := driverNameArgs.bind(rq, positional...)
	if err != nil {
		return "", "", err
	}
	name = b.ident("driver_name")
	if err := a.d.Policy.Authorize(rq.Ctx(), policy, nil); err != nil {
		return "", "", err
	}
	if check != nil {
		if err := check(); err != nil {
			return "", "", err
		}
	}
	topic, err = a.topicForDriver(rq.Ctx(), name)
	return name, topic, err
}

// driverProperties is DriversController.properties.
func (a *API) driverProperties(rq *Request) (*Response, error) {
	name, topic, err := a.driverRead(rq, rq.positional(), "baremetal:driver:get_properties", nil)
	if err != nil {
		return nil, err
	}
	props, err := a.d.Conductor.GetDriverProperties(rq.Ctx(), topic, name)
	if err != nil {
		return nil, err
	}
	return OK(stringMap(props)), nil
}

// driverRAIDProperties is DriverRaidController.logical_disk_properties.
func (a *API) driverRAIDProperties(rq *Request) (*Response, error) {
	name, topic, err := a.driverRead(rq, rq.positional(), "baremetal:driver:get_raid_logical_disk_properties",
		func() error {
			if !rq.Ver.AtLeast(mv.RAIDConfig) {
				return notAcceptable()
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	props, err := a.d.Conductor.GetRAIDLogicalDiskProperties(rq.Ctx(), topic, name)
	if err != nil {
		// RAID is a standard interface that a driver may lack: 404.
		return nil, withStatus(err, ironic.UnsupportedDriverExtension, http.StatusNotFound)
	}
	return OK(stringMap(props)), nil
}

// driverVendorMethods is DriverPassthruController.methods.
func (a *API) driverVendorMethods(rq *Request, positional []string) (*Response, error) {
	name, topic, err := a.driverRead(rq, positional, "baremetal:driver:vendor_passthru", nil)
	if err != nil {
		return nil, err
	}
	ms, err := a.d.Conductor.GetDriverVendorPassthruMethods(rq.Ctx(), topic, name)
	if err != nil {
		return nil, err
	}
	return OK(vendorMethodsBody(ms)), nil
}

// driverVendorPassthru is DriverPassthruController: a GET of
// /drivers/<name>/vendor_passthru/methods is its methods action; any other
// verb or method calls a driver-level vendor method (_default), the body
// being the method's data.
func (a *API) driverVendorPassthru(rq *Request) (*Response, error) {
	pos := rq.positional()
	if rq.HTTP.Method == http.MethodGet && len(pos) > 0 && pos[len(pos)-1] == "methods" {
		return a.driverVendorMethods(rq, pos[:len(pos)-1])
	}
	if isIPXEConfig(rq) {
		return a.driverIPXEConfig(rq)
	}
	b, err := driverVendorArgs.bind(rq, pos...)
	if err != nil {
		return nil, err
	}
	name, method, data := b.ident("driver_name"), b.strOr("method", ""), b.body
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

func driverNotFound(name string) error {
	return ironic.Errorf(ironic.DriverNotFound, "Could not find the following driver(s) or hardware type(s): %s.", name)
}

// checkDriverFields is _check_allow_driver_fields: ?fields= on drivers
// needs 1.77.
func checkDriverFields(v mv.Version, fields []string) error {
	if fields != nil && !v.AtLeast(mv.DriverFieldsSelector) {
		return notAcceptable()
	}
	return nil
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
