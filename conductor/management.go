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

// GetSupportedIndicators lists the node's indicators (get_supported_indicators).
func (m *Manager) GetSupportedIndicators(ctx context.Context, _ string, uuid, component string) (map[string]map[string]rpc.Indicator, error) {
	t, err := m.acquire(ctx, uuid, true)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	mi, err := m.management(t)
	if err != nil {
		return nil, err
	}
	if err := mi.Validate(ctx, t); err != nil {
		return nil, err
	}
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
}

// GetIndicatorState reads one indicator (get_indicator_state).
func (m *Manager) GetIndicatorState(ctx context.Context, _ string, uuid, component, indicator string) (string, error) {
	t, err := m.acquire(ctx, uuid, true)
	if err != nil {
		return "", err
	}
	defer t.release(ctx)
	mi, err := m.management(t)
	if err != nil {
		return "", err
	}
	if err := mi.Validate(ctx, t); err != nil {
		return "", err
	}
	return mi.GetIndicatorState(ctx, t, component, indicator)
}

// SetIndicatorState sets one indicator (set_indicator_state), under the
// node's exclusive lock.
func (m *Manager) SetIndicatorState(ctx context.Context, _ string, uuid, component, indicator, state string) error {
	t, err := m.acquire(ctx, uuid, false)
	if err != nil {
		return err
	}
	defer t.release(ctx)
	mi, err := m.management(t)
	if err != nil {
		return err
	}
	if err := mi.Validate(ctx, t); err != nil {
		return err
	}
	return mi.SetIndicatorState(ctx, t, component, indicator, state)
}
