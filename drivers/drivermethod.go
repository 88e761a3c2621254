package drivers

import (
	"context"
	"fmt"
	"sync"

	"github.com/goironic/ironic/states"
)

// DriverMethod is a driver vendor passthru method that an implementation
// package registers for every hardware type, whatever the hardware type's
// vendor interface: the (i)PXE boot machinery's ipxe_config, which a
// booting node's firmware asks for its script.
//
// The conductor's driver_vendor_passthru routes a call for a registered
// method to it, before the hardware type's own vendor routes: the HTTP
// method is checked against Method's (Ironic's "The method <m> does not
// support HTTP <H>"), the request body becomes args, and Call runs in the
// caller's goroutine (Method().Async is not supported). No node is
// locked; the method finds what it needs through nodes. GET /v1/drivers/
// <d>/vendor_passthru/methods does not list it (Ironic lists the vendor
// interface's methods only). Call's result is the passthru's return
// value; errors are faults as for VendorInterface.CallDriver.
type DriverMethod interface {
	// Method names the method and the HTTP methods it accepts.
	Method() VendorMethod
	// Call answers one call for hardware type driver.
	Call(ctx context.Context, nodes BootNodes, driver string, args map[string]any) (any, error)
}

// BootNodes is how a DriverMethod finds the node a booting machine is,
// without a lock: one narrow read of the node's boot-related fields (a
// booting node asks on every boot, possibly thousands at once). The
// conductor implements it over its database.
type BootNodes interface {
	// BootNodeByUUID returns the node with this UUID; found is false when
	// there is none.
	BootNodeByUUID(ctx context.Context, uuid string) (n BootNode, found bool, err error)
	// BootNodeByPortAddress returns the node of the port with this MAC
	// address (lower case, colon separated, as ports store it); found is
	// false when no port has it.
	BootNodeByPortAddress(ctx context.Context, address string) (n BootNode, found bool, err error)
	// BootVolumeTargets and BootVolumeConnectors return the volume
	// targets and connectors of node n, ordered by id (each read only when
	// asked: most boots need neither).
	BootVolumeTargets(ctx context.Context, n BootNode) ([]BootVolumeTarget, error)
	BootVolumeConnectors(ctx context.Context, n BootNode) ([]VolumeConnector, error)
}

// BootNode is what BootNodes reads of a node.
type BootNode struct {
	// ID is the node's database id, which the volumes are read by.
	ID   int64
	UUID string
	// ProvisionState is the node's provision_state ("" for None).
	ProvisionState states.Provision
	// DeployInterface is the node's deploy_interface field ("" for
	// None); an instance_info override is not applied.
	DeployInterface    string
	DriverInfo         map[string]any
	InstanceInfo       map[string]any
	DriverInternalInfo map[string]any
}

// BootVolumeTarget is a volume target as BootNodes reads it.
type BootVolumeTarget struct {
	UUID       string
	VolumeType string
	// BootIndex is nil when the target has none.
	BootIndex  *int64
	Properties map[string]any
}

// driverMethods are the registered DriverMethods, by name.
type driverMethods struct {
	mu sync.RWMutex
	m  map[string]DriverMethod
}

// RegisterDriverMethod makes m answer driver vendor passthru calls for
// its method on every hardware type. Registering a name twice is an
// error. Registration belongs to start-up, before the registry serves
// calls.
func (r *Registry) RegisterDriverMethod(m DriverMethod) error {
	name := m.Method().Name
	r.methods.mu.Lock()
	defer r.methods.mu.Unlock()
	if _, dup := r.methods.m[name]; dup {
		return fmt.Errorf("drivers: driver method %q registered twice", name)
	}
	if r.methods.m == nil {
		r.methods.m = map[string]DriverMethod{}
	}
	r.methods.m[name] = m
	return nil
}

// DriverMethod returns the DriverMethod registered for name.
func (r *Registry) DriverMethod(name string) (DriverMethod, bool) {
	r.methods.mu.RLock()
	defer r.methods.mu.RUnlock()
	m, ok := r.methods.m[name]
	return m, ok
}
