package redfish

import (
	"context"
	"fmt"
	"strings"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/internal/pyjson"
	"github.com/goironic/ironic/states"
	"github.com/stmcginnis/gofish/schemas"
)

// Ironic's redfish management maps (ironic/drivers/modules/redfish/management.py).
var (
	bootDeviceMap = map[string]string{
		"Pxe": drivers.BootDevicePXE, "Hdd": drivers.BootDeviceDisk,
		"Cd": drivers.BootDeviceCDROM, "BiosSetup": drivers.BootDeviceBIOS,
	}
	bootDeviceMapRev = map[string]string{
		drivers.BootDevicePXE: "Pxe", drivers.BootDeviceDisk: "Hdd",
		drivers.BootDeviceCDROM: "Cd", drivers.BootDeviceBIOS: "BiosSetup",
	}
	// bootDeviceMapRevCompat also reads the sushy constants older
	// releases stored in driver_internal_info/redfish_boot_device.
	bootDeviceMapRevCompat = map[string]string{
		drivers.BootDevicePXE: "Pxe", drivers.BootDeviceDisk: "Hdd",
		drivers.BootDeviceCDROM: "Cd", drivers.BootDeviceBIOS: "BiosSetup",
		"hdd": "Hdd", "cd": "Cd", "bios setup": "BiosSetup",
	}
	bootModeMap    = map[string]string{"UEFI": drivers.BootModeUEFI, "Legacy": drivers.BootModeBIOS}
	bootModeMapRev = map[string]string{drivers.BootModeUEFI: "UEFI", drivers.BootModeBIOS: "Legacy"}
	indicatorMap   = map[string]string{
		"Lit": drivers.IndicatorOn, "Off": drivers.IndicatorOff,
		"Blinking": drivers.IndicatorBlinking, "Unknown": drivers.IndicatorUnknown,
	}
	indicatorMapRev = map[string]string{
		drivers.IndicatorOn: "Lit", drivers.IndicatorOff: "Off",
		drivers.IndicatorBlinking: "Blinking", drivers.IndicatorUnknown: "Unknown",
	}
)

// Management is the "redfish" management interface.
type Management struct {
	drivers.ManagementBase
	base
}

// GetSupportedBootDevices returns pxe, disk, cdrom and bios.
func (*Management) GetSupportedBootDevices(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootDevicePXE, drivers.BootDeviceDisk, drivers.BootDeviceCDROM, drivers.BootDeviceBIOS}, nil
}

// setBootDevice is management._set_boot_device: BootSourceOverrideEnabled
// is only sent when it changes (Supermicro BMCs always get it), and a BMC
// refusing a persistent device gets a one-time one, which the power
// interface sets again before every power on
// (driver_internal_info/redfish_boot_device).
func setBootDevice(ctx context.Context, c *core, task drivers.Task, sys *system, device string, persistent bool) error {
	desired := "Once"
	if persistent {
		desired = "Continuous"
	}
	enabled := desired
	if vendor, _ := task.Properties().Get("vendor").(string); !strings.EqualFold(vendor, "supermicro") {
		if _, current, _ := sys.boot(); current == desired {
			enabled = ""
		}
	}
	err := sys.setBootOptions(ctx, device, enabled, "")
	if err == nil || !isSushy(err) || enabled != "Continuous" {
		return err
	}
	c.log.DebugContext(ctx, "falling back to one-time boot settings", "node", task.NodeUUID(), "error", err)
	if err := sys.setBootOptions(ctx, device, "Once", ""); err != nil {
		return err
	}
	c.log.WarnContext(ctx, fmt.Sprintf("Could not set persistent boot device to %s for node %s, using one-time boot device instead",
		device, task.NodeUUID()), "node", task.NodeUUID())
	task.DriverInternalInfo().Set("redfish_boot_device", bootDeviceMap[device])
	return task.Save(ctx)
}

// restoreBootDevice is RedfishManagement.restore_boot_device, called by
// the power interface before powering on: the one-time boot device that
// stands in for a persistent one is set again; a failure is only logged.
func restoreBootDevice(ctx context.Context, c *core, task drivers.Task, sys *system) error {
	if drv := task.Driver(); drv == nil || drv.Management == nil {
		return nil
	} else if _, ok := drv.Management.(*Management); !ok {
		return nil
	}
	device, _ := task.DriverInternalInfo().Get("redfish_boot_device").(string)
	if device == "" {
		return nil
	}
	rf, ok := bootDeviceMapRevCompat[strings.ToLower(device)]
	if !ok {
		c.log.ErrorContext(ctx, "BUG: unexpected redfish_boot_device", "device", device, "node", task.NodeUUID())
		return ironic.Errorf(ironic.IronicException, "'%s'", strings.ToLower(device))
	}
	if err := setBootDevice(ctx, c, task, sys, rf, false); err != nil {
		if !isSushy(err) {
			return err
		}
		c.log.WarnContext(ctx, fmt.Sprintf("Unable to recover boot device %s for node %s, relying on the pre-configured boot order. Error: %s",
			device, task.NodeUUID(), err), "node", task.NodeUUID())
	}
	return nil
}

