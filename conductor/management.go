package conductor

import (
	"context"

	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/rpc"
)

// management returns the node's management interface.
func (m *Manager) management(t *task) (drivers.ManagementInterface, error) {
	mi, ok := t.driver.Interface(drivers.Management).(drivers.ManagementInterface)
	if !ok {
		return nil, drivers.Unsupported(t, "management")
	}
	return mi, nil
}

// validatedManagement returns the node's management interface once its
// validate passed.
func (m *Manager) validatedManagement(ctx context.Context, t *task) (drivers.ManagementInterface, error) {
	mi, err := m.management(t)
	if err != nil {
		return nil, err
	}
	if err := mi.Validate(ctx, t); err != nil {
		return nil, err
	}
	return mi, nil
}

// managementLock is how a management call holds the node: under a shared
// or an exclusive lock, and with the interface validated first or not.
type managementLock struct {
	mode     lockMode
	validate bool
}

var (
	sharedValidated    = managementLock{mode: sharedLock, validate: true}
	exclusiveValidated = managementLock{mode: exclusiveLock, validate: true}
	sharedUnvalidated  = managementLock{mode: sharedLock}
)

// withManagement runs call on the node's management interface with the
// node held as lock says, releasing it when call returns.
func withManagement[T any](ctx context.Context, m *Manager, uuid string, lock managementLock,
	call func(drivers.ManagementInterface, *task) (T, error)) (T, error) {
	var zero T
	t, err := m.acquire(ctx, uuid, lock.mode)
	if err != nil {
		return zero, err
	}
	defer t.release(ctx)
	var mi drivers.ManagementInterface
	if lock.validate {
		mi, err = m.validatedManagement(ctx, t)
	} else {
		mi, err = m.management(t)
	}
	if err != nil {
		return zero, err
	}
	return call(mi, t)
}

// managementDo is withManagement for calls that only succeed or fail.
func (m *Manager) managementDo(ctx context.Context, uuid string, lock managementLock, call func(drivers.ManagementInterface, *task) error) error {
	_, err := withManagement(ctx, m, uuid, lock, func(mi drivers.ManagementInterface, t *task) (struct{}, error) {
		return struct{}{}, call(mi, t)
	})
	return err
}

// GetSupportedIndicators lists the node's indicators (get_supported_indicators).
func (m *Manager) GetSupportedIndicators(ctx context.Context, _ string, uuid, component string) (map[string]map[string]rpc.Indicator, error) {
	return withManagement(ctx, m, uuid, sharedValidated, func(mi drivers.ManagementInterface, t *task) (map[string]map[string]rpc.Indicator, error) {
		got, err := mi.GetSupportedIndicators(ctx, t, component)
		if err != nil {
			return nil, err
		}
		out := make(map[string]map[string]rpc.Indicator, len(got))
		for comp, inds := range got {
			out[comp] = make(map[string]rpc.Indicator, len(inds))
			for name, ind := range inds {
				out[comp][name] = rpc.Indicator{ReadOnly: ind.ReadOnly, States: ind.States}
			}
		}
		return out, nil
	})
}

// GetIndicatorState reads one indicator (get_indicator_state).
func (m *Manager) GetIndicatorState(ctx context.Context, _ string, uuid, component, indicator string) (string, error) {
	return withManagement(ctx, m, uuid, sharedValidated, func(mi drivers.ManagementInterface, t *task) (string, error) {
		return mi.GetIndicatorState(ctx, t, component, indicator)
	})
}

// SetIndicatorState sets one indicator (set_indicator_state), under the
// node's exclusive lock.
func (m *Manager) SetIndicatorState(ctx context.Context, _ string, uuid, component, indicator, state string) error {
	return m.managementDo(ctx, uuid, exclusiveValidated, func(mi drivers.ManagementInterface, t *task) error {
		return mi.SetIndicatorState(ctx, t, component, indicator, state)
	})
}

// SetBootDevice sets the node's next (or persistent) boot device
// (set_boot_device), under the node's exclusive lock.
func (m *Manager) SetBootDevice(ctx context.Context, _ string, uuid, device string, persistent bool) error {
	return m.managementDo(ctx, uuid, exclusiveValidated, func(mi drivers.ManagementInterface, t *task) error {
		return mi.SetBootDevice(ctx, t, device, persistent)
	})
}

// GetBootDevice reads the node's boot device (get_boot_device). Ironic
// takes the exclusive lock for it: reading talks to the BMC.
func (m *Manager) GetBootDevice(ctx context.Context, _ string, uuid string) (*rpc.BootDevice, error) {
	return withManagement(ctx, m, uuid, exclusiveValidated, func(mi drivers.ManagementInterface, t *task) (*rpc.BootDevice, error) {
		bd, err := mi.GetBootDevice(ctx, t)
		if err != nil {
			return nil, err
		}
		out := &rpc.BootDevice{Persistent: bd.Persistent}
		if bd.Device != "" {
			d := bd.Device
			out.BootDevice = &d
		}
		return out, nil
	})
}

// GetSupportedBootDevices lists the boot devices the node's management
// interface accepts (get_supported_boot_devices): shared lock, and, as in
// Ironic, no validation.
func (m *Manager) GetSupportedBootDevices(ctx context.Context, _ string, uuid string) ([]string, error) {
	return withManagement(ctx, m, uuid, sharedUnvalidated, func(mi drivers.ManagementInterface, t *task) ([]string, error) {
		devs, err := mi.GetSupportedBootDevices(ctx, t)
		if err != nil {
			return nil, err
		}
		if devs == nil {
			devs = []string{}
		}
		return devs, nil
	})
}

// InjectNMI injects a non-maskable interrupt (inject_nmi), under the
// node's exclusive lock.
func (m *Manager) InjectNMI(ctx context.Context, _ string, uuid string) error {
	return m.managementDo(ctx, uuid, exclusiveValidated, func(mi drivers.ManagementInterface, t *task) error {
		return mi.InjectNMI(ctx, t)
	})
}
