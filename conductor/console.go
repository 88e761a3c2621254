package conductor

import (
	"context"
	"fmt"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
)

// historyConsole is the node history event type of console changes
// (states.CONSOLE).
const historyConsole = "console"

// console returns the node's console interface.
func (m *Manager) console(t *task) (drivers.ConsoleInterface, error) {
	ci, ok := t.driver.Interface(drivers.Console).(drivers.ConsoleInterface)
	if !ok {
		return nil, drivers.Unsupported(t, "console")
	}
	return ci, nil
}

// GetConsoleInformation tells how to reach the node's console
// (get_console_information): NodeConsoleNotEnabled while the console is
// off, else the console interface's answer, under a shared lock.
func (m *Manager) GetConsoleInformation(ctx context.Context, _ string, uuid string) (map[string]any, error) {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return nil, err
	}
	defer t.release(ctx)
	if !t.node.ConsoleEnabled {
		return nil, ironic.Errorf(ironic.NodeConsoleNotEnabled, "Console access is not enabled on node %s", t.node.UUID)
	}
	ci, err := m.console(t)
	if err != nil {
		return nil, err
	}
	if err := ci.Validate(ctx, t); err != nil {
		return nil, err
	}
	info, err := ci.GetConsole(ctx, t)
	if err != nil {
		return nil, err
	}
	if info == nil {
		info = map[string]any{}
	}
	return info, nil
}

// SetConsoleMode enables or disables the node's console (set_console_mode):
// validated under a shared lock; when the mode changes, the lock is
// upgraded, last_error cleared and a worker starts or stops the console,
// then records console_enabled, or the failure in last_error.
func (m *Manager) SetConsoleMode(ctx context.Context, _ string, uuid string, enabled bool) error {
	t, err := m.acquire(ctx, uuid, sharedLock)
	if err != nil {
		return err
	}
	handed := false
	defer func() {
		if !handed {
			t.release(ctx)
		}
	}()
	ci, err := m.console(t)
	if err != nil {
		return err
	}
	if err := ci.Validate(ctx, t); err != nil {
		return err
	}
	if enabled == t.node.ConsoleEnabled {
		op := "disabled"
		if enabled {
			op = "enabled"
		}
		m.log.InfoContext(ctx, "No console action was triggered because the console is already "+op, "node", uuid)
		return nil
	}
	if err := t.upgradeLock(ctx); err != nil {
		return err
	}
	t.node.LastError = nil
	if err := t.Save(ctx); err != nil {
		return err
	}
	handed = true
	return m.spawn(ctx, t, func(ctx context.Context, t *task) { m.setConsoleMode(ctx, t, ci, enabled) })
}

// setConsoleMode is the worker half of SetConsoleMode (_set_console_mode).
func (m *Manager) setConsoleMode(ctx context.Context, t *task, ci drivers.ConsoleInterface, enabled bool) {
	n := t.node
	var err error
	if enabled {
		err = ci.StartConsole(ctx, t)
	} else {
		err = ci.StopConsole(ctx, t)
	}
	if err != nil {
		op := "disabling"
		if enabled {
			op = "enabling"
		}
		msg := fmt.Sprintf("Error %s the console on node %s. Reason: %s", op, n.UUID, err)
		m.log.ErrorContext(ctx, msg, "node", n.UUID)
		t.record(ctx, msg, historyConsole, true)
	} else {
		n.ConsoleEnabled = enabled
		n.LastError = nil
	}
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving the console mode", "node", n.UUID, "error", err)
	}
}
