package conductor_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/rpc"
)

// driverVendor is the fake vendor interface (FakeVendorB) plus two
// driver-level methods: "echo" (sync, GET) returns its arguments, "bump"
// (async, POST, attach) counts its calls.
type driverVendor struct {
	fake.VendorB
	bumps atomic.Int32
}

func (*driverVendor) DriverRoutes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "echo", HTTPMethods: []string{"GET"}},
		drivers.VendorMethod{Name: "bump", HTTPMethods: []string{"POST"}, Async: true, Attach: true},
	)
}

func (*driverVendor) DriverValidate(_ context.Context, method, _ string, args map[string]any) error {
	if method == "echo" && args["say"] == nil {
		return drivers.MissingParameter("say is required")
	}
	return nil
}

func (v *driverVendor) CallDriver(_ context.Context, method, httpMethod string, args map[string]any) (any, error) {
	switch method {
	case "echo":
		return map[string]any{"said": args["say"], "http_method": httpMethod}, nil
	case "bump":
		v.bumps.Add(1)
		return nil, nil
	}
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

func TestNodeVendorPassthru(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withManualManagement())
		n := h.node(t, "fake-hardware", nil)

		got, err := h.m.VendorPassthru(ctx, "", n.UUID, "third_method_sync", "post", map[string]any{"bar": "meow"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&rpc.VendorResult{Return: true}, got); diff != "" {
			t.Errorf("sync call (-want +got):\n%s", diff)
		}
		got, err = h.m.VendorPassthru(ctx, "", n.UUID, "third_method_sync", "POST", map[string]any{"bar": "woof"})
		if err != nil || got.Return != false {
			t.Errorf("sync call with another bar: %+v %v", got, err)
		}
		got, err = h.m.VendorPassthru(ctx, "", n.UUID, "second_method", "POST", map[string]any{"bar": "kazoo"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&rpc.VendorResult{Async: true}, got); diff != "" {
			t.Errorf("async call (-want +got):\n%s", diff)
		}
		h.m.Wait()
		if n := h.reload(t, n); n.Reservation != nil {
			t.Errorf("the async call left the lock: %v", *n.Reservation)
		}

		_, err = h.m.VendorPassthru(ctx, "", n.UUID, "third_method_sync", "POST", map[string]any{})
		wantFault(t, "missing bar", err, ironic.MissingParameterValue, "Parameter 'bar' not passed to method 'third_method_sync'.")
		_, err = h.m.VendorPassthru(ctx, "", n.UUID, "third_method_sync", "get", nil)
		wantFault(t, "GET", err, ironic.InvalidParameterValue, "The method third_method_sync does not support HTTP GET")
		_, err = h.m.VendorPassthru(ctx, "", n.UUID, "nope", "POST", nil)
		wantFault(t, "unknown method", err, ironic.InvalidParameterValue, "No handler for method nope")
		// Python crashes (500 TypeError on **info); the body is the
		// client's mistake, so we answer 400.
		_, err = h.m.VendorPassthru(ctx, "", n.UUID, "second_method", "POST", []any{"x"})
		wantFault(t, "a list as arguments", err, ironic.InvalidParameterValue, "The vendor passthru data must be a JSON object, not an array.")

		// Methods that need the exclusive lock fail under a foreign one;
		// the shared-lock method runs.
		h.lockElsewhere(t, n)
		_, err = h.m.VendorPassthru(ctx, "", n.UUID, "second_method", "POST", map[string]any{"bar": "kazoo"})
		if !ironic.IsClass(err, ironic.NodeLocked) {
			t.Errorf("exclusive method under a foreign lock: %v", err)
		}
		got, err = h.m.VendorPassthru(ctx, "", n.UUID, "fourth_method_shared_lock", "POST", map[string]any{"bar": "woof"})
		if err != nil || !got.Async {
			t.Errorf("shared-lock method under a foreign lock: %+v %v", got, err)
		}
		h.m.Wait()

		// no-vendor has no methods.
		mm := h.node(t, "manual-management", nil)
		_, err = h.m.VendorPassthru(ctx, "", mm.UUID, "third_method_sync", "POST", map[string]any{"bar": "meow"})
		wantFault(t, "no-vendor", err, ironic.InvalidParameterValue, "No handler for method third_method_sync")
	})
}

func TestDriverVendorPassthru(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()

		// Ironic's fake vendor interface has no driver methods.
		h := newHarness(t, store, withManualManagement())
		_, err := h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "echo", "GET", nil)
		wantFault(t, "fake driver method", err, ironic.InvalidParameterValue, "No handler for method echo")
		if _, err := h.m.DriverVendorPassthru(ctx, "", "bogus", "echo", "GET", nil); !ironic.IsClass(err, ironic.DriverNotFound) {
			t.Errorf("unknown driver: %v", err)
		}
		// manual-management's default vendor interface is no-vendor.
		_, err = h.m.DriverVendorPassthru(ctx, "", "manual-management", "echo", "GET", nil)
		wantFault(t, "no-vendor driver method", err, ironic.InvalidParameterValue, "No handler for method echo")

		v := &driverVendor{}
		h = newHarness(t, store, withManualManagement(), withImpl(drivers.Vendor, "fake", v))
		got, err := h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "echo", "get", map[string]any{"say": "hi"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&rpc.VendorResult{Return: map[string]any{"said": "hi", "http_method": "GET"}}, got); diff != "" {
			t.Errorf("sync driver call (-want +got):\n%s", diff)
		}
		_, err = h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "echo", "GET", nil)
		wantFault(t, "driver validation", err, ironic.MissingParameterValue, "say is required")
		_, err = h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "bump", "GET", nil)
		wantFault(t, "driver GET", err, ironic.InvalidParameterValue, "The method bump does not support HTTP GET")
		got, err = h.m.DriverVendorPassthru(ctx, "", "fake-hardware", "bump", "POST", nil)
		if err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if diff := cmp.Diff(&rpc.VendorResult{Async: true, Attach: true}, got); diff != "" || v.bumps.Load() != 1 {
			t.Errorf("async driver call: %d bumps (-want +got):\n%s", v.bumps.Load(), diff)
		}
	})
}
