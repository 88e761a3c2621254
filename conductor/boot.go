package conductor

import (
	"context"
	"fmt"
	"reflect"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
)

// ChangeNodeBootMode is change_node_boot_mode: under the node's exclusive
// lock the management interface is validated and last_error cleared, then
// a worker changes the boot mode (conductor.utils.node_change_boot_mode).
// What the driver refuses, an unsupported operation included, is recorded
// in the node's last_error rather than returned, as in Ironic.
func (m *Manager) ChangeNodeBootMode(ctx context.Context, _ string, uuid, newState string) error {
	return m.spawnManagementChange(ctx, uuid, "changing node boot mode", func(ctx context.Context, t *task, mi drivers.ManagementInterface) {
		m.nodeChangeBootMode(ctx, t, mi, newState)
	})
}

// ChangeNodeSecureBoot is change_node_secure_boot, the same for the UEFI
// secure boot state (conductor.utils.node_change_secure_boot).
func (m *Manager) ChangeNodeSecureBoot(ctx context.Context, _ string, uuid string, newState bool) error {
	return m.spawnManagementChange(ctx, uuid, "changing node secure boot", func(ctx context.Context, t *task, mi drivers.ManagementInterface) {
		m.nodeChangeSecureBoot(ctx, t, mi, newState)
	})
}

// spawnManagementChange locks and validates the node, clears last_error
// and hands the task to a worker running fn. When no worker is free the
// node records it in last_error (Ironic's _spawn_error_handler) and the
// call fails with NoFreeConductorWorker.
func (m *Manager) spawnManagementChange(ctx context.Context, uuid, operation string, fn func(context.Context, *task, drivers.ManagementInterface)) error {
	t, err := m.acquire(ctx, uuid, exclusiveLock)
	if err != nil {
		return err
	}
	mi, err := m.validatedManagement(ctx, t)
	if err == nil {
		t.node.LastError = nil
		err = t.Save(ctx)
	}
	if err != nil {
		t.release(ctx)
		return err
	}
	if !m.tryWorker() {
		t.record(ctx, "No free conductor workers available", historyConductor, true)
		if err := t.Save(ctx); err != nil {
			m.log.ErrorContext(ctx, "recording the lack of workers", "node", uuid, "error", err)
		}
		t.release(ctx)
		m.log.WarnContext(ctx, "no free conductor workers available", "operation", operation, "node", uuid)
		return ironic.Errorf(ironic.NoFreeConductorWorker, "Requested action cannot be performed due to lack of free conductor workers.")
	}
	m.runReserved(ctx, t, func(ctx context.Context, t *task) { fn(ctx, t, mi) })
	return nil
}

func (m *Manager) nodeChangeBootMode(ctx context.Context, t *task, mi drivers.ManagementInterface, target string) {
	cur, err := mi.GetBootMode(ctx, t)
	if err != nil {
		m.log.WarnContext(ctx, "detecting the boot mode while changing it failed", "node", t.node.UUID, "error", err)
		cur = ""
	}
	if cur != "" && cur == target {
		m.log.InfoContext(ctx, "target and current boot mode are identical, nothing to change", "node", t.node.UUID, "boot_mode", target)
		return
	}
	if err := mi.SetBootMode(ctx, t, target); err != nil {
		m.log.ErrorContext(ctx, "changing the boot mode failed", "node", t.node.UUID, "boot_mode", target, "error", err)
		// Ironic's message lacks the closing quote; clients see it so.
		msg := fmt.Sprintf("Failed to change boot mode to '%s: %s", target, err)
		t.node.LastError = &msg
	} else {
		m.log.InfoContext(ctx, "changed boot mode", "node", t.node.UUID, "boot_mode", target)
		mode := target
		t.node.BootMode = &mode
	}
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving the node after a boot mode change", "node", t.node.UUID, "error", err)
	}
}

func (m *Manager) nodeChangeSecureBoot(ctx context.Context, t *task, mi drivers.ManagementInterface, target bool) {
	cur, err := mi.GetSecureBootState(ctx, t)
	if err != nil {
		m.log.WarnContext(ctx, "detecting the secure boot state while changing it failed", "node", t.node.UUID, "error", err)
	} else if cur == target {
		m.log.InfoContext(ctx, "target and current secure boot state are identical, nothing to change", "node", t.node.UUID, "secure_boot", target)
		return
	}
	if err := mi.SetSecureBootState(ctx, t, target); err != nil {
		m.log.ErrorContext(ctx, "changing the secure boot state failed", "node", t.node.UUID, "secure_boot", target, "error", err)
		msg := fmt.Sprintf("Failed to change secure_boot state to '%s': %s", pyBool(target), err)
		t.node.LastError = &msg
	} else {
		m.log.InfoContext(ctx, "changed secure boot state", "node", t.node.UUID, "secure_boot", target)
		v := target
		t.node.SecureBoot = &v
	}
	if err := t.Save(ctx); err != nil {
		m.log.ErrorContext(ctx, "saving the node after a secure boot change", "node", t.node.UUID, "error", err)
	}
}