// SetBootDevice sets the boot device (BootSourceOverrideTarget), once or
// persistently.
func (m *Management) SetBootDevice(ctx context.Context, task drivers.Task, device string, persistent bool) error {
	task.DriverInternalInfo().Delete("redfish_boot_device")
	if err := task.Save(ctx); err != nil {
		return err
	}
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	rf, ok := bootDeviceMapRev[device]
	if !ok {
		return drivers.InvalidParameter("Invalid boot device %s specified.", device)
	}
	if err := setBootDevice(ctx, m.c, task, sys, rf, persistent); err != nil {
		if !isSushy(err) {
			return err
		}
		msg := fmt.Sprintf("Redfish set boot device failed for node %s. Error: %s", task.NodeUUID(), err)
		m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return redfishError("%s", msg)
	}
	return nil
}

// GetBootDevice reads BootSourceOverrideTarget and whether it is
// Continuous.
func (m *Management) GetBootDevice(ctx context.Context, task drivers.Task) (drivers.BootDevice, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return drivers.BootDevice{}, err
	}
	defer done()
	target, enabled, _ := sys.boot()
	out := drivers.BootDevice{Device: bootDeviceMap[target]}
	switch enabled {
	case "Continuous":
		t := true
		out.Persistent = &t
	case "Once":
		f := false
		out.Persistent = &f
	}
	return out, nil
}

// GetSupportedBootModes returns uefi and bios.
func (*Management) GetSupportedBootModes(context.Context, drivers.Task) ([]string, error) {
	return []string{drivers.BootModeUEFI, drivers.BootModeBIOS}, nil
}

// SetBootMode sets BootSourceOverrideMode. A BMC that refuses and shows
// no mode at all can't override it: UnsupportedDriverExtension.
func (m *Management) SetBootMode(ctx context.Context, task drivers.Task, mode string) error {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	err = sys.setBootOptions(ctx, "", "", bootModeMapRev[mode])
	if err == nil || !isSushy(err) {
		return err
	}
	msg := fmt.Sprintf("Setting boot mode to %s failed for node %s. Error: %s", mode, task.NodeUUID(), err)
	m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
	if !sys.bootModeSet() {
		return drivers.Unsupported(task, "set_boot_mode")
	}
	return redfishError("%s", msg)
}

// GetBootMode reads BootSourceOverrideMode ("" when unknown).
func (m *Management) GetBootMode(ctx context.Context, task drivers.Task) (string, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	_, _, mode := sys.boot()
	return bootModeMap[mode], nil
}

// InjectNMI resets the system with Nmi.
func (m *Management) InjectNMI(ctx context.Context, task drivers.Task) error {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	if err := sys.resetSystem(ctx, "Nmi"); err != nil {
		if !isSushy(err) {
			return err
		}
		msg := fmt.Sprintf("Redfish inject NMI failed for node %s. Error: %s", task.NodeUUID(), err)
		m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
		return redfishError("%s", msg)
	}
	return nil
}

// DetectVendor returns the system's Manufacturer.
func (m *Management) DetectVendor(ctx context.Context, task drivers.Task) (string, error) {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return "", err
	}
	defer done()
	return sys.manufacturer(), nil
}

// secureBoot is the system's SecureBoot resource (sushy's
// system.secure_boot); a system without one is MissingAttributeError.
func (s *system) secureBoot(ctx context.Context) (*resource[schemas.SecureBoot], error) {
	p, err := subPath(s.path, s.raw, "SecureBoot")
	if err != nil {
		return nil, err
	}
	r, err := fetch[schemas.SecureBoot](ctx, s.b, p)
	if err != nil {
		return nil, err
	}
	return r, require(p, r.raw, "Id")
}

// withSecureBoot runs fn on the node's system and its SecureBoot
// resource, or the error reading it; a BMC without one makes op
// unsupported (logged as unsupported says, if it says anything).
func (m *Management) withSecureBoot(ctx context.Context, task drivers.Task, op, unsupported string,
	fn func(sys *system, sb *resource[schemas.SecureBoot], err error) error,
) error {
	sys, done, err := m.c.getSystem(ctx, task)
	if err != nil {
		return err
	}
	defer done()
	sb, err := sys.secureBoot(ctx)
	if isKind(err, kindMissingAttribute) {
		if unsupported != "" {
			m.c.log.ErrorContext(ctx, unsupported, "node", task.NodeUUID())
		}
		return drivers.Unsupported(task, op)
	}
	return fn(sys, sb, err)
}

