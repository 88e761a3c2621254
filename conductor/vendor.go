package conductor

import (
	"context"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/rpc"
)

// vendorArgs is the passthru request body as the method's keyword
// arguments. Ironic passes it as **info, so anything but a JSON object (or
// nothing) crashes there with a 500 TypeError; the body is the client's
// mistake, so we refuse it as InvalidParameterValue (400).
func vendorArgs(info any) (map[string]any, error) {
	switch v := info.(type) {
	case nil:
		return map[string]any{}, nil
	case *pyjson.Dict:
		// Keyword arguments: the methods read them, nothing stores them.
		return v.Map(), nil
	case map[string]any:
		return v, nil
	}
	return nil, ironic.Errorf(ironic.InvalidParameterValue, "The vendor passthru data must be a JSON object, not %s.", jsonKind(info))
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// VendorPassthru calls a node vendor method (vendor_passthru). The node is
// held under a shared lock, upgraded when the method requires an exclusive
// one; the method is validated, then run here (its value returned,
// async=false) or on a worker (async=true, no value). An unknown method or
// an HTTP method it doesn't accept is InvalidParameterValue.
func (m *Manager) VendorPassthru(ctx context.Context, _ string, uuid, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	handed := false
	defer func() {
		if !handed {
			t.release(ctx)
		}
	}()
	vi, _ := t.driver.Interface(drivers.Vendor).(drivers.VendorInterface)
	var routes drivers.VendorMethods
	if vi != nil {
		routes = vi.Routes()
	}
	vm, err := drivers.ResolveVendorMethod(routes, method, httpMethod)
	if err != nil {
		return nil, err
	}
	httpMethod = strings.ToUpper(httpMethod)
	if vm.RequireExclusiveLock {
		if err := t.upgradeLock(ctx); err != nil {
			return nil, err
		}
	}
	args, err := vendorArgs(info)
	if err != nil {
		return nil, err
	}
	if err := vi.Validate(ctx, t, method, httpMethod, args); err != nil {
		return nil, err
	}
	res := &rpc.VendorResult{Async: vm.Async, Attach: vm.Attach}
	if vm.Async {
		handed = true
		err := m.spawn(ctx, t, func(ctx context.Context, t *task) {
			if _, err := vi.Call(ctx, t, method, httpMethod, args); err != nil {
				m.log.ErrorContext(ctx, "asynchronous vendor passthru method failed", "node", uuid, "method", method, "error", err)
			}
		})
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	if res.Return, err = vi.Call(ctx, t, method, httpMethod, args); err != nil {
		return nil, err
	}
	return res, nil
}

// DriverVendorPassthru calls a driver-level vendor method of a hardware
// type's default vendor interface (driver_vendor_passthru). No node is
// locked: any locking is the method's own business, as in Ironic.
func (m *Manager) DriverVendorPassthru(ctx context.Context, _ string, driver, method, httpMethod string, info any) (*rpc.VendorResult, error) {
	vi, err := m.reg.DriverVendor(driver)
	if err != nil {
		return nil, err
	}
	if dm, ok := m.reg.DriverMethod(method); ok {
		// Registered for every hardware type, whatever its vendor
		// interface (ipxe_config of the (i)PXE boot machinery).
		return m.callDriverMethod(ctx, dm, driver, httpMethod, info)
	}
	vm, err := drivers.ResolveVendorMethod(vi.DriverRoutes(), method, httpMethod)
	if err != nil {
		return nil, err
	}
	httpMethod = strings.ToUpper(httpMethod)
	args, err := vendorArgs(info)
	if err != nil {
		return nil, err
	}
	if err := vi.DriverValidate(ctx, method, httpMethod, args); err != nil {
		return nil, err
	}
	res := &rpc.VendorResult{Async: vm.Async, Attach: vm.Attach}
	if vm.Async {
		err := m.spawnUnlocked(ctx, func(ctx context.Context) {
			if _, err := vi.CallDriver(ctx, method, httpMethod, args); err != nil {
				m.log.ErrorContext(ctx, "asynchronous driver vendor passthru method failed", "driver", driver, "method", method, "error", err)
			}
		})
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	if res.Return, err = vi.CallDriver(ctx, method, httpMethod, args); err != nil {
		return nil, err
	}
	return res, nil
}

// callDriverMethod runs a registered drivers.DriverMethod: the HTTP method
// is checked, the body is its arguments, and it runs here, with no lock.
func (m *Manager) callDriverMethod(ctx context.Context, dm drivers.DriverMethod, driver, httpMethod string, info any) (*rpc.VendorResult, error) {
	vm, err := drivers.ResolveVendorMethod(drivers.NewVendorMethods(dm.Method()), dm.Method().Name, httpMethod)
	if err != nil {
		return nil, err
	}
	args, err := vendorArgs(info)
	if err != nil {
		return nil, err
	}
	ret, err := dm.Call(ctx, bootNodes{m.store}, driver, args)
	if err != nil {
		return nil, err
	}
	return &rpc.VendorResult{Return: ret, Attach: vm.Attach}, nil
}