// pyBool is Python's str() of a bool.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// cacheVendor is conductor.utils.node_cache_vendor: a node without
// properties/vendor gets the one its management interface detects.
// Errors are only logged.
func (m *Manager) cacheVendor(ctx context.Context, t *task) {
	if pyjson.Truthy(t.Properties().Get("vendor")) {
		return
	}
	vd, ok := t.driver.Interface(drivers.Management).(drivers.VendorDetector)
	if !ok || vd == nil {
		return
	}
	vendor, err := vd.DetectVendor(ctx, t)
	switch {
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
		return
	case err != nil:
		m.log.WarnContext(ctx, fmt.Sprintf("Unexpected exception when trying to detect vendor for node %s. %s: %s", t.node.UUID, errClass(err), err), "node", t.node.UUID)
		return
	case vendor == "":
		return
	}
	if err := t.upgradeLock(ctx); err != nil {
		m.log.WarnContext(ctx, fmt.Sprintf("Unexpected exception when trying to detect vendor for node %s. %s: %s", t.node.UUID, errClass(err), err), "node", t.node.UUID)
		return
	}
	t.Properties().Set("vendor", vendor)
	if err := t.Save(ctx); err != nil {
		m.log.WarnContext(ctx, "caching the vendor", "node", t.node.UUID, "error", err)
		return
	}
	m.log.InfoContext(ctx, fmt.Sprintf("Detected vendor %s for node %s", vendor, t.node.UUID), "node", t.node.UUID)
}

// cacheBIOSSettings is conductor.utils.node_cache_bios_settings: the BIOS
// interface refreshes the node's cached settings; failures are only
// logged.
func (m *Manager) cacheBIOSSettings(ctx context.Context, t *task) {
	bios, err := iface[drivers.BIOSInterface](t, drivers.BIOS, "bios")
	if err != nil {
		return
	}
	err = bios.CacheBIOSSettings(ctx, t)
	switch {
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
		m.log.WarnContext(ctx, fmt.Sprintf("BIOS settings are not supported for node %s, skipping", t.node.UUID), "node", t.node.UUID)
	case err != nil:
		m.log.ErrorContext(ctx, fmt.Sprintf("Caching of bios settings failed on node %s.", t.node.UUID), "node", t.node.UUID, "error", err)
	}
}

// cacheBootMode is conductor.utils.node_cache_boot_mode: the boot mode and
// secure boot state the management interface reports (nil when it can't
// tell) are recorded on the node when they changed. Errors are only
// logged.
func (m *Manager) cacheBootMode(ctx context.Context, t *task) {
	mi, ok := t.driver.Interface(drivers.Management).(drivers.ManagementInterface)
	if !ok || mi == nil {
		return
	}
	typ := reflect.TypeOf(mi)
	if _, none := m.noBootMode.Load(typ); none {
		return
	}
	var mode *string
	bm, err := mi.GetBootMode(ctx, t)
	unsupported := ironic.IsClass(err, ironic.UnsupportedDriverExtension)
	switch {
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
	case err != nil:
		m.log.WarnContext(ctx, fmt.Sprintf("Unexpected exception when trying to detect boot_mode for node %s. %s: %s", t.node.UUID, errClass(err), err), "node", t.node.UUID)
		return
	case bm != "":
		mode = &bm
	}
	var secure *bool
	sb, err := mi.GetSecureBootState(ctx, t)
	switch {
	case ironic.IsClass(err, ironic.UnsupportedDriverExtension):
	case err != nil:
		m.log.WarnContext(ctx, fmt.Sprintf("Unexpected exception when trying to detect secure_boot state for node %s. %s: %s", t.node.UUID, errClass(err), err), "node", t.node.UUID)
		return
	default:
		secure = &sb
	}
	if unsupported && secure == nil {
		// An implementation without boot mode support says so for every
		// node: the power sync of 10,000 nodes needn't ask 20,000 times.
		m.noBootMode.Store(typ, true)
	}
	if models.Deref(mode) == models.Deref(t.node.BootMode) && (mode == nil) == (t.node.BootMode == nil) &&
		(secure == nil) == (t.node.SecureBoot == nil) && models.Deref(secure) == models.Deref(t.node.SecureBoot) {
		return
	}
	if err := t.upgradeLock(ctx); err != nil {
		m.log.WarnContext(ctx, "caching boot_mode or secure_boot state", "node", t.node.UUID, "error", err)
		return
	}
	t.node.BootMode, t.node.SecureBoot = mode, secure
	if err := t.Save(ctx); err != nil {
		m.log.WarnContext(ctx, "caching boot_mode or secure_boot state", "node", t.node.UUID, "error", err)
		return
	}
	m.log.InfoContext(ctx, fmt.Sprintf("Updated boot_mode %s, secure_boot %s for node %s", pyOptStr(models.Deref(mode)), pyOptBool(secure), t.node.UUID), "node", t.node.UUID)
}

func pyOptBool(b *bool) string {
	switch {
	case b == nil:
		return "None"
	case *b:
		return "True"
	}
	return "False"
}
