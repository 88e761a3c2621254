package drivers

import (
	"slices"
	"strings"

	"github.com/goironic/ironic/internal/pyjson"
)

// VendorMethod is the metadata of one vendor passthru method (what Ironic's
// @passthru and @driver_passthru decorators record).
type VendorMethod struct {
	// Name is the method's name in the URL (?method=<name>).
	Name string
	// HTTPMethods are the accepted HTTP methods, upper case.
	HTTPMethods []string
	// Async methods run in a conductor worker; the API answers 202.
	Async bool
	// Description is shown by .../vendor_passthru/methods.
	Description string
	// Attach means the result is the response body itself rather than
	// JSON-encoded into it.
	Attach bool
	// RequireExclusiveLock (node methods only) makes the conductor upgrade
	// its shared lock before validating and calling the method.
	RequireExclusiveLock bool
}

// VendorMethods is an implementation's method table, sorted by name as
// Ironic lists them.
type VendorMethods []VendorMethod

// NewVendorMethods returns the methods sorted by name.
func NewVendorMethods(m ...VendorMethod) VendorMethods {
	out := slices.Clone(m)
	slices.SortFunc(out, func(a, b VendorMethod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup finds the method called name.
func (m VendorMethods) Lookup(name string) (VendorMethod, bool) {
	for _, x := range m {
		if x.Name == name {
			return x, true
		}
	}
	return VendorMethod{}, false
}

// NodeMetadata renders the table as GET /v1/nodes/{node}/vendor_passthru/
// methods shows it: {name: {"http_methods", "async", "description",
// "attach", "require_exclusive_lock"}}.
func (m VendorMethods) NodeMetadata() pyjson.Object { return m.metadata(true) }

// DriverMetadata renders the table as GET /v1/drivers/{name}/
// vendor_passthru/methods shows it (no require_exclusive_lock).
func (m VendorMethods) DriverMetadata() pyjson.Object { return m.metadata(false) }

func (m VendorMethods) metadata(node bool) pyjson.Object {
	o := make(pyjson.Object, 0, len(m))
	for _, x := range m {
		methods := make([]any, len(x.HTTPMethods))
		for i, h := range x.HTTPMethods {
			methods[i] = h
		}
		md := pyjson.Object{
			{Key: "http_methods", Value: methods},
			{Key: "async", Value: x.Async},
			{Key: "description", Value: x.Description},
			{Key: "attach", Value: x.Attach},
		}
		if node {
			md = append(md, pyjson.Member{Key: "require_exclusive_lock", Value: x.RequireExclusiveLock})
		}
		o = append(o, pyjson.Member{Key: x.Name, Value: md})
	}
	return o
}

// ResolveVendorMethod finds method in routes and checks the HTTP method, with
// the errors Ironic's conductor gives: "No handler for method <m>" and "The
// method <m> does not support HTTP <H>" (InvalidParameterValue). httpMethod
// is compared upper-cased.
func ResolveVendorMethod(routes VendorMethods, method, httpMethod string) (VendorMethod, error) {
	vm, ok := routes.Lookup(method)
	if !ok {
		return VendorMethod{}, InvalidParameter("No handler for method %s", method)
	}
	h := strings.ToUpper(httpMethod)
	if !slices.Contains(vm.HTTPMethods, h) {
		return VendorMethod{}, InvalidParameter("The method %s does not support HTTP %s", method, h)
	}
	return vm, nil
}