// GetSecureBootState reads SecureBootEnable.
func (m *Management) GetSecureBootState(ctx context.Context, task drivers.Task) (bool, error) {
	var v bool
	err := m.withSecureBoot(ctx, task, "get_secure_boot_state", "", func(_ *system, sb *resource[schemas.SecureBoot], err error) error {
		if err != nil {
			return asFault(err)
		}
		v, _ = sb.raw.Get("SecureBootEnable").(bool)
		return nil
	})
	return v, err
}

// SetSecureBootState PATCHes SecureBootEnable, unless it already has the
// value; secure boot needs UEFI.
func (m *Management) SetSecureBootState(ctx context.Context, task drivers.Task, state bool) error {
	return m.withSecureBoot(ctx, task, "set_secure_boot_state",
		"Secure boot has been requested but the Redfish BMC does not have a SecureBoot object",
		func(sys *system, sb *resource[schemas.SecureBoot], err error) error {
			if err != nil {
				return asFault(err)
			}
			if cur, ok := sb.raw.Get("SecureBootEnable").(bool); ok && cur == state {
				m.c.log.InfoContext(ctx, fmt.Sprintf("Secure boot state for node %s is already %s", task.NodeUUID(), pyBool(state)))
				return nil
			}
			if _, _, mode := sys.boot(); mode == "Legacy" {
				msg := "Configuring secure boot requires UEFI for node " + task.NodeUUID()
				m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
				return redfishError("%s", msg)
			}
			if _, err := sys.b.patch(ctx, sb.path, pyjson.DictOf("SecureBootEnable", state), ""); err != nil {
				if !isSushy(err) {
					return err
				}
				msg := fmt.Sprintf("Failed to set secure boot state on node %s to %s: %s", task.NodeUUID(), pyBool(state), err)
				m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
				return redfishError("%s", msg)
			}
			return nil
		})
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// resetKeys is RedfishManagement._reset_keys.
func (m *Management) resetKeys(ctx context.Context, task drivers.Task, resetType string) error {
	return m.withSecureBoot(ctx, task, "reset_keys",
		"Resetting secure boot keys has been requested but the Redfish BMC does not have a SecureBoot object",
		func(sys *system, sb *resource[schemas.SecureBoot], err error) error {
			if err == nil {
				err = postAction(ctx, sys.b, sb.path, sb.raw, "#SecureBoot.ResetKeys", "ResetKeysType", resetType,
					[]string{"ResetAllKeysToDefault", "DeleteAllKeys", "DeletePK"}, "reset_type")
			}
			if err != nil {
				if !isSushy(err) {
					return err
				}
				msg := fmt.Sprintf("Failed to reset secure boot keys on node %s: %s", task.NodeUUID(), err)
				m.c.log.ErrorContext(ctx, msg, "node", task.NodeUUID())
				return redfishError("%s", msg)
			}
			return nil
		})
}

// postAction POSTs {param: value} to a resource's action, once value is
// checked against the action's allowable values (all of enum when it
// lists none).
func postAction(ctx context.Context, b *bmc, path string, doc *pyjson.Dict, action, param, value string, enum []string, paramName string) error {
	act, ok := pyjson.AsDict(mustField(doc, "Actions", action))
	if !ok {
		return missingAction(action, path)
	}
	valid := allowed(act.Get(param+"@Redfish.AllowableValues"), enum)
	found := false
	for _, v := range valid {
		found = found || v == value
	}
	if !found {
		return invalidValue(paramName, value, validValues(valid))
	}
	target, ok := act.Get("target").(string)
	if !ok {
		return missingAttribute("Actions/"+action+"/target", path)
	}
	_, err := b.post(ctx, target, pyjson.DictOf(param, value))
	return err
}

// Steps declares the management clean and deploy steps.
func (*Management) Steps() []drivers.Step {
	var out []drivers.Step
	for _, name := range []string{"clear_secure_boot_keys", "reset_secure_boot_keys_to_default"} {
		out = append(out,
			drivers.Step{Phase: drivers.CleanStep, Interface: drivers.Management, Name: name, RequiresRamdisk: true},
			drivers.Step{Phase: drivers.DeployStep, Interface: drivers.Management, Name: name})
	}
	return out
}

// ExecuteStep runs a management step.
func (m *Management) ExecuteStep(ctx context.Context, task drivers.Task, name string, _ *pyjson.Dict) (states.Provision, error) {
	switch name {
	case "reset_secure_boot_keys_to_default":
		if err := m.resetKeys(ctx, task, "ResetAllKeysToDefault"); err != nil {
			return "", err
		}
		m.c.log.InfoContext(ctx, "Secure boot keys have been reset to their defaults on node "+task.NodeUUID())
		return "", nil
	case "clear_secure_boot_keys":
		if err := m.resetKeys(ctx, task, "DeleteAllKeys"); err != nil {
			return "", err
		}
		m.c.log.InfoContext(ctx, "Secure boot keys have been removed from node "+task.NodeUUID())
		return "", nil
	}
	return "", drivers.InvalidParameter("Step %s is not supported by this interface.", name)
}
