package fake

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/internal/py"
)

// VendorB is Ironic's FakeVendorB, registered as the "fake" vendor
// interface: node methods second_method, third_method_sync and
// fourth_method_shared_lock, each answering whether "bar" has a magic
// value.
type VendorB struct{ s sleeper }

// GetProperties returns B1 and B2.
func (*VendorB) GetProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "B1", Description: "B1 description. Required."},
		{Name: "B2", Description: "B2 description. Required."},
	}
}

// Routes lists the three node methods.
func (*VendorB) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(
		drivers.VendorMethod{Name: "second_method", HTTPMethods: []string{"POST"}, Async: true,
			Description: "Test if the value of bar is kazoo", RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "third_method_sync", HTTPMethods: []string{"POST"}, Async: false,
			Description: "Test if the value of bar is meow", RequireExclusiveLock: true},
		drivers.VendorMethod{Name: "fourth_method_shared_lock", HTTPMethods: []string{"POST"}, Async: true,
			Description: "Test if the value of bar is woof", RequireExclusiveLock: false},
	)
}

// DriverRoutes lists none.
func (*VendorB) DriverRoutes() drivers.VendorMethods { return nil }

// Validate requires "bar" for the three methods.
func (*VendorB) Validate(_ context.Context, _ drivers.Task, method, _ string, args map[string]any) error {
	switch method {
	case "second_method", "third_method_sync", "fourth_method_shared_lock":
		if !py.Truthy(args["bar"]) {
			return drivers.MissingParameter("Parameter 'bar' not passed to method '%s'.", method)
		}
	}
	return nil
}

// DriverValidate accepts every call.
func (*VendorB) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call answers whether bar is "kazoo" (second_method), "meow"
// (third_method_sync) or "woof" (fourth_method_shared_lock).
func (v *VendorB) Call(ctx context.Context, _ drivers.Task, method, _ string, args map[string]any) (any, error) {
	want := map[string]string{
		"second_method":             "kazoo",
		"third_method_sync":         "meow",
		"fourth_method_shared_lock": "woof",
	}[method]
	if want == "" {
		return nil, drivers.InvalidParameter("No handler for method %s", method)
	}
	if err := v.s.wait(ctx); err != nil {
		return nil, err
	}
	bar, _ := args["bar"].(string)
	return bar == want, nil
}

// CallDriver has no methods to run.
func (*VendorB) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}

// VendorA is Ironic's FakeVendorA, with the node method first_method. Ironic
// registers no name for it (it only appears in fake-hardware's supported
// list), so it is not among Implementations; tests may compose it.
type VendorA struct{ s sleeper }

// NewVendorA returns a VendorA slowed down by cfg.VendorDelay.
func NewVendorA(cfg Config) *VendorA { return &VendorA{s: cfg.sleeper(cfg.VendorDelay)} }

// GetProperties returns A1 and A2.
func (*VendorA) GetProperties() drivers.Properties {
	return drivers.Properties{
		{Name: "A1", Description: "A1 description. Required."},
		{Name: "A2", Description: "A2 description. Optional."},
	}
}

// Routes lists first_method.
func (*VendorA) Routes() drivers.VendorMethods {
	return drivers.NewVendorMethods(drivers.VendorMethod{Name: "first_method", HTTPMethods: []string{"POST"},
		Async: true, Description: "Test if the value of bar is baz", RequireExclusiveLock: true})
}

// DriverRoutes lists none.
func (*VendorA) DriverRoutes() drivers.VendorMethods { return nil }

// Validate requires "bar" for first_method.
func (*VendorA) Validate(_ context.Context, _ drivers.Task, method, _ string, args map[string]any) error {
	if method == "first_method" && !py.Truthy(args["bar"]) {
		return drivers.MissingParameter("Parameter 'bar' not passed to method 'first_method'.")
	}
	return nil
}

// DriverValidate accepts every call.
func (*VendorA) DriverValidate(context.Context, string, string, map[string]any) error { return nil }

// Call answers whether bar is "baz".
func (v *VendorA) Call(ctx context.Context, _ drivers.Task, method, _ string, args map[string]any) (any, error) {
	if method != "first_method" {
		return nil, drivers.InvalidParameter("No handler for method %s", method)
	}
	if err := v.s.wait(ctx); err != nil {
		return nil, err
	}
	bar, _ := args["bar"].(string)
	return bar == "baz", nil
}

// CallDriver has no methods to run.
func (*VendorA) CallDriver(_ context.Context, method, _ string, _ map[string]any) (any, error) {
	return nil, drivers.InvalidParameter("No handler for method %s", method)
}
